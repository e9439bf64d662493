// Implementation of lib/file_refs.h.
#include "lib/file_refs.h"

#include <pugixml.hpp>

namespace tharsis {

Result<std::vector<StoredFile>> file_infos_in(const std::string& xml) {
  pugi::xml_document doc;
  auto parsed = doc.load_buffer(xml.data(), xml.size(), pugi::parse_default | pugi::parse_fragment);
  if (!parsed) {
    return make_error("file descriptions: malformed XML at offset " + std::to_string(parsed.offset) + ": " +
                      parsed.description());
  }
  std::vector<StoredFile> files;
  for (auto info : doc.select_nodes("//file_info")) {
    StoredFile file;
    file.name = info.node().child_value("name");
    file.no_delete = static_cast<bool>(info.node().child("no_delete"));
    if (!file.name.empty()) files.push_back(file);
  }
  return files;
}

std::string expand_output_template(const std::string& template_text, const std::string& result_name,
                                   const std::string& upload_url) {
  std::string out = template_text;
  auto replace_all = [&out](const std::string& from, const std::string& to) {
    for (size_t at = out.find(from); at != std::string::npos; at = out.find(from, at + to.size())) {
      out.replace(at, from.size(), to);
    }
  };
  for (int i = 0; i < 64; ++i) {
    replace_all("<OUTFILE_" + std::to_string(i) + "/>", result_name + "_" + std::to_string(i));
  }
  replace_all("<UPLOAD_URL/>", upload_url);
  return out;
}

}  // namespace tharsis
