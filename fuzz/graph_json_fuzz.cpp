// Fuzz target: the JSON form of an operand graph submit_graph reads
// (parse_expression_json). Contract checked as for the expression language.
#include "fuzz/tensor_graph_checks.h"
#include "lib/operand/expression_json.h"

using namespace tharsis;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::check_parsed_graph(operand::parse_expression_json(std::string(fuzz::as_text(data, size))));
  return 0;
}
