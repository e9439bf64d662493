// The settle step of clustered jobs (docs/reclustering.md): when the assimilator takes a workunit
// that carries cluster tasks, in the same transaction that sets it DONE, each task IN_JOB
// of it becomes DONE (with its output) or WAITING again for the clusterer to regroup, as
// the policy says (daemons/clusterer/clusterer_rules.h settle_job); the cluster_job row
// becomes SETTLED with how it ended, and a failure_stat row records the app's new α/β
// estimate and cluster size. The LIVE -> SETTLED guard and the assimilator's DONE commit
// make it exactly once: killed anywhere, either all of it happened or none.
#pragma once

#include "daemons/assimilator/lib/assimilator_pass.h"

namespace tharsis {

// Settles `job`, the workunit's LIVE cluster job, locked by the open transaction. The task
// report is read from the canonical result's first output file; no canonical result, or
// an output that is missing, unreadable or does not list exactly the job's tasks, is a job
// failure. Throws StaleRow if the job or a task moved meanwhile (the transaction rolls back).
Status settle_cluster_job_tasks(Database& db, const ProjectConfig& config, const WorkunitRow& wu,
                                const ClusterJobRow& job, const ResultRow* canonical, int64_t now);

// `inner` (e.g. results_store_handler), then the settle step for a workunit that is a live
// clustered job. Which workunits of a batch are is read for the whole batch in one
// statement with its workunits (live_cluster_jobs.h): the others cost no statement here.
AssimilationHandler cluster_settling_handler(const ProjectConfig& config, AssimilationHandler inner);

}  // namespace tharsis
