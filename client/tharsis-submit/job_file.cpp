// Implementation of client/tharsis-submit/job_file.h.
#include "client/tharsis-submit/job_file.h"

#include <sstream>

#include "lib/protocol/xml_text.h"

namespace tharsis::submit_client {

std::string escape(std::string_view text) { return xml_escape(text); }

Result<std::vector<JobLine>> parse_job_file(std::string_view text) {
  std::vector<JobLine> jobs;
  std::istringstream lines{std::string(text)};
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::string command;
    if (auto dashes = line.find(" -- "); dashes != std::string::npos) {
      command = line.substr(dashes + 4);
      line.resize(dashes);
    } else if (line.rfind("-- ", 0) == 0) {
      command = line.substr(3);
      line.clear();
    }
    std::istringstream words(line);
    std::string word;
    JobLine job;
    while (words >> word) {
      JobInput input;
      if (word.rfind("staged:", 0) == 0) {
        input.kind = JobInput::Kind::Staged;
        input.value = word.substr(7);
      } else if (word.rfind("remote:", 0) == 0) {
        input.kind = JobInput::Kind::Remote;
        std::string rest = word.substr(7);
        size_t a = rest.find(':'), b = a == std::string::npos ? a : rest.find(':', a + 1);
        if (b == std::string::npos) {
          return make_error("line " + std::to_string(number) + ": expected remote:NBYTES:MD5:URL, found '" +
                            word + "'");
        }
        try {
          input.nbytes = std::stoll(rest.substr(0, a));
        } catch (...) {
          return make_error("line " + std::to_string(number) + ": bad byte count in '" + word + "'");
        }
        input.md5 = rest.substr(a + 1, b - a - 1);
        input.value = rest.substr(b + 1);
      } else {
        input.value = word;
      }
      if (input.value.empty())
        return make_error("line " + std::to_string(number) + ": empty input '" + word + "'");
      job.inputs.push_back(std::move(input));
    }
    size_t start = command.find_first_not_of(" \t");
    job.command_line = start == std::string::npos ? "" : command.substr(start);
    if (job.inputs.empty() && job.command_line.empty()) continue;
    jobs.push_back(std::move(job));
  }
  if (jobs.empty()) return make_error("the job file has no jobs");
  return jobs;
}

Result<std::string> submit_batch_request(
    const std::string& authenticator, const std::string& app, const std::string& batch_name,
    const std::vector<JobLine>& jobs,
    const std::function<Result<std::string>(const std::string&)>& read_inline) {
  std::string xml = "<submit_batch>\n<authenticator>" + escape(authenticator) +
                    "</authenticator>\n<batch>\n<app_name>" + escape(app) + "</app_name>\n";
  if (!batch_name.empty()) xml += "<batch_name>" + escape(batch_name) + "</batch_name>\n";
  for (const JobLine& job : jobs) {
    xml += "<job>\n";
    if (!job.command_line.empty()) xml += "<command_line>" + escape(job.command_line) + "</command_line>\n";
    for (const JobInput& input : job.inputs) {
      switch (input.kind) {
        case JobInput::Kind::Inline: {
          auto content = read_inline(input.value);
          if (!content.ok()) return make_error(content.error());
          xml += "<input_file><mode>inline</mode><source>" + escape(*content) + "</source></input_file>\n";
          break;
        }
        case JobInput::Kind::Staged:
          xml += "<input_file><mode>local_staged</mode><source>" + escape(input.value) +
                 "</source></input_file>\n";
          break;
        case JobInput::Kind::Remote:
          xml += "<input_file><mode>remote</mode><url>" + escape(input.value) + "</url><nbytes>" +
                 std::to_string(input.nbytes) + "</nbytes><md5>" + escape(input.md5) +
                 "</md5></input_file>\n";
          break;
      }
    }
    xml += "</job>\n";
  }
  xml += "</batch>\n</submit_batch>\n";
  return xml;
}

}  // namespace tharsis::submit_client
