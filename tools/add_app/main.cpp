// add_app: add an app (and its validator comparator) and optionally publish a version:
//   add_app --project_dir P --app NAME [--comparator bitwise|numeric|trivial]
//           [--platform x86_64-pc-linux-gnu --version 100 --file MAIN [--file EXTRA...]]
#include <boost/program_options.hpp>
#include <iostream>

#include "lib/config/project_config.h"
#include "tools/lib/app_admin.h"
#include "tools/lib/tool_main.h"

namespace po = boost::program_options;
using namespace tharsis;

int main(int argc, char** argv) {
  po::options_description options(
      "add_app --project_dir P --app NAME [--platform PL --version N --file F...]");
  options.add_options()("app", po::value<std::string>()->required(), "app name")(
      "comparator", po::value<std::string>()->default_value("bitwise"), "validator: bitwise|numeric|trivial")(
      "platform", po::value<std::string>()->default_value("x86_64-pc-linux-gnu"), "platform of the version")(
      "version", po::value<int>()->default_value(100), "version number (1.00 = 100)")(
      "file", po::value<std::vector<std::string>>(), "version file; the first is the main program");
  po::variables_map vm;
  if (auto exit_code = parse_tool_options("add_app", options, argc, argv, vm)) return *exit_code;
  auto config = load_tool_config("add_app", vm);
  if (!config) return 2;
  try {
    auto db = Database::open(config->db);
    auto app = ensure_app(*db, vm["app"].as<std::string>(), vm["comparator"].as<std::string>());
    if (!app.ok()) {
      std::cerr << "add_app: " << app.error() << "\n";
      return 1;
    }
    std::cout << "app " << vm["app"].as<std::string>() << " (id " << *app << ")\n";
    if (vm.count("file")) {
      AppVersionFiles version{vm["app"].as<std::string>(), vm["platform"].as<std::string>(),
                              vm["version"].as<int>(), vm["file"].as<std::vector<std::string>>()};
      auto id = publish_app_version(*db, *config, version);
      if (!id.ok()) {
        std::cerr << "add_app: " << id.error() << "\n";
        return 1;
      }
      std::cout << "published version " << version.version_num << " for " << version.platform << " (id "
                << *id << "), files signed\n";
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "add_app: " << e.what() << "\n";
    return 1;
  }
}
