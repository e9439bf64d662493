// cancel_graph: cancel an operand graph (daemons/graph_scheduler/lib/graph_cancel.h).
// Unstarted operands are cancelled at once; hosts running one of its jobs are told to
// abort it at their next scheduler RPC; the graph is CANCELLED once nothing runs.
//   cancel_graph --project_dir P --graph_id ID
#include <boost/program_options.hpp>
#include <ctime>
#include <iostream>

#include "daemons/graph_scheduler/lib/graph_cancel.h"
#include "tools/lib/tool_main.h"

namespace po = boost::program_options;
using namespace tharsis;

int main(int argc, char** argv) {
  po::options_description options("cancel_graph --project_dir P --graph_id ID");
  options.add_options()("graph_id", po::value<int64_t>()->required(), "the graph to cancel");
  return run_db_tool("cancel_graph", options, argc, argv,
                     [](const ProjectConfig&, Database& db, const po::variables_map& vm) {
                       int64_t id = vm["graph_id"].as<int64_t>();
                       if (Status done = cancel_graph(db, id, std::time(nullptr)); !done.ok()) {
                         std::cerr << done.error() << "\n";
                         return 1;
                       }
                       std::cout << "graph " << id << " cancelling\n";
                       return 0;
                     });
}
