// graph_study: the staged-data study of issue 6. Runs one tree reduction in depth-first
// priority order and in breadth-first order and prints the peak number of staged chunks
// (produced, not yet freed) of each.
#include <boost/program_options.hpp>
#include <iostream>

#include "lib/operand/staged_study.h"

namespace po = boost::program_options;

int main(int argc, char** argv) {
  tharsis::operand::StagedStudyConfig config;
  po::options_description options("graph_study options");
  options.add_options()("help", "show this help")(
      "leaves", po::value(&config.leaves)->default_value(config.leaves), "chunks reduced by the tree")(
      "fan-in", po::value(&config.fan_in)->default_value(config.fan_in), "inputs per tree node")(
      "workers", po::value(&config.workers)->default_value(config.workers), "operands running at once");
  try {
    po::variables_map vm;
    po::store(po::parse_command_line(argc, argv, options), vm);
    po::notify(vm);
    if (vm.count("help")) {
      std::cout << options;
      return 0;
    }
  } catch (const std::exception& e) {
    std::cerr << "graph_study: " << e.what() << "\n";
    return 2;
  }
  auto result = tharsis::operand::run_staged_study(config);
  if (!result.ok()) {
    std::cerr << "graph_study: " << result.error() << "\n";
    return 2;
  }
  std::cout << "tree reduction: " << config.leaves << " leaves, fan-in " << config.fan_in << ", "
            << config.workers << " workers, " << result->operands << " operands\n"
            << "peak staged chunks, depth-first priority order: " << result->depth_first_peak << "\n"
            << "peak staged chunks, breadth-first order: " << result->breadth_first_peak << "\n";
  return 0;
}
