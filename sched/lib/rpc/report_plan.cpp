// Implementation of sched/lib/rpc/report_plan.h.
#include "sched/lib/rpc/report_plan.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "lib/protocol/xml_text.h"
#include "sched/lib/work_selection.h"

namespace tharsis {
namespace {

constexpr int kClientStateUploaded = 5;  // BOINC's RESULT_FILES_UPLOADED

std::string reported_files_xml(const ReportedResult& reported) {
  std::ostringstream xml;
  for (const auto& f : reported.output_files) {
    // std::to_string keeps every digit (the stream's default 6 significant digits wrote
    // 1234567 as 1.23457e+06, and the back end compares sizes exactly).
    xml << "<file_info><name>" << xml_escape(f.name) << "</name><nbytes>" << std::to_string(f.nbytes)
        << "</nbytes><md5_cksum>" << xml_escape(f.md5_cksum) << "</md5_cksum></file_info>\n";
  }
  return xml.str();
}

}  // namespace

std::vector<std::string> distinct_report_names(const SchedulerRequest& req) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const auto& reported : req.results) {
    if (seen.insert(reported.name).second) names.push_back(reported.name);
  }
  return names;
}

bool reported_success(const ReportedResult& reported) {
  return reported.state == kClientStateUploaded && reported.exit_status == 0;
}

ResultReport report_of(const ReportedResult& reported, double p_fpops) {
  ResultReport report;
  report.outcome = reported_success(reported) ? Outcome::Success : Outcome::ClientError;
  report.client_state = static_cast<ClientState>(std::clamp(reported.state, 0, 6));
  report.exit_status = reported.exit_status;
  report.cpu_time = reported.final_cpu_time;
  report.elapsed_time = reported.final_elapsed_time;
  report.claimed_credit = reported.final_cpu_time * p_fpops / 1e9 / 8640;  // cobblestone-ish
  report.xml_doc_out = reported_files_xml(reported);
  report.stderr_out = reported.stderr_out;
  return report;
}

int quota_after_reports(int quota, int errors, int successes, int default_quota) {
  for (int i = 0; i < errors; ++i) quota = quota_after_error(quota, default_quota);
  if (errors == 0 && successes > 0) quota = quota_after_success(quota, default_quota);
  return quota;
}

std::optional<RefusedReportsLog> refused_reports_log(
    const std::vector<std::string>& names, const std::vector<std::optional<HostResultRow>>& examples,
    int64_t host_id) {
  if (names.empty()) return std::nullopt;
  RefusedReportsLog log;
  std::string listed;
  for (size_t i = 0; i < names.size() && i < kLoggedRefusedExamples && i < examples.size(); ++i) {
    const auto& result = examples[i];
    std::string why;
    if (!result) {
      why = "unknown";
      log.warning = true;
    } else if (result->hostid != host_id) {
      why = "result " + std::to_string(result->result_id) + " sent to host " + std::to_string(result->hostid);
      log.warning = true;
    } else {
      // A duplicate, or late and of no more use: the server is done with it.
      why = "result " + std::to_string(result->result_id) + " no longer takes reports";
    }
    listed += (i ? ", " : "") + quote_for_message(names[i]) + " (" + why + ")";
  }
  if (names.size() > kLoggedRefusedExamples) listed += ", ...";
  log.line = std::to_string(names.size()) + (names.size() == 1 ? " report" : " reports") + " from host " +
             std::to_string(host_id) + " changed nothing: " + listed;
  return log;
}

}  // namespace tharsis
