// Clustered tasks over the submit RPC transport (docs/remote_submission.md): submit_tasks
// hands plain tasks of an app to the clusterer, as tools/submit_tasks does, through the
// same library call (tools/lib/submit_tasks.h) with the account recorded as their owner.
// Needs a grant for the app; all tasks or none.
#pragma once

#include "sched/lib/submit/submit_session.h"

namespace tharsis {

Result<std::string> submit_tasks_operation(SubmitDocument& doc, SubmitSession& session);

}  // namespace tharsis
