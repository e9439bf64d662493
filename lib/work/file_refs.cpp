// Implementation of lib/work/file_refs.h.
#include "lib/work/file_refs.h"

#include <cstring>

namespace tharsis {

Status for_each_file_info(const std::string& xml, const std::string& what,
                          const std::function<void(pugi::xml_node)>& visit) {
  pugi::xml_document doc;
  auto parsed = doc.load_buffer(xml.data(), xml.size(), pugi::parse_default | pugi::parse_fragment);
  if (!parsed) {
    return make_error(what + ": malformed XML at offset " + std::to_string(parsed.offset) + ": " +
                      parsed.description());
  }
  // What the XPath //file_info selects — every element named file_info, nested ones
  // included, in document order — found by pugixml's own tree walk (an XPath query would
  // be compiled per call, a walk through xml_node calls costs more).
  struct FileInfoWalker final : pugi::xml_tree_walker {
    explicit FileInfoWalker(const std::function<void(pugi::xml_node)>& f) : visit_(f) {}
    bool for_each(pugi::xml_node& node) override {
      if (node.type() == pugi::node_element && std::strcmp(node.name(), "file_info") == 0) visit_(node);
      return true;
    }
    const std::function<void(pugi::xml_node)>& visit_;
  } walker(visit);
  doc.traverse(walker);
  return Status::success();
}

Result<std::vector<StoredFile>> file_infos_in(const std::string& xml) {
  std::vector<StoredFile> files;
  Status read = for_each_file_info(xml, "file descriptions", [&](pugi::xml_node info) {
    StoredFile file;
    file.name = info.child_value("name");
    file.no_delete = static_cast<bool>(info.child("no_delete"));
    if (!file.name.empty()) files.push_back(file);
  });
  if (!read) return make_error(read.error());
  return files;
}

std::string expand_output_template(const std::string& template_text, const std::string& result_name,
                                   const std::string& upload_url) {
  // One pass (the transitioner expands a template per new result): inserted text is never
  // scanned again. "<OUTFILE_i/>" is matched only with i written as to_string(i), i < 64.
  static const std::string kOutfile = "<OUTFILE_";
  static const std::string kUploadUrl = "<UPLOAD_URL/>";
  const std::string& t = template_text;
  std::string out;
  out.reserve(t.size() + 4 * result_name.size() + upload_url.size());
  size_t at = 0;
  for (size_t lt = t.find('<'); lt != std::string::npos; lt = t.find('<', at)) {
    out.append(t, at, lt - at);
    at = lt + 1;
    if (t.compare(lt, kUploadUrl.size(), kUploadUrl) == 0) {
      out += upload_url;
      at = lt + kUploadUrl.size();
      continue;
    }
    if (t.compare(lt, kOutfile.size(), kOutfile) == 0) {
      const size_t digits = lt + kOutfile.size();
      size_t end = digits;
      int number = 0;
      while (end < t.size() && end - digits < 2 && t[end] >= '0' && t[end] <= '9')
        number = number * 10 + (t[end++] - '0');
      const bool canonical = end > digits && (end - digits == 1 || t[digits] != '0');
      if (canonical && number < 64 && t.compare(end, 2, "/>") == 0) {
        out += result_name;
        out += '_';
        out.append(t, digits, end - digits);
        at = end + 2;
        continue;
      }
    }
    out += '<';
  }
  out.append(t, at, std::string::npos);
  return out;
}

}  // namespace tharsis
