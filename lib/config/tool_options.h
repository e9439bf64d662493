// What every program's main does first: parse Boost options (with --help), then, for
// the programs that work on a project, load its config.xml from --project_dir. On failure
// the helpers print one clear line and give the exit code to return (2 for usage and
// configuration errors). No database here: the volunteer client uses these too.
#pragma once

#include <boost/program_options.hpp>
#include <optional>
#include <string>

#include "lib/config/project_config.h"

namespace tharsis {

// Adds --help, parses; returns an exit code when main should return now (0 after --help,
// 2 after a usage error, printed with the options).
std::optional<int> parse_program_options(const std::string& tool,
                                         boost::program_options::options_description& options, int argc,
                                         char** argv, boost::program_options::variables_map& vm);

// Adds --help and --project_dir, parses; returns an exit code when main should return now.
std::optional<int> parse_tool_options(const std::string& tool,
                                      boost::program_options::options_description& options, int argc,
                                      char** argv, boost::program_options::variables_map& vm);

// Loads <project_dir>/config.xml; prints "<tool>: <error>" and returns nullopt on failure.
std::optional<ProjectConfig> load_tool_config(const std::string& tool,
                                              const boost::program_options::variables_map& vm);

}  // namespace tharsis
