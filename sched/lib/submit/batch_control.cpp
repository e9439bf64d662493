// Implementation of sched/lib/submit/batch_control.h.
#include "sched/lib/submit/batch_control.h"

#include <set>

#include "db/batch_job_queries.h"
#include "db/batch_store.h"
#include "sched/lib/submit/submit_access.h"
#include "sched/lib/submit/submit_reply.h"

namespace tharsis {
namespace {

const std::string kSuccess = "<success>1</success>\n";

// Runs `change` on the owned batch, locked, in one transaction.
template <class Change>
Result<std::string> change_owned_batch(const SubmitDocument& doc, SubmitSession& s, Change change) {
  auto user = authenticate_with_grant(doc, s.db);
  if (!user.ok()) return make_error(user.error());
  return s.db.transaction([&](Database& d) -> Result<std::string> {
    auto batch = owned_batch(doc, d, *user, /*for_update=*/true);
    if (!batch.ok()) return make_error(batch.error());
    return change(d, *batch);
  });
}

}  // namespace

Result<std::string> abort_batch_operation(SubmitDocument& doc, SubmitSession& s) {
  return change_owned_batch(doc, s, [&](Database& d, const BatchRow& batch) -> Result<std::string> {
    if (batch.state == BatchState::Retired) return make_error("batch is retired");
    cancel_batch_jobs(d, batch.id, s.now);
    mark_batch_aborted(d, batch.id, s.now);
    return kSuccess;
  });
}

Result<std::string> retire_batch_operation(SubmitDocument& doc, SubmitSession& s) {
  return change_owned_batch(doc, s, [&](Database& d, const BatchRow& batch) -> Result<std::string> {
    // BOINC: the submitter is done with it; jobs still unfinished are cancelled.
    cancel_batch_jobs(d, batch.id, s.now);
    mark_batch_retired(d, batch.id);
    return kSuccess;
  });
}

Result<std::string> set_expire_time_operation(SubmitDocument& doc, SubmitSession& s) {
  auto expire = optional_number(doc, "expire_time");
  if (!expire.ok()) return make_error(expire.error());
  return change_owned_batch(doc, s, [&](Database& d, const BatchRow& batch) -> Result<std::string> {
    set_batch_expire_time(d, batch.id, *expire);
    return kSuccess;
  });
}

Result<std::string> abort_jobs_operation(SubmitDocument& doc, SubmitSession& s) {
  auto user = authenticate_with_grant(doc, s.db);
  if (!user.ok()) return make_error(user.error());
  auto names = repeated_names(doc, "job_name", s.limits.max_names);
  if (!names.ok()) return make_error(names.error());
  if (names->empty()) return make_error("no <job_name> given");
  return s.db.transaction([&](Database& d) -> Result<std::string> {
    std::vector<BatchJob> jobs = fetch_jobs_by_name(d, *names);
    std::set<std::string> found;
    std::set<int64_t> batch_ids;
    for (const auto& job : jobs) {
      found.insert(job.name);
      if (job.batch == 0) return make_error("job " + job.name + " is not part of a batch");
      batch_ids.insert(job.batch);
    }
    for (const auto& name : *names) {
      if (!found.count(name)) return make_error("no job " + name);
    }
    for (const BatchRow& batch : fetch_batches(d, std::vector<int64_t>(batch_ids.begin(), batch_ids.end()))) {
      if (batch.user_id != user->id) return make_error("not owner of batch");
      batch_ids.erase(batch.id);
    }
    if (!batch_ids.empty()) return make_error("not owner of batch");  // a batch row is missing
    std::vector<int64_t> ids;
    for (const auto& job : jobs) ids.push_back(job.id);
    cancel_jobs(d, ids, s.now);
    return kSuccess;
  });
}

}  // namespace tharsis
