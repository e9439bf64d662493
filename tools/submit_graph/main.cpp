// submit_graph: submit a tensor computation as an operand graph (docs/operand_graphs.md).
//   submit_graph --project_dir P --name N (--expression TEXT | --file PATH) [--app operand]
//                [--wait [--out RESULT.npy] [--verify]] [job parameters]
// The expression language or its JSON form is lib/operand/expression_parser.h's. Prints
// the graph id. With --wait, shows a progress bar until the graph is over and writes the
// result tensor as .npy (default <name>.npy); exit 1 if the graph failed or was cancelled.
// --verify then also evaluates the expression directly (whole tensors, no chunks, on this
// machine) and fails unless the two agree to 1e-9 relative.
#include <algorithm>
#include <boost/program_options.hpp>
#include <chrono>
#include <ctime>
#include <iostream>
#include <thread>

#include "db/state_names.h"
#include "lib/operand/direct_evaluator.h"
#include "lib/operand/graph_compiler.h"
#include "lib/operand/npy.h"
#include "lib/text_file.h"
#include "tools/lib/graph_request.h"
#include "tools/lib/graph_result.h"
#include "tools/lib/tool_main.h"

namespace po = boost::program_options;
using namespace tharsis;

namespace {

constexpr double kVerifyTolerance = 1e-9;

// The volunteers' answer against a direct computation; 0 when they agree.
int verify_against_direct(const std::string& expression, const operand::NdArray& answer) {
  auto graph = operand::parse_submission(expression);
  if (!graph.ok()) {
    std::cerr << "submit_graph: --verify: " << graph.error() << "\n";
    return 1;
  }
  auto direct = operand::evaluate_directly(*graph);
  if (!direct.ok()) {
    std::cerr << "submit_graph: --verify: direct computation failed: " << direct.error() << "\n";
    return 1;
  }
  auto difference = operand::max_relative_difference(answer, *direct);
  if (!difference.ok()) {
    std::cerr << "submit_graph: --verify: " << difference.error() << "\n";
    return 1;
  }
  bool agree = *difference <= kVerifyTolerance;
  std::cerr << "verify: " << operand::element_count(answer.shape)
            << " element(s), largest relative difference from "
            << "the direct computation " << *difference << (agree ? " <= " : " > ") << kVerifyTolerance
            << (agree ? ": correct" : ": WRONG") << "\n";
  return agree ? 0 : 1;
}

// Runs `step` until it gets through to the database: a DB restart while we wait (an
// admin's maintenance, a crash) must not end the wait for a graph that is still running —
// the daemons wait it out too. Other errors are thrown on.
template <class Step>
auto while_database_down(Step&& step, double poll) {
  for (bool said = false;; said = true) {
    try {
      return step();
    } catch (const DbError& e) {
      if (!e.connection_lost()) throw;
      if (!said) std::cerr << "\nsubmit_graph: database unreachable (" << e.what() << "); still waiting\n";
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(std::max(poll, 0.5)));
  }
}

int wait_for(Database& db, const ProjectConfig& config, int64_t graph_id, const std::string& out, double poll,
             const std::string* verify_expression) {
  for (;;) {
    auto progress = while_database_down([&] { return graph_progress(db, graph_id); }, poll);
    if (!progress.ok()) {
      std::cerr << "\nsubmit_graph: " << progress.error() << "\n";
      return 1;
    }
    std::cerr << "\r" << progress_line(*progress) << std::flush;
    GraphState state = progress->graph.state;
    if (state == GraphState::Failed || state == GraphState::Cancelled) {
      std::cerr << "\nsubmit_graph: graph " << graph_id << " " << graph_state_name(state) << "\n";
      return 1;
    }
    if (state == GraphState::Done) break;
    std::this_thread::sleep_for(std::chrono::duration<double>(poll));
  }
  std::cerr << "\n";
  auto result = while_database_down([&] { return collect_graph_result(db, config, graph_id); }, poll);
  if (!result.ok()) {
    std::cerr << "submit_graph: " << result.error() << "\n";
    return 1;
  }
  if (Status written = operand::write_npy(out, *result); !written.ok()) {
    std::cerr << "submit_graph: " << written.error() << "\n";
    return 1;
  }
  std::cerr << "result written to " << out << "\n";
  return verify_expression ? verify_against_direct(*verify_expression, *result) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description options("submit_graph --name N (--expression TEXT | --file PATH)");
  JobSpec job = default_graph_job();
  int64_t prefer_seconds = 60;
  double poll = 1;
  options.add_options()("name", po::value<std::string>()->required(), "graph name (letters, digits, _ - .)")(
      "expression", po::value<std::string>(), "the computation")("file", po::value<std::string>(),
                                                                 "read the computation from a file")(
      "app", po::value<std::string>()->default_value("operand"), "the operand app")(
      "wait", "wait until the graph is over, then write the result")(
      "verify", "with --wait: check the result against a direct computation (1e-9 relative)")(
      "out", po::value<std::string>(), "result file for --wait (default <name>.npy)")(
      "poll", po::value(&poll)->default_value(1), "seconds between progress checks")(
      "min_quorum", po::value(&job.min_quorum)->default_value(job.min_quorum), "")(
      "target_nresults", po::value(&job.target_nresults)->default_value(job.target_nresults), "")(
      "max_error_results", po::value(&job.max_error_results)->default_value(job.max_error_results), "")(
      "max_total_results", po::value(&job.max_total_results)->default_value(job.max_total_results), "")(
      "delay_bound", po::value(&job.delay_bound)->default_value(job.delay_bound), "seconds")(
      "rsc_fpops_est", po::value(&job.rsc_fpops_est)->default_value(job.rsc_fpops_est), "")(
      "prefer_seconds", po::value(&prefer_seconds)->default_value(60),
      "how long a source operand waits for the host placement chose");
  return run_db_tool("submit_graph", options, argc, argv,
                     [&](const ProjectConfig& config, Database& db, const po::variables_map& vm) {
                       std::string expression;
                       if (vm.count("expression") == vm.count("file")) {
                         std::cerr << "submit_graph: give either --expression or --file\n";
                         return 2;
                       }
                       if (vm.count("expression")) {
                         expression = vm["expression"].as<std::string>();
                       } else {
                         auto text = read_text_file(vm["file"].as<std::string>());
                         if (!text.ok()) {
                           std::cerr << "submit_graph: " << text.error() << "\n";
                           return 2;
                         }
                         expression = *text;
                       }
                       GraphRequest request;
                       request.name = vm["name"].as<std::string>();
                       request.expression = expression;
                       request.app_name = vm["app"].as<std::string>();
                       request.job = job;
                       request.prefer_seconds = prefer_seconds;
                       auto submitted = submit_graph_request(db, config, request, std::time(nullptr));
                       if (!submitted.ok()) {
                         std::cerr << submitted.error() << "\n";
                         return 1;
                       }
                       std::cout << submitted->id << "\n" << std::flush;
                       if (!vm.count("wait")) return 0;
                       return wait_for(db, config, submitted->id,
                                       vm.count("out") ? vm["out"].as<std::string>() : request.name + ".npy",
                                       poll, vm.count("verify") ? &expression : nullptr);
                     });
}
