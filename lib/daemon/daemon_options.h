// The command-line options every back-end daemon shares (BOINC's conventions):
//   --project_dir DIR   project directory holding config.xml (default: current dir)
//   --one_pass          do passes until one finds nothing to do, then exit 0
//   --sleep SECONDS     pause after a pass that found nothing (default 5)
//   --mod N --mod_id I  handle only rows with id % N == I (0 <= I < N)
//   --batch ROWS        rows fetched per pass (default 1000)
//   --units_per_commit N  units of work sharing one transaction (default 50; 1 = one
//                       transaction per unit), for daemons that batch (batch_commit.h)
//   --threads N         workers in this process (1..16, default 1), each with its own
//                       database connection and its own part of the shard's rows
//                       (daemon_loop.h): the daemon's own CPU and the server's overlap
//   --log_level LEVEL   debug, info, warning or error
//   --db_node I         use node I (1-based) of config.xml's <db_nodes>, the others as
//                       fall-backs (default: THARSIS_DB_NODE, else node 1)
#pragma once

#include <string>
#include <vector>

#include "db/shard.h"
#include "lib/log.h"
#include "lib/result.h"

namespace tharsis {

// Each worker holds a connection: the server's max_connections is shared with every
// scheduler process and tool.
inline constexpr int kMaxDaemonThreads = 16;

struct DaemonOptions {
  std::string project_dir = ".";
  bool one_pass = false;
  double sleep_seconds = 5;
  Shard shard;
  // A pass pays a few round trips whatever it finds: at 100 rows the file deleter fell behind
  // the whole pipeline's pace on a loaded machine (docs/benchmarks.md), at 1000 it keeps up.
  // Rows are still written --units_per_commit at a time, so row locks are held no longer.
  int batch = 1000;
  int units_per_commit = 50;  // up to 50 units, a few ms of row locks, per commit
  int threads = 1;
  LogLevel log_level = LogLevel::Info;
  int db_node = 0;    // --db_node: 0 = not given
  bool help = false;  // --help given: print help_text and exit 0
  std::string help_text;
  std::vector<std::string> extra;  // daemon-specific "--key value" pairs, unparsed
};

// Parses argv. Daemon-specific options are listed in `extra_options` (names without
// dashes, each taking one value) and returned in `extra` as name, value pairs.
Result<DaemonOptions> parse_daemon_options(const std::string& program, int argc, const char* const* argv,
                                           const std::vector<std::string>& extra_options = {});

}  // namespace tharsis
