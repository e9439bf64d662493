// Implementation of sched/lib/rpc/report_step.h.
#include "sched/lib/rpc/report_step.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "db/host_store.h"
#include "db/result_store.h"
#include "db/send_store.h"
#include "lib/log.h"
#include "sched/lib/rpc/host_plan.h"
#include "sched/lib/rpc/report_plan.h"

namespace tharsis {
namespace {

// The reasons are asked of the database for the logged examples only.
void log_refused_reports(Database& db, const std::vector<std::string>& names, int64_t host_id) {
  std::vector<std::optional<HostResultRow>> examples;
  for (size_t i = 0; i < names.size() && i < kLoggedRefusedExamples; ++i) {
    examples.push_back(fetch_host_result_by_name(db, names[i]));
  }
  auto log = refused_reports_log(names, examples, host_id);
  if (!log) return;
  if (log->warning) {
    log_warning(log->line);
  } else {
    log_info(log->line);
  }
}

}  // namespace

std::vector<NamedReport> named_reports(const SchedulerRequest& req, double host_p_fpops) {
  std::map<std::string, const ReportedResult*> first;
  for (const auto& reported : req.results) first.emplace(reported.name, &reported);
  std::vector<NamedReport> reports;
  for (const auto& name : distinct_report_names(req))
    reports.push_back({name, report_of(*first.at(name), host_p_fpops)});
  return reports;
}

void settle_reports(Database& db, const SchedulerRequest& req, const std::vector<std::string>& taken_names,
                    HostRow& host, int default_daily_quota) {
  int errors = 0, successes = 0;
  std::vector<std::string> refused;
  std::set<std::string> taken(taken_names.begin(), taken_names.end());
  for (const auto& reported : req.results) {
    if (taken.erase(reported.name)) {
      (reported_success(reported) ? successes : errors) += 1;
    } else {
      refused.push_back(reported.name);
    }
  }
  log_refused_reports(db, refused, host.id);
  host.max_results_day = quota_after_reports(host.max_results_day, errors, successes, default_daily_quota);
}

void take_reports(Database& db, const SchedulerRequest& req, RecordedHost& host, bool asks_for_work,
                  int64_t now, int default_daily_quota) {
  // The workunits locked with the host row when it was read (host_step.h), else here (a
  // new host has no result to report); one statement writes them all.
  std::vector<NamedReport> reports = named_reports(req, host.row.p_fpops);
  ReportLocks locks;
  if (host.report_locks) {
    locks = std::move(*host.report_locks);
  } else if (!host.created) {
    std::vector<std::string> names;
    for (const auto& r : reports) names.push_back(r.name);
    locks = lock_workunits_of_reportable(db, names, host.row.id);
  }
  settle_reports(db, req, write_locked_reports(db, reports, locks, host.row.id, now), host.row,
                 default_daily_quota);
  if (plan_host_row_write(host.created, asks_for_work) == HostRowWrite::WithReports) {
    update_host(db, host.row, now, 0);
  }
}

}  // namespace tharsis
