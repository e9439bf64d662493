// The submit RPC operations that read batches and jobs: query_batches, query_batch,
// query_job, query_completed_job. Only the owner of a batch sees it. Batch figures come
// from the batch row the assimilator keeps current; a batch's job list is one index
// range of workunit(batch).
#pragma once

#include "sched/lib/submit/submit_session.h"

namespace tharsis {

Result<std::string> query_batches_operation(SubmitDocument& doc, SubmitSession& session);
Result<std::string> query_batch_operation(SubmitDocument& doc, SubmitSession& session);
Result<std::string> query_job_operation(SubmitDocument& doc, SubmitSession& session);
Result<std::string> query_completed_job_operation(SubmitDocument& doc, SubmitSession& session);

}  // namespace tharsis
