// Implementation of sched/lib/stored_descriptions.h.
#include "sched/lib/stored_descriptions.h"

#include <cstdlib>
#include <pugixml.hpp>

namespace tharsis {

Result<StoredDescription> read_stored_description(const std::string& xml, const std::string& element) {
  pugi::xml_document doc;
  auto parsed = doc.load_buffer(xml.data(), xml.size(), pugi::parse_default | pugi::parse_fragment);
  if (!parsed) {
    return make_error("stored " + element + " description: malformed XML at offset " +
                      std::to_string(parsed.offset) + ": " + parsed.description());
  }
  StoredDescription out;
  for (pugi::xml_node info : doc.children("file_info")) {
    ReplyFileInfo f;
    f.name = info.child_value("name");
    for (pugi::xml_node url : info.children("url")) f.download_urls.push_back(url.text().get());
    f.md5_cksum = info.child_value("md5_cksum");
    f.nbytes = std::atof(info.child_value("nbytes"));
    f.max_nbytes = std::atof(info.child_value("max_nbytes"));
    f.executable = static_cast<bool>(info.child("executable"));
    f.sticky = static_cast<bool>(info.child("sticky"));
    f.no_delete = static_cast<bool>(info.child("no_delete"));
    f.file_signature = info.child_value("file_signature");
    out.file_infos.push_back(f);
  }
  pugi::xml_node parent = doc.child(element.c_str());
  for (pugi::xml_node ref : parent.children("file_ref")) {
    ReplyFileRef r;
    r.file_name = ref.child_value("file_name");
    r.open_name = ref.child_value("open_name");
    r.main_program = static_cast<bool>(ref.child("main_program"));
    r.copy_file = static_cast<bool>(ref.child("copy_file"));
    out.file_refs.push_back(r);
  }
  out.command_line = parent.child_value("command_line");
  return out;
}

}  // namespace tharsis
