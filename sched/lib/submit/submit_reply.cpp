// Implementation of sched/lib/submit/submit_reply.h.
#include "sched/lib/submit/submit_reply.h"

#include "lib/protocol/xml_text.h"

namespace tharsis {
namespace {

const char* kDeclaration = "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n";

std::string error_element(std::string_view message) {
  return "<error>\n<error_num>-1</error_num>\n<error_msg>" + xml_escape(message) + "</error_msg>\n</error>\n";
}

}  // namespace

std::string render_submit_reply(std::string_view operation, std::string_view inner) {
  std::string out = kDeclaration;
  out.reserve(inner.size() + 2 * operation.size() + 64);
  out += '<';
  out += operation;
  out += ">\n";
  out += inner;
  out += "</";
  out += operation;
  out += ">\n";
  return out;
}

std::string render_submit_error(std::string_view operation, std::string_view message) {
  if (operation.empty()) return kDeclaration + error_element(message);
  return render_submit_reply(operation, error_element(message));
}

void add_field(std::string& out, std::string_view name, std::string_view value) {
  append_element(out, name, xml_escape(value));
}

void add_field(std::string& out, std::string_view name, int64_t value) {
  add_field(out, name, format_int(value));
}
void add_field(std::string& out, std::string_view name, int value) {
  add_field(out, name, static_cast<int64_t>(value));
}
void add_field(std::string& out, std::string_view name, double value) {
  add_field(out, name, format_double(value));
}

}  // namespace tharsis
