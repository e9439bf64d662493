// Who may do what over submit_rpc (BOINC's check_remote_submit_permissions): the account
// is found by <authenticator>; submitting to an app needs a user_submit row with
// submit_all or a user_submit_app row for that app; the other operations need a
// user_submit row; a batch is touched only by its owner. The decisions are pure
// functions; the checks load what they need.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "db/batch_store.h"
#include "db/rows.h"
#include "db/submit_grant_store.h"
#include "sched/lib/submit/submit_session.h"

namespace tharsis {

// Pure decisions.
bool may_submit_to_app(const std::optional<SubmitGrant>& grant, bool app_listed);
// An error message when `new_jobs` more would pass the account's limit of jobs in
// progress (0 = none), else nullopt.
std::optional<std::string> jobs_in_progress_violation(const SubmitGrant& grant, int64_t in_progress,
                                                      int64_t new_jobs);

// The account whose authenticator the request carries. Errors: none given, no such account.
Result<UserRow> authenticate_submitter(const SubmitDocument& doc, Database& db);
// The account, which must have a user_submit row (BOINC's "file access").
Result<UserRow> authenticate_with_grant(const SubmitDocument& doc, Database& db);
// The account, which must be allowed to submit to `app_id`.
Result<UserRow> authenticate_for_app(const SubmitDocument& doc, Database& db, int64_t app_id);

// The batch named by the request (<batch_id> or <batch_name>), owned by `user`.
// Errors: not specified, no such batch, not the owner.
Result<BatchRow> owned_batch(const SubmitDocument& doc, Database& db, const UserRow& user,
                             bool for_update = false);

}  // namespace tharsis
