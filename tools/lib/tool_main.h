// The whole main of an ops tool that works on the project's database (the option and
// config.xml helpers it builds on are in lib/config/tool_options.h).
#pragma once

#include <boost/program_options.hpp>
#include <functional>
#include <optional>
#include <string>

#include "db/database.h"
#include "lib/config/project_config.h"
#include "lib/config/tool_options.h"

namespace tharsis {

// The whole main of a tool that works on the project's database: parses options, loads
// config.xml, opens the database and runs `body`, whose return value is the exit code.
// An exception from `body` or the database is printed as "<tool>: <what>" and gives 1.
using ToolBody =
    std::function<int(const ProjectConfig&, Database&, const boost::program_options::variables_map&)>;
int run_db_tool(const std::string& tool, boost::program_options::options_description& options, int argc,
                char** argv, const ToolBody& body);

}  // namespace tharsis
