// Implementation of lib/recluster/task_io.h.
#include "lib/recluster/task_io.h"

#include <charconv>
#include <set>
#include <sstream>

namespace tharsis {
namespace {

constexpr std::string_view kListHeader = "tharsis-tasks 1";
constexpr std::string_view kReportHeader = "tharsis-task-report 1";

std::string one_line(const std::string& text) {
  std::string out = text;
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

// A file written with CRLF line ends reads as if written with LF.
void strip_cr(std::string& line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
}

// Splits the body lines after `header`; each is passed as (line number, text).
template <class Fn>
Status for_each_line(const std::string& text, std::string_view header, std::string_view what, Fn&& fn) {
  std::istringstream in(text);
  std::string line;
  if (std::getline(in, line)) strip_cr(line);
  if (!in || line != header) {
    return make_error(std::string(what) + ": expected header '" + std::string(header) +
                      "' on line 1, found '" + line.substr(0, 40) + "'");
  }
  for (int number = 2; std::getline(in, line); ++number) {
    strip_cr(line);
    if (line.empty()) continue;
    // A lone '\r' inside a line would make a payload or output of two lines (found by fuzzing).
    if (line.find('\r') != std::string::npos) {
      return make_error(std::string(what) + " line " + std::to_string(number) +
                        ": carriage return inside the line");
    }
    if (Status s = fn(number, line); !s.ok()) return s;
  }
  return Status::success();
}

// "task <id> <rest>" -> id and rest.
Status split_task_line(std::string_view what, int number, const std::string& line, int64_t& id,
                       std::string& rest) {
  const auto bad = [&](const std::string& why) {
    return make_error(std::string(what) + " line " + std::to_string(number) + ": " + why + ", found '" +
                      line.substr(0, 60) + "'");
  };
  if (line.rfind("task ", 0) != 0) return bad("expected 'task <id> ...'");
  const size_t id_end = line.find(' ', 5);
  const std::string id_text = line.substr(5, id_end == std::string::npos ? std::string::npos : id_end - 5);
  auto [ptr, ec] = std::from_chars(id_text.data(), id_text.data() + id_text.size(), id);
  if (ec != std::errc() || ptr != id_text.data() + id_text.size() || id <= 0) {
    return bad("expected a positive task id");
  }
  rest = id_end == std::string::npos ? "" : line.substr(id_end + 1);
  return Status::success();
}

}  // namespace

std::string render_task_list(const std::vector<TaskSpec>& tasks) {
  std::string out = std::string(kListHeader) + "\n";
  for (const auto& t : tasks) out += "task " + std::to_string(t.id) + " " + one_line(t.payload) + "\n";
  return out;
}

Result<std::vector<TaskSpec>> parse_task_list(const std::string& text) {
  std::vector<TaskSpec> tasks;
  std::set<int64_t> seen;
  Status s =
      for_each_line(text, kListHeader, "task list", [&](int number, const std::string& line) -> Status {
        TaskSpec t;
        if (Status ok = split_task_line("task list", number, line, t.id, t.payload); !ok.ok()) return ok;
        if (!seen.insert(t.id).second) {
          return make_error("task list line " + std::to_string(number) + ": task " + std::to_string(t.id) +
                            " listed twice");
        }
        tasks.push_back(std::move(t));
        return Status::success();
      });
  if (!s.ok()) return make_error(s.error());
  return tasks;
}

std::string render_task_report(const std::vector<TaskReport>& reports) {
  std::string out = std::string(kReportHeader) + "\n";
  for (const auto& r : reports) {
    out += "task " + std::to_string(r.id) + (r.ok ? " ok " : " failed ") + one_line(r.text) + "\n";
  }
  return out;
}

Result<std::vector<TaskReport>> parse_task_report(const std::string& text) {
  std::vector<TaskReport> reports;
  Status s =
      for_each_line(text, kReportHeader, "task report", [&](int number, const std::string& line) -> Status {
        TaskReport r;
        std::string rest;
        if (Status ok = split_task_line("task report", number, line, r.id, rest); !ok.ok()) return ok;
        const size_t space = rest.find(' ');
        const std::string verdict = rest.substr(0, space);
        if (verdict != "ok" && verdict != "failed") {
          return make_error("task report line " + std::to_string(number) +
                            ": expected 'ok' or 'failed', found '" + verdict.substr(0, 20) + "'");
        }
        r.ok = verdict == "ok";
        r.text = space == std::string::npos ? "" : rest.substr(space + 1);
        reports.push_back(std::move(r));
        return Status::success();
      });
  if (!s.ok()) return make_error(s.error());
  return reports;
}

Status check_report_matches(const std::vector<int64_t>& task_ids, const std::vector<TaskReport>& reports) {
  if (task_ids.size() != reports.size()) {
    return make_error("task report: expected " + std::to_string(task_ids.size()) + " tasks, found " +
                      std::to_string(reports.size()));
  }
  for (size_t i = 0; i < task_ids.size(); ++i) {
    if (reports[i].id != task_ids[i]) {
      return make_error("task report: expected task " + std::to_string(task_ids[i]) + " at position " +
                        std::to_string(i + 1) + ", found task " + std::to_string(reports[i].id));
    }
  }
  return Status::success();
}

}  // namespace tharsis
