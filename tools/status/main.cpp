// tools/status: each daemon of config.xml (running?, pid, last heartbeat), each back-end
// queue's backlog and the age of its oldest item, and results by state.
#include <boost/program_options.hpp>
#include <ctime>
#include <iomanip>
#include <iostream>

#include "db/credit_store.h"
#include "db/file_store.h"
#include "db/heartbeat_store.h"
#include "db/queue_stats.h"
#include "db/schema_migrations.h"
#include "db/state_names.h"
#include "lib/config/project_config.h"
#include "tools/lib/daemon_control.h"
#include "tools/lib/tool_main.h"

namespace po = boost::program_options;
using namespace tharsis;

namespace {

std::string age(int64_t seconds) {
  if (seconds < 120) return std::to_string(seconds) + "s";
  if (seconds < 7200) return std::to_string(seconds / 60) + "m";
  return std::to_string(seconds / 3600) + "h";
}

std::string_view server_state_name(int code) {
  std::string_view name = to_string(static_cast<ServerState>(code));
  return name.empty() ? "?" : name;
}

std::string_view outcome_name(int code) {
  if (code == tharsis::code(Outcome::Init)) return "-";  // not over yet: no outcome
  std::string_view name = to_string(static_cast<Outcome>(code));
  return name.empty() ? "?" : name;
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description options("status [--project_dir DIR]");
  po::variables_map vm;
  if (auto exit_code = parse_tool_options("status", options, argc, argv, vm)) return *exit_code;
  auto config = load_tool_config("status", vm);
  if (!config) return 2;
  int64_t now = std::time(nullptr);
  std::cout << "project " << config->name << " (" << config->master_url << ")\n\ndaemons:\n";
  std::unique_ptr<Database> db;
  std::vector<HeartbeatRow> beats;
  try {
    db = Database::open(config->db);
    beats = fetch_heartbeats(*db);
  } catch (const std::exception& e) {
    std::cout << "  database unreachable: " << e.what() << "\n";
  }
  for (const auto& status : daemon_statuses(*config)) {
    std::cout << "  " << std::left << std::setw(22) << status.command.instance
              << (status.disabled ? "disabled   "
                  : status.pid    ? "running    "
                                  : "not running");
    if (status.pid) std::cout << "  pid " << status.pid;
    for (const auto& beat : beats) {
      std::string instance = beat.shard.n > 1 ? beat.name + "_" + std::to_string(beat.shard.id) : beat.name;
      if (instance == status.command.instance) {
        std::cout << "  last heartbeat " << age(now - beat.last_beat) << " ago on " << beat.hostname << ", "
                  << beat.units_done << " units";
      }
    }
    std::cout << "\n";
    if (!status.disabled && !status.pid) {  // why it stopped, as far as its log says
      if (std::string last = last_log_line(daemon_log_file(*config, status.command)); !last.empty())
        std::cout << "    its log ends: " << last << "\n";
    }
  }
  if (!db) return 1;
  // The daemons refuse to run on an older schema (lib/daemon/daemon_loop.h): say why here.
  if (std::string problem = schema_version_problem(*db, config->project_dir); !problem.empty()) {
    std::cout << "\nSCHEMA: " << problem << "\n";
  } else {
    std::cout << "\nschema: version " << current_schema_version(*db) << "\n";
  }
  std::cout << "\nqueues:\n";
  // Exact counts (no cap): a command run now and then, unlike a page anyone may reload.
  for (const auto& q : queue_backlogs(*db, now, /*cap=*/0)) {
    std::cout << "  " << std::left << std::setw(16) << q.name << std::right << std::setw(10) << q.count;
    if (q.count) std::cout << "  oldest " << age(q.oldest_age);
    std::cout << "\n";
  }
  try {
    std::cout << "  " << std::left << std::setw(16) << "file_del_retry" << std::right << std::setw(10)
              << count_file_delete_retries(*db)
              << "  (files the file deleter could not unlink: see its log)\n";
  } catch (const DbError&) {
    // No file_delete_retry table: an older schema, said above.
  }
  try {
    std::cout << "  " << std::left << std::setw(16) << "credit_pending" << std::right << std::setw(10)
              << count_pending_credit(*db) << "  (granted credit a validator pass adds to the totals)\n";
  } catch (const DbError&) {
    // No credit_pending table: an older schema, said above.
  }
  std::cout << "\nresults:\n";
  for (const auto& [key, count] : results_by_state(*db)) {
    std::cout << "  " << std::left << std::setw(12) << server_state_name(key.first) << std::setw(16)
              << outcome_name(key.second) << std::right << std::setw(10) << count << "\n";
  }
  return 0;
}
