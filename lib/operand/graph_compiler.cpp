#include "lib/operand/graph_compiler.h"

#include "lib/operand/expression_json.h"
#include "lib/operand/expression_parser.h"
#include "lib/operand/fusion.h"

namespace tharsis::operand {

Result<TensorGraph> parse_submission(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') return parse_expression_json(text);
  return parse_expression(text);
}

Result<CompiledGraph> compile_graph(const std::string& text, const TileOptions& options) {
  auto tensors = parse_submission(text);
  if (!tensors.ok()) return Error{tensors.error()};
  auto chunks = tile(*tensors, options);
  if (!chunks.ok()) return Error{chunks.error()};
  return CompiledGraph{std::move(*tensors), fuse_chains(*chunks)};
}

}  // namespace tharsis::operand
