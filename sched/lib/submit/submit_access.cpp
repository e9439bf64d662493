// Implementation of sched/lib/submit/submit_access.h.
#include "sched/lib/submit/submit_access.h"

#include "db/user_store.h"

namespace tharsis {

bool may_submit_to_app(const std::optional<SubmitGrant>& grant, bool app_listed) {
  if (!grant) return false;
  return grant->submit_all || app_listed;
}

std::optional<std::string> jobs_in_progress_violation(const SubmitGrant& grant, int64_t in_progress,
                                                      int64_t new_jobs) {
  if (grant.max_jobs_in_progress <= 0) return std::nullopt;
  if (in_progress + new_jobs <= grant.max_jobs_in_progress) return std::nullopt;
  return "limit on jobs in progress exceeded: " + std::to_string(in_progress) + " in progress + " +
         std::to_string(new_jobs) + " new > " + std::to_string(grant.max_jobs_in_progress);
}

Result<UserRow> authenticate_submitter(const SubmitDocument& doc, Database& db) {
  auto authenticator = request_authenticator(doc);
  if (!authenticator.ok()) return make_error(authenticator.error());
  if (authenticator->empty()) return make_error("no authenticator");
  auto user = fetch_user_by_authenticator(db, *authenticator);
  if (!user) return make_error("bad authenticator");
  return *user;
}

Result<UserRow> authenticate_with_grant(const SubmitDocument& doc, Database& db) {
  auto user = authenticate_submitter(doc, db);
  if (!user.ok()) return user;
  if (!fetch_submit_grant(db, user->id)) return make_error("no submit access");
  return user;
}

Result<UserRow> authenticate_for_app(const SubmitDocument& doc, Database& db, int64_t app_id) {
  auto user = authenticate_submitter(doc, db);
  if (!user.ok()) return user;
  auto grant = fetch_submit_grant(db, user->id);
  bool listed = grant && !grant->submit_all && has_app_grant(db, user->id, app_id);
  if (!may_submit_to_app(grant, listed)) return make_error("no submit access");
  return user;
}

Result<BatchRow> owned_batch(const SubmitDocument& doc, Database& db, const UserRow& user, bool for_update) {
  auto ref = parse_batch_ref(doc);
  if (!ref.ok()) return make_error(ref.error());
  auto batch =
      ref->id != 0 ? fetch_batch(db, ref->id, for_update) : fetch_batch_by_name(db, ref->name, for_update);
  if (!batch) return make_error("no such batch");
  if (batch->user_id != user.id) return make_error("not owner of batch");
  return *batch;
}

}  // namespace tharsis
