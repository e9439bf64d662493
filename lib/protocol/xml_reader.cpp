// Implementation of lib/protocol/xml_reader.h.
#include "lib/protocol/xml_reader.h"

#include <limits>

#include "lib/protocol/utf8.h"
#include "lib/protocol/xml_text.h"

namespace tharsis {

namespace {

// Walks the whole tree once without recursion (pugixml's walker is iterative), stopping at
// the first node beyond the limits.
class LimitWalker : public pugi::xml_tree_walker {
 public:
  LimitWalker(size_t max_nodes, int max_depth_allowed)
      : max_nodes_(max_nodes), max_depth_(max_depth_allowed) {}
  bool for_each(pugi::xml_node& node) override {
    ++nodes_;
    if (nodes_ > max_nodes_ || depth() + 1 > max_depth_) {
      offender_ = node;
      too_deep_ = depth() + 1 > max_depth_;
      return false;
    }
    return true;
  }
  pugi::xml_node offender_;
  bool too_deep_ = false;
  size_t nodes_ = 0;

 private:
  size_t max_nodes_;
  int max_depth_;
};

}  // namespace

std::string child_path(std::string_view parent, std::string_view child, size_t index) {
  std::string path(parent);
  path += '/';
  path += child;
  if (index > 0) path += "[" + std::to_string(index) + "]";
  return path;
}

XmlReader::XmlReader(std::string_view source, const ProtocolLimits& limits, std::string document_name)
    : source_(source), limits_(limits), document_name_(std::move(document_name)) {}

XmlReader::XmlReader(std::string& text, const ProtocolLimits& limits, std::string document_name, InPlace)
    : source_(text), in_place_text_(text.data()), limits_(limits), document_name_(std::move(document_name)) {}

std::string XmlReader::where(pugi::xml_node node, std::string_view path) const {
  std::string text = "<" + std::string(path) + ">";
  std::ptrdiff_t offset = node ? node.offset_debug() : -1;
  if (offset >= 0) text += " (line " + std::to_string(line_at(source_, offset)) + ")";
  return text;
}

Error XmlReader::error(pugi::xml_node node, std::string_view path, const std::string& what) const {
  return make_error(document_name_ + ": " + where(node, path) + ": " + what);
}

Status XmlReader::load(std::string_view root_name) {
  if (source_.size() > limits_.max_request_bytes) {
    return make_error(document_name_ + ": document of " + std::to_string(source_.size()) +
                      " bytes exceeds the limit of " + std::to_string(limits_.max_request_bytes) + " bytes");
  }
  if (trim_xml_space(source_).empty()) return make_error(document_name_ + ": empty document");
  // pugixml stops at a NUL, and a client's stderr may hold one (binary output): read it as
  // U+FFFD rather than refuse the whole request. Lines stay where they were.
  if (!in_place_text_ && source_.find('\0') != std::string_view::npos) {
    without_nul_ = nul_replaced(source_);
    source_ = without_nul_;
  }
  auto parsed =
      in_place_text_
          ? document_.load_buffer_inplace(in_place_text_, source_.size(),
                                          pugi::parse_default | pugi::parse_embed_pcdata, pugi::encoding_utf8)
          : document_.load_buffer(source_.data(), source_.size(), pugi::parse_default, pugi::encoding_utf8);
  if (!parsed) {
    return make_error(document_name_ + ": malformed XML at line " +
                      std::to_string(line_at(source_, parsed.offset)) + " (byte " +
                      std::to_string(parsed.offset) + "): " + parsed.description());
  }
  LimitWalker walker(limits_.max_elements, limits_.max_depth);
  if (!document_.traverse(walker)) {
    if (walker.too_deep_) {
      return make_error(document_name_ + ": elements nested deeper than " +
                        std::to_string(limits_.max_depth) + " levels at line " +
                        std::to_string(line_at(source_, walker.offender_.offset_debug())));
    }
    return make_error(document_name_ + ": more than " + std::to_string(limits_.max_elements) +
                      " XML nodes (limit reached at line " +
                      std::to_string(line_at(source_, walker.offender_.offset_debug())) + ")");
  }
  root_ = document_.document_element();
  if (!root_ || root_name != root_.name()) {
    return make_error(document_name_ + ": expected root element <" + std::string(root_name) + ">, found " +
                      (root_ ? "<" + std::string(root_.name()) + ">" : std::string("no element")));
  }
  return Status::success();
}

Status XmlReader::text(pugi::xml_node element, std::string_view path, size_t max_bytes, bool trim,
                       std::string& out) const {
  return read_text(element, path, max_bytes, trim, true, out);
}

Status XmlReader::bytes(pugi::xml_node element, std::string_view path, size_t max_bytes, bool trim,
                        std::string& out) const {
  return read_text(element, path, max_bytes, trim, false, out);
}

Status XmlReader::read_text(pugi::xml_node element, std::string_view path, size_t max_bytes, bool trim,
                            bool utf8_only, std::string& out) const {
  std::string value = element.value();  // the first text when embedded (in place), else empty
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
  if (in_place_text_) {
    if (utf8_only && !is_valid_utf8(view)) return error(element, path, "text that is not UTF-8");
    out.assign(view);
    return Status::success();
  }
  out = valid_utf8_or_replaced(view);
  // Each invalid byte became U+FFFD (3 bytes): the limit is a promise about what is kept,
  // so cut again, at a character boundary (fuzz finding: a 255-byte name of invalid bytes
  // came out 765 bytes long, and its rendering no longer parsed).
  if (out.size() > max_bytes) {
    out.resize(utf8_prefix_bytes(out, max_bytes).size());
    // The cut can end the text in blanks that were inside it, which the next reading of a
    // trimmed field drops (fuzz finding 11: a name read back differently).
    if (trim) out.resize(trim_xml_space(out).size());
  }
  return Status::success();
}

Status XmlReader::name(pugi::xml_node element, std::string_view path, std::string& out) const {
  return text(element, path, limits_.max_name_bytes, true, out);
}

Status XmlReader::number(pugi::xml_node element, std::string_view path, double& out) const {
  std::string value;
  if (auto status = text(element, path, limits_.max_number_bytes, true, value); !status) return status;
  auto parsed = parse_xml_double(value);
  if (!parsed) return error(element, path, "expected a number, found " + quote_for_message(value));
  out = *parsed;
  return Status::success();
}

Status XmlReader::integer(pugi::xml_node element, std::string_view path, int64_t& out) const {
  std::string value;
  if (auto status = text(element, path, 64, true, value); !status) return status;
  auto parsed = parse_xml_int(value);
  if (!parsed) return error(element, path, "expected an integer, found " + quote_for_message(value));
  out = *parsed;
  return Status::success();
}

Status XmlReader::integer(pugi::xml_node element, std::string_view path, int& out) const {
  int64_t wide = 0;
  if (auto status = integer(element, path, wide); !status) return status;
  if (wide < std::numeric_limits<int>::min() || wide > std::numeric_limits<int>::max()) {
    return error(element, path, "integer " + std::to_string(wide) + " out of range");
  }
  out = static_cast<int>(wide);
  return Status::success();
}

Status XmlReader::boolean(pugi::xml_node element, std::string_view path, bool& out) const {
  std::string value;
  if (auto status = text(element, path, 64, true, value); !status) return status;
  auto parsed = parse_xml_bool(value);
  if (!parsed)
    return error(element, path, "expected 0, 1 or an empty element, found " + quote_for_message(value));
  out = *parsed;
  return Status::success();
}

Status read_children(pugi::xml_node parent, const std::string& path, const ChildReaders& readers) {
  for (pugi::xml_node child : parent.children()) {
    if (child.type() != pugi::node_element) continue;
    auto entry = readers.find(child.name());
    if (entry == readers.end()) continue;
    if (auto status = entry->second(child, child_path(path, child.name())); !status) return status;
  }
  return Status::success();
}

}  // namespace tharsis
