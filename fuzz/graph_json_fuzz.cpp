// Fuzz target: the JSON form of an operand graph submit_graph reads
// (parse_expression_json). Contract checked as for the expression language.
#include "fuzz/tensor_graph_checks.h"
#include "lib/operand/expression_json.h"

using namespace tharsis;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto graph = operand::parse_expression_json(std::string(fuzz::as_text(data, size)));
  if (!graph.ok()) {
    FUZZ_CHECK(!graph.error().empty(), "an error without a message");
    return 0;
  }
  fuzz::check_tensor_graph(*graph);
  fuzz::check_compiles(*graph);
  return 0;
}
