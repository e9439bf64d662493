// The operand spec: the text file one job gets, telling the operand app which input files
// to read (by open name, in the order the first step takes them), which steps to run and
// where to write the output. Format (one item per line, '#' starts a comment):
//
//   tharsis-operand-spec 1
//   input in0
//   input in1
//   step add shape=(100,100)
//   step sum shape=() axis=all
//   output out
//
// Step keys: shape (all), value (scalar and full steps, %.17g), axis (sum, max, min: integer
// or "all"), seed, tensor, offset (rand). Unknown words or keys are errors naming the line;
// so is an input step (an uploaded chunk is staged, never run).
#pragma once

#include <string>
#include <vector>

#include "lib/operand/chunk_graph.h"
#include "lib/result.h"

namespace tharsis::operand {

struct OperandSpec {
  std::vector<std::string> inputs;  // open names, in input order
  std::vector<OperandStep> steps;
  std::string output = "out";

  bool operator==(const OperandSpec&) const = default;
};

// The spec of one operand, inputs named in0, in1, ... in its input order.
OperandSpec make_operand_spec(const ChunkOperand& operand);
// Open name of input `index` in make_operand_spec's naming.
std::string operand_input_name(size_t index);

std::string format_operand_spec(const OperandSpec& spec);
// Checks structure and step arity; safe names only (no '/', no "..").
Result<OperandSpec> parse_operand_spec(const std::string& text);

// One step as a spec line body ("add shape=(2,2)") and back.
std::string format_step(const OperandStep& step);
Result<OperandStep> parse_step(const std::string& text);

}  // namespace tharsis::operand
