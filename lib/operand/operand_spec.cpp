#include "lib/operand/operand_spec.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace tharsis::operand {

namespace {

constexpr std::string_view kSpecHeader = "tharsis-operand-spec 1";

std::string number_text(double value) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", value);
  return buf;
}

Result<double> parse_number(const std::string& text, const std::string& where) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) {
    return make_error(where + ": expected a number, found '" + text + "'");
  }
  return value;
}

Result<Shape> parse_bounded_shape(const std::string& text, const std::string& where) {
  auto shape = parse_shape_text(text);
  if (!shape.ok()) return make_error(where + ": " + shape.error());
  if (shape->size() > kMaxRank || !element_count_within(*shape, kMaxChunkElements)) {
    return make_error(where + ": shape " + text + " exceeds the limits (rank " + std::to_string(kMaxRank) +
                      ", " + std::to_string(kMaxChunkElements) + " elements)");
  }
  return shape;
}

bool safe_open_name(const std::string& name) {
  if (name.empty() || name.size() > 255 || name == "." || name == "..") return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

// Applies one key=value word to `step`.
Status apply_key(OperandStep& step, const std::string& key, const std::string& value,
                 const std::string& where, bool& has_shape) {
  const std::string here = where + " key '" + key + "'";
  if (key == "shape") {
    auto shape = parse_bounded_shape(value, here);
    if (!shape.ok()) return Error{shape.error()};
    step.shape = *shape;
    has_shape = true;
  } else if (key == "value" && (is_scalar_step(step.kind) || step.kind == StepKind::Full)) {
    auto number = parse_number(value, here);
    if (!number.ok()) return Error{number.error()};
    step.scalar = *number;
  } else if (key == "axis" && is_reduction_step(step.kind)) {
    if (value == "all") {
      step.axis = kAllAxes;
    } else {
      auto number = parse_number(value, here);
      if (!number.ok() || *number < 0 || *number >= static_cast<double>(kMaxRank) ||
          *number != static_cast<int>(*number)) {
        return make_error(here + ": expected 'all' or an axis 0.." + std::to_string(kMaxRank - 1) +
                          ", found '" + value + "'");
      }
      step.axis = static_cast<int>(*number);
    }
  } else if (key == "seed" && step.kind == StepKind::Rand) {
    char* end = nullptr;
    step.seed = std::strtoull(value.c_str(), &end, 10);
    if (value.empty() || value[0] == '-' || end != value.c_str() + value.size()) {
      return make_error(here + ": expected an unsigned integer, found '" + value + "'");
    }
  } else if ((key == "tensor" || key == "offset") && step.kind == StepKind::Rand) {
    auto shape = parse_shape_text(value);
    if (!shape.ok()) return make_error(here + ": " + shape.error());
    // Global element indices must stay far from int64 overflow.
    if (shape->size() > kMaxRank || !element_count_within(*shape, int64_t{1} << 62)) {
      return make_error(here + ": " + value + " is too large");
    }
    (key == "tensor" ? step.tensor_shape : step.offset) = *shape;
  } else {
    return make_error(where + ": unknown key '" + key + "' for a " + std::string(step_kind_name(step.kind)) +
                      " step");
  }
  return Status::success();
}

}  // namespace

std::string operand_input_name(size_t index) { return "in" + std::to_string(index); }

OperandSpec make_operand_spec(const ChunkOperand& operand) {
  OperandSpec spec;
  for (size_t i = 0; i < operand.inputs.size(); ++i) spec.inputs.push_back(operand_input_name(i));
  spec.steps = operand.steps;
  return spec;
}

std::string format_step(const OperandStep& step) {
  std::string text = std::string(step_kind_name(step.kind)) + " shape=" + shape_text(step.shape);
  if (is_scalar_step(step.kind) || step.kind == StepKind::Full) text += " value=" + number_text(step.scalar);
  if (is_reduction_step(step.kind))
    text += " axis=" + (step.axis == kAllAxes ? "all" : std::to_string(step.axis));
  if (step.kind == StepKind::Rand) {
    text += " seed=" + std::to_string(step.seed) + " tensor=" + shape_text(step.tensor_shape) +
            " offset=" + shape_text(step.offset);
  }
  if (step.kind == StepKind::Input) text += " file=" + step.file;
  return text;
}

Result<OperandStep> parse_step(const std::string& text) {
  std::istringstream words(text);
  std::string name;
  words >> name;
  const auto kind = step_kind_from_name(name);
  if (!kind) return make_error("step '" + text + "': unknown operation '" + name + "'");
  // An uploaded chunk is staged as a file, never computed: no job runs an input step.
  if (*kind == StepKind::Input) return make_error("step 'input': an uploaded chunk is not a step a job runs");
  OperandStep step;
  step.kind = *kind;
  const std::string where = "step '" + name + "'";
  bool has_shape = false;
  std::string word;
  while (words >> word) {
    const size_t eq = word.find('=');
    if (eq == std::string::npos) return make_error(where + ": expected key=value, found '" + word + "'");
    if (Status ok = apply_key(step, word.substr(0, eq), word.substr(eq + 1), where, has_shape); !ok) {
      return Error{ok.error()};
    }
  }
  if (!has_shape) return make_error(where + ": missing shape=");
  return step;
}

std::string format_operand_spec(const OperandSpec& spec) {
  std::string text = std::string(kSpecHeader) + "\n";
  for (const std::string& input : spec.inputs) text += "input " + input + "\n";
  for (const OperandStep& step : spec.steps) text += "step " + format_step(step) + "\n";
  text += "output " + spec.output + "\n";
  return text;
}

Result<OperandSpec> parse_operand_spec(const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  bool has_header = false;
  bool has_output = false;
  OperandSpec spec;
  while (std::getline(lines, line)) {
    ++number;
    const std::string where = "spec line " + std::to_string(number);
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r' || line.back() == '\t'))
      line.pop_back();
    if (line.empty()) continue;
    if (!has_header) {
      if (line != kSpecHeader) {
        return make_error(where + ": expected '" + std::string(kSpecHeader) + "', found '" + line + "'");
      }
      has_header = true;
      continue;
    }
    const size_t space = line.find(' ');
    const std::string word = line.substr(0, space);
    const std::string rest = space == std::string::npos ? "" : line.substr(space + 1);
    if (word == "input" || word == "output") {
      if (!safe_open_name(rest)) {
        return make_error(where + ": " + word + " name '" + rest + "' is not a plain file name");
      }
      if (word == "output") {
        spec.output = rest;
        has_output = true;
      } else {
        spec.inputs.push_back(rest);
      }
    } else if (word == "step") {
      auto step = parse_step(rest);
      if (!step.ok()) return make_error(where + ": " + step.error());
      spec.steps.push_back(*step);
    } else {
      return make_error(where + ": expected input, step or output, found '" + word + "'");
    }
  }
  if (!has_header) return make_error("spec is empty (expected '" + std::string(kSpecHeader) + "')");
  if (spec.steps.empty()) return make_error("spec has no step");
  if (!has_output) return make_error("spec has no output line");
  const int arity = step_input_count(spec.steps[0].kind);
  if ((arity < 0 && spec.inputs.empty()) ||
      (arity >= 0 && spec.inputs.size() != static_cast<size_t>(arity))) {
    return make_error("spec: first step " + std::string(step_kind_name(spec.steps[0].kind)) + " takes " +
                      (arity < 0 ? "at least 1" : std::to_string(arity)) + " inputs, spec lists " +
                      std::to_string(spec.inputs.size()));
  }
  for (size_t i = 1; i < spec.steps.size(); ++i) {
    if (step_input_count(spec.steps[i].kind) == 0 || step_input_count(spec.steps[i].kind) == 2) {
      return make_error("spec: step " + std::to_string(i + 1) + " (" +
                        std::string(step_kind_name(spec.steps[i].kind)) +
                        ") cannot follow another step: it needs other than one input");
    }
  }
  return spec;
}

}  // namespace tharsis::operand
