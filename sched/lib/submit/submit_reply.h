// Writing submit RPC replies: the <?xml?> declaration, the element named after the
// operation around the reply's fields, and BOINC's error element
// <error><error_num>-1</error_num><error_msg>..</error_msg></error>.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tharsis {

// The whole reply for a successful operation: `inner` inside <operation>.
std::string render_submit_reply(std::string_view operation, std::string_view inner);
// The whole reply for a failed one: the error inside <operation>, or the bare <error>
// when the request could not be read far enough to know its operation.
std::string render_submit_error(std::string_view operation, std::string_view message);

// Appends "<name>value</name>\n" with the value escaped / formatted.
void add_field(std::string& out, std::string_view name, std::string_view value);
void add_field(std::string& out, std::string_view name, int64_t value);
void add_field(std::string& out, std::string_view name, int value);
void add_field(std::string& out, std::string_view name, double value);

}  // namespace tharsis
