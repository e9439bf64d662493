// Implementation of tools/lib/tool_main.h.
#include "tools/lib/tool_main.h"

#include <iostream>

namespace tharsis {

namespace po = boost::program_options;

int run_db_tool(const std::string& tool, po::options_description& options, int argc, char** argv,
                const ToolBody& body) {
  po::variables_map vm;
  if (auto exit_code = parse_tool_options(tool, options, argc, argv, vm)) return *exit_code;
  auto config = load_tool_config(tool, vm);
  if (!config) return 2;
  try {
    auto db = Database::open(config->db);
    return body(*config, *db, vm);
  } catch (const std::exception& e) {
    std::cerr << tool << ": " << e.what() << "\n";
    return 1;
  }
}

}  // namespace tharsis
