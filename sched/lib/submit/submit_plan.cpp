// Implementation of sched/lib/submit/submit_plan.h.
#include "sched/lib/submit/submit_plan.h"

#include <cctype>
#include <cmath>
#include <unordered_set>

#include "db/states.h"

namespace tharsis {

bool is_plain_file_name(std::string_view name) {
  if (name.empty() || name.size() > 200 || name[0] == '.') return false;
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  }
  return name.find("..") == std::string_view::npos;
}

bool is_md5(std::string_view text) {
  if (text.size() != 32) return false;
  for (char c : text) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

bool is_job_file_name(std::string_view name) {
  if (name.size() != 35 || name.substr(0, 3) != "jf_") return false;
  for (char c : name.substr(3)) {
    if (!std::isdigit(static_cast<unsigned char>(c)) && !(c >= 'a' && c <= 'f')) return false;
  }
  return true;
}

bool uses_sandbox(const SubmitInput& input) {
  return input.mode == InputMode::Sandbox ||
         (input.mode == InputMode::LocalStaged && is_job_file_name(input.source));
}

namespace {

bool is_http_url(const std::string& url) {
  bool scheme = url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0;
  bool clean = true;
  for (unsigned char c : url) clean = clean && c > 0x20 && c != 0x7f;
  return scheme && clean && url.size() >= 10;
}

}  // namespace

Status check_input(const SubmitInput& input, size_t job_index, size_t input_index,
                   const SubmitLimits& limits) {
  std::string where = "job " + std::to_string(job_index) + ", input " + std::to_string(input_index) + ": ";
  switch (input.mode) {
    case InputMode::LocalStaged:
      if (!is_plain_file_name(input.source)) {
        return make_error(where + "local_staged source must be a plain file name in download/, found '" +
                          input.source.substr(0, 80) + "'");
      }
      return Status::success();
    case InputMode::Inline:
      return Status::success();
    case InputMode::Sandbox:
      if (!is_job_file_name(input.source)) {
        return make_error(where +
                          "sandbox source must be the jf_<md5> name of a file uploaded through "
                          "job_file.php, found '" +
                          input.source.substr(0, 80) + "'");
      }
      return Status::success();
    case InputMode::Semilocal:
      if (!limits.semilocal_allow) {
        return make_error(where +
                          "input mode 'semilocal' is not enabled on this project (config.xml "
                          "<submit_semilocal_allow>)");
      }
      if (!is_http_url(input.source)) {
        return make_error(where + "semilocal source must be an http:// or https:// URL without spaces");
      }
      return Status::success();
    case InputMode::Remote: {
      if (!is_http_url(input.url)) {
        return make_error(where + "remote url must be an http:// or https:// URL without spaces");
      }
      if (!is_md5(input.md5)) return make_error(where + "remote md5 must be 32 hex digits");
      if (!(input.nbytes >= 0) || input.nbytes > 1e15 || input.nbytes != std::floor(input.nbytes)) {
        return make_error(where + "remote nbytes must be a whole number >= 0");
      }
      return Status::success();
    }
    case InputMode::Local:
      return make_error(where + "input mode 'local' (a path on the server) is not supported by this server");
  }
  return make_error(where + "unknown input mode");
}

std::string job_file_name(std::string_view md5) {
  std::string name = "jf_";
  for (char c : md5) name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

std::string default_job_name(std::string_view app, int64_t batch_id, size_t index) {
  return std::string(app) + "_" + std::to_string(batch_id) + "_" + std::to_string(index);
}

std::string default_batch_name(std::string_view app, int64_t user_id, int64_t now, uint32_t salt) {
  return std::string(app) + "_" + std::to_string(user_id) + "_" + std::to_string(now) + "_" +
         std::to_string(salt);
}

std::string duplicate_job_name(const std::vector<SubmitJob>& jobs) {
  std::unordered_set<std::string_view> seen;
  seen.reserve(jobs.size());
  for (const auto& job : jobs) {
    if (!job.name.empty() && !seen.insert(job.name).second) return job.name;
  }
  return "";
}

JobSpec job_spec_for(const BatchDescription& batch, const SubmitJob& job, int64_t appid, int64_t batch_id,
                     const std::string& name, const std::string& output_template) {
  JobSpec spec;
  const JobParams& p = batch.job_params;
  spec.name = name;
  spec.appid = appid;
  spec.batch = static_cast<int>(batch_id);
  spec.output_template_file = output_template;
  spec.command_line = job.command_line;
  spec.rsc_fpops_est = job.rsc_fpops_est > 0 ? job.rsc_fpops_est
                       : p.rsc_fpops_est > 0 ? p.rsc_fpops_est
                                             : kDefaultFpopsEst;
  if (p.rsc_fpops_bound > 0) spec.rsc_fpops_bound = p.rsc_fpops_bound;
  spec.rsc_fpops_bound = std::max(spec.rsc_fpops_bound, spec.rsc_fpops_est);
  if (p.rsc_memory_bound > 0) spec.rsc_memory_bound = p.rsc_memory_bound;
  if (p.rsc_disk_bound > 0) spec.rsc_disk_bound = p.rsc_disk_bound;
  if (p.delay_bound >= 1 && p.delay_bound < 2e9) spec.delay_bound = static_cast<int>(p.delay_bound);
  spec.priority = job.priority ? *job.priority : batch.priority ? *batch.priority : 0;
  return spec;
}

std::string input_open_name(size_t index) { return index == 0 ? "in" : "in" + std::to_string(index); }

const char* job_status(int64_t canonical_resultid, int error_mask, bool result_in_progress) {
  if (canonical_resultid != 0) return "done";
  if (error_mask != 0) return "error";
  return result_in_progress ? "in_progress" : "queued";
}

const char* result_state_text(const ResultRow& result) {
  if (result.server_state == ServerState::Unsent) return "unsent";
  if (result.server_state == ServerState::InProgress) return "in_progress";
  switch (result.outcome) {
    case Outcome::Success:
      return result.validate_state == ValidateState::Invalid ? "invalid" : "completed";
    case Outcome::ClientError:
      return "error";
    case Outcome::NoReply:
      return "no_reply";
    case Outcome::DidntNeed:
      return "not_needed";
    case Outcome::ValidateError:
      return "invalid";
    default:
      return "abandoned";
  }
}

double estimate_batch_seconds(double total_fpops, double project_flops) {
  return total_fpops / std::max(project_flops, 1e9);
}

}  // namespace tharsis
