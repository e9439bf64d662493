// Implementation of sched/lib/submit/submit_xml.h.
#include "sched/lib/submit/submit_xml.h"

#include <limits>

#include "lib/protocol/xml_text.h"

namespace tharsis {
namespace {

// Counts nodes and depth without recursion, stopping at the first one over a limit.
class LimitWalker : public pugi::xml_tree_walker {
 public:
  LimitWalker(size_t max_nodes, int max_depth) : max_nodes_(max_nodes), max_depth_(max_depth) {}
  bool for_each(pugi::xml_node& node) override {
    ++nodes_;
    if (nodes_ > max_nodes_ || depth() + 1 > max_depth_) {
      offender = node;
      too_deep = depth() + 1 > max_depth_;
      return false;
    }
    return true;
  }
  pugi::xml_node offender;
  bool too_deep = false;

 private:
  size_t nodes_ = 0;
  size_t max_nodes_;
  int max_depth_;
};

}  // namespace

SubmitXml::SubmitXml(std::string& text, const ProtocolLimits& limits, std::string document_name)
    : text_(text), limits_(limits), document_name_(std::move(document_name)) {}

Error SubmitXml::error(pugi::xml_node node, std::string_view path, const std::string& what) const {
  std::string where = "<" + std::string(path) + ">";
  std::ptrdiff_t offset = node ? node.offset_debug() : -1;
  if (offset >= 0) where += " (line " + std::to_string(line_at(text_, offset)) + ")";
  return make_error(document_name_ + ": " + where + ": " + what);
}

Status SubmitXml::load(std::string_view root_name) {
  if (text_.size() > limits_.max_request_bytes) {
    return make_error(document_name_ + ": document of " + std::to_string(text_.size()) +
                      " bytes exceeds the limit of " + std::to_string(limits_.max_request_bytes) + " bytes");
  }
  auto parsed = document_.load_buffer_inplace(
      text_.data(), text_.size(), pugi::parse_default | pugi::parse_embed_pcdata, pugi::encoding_utf8);
  if (!parsed) {
    return make_error(document_name_ + ": malformed XML at byte " + std::to_string(parsed.offset) + ": " +
                      parsed.description());
  }
  LimitWalker walker(limits_.max_elements, limits_.max_depth);
  if (!document_.traverse(walker)) {
    if (walker.too_deep) {
      return make_error(document_name_ + ": elements nested deeper than " +
                        std::to_string(limits_.max_depth) + " levels");
    }
    return make_error(document_name_ + ": more than " + std::to_string(limits_.max_elements) + " XML nodes");
  }
  root_ = document_.document_element();
  if (!root_ || root_name != root_.name()) {
    return make_error(document_name_ + ": expected root element <" + std::string(root_name) + ">");
  }
  return Status::success();
}

Status SubmitXml::text(pugi::xml_node element, std::string_view path, size_t max_bytes, bool trim,
                       std::string& out) const {
  std::string value = element.value();  // the embedded first text, if any
  for (pugi::xml_node child : element.children()) {
    if (child.type() == pugi::node_pcdata || child.type() == pugi::node_cdata) {
      value += child.value();
      if (value.size() > max_bytes + 64) break;  // enough to know it is too long
    } else if (child.type() == pugi::node_element) {
      return error(child, path, "expected text, found element <" + std::string(child.name()) + ">");
    }
  }
  std::string_view view = trim ? trim_xml_space(value) : std::string_view(value);
  if (view.size() > max_bytes) {
    return error(element, path, "text longer than the limit of " + std::to_string(max_bytes) + " bytes");
  }
  out.assign(view);
  return Status::success();
}

Status SubmitXml::name(pugi::xml_node element, std::string_view path, std::string& out) const {
  return text(element, path, limits_.max_name_bytes, true, out);
}

Status SubmitXml::number(pugi::xml_node element, std::string_view path, double& out) const {
  std::string value;
  if (auto status = text(element, path, 64, true, value); !status) return status;
  auto parsed = parse_xml_double(value);
  if (!parsed) return error(element, path, "expected a number, found " + quote_for_message(value));
  out = *parsed;
  return Status::success();
}

Status SubmitXml::integer(pugi::xml_node element, std::string_view path, int64_t& out) const {
  std::string value;
  if (auto status = text(element, path, 64, true, value); !status) return status;
  auto parsed = parse_xml_int(value);
  if (!parsed) return error(element, path, "expected an integer, found " + quote_for_message(value));
  out = *parsed;
  return Status::success();
}

Status SubmitXml::integer(pugi::xml_node element, std::string_view path, int& out) const {
  int64_t wide = 0;
  if (auto status = integer(element, path, wide); !status) return status;
  if (wide < std::numeric_limits<int>::min() || wide > std::numeric_limits<int>::max()) {
    return error(element, path, "integer " + std::to_string(wide) + " out of range");
  }
  out = static_cast<int>(wide);
  return Status::success();
}

}  // namespace tharsis
