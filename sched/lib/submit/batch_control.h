// The submit RPC operations that change batches: abort_batch, abort_jobs, retire_batch,
// set_expire_time. Only the owner may; each is one transaction; aborting cancels the
// jobs not yet assimilated (db/batch_job_queries.h), which the daemons then end.
#pragma once

#include "sched/lib/submit/submit_session.h"

namespace tharsis {

Result<std::string> abort_batch_operation(SubmitDocument& doc, SubmitSession& session);
Result<std::string> abort_jobs_operation(SubmitDocument& doc, SubmitSession& session);
Result<std::string> retire_batch_operation(SubmitDocument& doc, SubmitSession& session);
Result<std::string> set_expire_time_operation(SubmitDocument& doc, SubmitSession& session);

}  // namespace tharsis
