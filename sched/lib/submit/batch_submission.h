// The submit RPC operations that create work (docs/remote_submission.md): create_batch,
// submit_batch (one transaction: all jobs or none, through create_work's set-based path),
// estimate_batch and get_templates. Each checks the account and its grant first.
#pragma once

#include "sched/lib/submit/submit_session.h"

namespace tharsis {

Result<std::string> create_batch_operation(SubmitDocument& doc, SubmitSession& session);
Result<std::string> submit_batch_operation(SubmitDocument& doc, SubmitSession& session);
Result<std::string> estimate_batch_operation(SubmitDocument& doc, SubmitSession& session);
Result<std::string> get_templates_operation(SubmitDocument& doc, SubmitSession& session);

}  // namespace tharsis
