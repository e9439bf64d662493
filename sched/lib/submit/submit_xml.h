// The submit request's XML tree with bounded memory: pugixml parses the request text in
// place (no second copy of a request of tens of MB) with element text embedded in the
// element (no separate text nodes), then the tree is walked once against the node-count
// and depth limits. The readers mirror lib/protocol/xml_reader.h: typed values, and
// messages that name the element by path and line.
#pragma once

#include <cstdint>
#include <pugixml.hpp>
#include <string>
#include <string_view>

#include "lib/protocol/protocol_limits.h"
#include "lib/result.h"

namespace tharsis {

class SubmitXml {
 public:
  // `text` must outlive this object and is modified by the parse.
  SubmitXml(std::string& text, const ProtocolLimits& limits, std::string document_name);

  // Parses; the root element must be `root_name`. Fails on malformed or truncated text,
  // too deep, too many nodes.
  Status load(std::string_view root_name);
  pugi::xml_node root() const { return root_; }

  Status text(pugi::xml_node element, std::string_view path, size_t max_bytes, bool trim,
              std::string& out) const;
  Status name(pugi::xml_node element, std::string_view path, std::string& out) const;
  Status number(pugi::xml_node element, std::string_view path, double& out) const;
  Status integer(pugi::xml_node element, std::string_view path, int64_t& out) const;
  Status integer(pugi::xml_node element, std::string_view path, int& out) const;

  Error error(pugi::xml_node node, std::string_view path, const std::string& what) const;

 private:
  std::string& text_;
  const ProtocolLimits& limits_;
  std::string document_name_;
  pugi::xml_document document_;
  pugi::xml_node root_;
};

}  // namespace tharsis
