// Fuzz target: the operand expression language submit_graph reads (parse_expression).
// Contract checked: errors are values with a message; a parsed graph keeps the builder's
// invariants; a small one tiles and fuses to a valid chunk graph.
#include "fuzz/tensor_graph_checks.h"
#include "lib/operand/expression_parser.h"

using namespace tharsis;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::check_parsed_graph(operand::parse_expression(std::string(fuzz::as_text(data, size))));
  return 0;
}
