// Implementation of sched/lib/submit/batch_queries.h.
#include "sched/lib/submit/batch_queries.h"

#include <map>

#include "db/app_store.h"
#include "db/batch_job_queries.h"
#include "db/batch_store.h"
#include "db/result_store.h"
#include "db/workunit_store.h"
#include "lib/protocol/xml_text.h"
#include "sched/lib/submit/submit_access.h"
#include "sched/lib/submit/submit_plan.h"
#include "sched/lib/submit/submit_reply.h"

namespace tharsis {
namespace {

// BOINC's print_batch_params fields.
void add_batch_fields(std::string& out, const BatchRow& b, const std::string& app_name) {
  add_field(out, "id", b.id);
  add_field(out, "create_time", b.create_time);
  add_field(out, "expire_time", b.expire_time);
  add_field(out, "est_completion_time", b.est_completion_time);
  add_field(out, "njobs", b.njobs);
  add_field(out, "fraction_done", b.fraction_done);
  add_field(out, "nerror_jobs", b.nerror_jobs);
  add_field(out, "state", static_cast<int>(b.state));
  add_field(out, "completion_time", b.completion_time);
  add_field(out, "credit_estimate", b.credit_estimate);
  add_field(out, "credit_canonical", b.credit_canonical);
  add_field(out, "name", b.name);
  add_field(out, "app_name", app_name);
  // Tharsis: the counts behind fraction_done.
  add_field(out, "njobs_done", b.njobs_done);
  add_field(out, "njobs_in_progress", std::max(0, b.njobs - b.njobs_done - b.nerror_jobs));
}

std::string app_name_of(Database& db, int64_t app_id, std::map<int64_t, std::string>& cache) {
  auto found = cache.find(app_id);
  if (found != cache.end()) return found->second;
  auto app = fetch_app(db, app_id);
  return cache[app_id] = app ? app->name : "none";
}

// The job named by <job_name> (or <job_id>), whose batch `user` owns.
Result<WorkunitRow> owned_job(const SubmitDocument& doc, Database& db, const UserRow& user) {
  auto id = optional_integer(doc, "job_id");
  if (!id.ok()) return make_error(id.error());
  std::optional<WorkunitRow> wu;
  if (*id != 0) {
    wu = fetch_workunit(db, *id);
  } else {
    auto name = optional_name(doc, "job_name");
    if (!name.ok()) return make_error(name.error());
    if (name->empty()) return make_error("expected <job_id> or <job_name>");
    wu = fetch_workunit_by_name(db, *name);
  }
  if (!wu) return make_error("no such job");
  auto batch = wu->batch != 0 ? fetch_batch(db, wu->batch) : std::nullopt;
  if (!batch || batch->user_id != user.id) return make_error("not owner");
  return *wu;
}

}  // namespace

Result<std::string> query_batches_operation(SubmitDocument& doc, SubmitSession& s) {
  auto user = authenticate_with_grant(doc, s.db);
  if (!user.ok()) return make_error(user.error());
  std::map<int64_t, std::string> apps;
  std::string out;
  for (const BatchRow& batch : fetch_user_batches(s.db, user->id, /*include_retired=*/false)) {
    out += "<batch>\n";
    add_batch_fields(out, batch, app_name_of(s.db, batch.app_id, apps));
    out += "</batch>\n";
  }
  return out;
}

Result<std::string> query_batch_operation(SubmitDocument& doc, SubmitSession& s) {
  auto user = authenticate_with_grant(doc, s.db);
  if (!user.ok()) return make_error(user.error());
  auto batch = owned_batch(doc, s.db, *user);
  if (!batch.ok()) return make_error(batch.error());
  auto details = optional_integer(doc, "get_job_details");
  if (!details.ok()) return make_error(details.error());
  std::map<int64_t, std::string> apps;
  std::string out;
  add_batch_fields(out, *batch, app_name_of(s.db, batch->app_id, apps));
  std::vector<BatchJob> jobs = fetch_batch_jobs(s.db, batch->id);
  std::unordered_set<int64_t> in_progress;
  if (*details != 0) in_progress = fetch_batch_jobs_in_progress(s.db, batch->id);
  out.reserve(out.size() + jobs.size() * (*details != 0 ? 140 : 110));
  for (const BatchJob& job : jobs) {
    out += "<job>\n";
    add_field(out, "id", job.id);
    add_field(out, "name", job.name);
    add_field(out, "canonical_instance_id", job.canonical_resultid);
    if (*details != 0) {
      add_field(out, "status",
                job_status(job.canonical_resultid, job.error_mask, in_progress.count(job.id) > 0));
    }
    out += "</job>\n";
  }
  return out;
}

Result<std::string> query_job_operation(SubmitDocument& doc, SubmitSession& s) {
  auto user = authenticate_with_grant(doc, s.db);
  if (!user.ok()) return make_error(user.error());
  auto wu = owned_job(doc, s.db, *user);
  if (!wu.ok()) return make_error(wu.error());
  std::string out;
  for (const ResultRow& result : fetch_results_of_workunit(s.db, wu->id)) {
    out += "<instance>\n";
    add_field(out, "name", result.name);
    add_field(out, "id", result.id);
    add_field(out, "state", result_state_text(result));
    out += "</instance>\n";
  }
  return out;
}

Result<std::string> query_completed_job_operation(SubmitDocument& doc, SubmitSession& s) {
  auto user = authenticate_with_grant(doc, s.db);
  if (!user.ok()) return make_error(user.error());
  auto wu = owned_job(doc, s.db, *user);
  if (!wu.ok()) return make_error(wu.error());
  std::vector<ResultRow> results = fetch_results_of_workunit(s.db, wu->id);
  const ResultRow* shown = nullptr;
  std::string out = "<completed_job>\n";
  add_field(out, "error_mask", wu->error_mask);
  if (wu->canonical_resultid != 0) {
    for (const auto& r : results) {
      if (r.id == wu->canonical_resultid) shown = &r;
    }
    add_field(out, "canonical_resultid", wu->canonical_resultid);
  } else {
    // BOINC: an instance that completed, possibly with an error.
    for (const auto& r : results) {
      if (r.outcome == Outcome::Success || r.outcome == Outcome::ClientError ||
          r.outcome == Outcome::ValidateError) {
        shown = &r;
      }
    }
    if (shown) add_field(out, "error_resultid", shown->id);
  }
  if (shown) {
    add_field(out, "exit_status", shown->exit_status);
    add_field(out, "elapsed_time", shown->elapsed_time);
    add_field(out, "cpu_time", shown->cpu_time);
    add_field(out, "stderr_out", fetch_result_stderr(s.db, shown->id));
  }
  out += "</completed_job>\n";
  return out;
}

}  // namespace tharsis
