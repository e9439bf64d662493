// Reading a client's XML document with pugixml under ProtocolLimits: the load step checks
// size, well-formedness, nesting depth and node count; the field readers convert element
// text to typed values and say, on failure, which element (as a path) and which line.
// Used by the scheduler request parser, the client-side reply parser and (in place) the
// submit request parser.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <pugixml.hpp>
#include <string>
#include <string_view>

#include "lib/protocol/protocol_limits.h"
#include "lib/result.h"

namespace tharsis {

class XmlReader {
 public:
  // `document_name` starts every message ("scheduler_request: ...").
  XmlReader(std::string_view source, const ProtocolLimits& limits, std::string document_name);

  // Reads `text` in place, for documents of tens of MB (submit requests): pugixml parses
  // into the string itself, with element text embedded in its element instead of text
  // nodes, so there is no second copy. `text` must outlive the reader and is modified by
  // load(). Text is not rewritten: text() refuses what is not UTF-8 with a clear error
  // (the database stores text as UTF-8), and bytes() reads as sent (a submitter's inline
  // file keeps its bytes).
  struct InPlace {};
  XmlReader(std::string& text, const ProtocolLimits& limits, std::string document_name, InPlace);

  // Parses the source; the root element must be `root_name` (an optional <?xml?> before
  // it is fine). Fails on oversize, malformed or truncated text, too deep, too many nodes.
  // A NUL byte (which pugixml takes for the end of the text) is read as U+FFFD, unless in
  // place.
  Status load(std::string_view root_name);
  pugi::xml_node root() const { return root_; }

  // Element text: the concatenated text and CDATA children, entities decoded. A child
  // element inside is an error. `trim` strips surrounding whitespace (names, numbers).
  // The limit applies to the bytes sent; what is not UTF-8 is then replaced by U+FFFD
  // (lib/protocol/utf8.h), or in place refused, so every text read here can be stored.
  Status text(pugi::xml_node element, std::string_view path, size_t max_bytes, bool trim,
              std::string& out) const;
  // The same without the UTF-8 rule, in place only (file content, not text); elsewhere as
  // text().
  Status bytes(pugi::xml_node element, std::string_view path, size_t max_bytes, bool trim,
               std::string& out) const;
  // A short name-like string: trimmed, at most limits.max_name_bytes.
  Status name(pugi::xml_node element, std::string_view path, std::string& out) const;
  // At most limits.max_number_bytes of text.
  Status number(pugi::xml_node element, std::string_view path, double& out) const;
  Status integer(pugi::xml_node element, std::string_view path, int64_t& out) const;
  Status integer(pugi::xml_node element, std::string_view path, int& out) const;
  Status boolean(pugi::xml_node element, std::string_view path, bool& out) const;

  // "<path> (line N)" for messages.
  std::string where(pugi::xml_node node, std::string_view path) const;
  Error error(pugi::xml_node node, std::string_view path, const std::string& what) const;
  const ProtocolLimits& limits() const { return limits_; }

 private:
  std::string_view source_;
  std::string without_nul_;  // the source with NULs replaced, when it had any
  Status read_text(pugi::xml_node element, std::string_view path, size_t max_bytes, bool trim, bool utf8_only,
                   std::string& out) const;
  char* in_place_text_ = nullptr;  // the text parsed in place (InPlace), else null
  const ProtocolLimits& limits_;
  std::string document_name_;
  pugi::xml_document document_;
  pugi::xml_node root_;
};

// "parent/child" or "parent/child[3]" when index > 0 (1-based, for repeated elements).
std::string child_path(std::string_view parent, std::string_view child, size_t index = 0);

// The one child dispatcher of the protocol parsers: reads the child elements of `parent`
// through `readers` (element name -> reader, given the child and its path "parent/name"),
// in document order. Elements not in the table are skipped (clients and projects send many
// we do not use); the first reader that fails stops the walk with its error.
using ChildReader = std::function<Status(pugi::xml_node, const std::string&)>;
using ChildReaders = std::map<std::string_view, ChildReader>;
Status read_children(pugi::xml_node parent, const std::string& path, const ChildReaders& readers);

}  // namespace tharsis
