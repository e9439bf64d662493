// Implementation of client/lib/run_report.h.
#include "client/lib/run_report.h"

#include <cstdio>
#include <sstream>

namespace tharsis {
namespace {

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

std::string progress_line(const RunSnapshot& s) {
  char head[32];
  std::snprintf(head, sizeof head, "[%5.0fs] ", s.elapsed_seconds);
  std::ostringstream out;
  out << head;
  if (s.project) out << s.project->progress << " | ";
  out << "hosts " << s.hosts - s.hosts_vanished << "/" << s.hosts << " | client " << s.client.succeeded
      << " uploaded, " << s.client.crashes << " crashes, " << s.client.results_reported << " reported";
  return out.str();
}

std::string summary_line(const RunSnapshot& s) {
  std::ostringstream out;
  out << "summary: ";
  if (s.project) out << s.project->summary << "; ";
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.1f", s.elapsed_seconds);
  out << "client (" << s.hosts << " hosts, " << s.hosts_vanished << " vanished): " << client_text(s) << "; "
      << seconds << " s";
  return out.str();
}

}  // namespace tharsis
