// What every ops tool's main does first: parse Boost options (with --help), then load
// the project's config.xml from --project_dir. On failure the helpers print one clear
// line and give the exit code to return (2 for usage and configuration errors).
#pragma once

#include <boost/program_options.hpp>
#include <functional>
#include <optional>
#include <string>

#include "db/database.h"
#include "lib/project_config.h"

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

// The whole main of a tool that works on the project's database: parses options, loads
// config.xml, opens the database and runs `body`, whose return value is the exit code.
// An exception from `body` or the database is printed as "<tool>: <what>" and gives 1.
using ToolBody =
    std::function<int(const ProjectConfig&, Database&, const boost::program_options::variables_map&)>;
int run_db_tool(const std::string& tool, boost::program_options::options_description& options, int argc,
                char** argv, const ToolBody& body);

}  // namespace tharsis
