// graph_eval: computes a graph submission on this machine (lib/operand/graph_evaluation.h)
// and writes its result as .npy — the chunked run, checked against a direct evaluation.
// Used by the Python package's LocalSession and tests; handy to try a graph before
// submitting it. Prints "operands N uploaded_chunks U max_difference D"; exit 1 on error.
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>

#include "lib/operand/graph_evaluation.h"
#include "lib/operand/npy.h"
#include "lib/text_file.h"
#include "tools/lib/tool_main.h"

namespace po = boost::program_options;

int main(int argc, char** argv) {
  std::string graph_path;
  std::string chunks_dir = ".";
  std::string out_path;
  tharsis::operand::TileOptions tile;
  po::options_description options("graph_eval options");
  options.add_options()("graph", po::value(&graph_path)->required(),
                        "file with the expression language or the JSON graph")(
      "chunks", po::value(&chunks_dir), "directory holding the uploaded chunks (jf_<md5> .npy files)")(
      "out", po::value(&out_path)->required(), "where to write the result (.npy)")(
      "fan_in", po::value(&tile.fan_in)->default_value(tile.fan_in), "inputs per tree-reduction operand");
  po::variables_map vm;
  if (auto exit_code = tharsis::parse_program_options("graph_eval", options, argc, argv, vm))
    return *exit_code;
  auto text = tharsis::read_text_file(graph_path);
  if (!text.ok()) {
    std::cerr << "graph_eval: " << text.error() << "\n";
    return 1;
  }
  auto evaluation = tharsis::operand::evaluate_graph(*text, chunks_dir, tile);
  if (!evaluation.ok()) {
    std::cerr << "graph_eval: " << evaluation.error() << "\n";
    return 1;
  }
  if (auto written = tharsis::operand::write_npy(out_path, evaluation->result); !written.ok()) {
    std::cerr << "graph_eval: " << written.error() << "\n";
    return 1;
  }
  std::printf("operands %lld uploaded_chunks %lld max_difference %.3g\n",
              static_cast<long long>(evaluation->operands),
              static_cast<long long>(evaluation->uploaded_chunks), evaluation->max_difference);
  return 0;
}
