// Base64 (RFC 4648, standard alphabet, '=' padding) for binary data carried in XML text:
// submit_rpc's get_graph_output reply holds a small .npy this way.
#pragma once

#include <string>
#include <string_view>

#include "lib/result.h"

namespace tharsis {

std::string base64_encode(std::string_view bytes);
// Whitespace is skipped; any other character outside the alphabet, or a length that is
// not a whole number of 4-character groups, is an error.
Result<std::string> base64_decode(std::string_view text);

}  // namespace tharsis
