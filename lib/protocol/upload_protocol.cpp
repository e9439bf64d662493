// Implementation of lib/protocol/upload_protocol.h.
#include "lib/protocol/upload_protocol.h"

#include <cmath>
#include <map>

#include "lib/crypto/boinc_signature.h"
#include "lib/protocol/xml_text.h"

namespace tharsis {

namespace {

constexpr size_t kMaxSignatureBytes = 4096;

ParsedDataServerRequest failure(UploadStatus status, std::string message) {
  ParsedDataServerRequest parsed;
  parsed.error.status = status;
  parsed.error.message = "data_server_request: " + std::move(message);
  return parsed;
}

bool is_container(std::string_view tag) {
  static const std::string_view kContainers[] = {
      "data_server_request", "/data_server_request", "file_upload", "/file_upload",
      "file_info",           "/file_info",           "signed_xml",  "/signed_xml"};
  for (auto container : kContainers) {
    if (tag == container) return true;
  }
  return false;
}

// Text between <tag> and </tag> in `text`, or nullopt.
std::optional<std::string_view> element_text(std::string_view text, std::string_view tag) {
  std::string open = "<" + std::string(tag) + ">";
  std::string close = "</" + std::string(tag) + ">";
  size_t start = text.find(open);
  if (start == std::string_view::npos) return std::nullopt;
  start += open.size();
  size_t end = text.find(close, start);
  if (end == std::string_view::npos) return std::nullopt;
  return text.substr(start, end - start);
}

std::string xml_unescape_basic(std::string_view text) {
  static const std::pair<std::string_view, char> kEntities[] = {
      {"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''}};
  std::string out;
  for (size_t i = 0; i < text.size();) {
    bool replaced = false;
    if (text[i] == '&') {
      for (const auto& [entity, c] : kEntities) {
        if (text.substr(i, entity.size()) == entity) {
          out += c;
          i += entity.size();
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) out += text[i++];
  }
  return out;
}

}  // namespace

std::string unsafe_file_name_reason(std::string_view name) {
  if (name.empty()) return "empty file name";
  if (name.size() > kMaxUploadFileNameBytes) {
    return "file name of " + std::to_string(name.size()) + " bytes exceeds " +
           std::to_string(kMaxUploadFileNameBytes);
  }
  if (name.front() == '.') return "file name starts with '.'";
  if (name.find("..") != std::string_view::npos) return "file name contains '..'";
  for (char c : name) {
    auto byte = static_cast<unsigned char>(c);
    if (c == '/' || c == '\\') return "file name contains a path separator";
    if (byte < 0x20 || byte == 0x7f) return "file name contains a control character";
    if (c == '%' || c == '<' || c == '>' || c == '&') return std::string("file name contains '") + c + "'";
  }
  return "";
}

bool is_safe_file_name(std::string_view name) { return unsafe_file_name_reason(name).empty(); }

ParsedDataServerRequest parse_data_server_request(std::string_view input, const UploadLimits& limits) {
  std::map<std::string, std::string> fields;
  bool saw_upload = false, saw_data = false, saw_end = false;
  size_t data_start = 0;
  size_t pos = 0;
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (true) {
    while (pos < input.size() && is_space(input[pos])) ++pos;
    if (pos >= input.size()) break;
    if (pos > limits.max_header_bytes) {
      return failure(
          UploadStatus::PermanentError,
          "header longer than " + std::to_string(limits.max_header_bytes) + " bytes without <data>");
    }
    if (input[pos] != '<') {
      return failure(UploadStatus::PermanentError, "expected a tag at byte " + std::to_string(pos) +
                                                       ", found " + quote_for_message(input.substr(pos)));
    }
    size_t gt = input.find('>', pos);
    if (gt == std::string_view::npos) break;  // cut off inside a tag
    std::string_view tag = input.substr(pos + 1, gt - pos - 1);
    pos = gt + 1;
    if (tag.empty()) return failure(UploadStatus::PermanentError, "empty tag '<>'");
    if (tag.front() == '?' || tag.front() == '!') continue;
    if (tag == "/data_server_request") {
      saw_end = true;
      break;
    }
    if (tag == "file_upload") saw_upload = true;
    if (tag == "data") {
      // The client writes "<data>\n" and the file's bytes right after the newline.
      if (pos < input.size() && input[pos] == '\r') ++pos;
      if (pos >= input.size()) break;
      if (input[pos] != '\n') return failure(UploadStatus::PermanentError, "expected a newline after <data>");
      data_start = pos + 1;
      saw_data = true;
      break;
    }
    if (is_container(tag) || tag.back() == '/') continue;
    if (tag.front() == '/') {
      return failure(UploadStatus::PermanentError, "unexpected closing tag <" + std::string(tag) + ">");
    }
    std::string close = "</" + std::string(tag) + ">";
    size_t end = input.find(close, pos);
    if (end == std::string_view::npos) {
      if (input.size() - pos > kMaxSignatureBytes + close.size()) {
        return failure(UploadStatus::PermanentError, "<" + std::string(tag) + "> is never closed");
      }
      break;
    }
    size_t limit = tag == "xml_signature" ? kMaxSignatureBytes : kMaxUploadFileNameBytes + 64;
    if (end - pos > limit) {
      return failure(UploadStatus::PermanentError,
                     "<" + std::string(tag) + "> longer than " + std::to_string(limit) + " bytes");
    }
    fields[std::string(tag)] = std::string(input.substr(pos, end - pos));
    pos = end + close.size();
  }

  // The loop stops early only at </data_server_request> or <data>; anything else means
  // the input ran out (inside a tag, an element, or before the newline after <data>).
  const bool ended_early = !saw_end && !saw_data;
  auto finish = [ended_early](ParsedDataServerRequest parsed) {
    parsed.input_ended_early = ended_early;
    return parsed;
  };
  DataServerRequest request;
  auto read_int = [&](const char* tag, int& out) -> bool {
    auto it = fields.find(tag);
    if (it == fields.end()) return true;
    auto value = parse_xml_int(it->second);
    if (!value || *value < 0 || *value > 1000000) return false;
    out = static_cast<int>(*value);
    return true;
  };
  if (!read_int("core_client_major_version", request.client.major) ||
      !read_int("core_client_minor_version", request.client.minor) ||
      !read_int("core_client_release", request.client.release)) {
    return failure(UploadStatus::PermanentError, "client version is not a small integer");
  }
  if (auto it = fields.find("get_file_size"); it != fields.end() && !saw_upload) {
    request.kind = DataServerRequest::Kind::GetFileSize;
    request.file_name = xml_unescape_basic(trim_xml_space(it->second));  // as <name> of an upload
    if (auto reason = unsafe_file_name_reason(request.file_name); !reason.empty()) {
      return failure(UploadStatus::PermanentError, "<get_file_size>: " + reason);
    }
    ParsedDataServerRequest parsed;
    parsed.request = std::move(request);
    return finish(std::move(parsed));
  }
  if (!saw_upload) {
    if (ended_early) {
      return finish(failure(UploadStatus::TransientError,
                            "no command (input ended before <get_file_size> or <file_upload>)"));
    }
    return failure(UploadStatus::PermanentError, "no command: neither <get_file_size> nor <file_upload>");
  }
  if (!saw_data) {
    if (saw_end) return failure(UploadStatus::PermanentError, "missing <data> in <file_upload>");
    return finish(failure(UploadStatus::TransientError, "input ended before <data>"));
  }
  request.kind = DataServerRequest::Kind::FileUpload;
  request.data_start = data_start;
  auto name = fields.find("name");
  if (name == fields.end()) return failure(UploadStatus::PermanentError, "missing <name> in <file_upload>");
  request.file_name = xml_unescape_basic(trim_xml_space(name->second));
  if (auto reason = unsafe_file_name_reason(request.file_name); !reason.empty()) {
    return failure(UploadStatus::PermanentError, "<name>: " + reason);
  }
  if (auto it = fields.find("xml_signature"); it != fields.end()) request.xml_signature = it->second;
  if (auto it = fields.find("md5_cksum"); it != fields.end())
    request.md5_cksum = xml_unescape_basic(trim_xml_space(it->second));
  auto read_size = [&](const char* tag, double& out) -> std::string {
    auto it = fields.find(tag);
    if (it == fields.end()) return "";
    auto value = parse_xml_double(it->second);
    if (!value || *value < 0 || *value != std::floor(*value)) {
      return std::string("<") + tag + ">: expected a byte count, found " + quote_for_message(it->second);
    }
    out = *value;
    return "";
  };
  for (auto [tag, out] : {std::pair<const char*, double*>{"max_nbytes", &request.max_nbytes},
                          {"nbytes", &request.nbytes},
                          {"offset", &request.offset}}) {
    if (auto problem = read_size(tag, *out); !problem.empty())
      return failure(UploadStatus::PermanentError, problem);
  }
  if (request.nbytes < 0) return failure(UploadStatus::PermanentError, "<nbytes> missing");
  if (request.offset > request.nbytes) {
    return failure(UploadStatus::PermanentError, "<offset> " + format_double(request.offset) +
                                                     " beyond <nbytes> " + format_double(request.nbytes));
  }
  ParsedDataServerRequest parsed;
  parsed.request = std::move(request);
  return parsed;
}

Status check_upload_certificate(const RsaKey& upload_public, const DataServerRequest& request) {
  const std::string where = "upload of '" + request.file_name + "': ";
  if (trim_xml_space(request.xml_signature).empty())
    return make_error(where + "missing signature (<xml_signature>)");
  if (request.max_nbytes < 0) return make_error(where + "missing <max_nbytes>");
  auto valid = verify_block_boinc(
      upload_public, upload_certificate_text(request.file_name, request.max_nbytes), request.xml_signature);
  if (!valid.ok()) return make_error(where + "unreadable signature: " + valid.error());
  if (!*valid) return make_error(where + "invalid signature");
  if (request.nbytes > request.max_nbytes) {
    return make_error(where + "file size " + format_double(request.nbytes) + " bytes exceeds the limit of " +
                      format_double(request.max_nbytes) + " bytes");
  }
  return Status::success();
}

std::string render_data_server_reply(const DataServerReply& reply) {
  std::string out = "<data_server_reply>\n    <status>";
  out += std::to_string(static_cast<int>(reply.status));
  out += "</status>\n";
  if (reply.file_size)
    out += "    <file_size>" + format_double(std::floor(*reply.file_size)) + "</file_size>\n";
  if (!reply.message.empty()) out += "    <message>" + xml_escape(reply.message) + "</message>\n";
  out += "</data_server_reply>\n";
  return out;
}

namespace {
std::string client_version_lines(const ClientVersion& client) {
  return "    <core_client_major_version>" + std::to_string(client.major) + "</core_client_major_version>\n" +
         "    <core_client_minor_version>" + std::to_string(client.minor) + "</core_client_minor_version>\n" +
         "    <core_client_release>" + std::to_string(client.release) + "</core_client_release>\n";
}
// Element text as the header's fields carry it: only & < > need escaping there, so a name
// with quotes keeps its length (a 255-byte name stays within the field's limit).
std::string escape_element_text(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else
      out += c;
  }
  return out;
}

}  // namespace

std::string render_get_file_size_request(const ClientVersion& client, std::string_view file_name) {
  return "<data_server_request>\n" + client_version_lines(client) + "    <get_file_size>" +
         escape_element_text(file_name) + "</get_file_size>\n</data_server_request>\n";
}

std::string render_file_upload_header(const ClientVersion& client, std::string_view file_name,
                                      std::string_view xml_signature, double max_nbytes, double nbytes,
                                      std::string_view md5_cksum, double offset) {
  std::string signature(xml_signature);
  if (!signature.empty() && signature.back() != '\n') signature += '\n';
  return "<data_server_request>\n" + client_version_lines(client) + "<file_upload>\n<file_info>\n<name>" +
         escape_element_text(file_name) + "</name>\n<xml_signature>\n" + signature +
         "</xml_signature>\n<max_nbytes>" + format_double(std::floor(max_nbytes)) +
         "</max_nbytes>\n</file_info>\n<nbytes>" + format_double(std::floor(nbytes)) +
         "</nbytes>\n<md5_cksum>" + escape_element_text(md5_cksum) + "</md5_cksum>\n<offset>" +
         format_double(std::floor(offset)) + "</offset>\n<data>\n";
}

DataServerReply parse_data_server_reply(std::string_view text) {
  DataServerReply reply;
  reply.status = UploadStatus::TransientError;
  if (auto status = element_text(text, "status")) {
    auto value = parse_xml_int(*status);
    if (value && *value == 0) reply.status = UploadStatus::Success;
    if (value && *value == -1) reply.status = UploadStatus::PermanentError;
  } else {
    reply.message = "reply has no <status>";
  }
  // A size that is not a whole number of bytes is no size: a client resumes from it.
  if (auto size = element_text(text, "file_size")) {
    if (auto value = parse_xml_double(*size); value && *value >= 0 && *value == std::floor(*value)) {
      reply.file_size = *value;
    }
  }
  if (auto message = element_text(text, "message")) reply.message = xml_unescape_basic(*message);
  return reply;
}

}  // namespace tharsis
