// Implementation of sched/lib/rpc/authenticate.h.
#include "sched/lib/rpc/authenticate.h"

#include "db/host_store.h"
#include "db/user_store.h"
#include "sched/lib/rpc/authenticate_plan.h"
#include "sched/lib/rpc/report_plan.h"

namespace tharsis {

Authentication authenticate(Database& db, const SchedulerRequest& req, const std::string& code_sign_public) {
  Authentication out;
  if (auto refusal = seqno_refusal(req.rpc_seqno)) {
    out.refusal = *refusal;
    return out;
  }
  std::optional<UserRow> user;
  if (req.hostid > 0) {
    AccountAndHost read = lock_account_host_and_reported_workunits(db, req.authenticator, req.hostid,
                                                                   distinct_report_names(req));
    user = std::move(read.user);
    out.named_host = std::move(read.locked);
  } else {
    user = fetch_user_by_authenticator(db, req.authenticator);
  }
  if (auto refusal = account_refusal(req.authenticator, user.has_value())) {
    out.refusal = *refusal;
    out.named_host.reset();
    return out;
  }
  out.user = std::move(user);
  out.send_code_sign_key = client_needs_code_sign_key(req.code_sign_key, code_sign_public);
  return out;
}

}  // namespace tharsis
