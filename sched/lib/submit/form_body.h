// The XML document of a submit RPC from its POST body. BOINC's C++ client posts it as
// the form field `request` in multipart/form-data, its Python client urlencoded; a body
// that starts with '<' is the document itself. The encoding is recognised from the body
// (the CGI layer hands us no Content-Type): a multipart body starts with "--<boundary>".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lib/result.h"

namespace tharsis {

// The value of form field `request` (or the raw document). Errors: no such field, a
// malformed multipart body or percent-escape.
Result<std::string> extract_request_document(std::string_view body);

// One part of a multipart/form-data body: its field name, its file name (if a file),
// and its content (a view into the body).
struct FormPart {
  std::string name;
  std::string filename;
  std::string_view content;
};
// Every part of a multipart body, in order (none for another encoding). Errors: a
// malformed multipart body, more than `max_parts` parts.
Result<std::vector<FormPart>> multipart_parts(std::string_view body, size_t max_parts);

// application/x-www-form-urlencoded decoding of one value ('+' is a space).
Result<std::string> url_decode(std::string_view text);

}  // namespace tharsis
