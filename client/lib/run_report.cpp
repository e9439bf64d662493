// Implementation of client/lib/run_report.h.
#include "client/lib/run_report.h"

#include <cstdio>
#include <sstream>

#include "db/states.h"

namespace tharsis {
namespace {

std::string results_text(const RunSnapshot& s) {
  std::ostringstream out;
  bool first = true;
  for (const auto& [key, count] : s.results_by_state) {
    out << (first ? "" : ", ") << outcome_name(key.first, key.second) << " " << count;
    first = false;
  }
  return first ? "none" : out.str();
}

std::string client_text(const RunSnapshot& s) {
  const ClientCounters& c = s.client;
  std::ostringstream out;
  out << c.results_received << " tasks received, " << c.succeeded << " uploaded, " << c.app_errors
      << " app errors, " << c.crashes << " crashes (" << c.gave_up_after_crashes << " gave up), " << c.aborted
      << " aborted, " << c.transfer_errors << " transfer errors, " << c.garbage_outputs
      << " garbage outputs, " << c.results_reported << " reported, " << c.rpcs << " RPCs (" << c.rpc_failures
      << " failed)";
  return out.str();
}

}  // namespace

std::string outcome_name(int server_state, int outcome) {
  if (server_state == code(ServerState::Unsent)) return "unsent";
  if (server_state == code(ServerState::InProgress)) return "in_progress";
  switch (static_cast<Outcome>(outcome)) {
    case Outcome::Init:
      return "over_without_outcome";
    case Outcome::Success:
      return "success";
    case Outcome::CouldntSend:
      return "couldnt_send";
    case Outcome::ClientError:
      return "client_error";
    case Outcome::NoReply:
      return "no_reply";
    case Outcome::DidntNeed:
      return "didnt_need";
    case Outcome::ValidateError:
      return "validate_error";
    case Outcome::ClientDetached:
      return "client_detached";
  }
  return "outcome_" + std::to_string(outcome);
}

std::string progress_line(const RunSnapshot& s) {
  char head[32];
  std::snprintf(head, sizeof head, "[%5.0fs] ", s.elapsed_seconds);
  std::ostringstream out;
  out << head;
  if (s.workunits) {
    const WorkunitProgress& w = *s.workunits;
    out << "workunits " << w.with_canonical + w.errored << "/" << w.total << " done, " << w.errored
        << " errored, " << w.assimilated << " assimilated | results " << results_text(s) << " | ";
  }
  out << "hosts " << s.hosts - s.hosts_vanished << "/" << s.hosts << " | client " << s.client.succeeded
      << " uploaded, " << s.client.crashes << " crashes, " << s.client.results_reported << " reported";
  return out.str();
}

std::string summary_line(const RunSnapshot& s) {
  std::ostringstream out;
  out << "summary: ";
  if (s.workunits) {
    const WorkunitProgress& w = *s.workunits;
    out << "workunits " << w.total << " (" << w.with_canonical << " canonical, " << w.errored << " errored, "
        << w.assimilated << " assimilated, " << w.files_deleted
        << " files deleted); server results: " << results_text(s) << "; ";
  }
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.1f", s.elapsed_seconds);
  out << "client (" << s.hosts << " hosts, " << s.hosts_vanished << " vanished): " << client_text(s) << "; "
      << seconds << " s";
  return out.str();
}

}  // namespace tharsis
