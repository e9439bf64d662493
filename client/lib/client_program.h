// The whole main of a volunteer-side program: tharsis-client (the volunteer client) and
// tools/tharsis-sim (simulated volunteers that also watch the project's database). Parses
// the shared command line (--data_dir, the project to attach to, the host's resources
// and policies, simulated hosts with --host, --summary, --max_seconds), loads and
// attaches every host, and runs them (client/lib/client_runner.h). Exit code: 0 stopped
// or done, 1 runtime error, 2 bad options.
#pragma once

#include <boost/program_options.hpp>
#include <functional>
#include <optional>
#include <string>

#include "client/lib/client_runner.h"

namespace tharsis {

// What a program adds to the shared command line.
struct ClientProgramHooks {
  // Adds its own options before parsing.
  std::function<void(boost::program_options::options_description&)> add_options;
  // After parsing: reads its options into `run` (e.g. a project to watch, which the
  // program keeps alive until run_client_program returns); an exit code stops early.
  std::function<std::optional<int>(const boost::program_options::variables_map&, RunOptions& run)> configure;
};

int run_client_program(const std::string& program, int argc, char** argv,
                       const ClientProgramHooks& hooks = {});

}  // namespace tharsis
