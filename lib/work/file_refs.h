// The file descriptions stored in workunit.xml_doc, result.xml_doc_in and
// result.xml_doc_out (BOINC's <file_info> elements), read by the back-end daemons, and
// the result output template that the transitioner expands for each new result.
//   <file_info><name>N</name>[<no_delete/>] ...</file_info>   (one per file)
// In an output template, <OUTFILE_i/> stands for the i-th output's name (result name +
// "_" + i) and <UPLOAD_URL/> for the project's upload handler URL.
#pragma once

#include <functional>
#include <pugixml.hpp>
#include <string>
#include <vector>

#include "lib/result.h"

namespace tharsis {

// A file named in a workunit's or result's file_info.
struct StoredFile {
  std::string name;
  bool no_delete = false;  // file_info <no_delete/>: the project keeps it
};

// Calls `visit` with each <file_info> element of the XML fragment `xml`, in document
// order. Malformed XML is an error naming `what` and the offset.
Status for_each_file_info(const std::string& xml, const std::string& what,
                          const std::function<void(pugi::xml_node)>& visit);

// The <file_info> names (and no_delete flags) in `xml`, in document order. Malformed XML
// is an error naming the offset.
Result<std::vector<StoredFile>> file_infos_in(const std::string& xml);

// Expands an output template for one result.
std::string expand_output_template(const std::string& template_text, const std::string& result_name,
                                   const std::string& upload_url);

}  // namespace tharsis
