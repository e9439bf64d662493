// graph_status: one graph's state, progress, operand states and data staged on the server;
// without --graph_id, one line per graph.
//   graph_status --project_dir P [--graph_id ID] [--operands]
#include <boost/program_options.hpp>
#include <iostream>

#include "db/graph_store.h"
#include "db/state_names.h"
#include "db/status_rows.h"
#include "tools/lib/graph_result.h"
#include "tools/lib/tool_main.h"

namespace po = boost::program_options;
using namespace tharsis;

int main(int argc, char** argv) {
  po::options_description options("graph_status --project_dir P [--graph_id ID] [--operands]");
  options.add_options()("graph_id", po::value<int64_t>(), "one graph in detail")(
      "operands", "list every operand of the graph");
  return run_db_tool("graph_status", options, argc, argv,
                     [](const ProjectConfig&, Database& db, const po::variables_map& vm) {
                       std::vector<int64_t> ids;
                       if (vm.count("graph_id")) {
                         ids.push_back(vm["graph_id"].as<int64_t>());
                       } else {
                         ids = fetch_graph_ids(db);
                       }
                       for (int64_t id : ids) {
                         auto progress = graph_progress(db, id);
                         if (!progress.ok()) {
                           std::cerr << "graph_status: " << progress.error() << "\n";
                           return 1;
                         }
                         std::cout << "graph " << id << " " << progress->graph.name << "  "
                                   << progress_line(*progress, 20) << "  staged " << progress->staged_bytes
                                   << " bytes\n";
                         if (!progress->failure_reason.empty())
                           std::cout << "  " << progress->failure_reason << "\n";
                         if (!vm.count("graph_id")) continue;
                         for (OperandState state : kAllOperandStates) {
                           auto it = progress->operands_by_state.find(state);
                           std::cout << "  " << operand_state_name(state) << " "
                                     << (it == progress->operands_by_state.end() ? 0 : it->second) << "\n";
                         }
                         if (!vm.count("operands")) continue;
                         for (const auto& o : fetch_operands_of_graph(db, id)) {
                           std::cout << "  operand " << o.id << " " << o.name << " "
                                     << operand_state_name(o.state) << " workunit " << o.workunitid << " run "
                                     << o.runs << " depth " << o.depth << " priority " << o.priority << "\n";
                         }
                       }
                       return 0;
                     });
}
