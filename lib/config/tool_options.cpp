// Implementation of lib/config/tool_options.h.
#include "lib/config/tool_options.h"

#include <iostream>

namespace tharsis {

namespace po = boost::program_options;

std::optional<int> parse_tool_options(const std::string& tool, po::options_description& options, int argc,
                                      char** argv, po::variables_map& vm) {
  options.add_options()("project_dir", po::value<std::string>()->default_value("."),
                        "project directory (holds config.xml)");
  return parse_program_options(tool, options, argc, argv, vm);
}

std::optional<int> parse_program_options(const std::string& tool, po::options_description& options, int argc,
                                         char** argv, po::variables_map& vm) {
  options.add_options()("help", "show this help");
  try {
    po::store(po::parse_command_line(argc, argv, options), vm);
    if (vm.count("help")) {
      std::cout << options;
      return 0;
    }
    po::notify(vm);
  } catch (const std::exception& e) {
    std::cerr << tool << ": " << e.what() << "\n" << options;
    return 2;
  }
  return std::nullopt;
}

std::optional<ProjectConfig> load_tool_config(const std::string& tool, const po::variables_map& vm) {
  auto config = load_project_config(vm["project_dir"].as<std::string>() + "/config.xml");
  if (!config.ok()) {
    std::cerr << tool << ": " << config.error() << "\n";
    return std::nullopt;
  }
  return *config;
}

}  // namespace tharsis
