#include "lib/operand/expression_json.h"

#include <map>

#include "lib/json_reader.h"
#include "lib/operand/expression_values.h"

namespace tharsis::operand {

namespace {

class JsonForm {
 public:
  Result<TensorGraph> run(const JsonValue& document) {
    if (document.kind != JsonValue::Kind::Object)
      return make_error("JSON submission: expected an object at the top");
    for (const auto& [key, value] : document.members) {
      if (key != "tensors" && key != "result")
        return make_error("JSON submission: unknown member \"" + key + "\"");
    }
    if (const JsonValue* tensors = document.find("tensors")) {
      if (tensors->kind != JsonValue::Kind::Object)
        return make_error("tensors: expected an object of named nodes");
      for (const auto& [name, node] : tensors->members) {
        auto value = argument(node, "tensors." + name);
        if (!value.ok()) return Error{value.error()};
        names_[name] = *value;
      }
    }
    const JsonValue* result = document.find("result");
    if (!result) return make_error("JSON submission: no \"result\"");
    auto value = argument(*result, "result");
    if (!value.ok()) return Error{value.error()};
    if (!value->is_tensor) return make_error("result: is a number, not a tensor");
    return std::move(builder_).finish(value->node);
  }

 private:
  Result<ExprValue> argument(const JsonValue& json, const std::string& path) {
    switch (json.kind) {
      case JsonValue::Kind::Number:
        return ExprValue::of_number(json.number);
      case JsonValue::Kind::String: {
        auto found = names_.find(json.text);
        if (found == names_.end()) return make_error(path + ": unknown tensor \"" + json.text + "\"");
        return found->second;
      }
      case JsonValue::Kind::Object:
        return node(json, path);
      default:
        return make_error(path + ": expected a node, a number or a tensor name, found " +
                          std::string(json_kind_name(json.kind)));
    }
  }

  Result<Shape> shape(const JsonValue& json, const std::string& path) {
    if (json.kind != JsonValue::Kind::Array) return make_error(path + ": expected an array of extents");
    Shape out;
    for (size_t i = 0; i < json.items.size(); ++i) {
      const JsonValue& item = json.items[i];
      if (item.kind != JsonValue::Kind::Number)
        return make_error(path + "[" + std::to_string(i) + "]: expected a number");
      auto extent = whole_number(item.number, 1, int64_t{1} << 40, path + "[" + std::to_string(i) + "]");
      if (!extent.ok()) return Error{extent.error()};
      out.push_back(*extent);
    }
    return out;
  }

  Result<std::vector<std::string>> strings(const JsonValue& json, const std::string& path) {
    if (json.kind != JsonValue::Kind::Array) return make_error(path + ": expected an array of file names");
    std::vector<std::string> out;
    for (size_t i = 0; i < json.items.size(); ++i) {
      if (json.items[i].kind != JsonValue::Kind::String)
        return make_error(path + "[" + std::to_string(i) + "]: expected a string");
      out.push_back(json.items[i].text);
    }
    return out;
  }

  Result<ExprValue> node(const JsonValue& json, const std::string& path) {
    const JsonValue* op = json.find("op");
    if (!op || op->kind != JsonValue::Kind::String) return make_error(path + ": needs \"op\": \"name\"");
    std::vector<ExprValue> args;
    std::vector<KeywordArgument> keywords;
    for (const auto& [key, value] : json.members) {
      const std::string here = path + "." + key;
      if (key == "op") continue;
      if (key == "args") {
        if (value.kind != JsonValue::Kind::Array) return make_error(here + ": expected an array");
        for (size_t i = 0; i < value.items.size(); ++i) {
          auto arg = argument(value.items[i], here + "[" + std::to_string(i) + "]");
          if (!arg.ok()) return arg;
          args.push_back(*arg);
        }
        continue;
      }
      KeywordArgument keyword;
      keyword.name = key;
      if (key == "shape" || key == "chunk") {
        auto extents = shape(value, here);
        if (!extents.ok()) return Error{extents.error()};
        keyword.shape = *extents;
      } else if (key == "files") {
        auto names = strings(value, here);
        if (!names.ok()) return Error{names.error()};
        keyword.names = std::move(*names);
      } else {
        auto arg = argument(value, here);
        if (!arg.ok()) return arg;
        keyword.value = *arg;
      }
      keywords.push_back(std::move(keyword));
    }
    auto value = call_function(builder_, op->text, std::move(args), keywords);
    if (!value.ok()) return make_error(path + ": " + value.error());
    return value;
  }

  TensorGraphBuilder builder_;
  std::map<std::string, ExprValue> names_;
};

}  // namespace

Result<TensorGraph> parse_expression_json(const std::string& text) {
  auto document = parse_json(text);
  if (!document.ok()) return Error{document.error()};
  return JsonForm().run(*document);
}

}  // namespace tharsis::operand
