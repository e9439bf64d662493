// Turning the file descriptions stored with workunits, results and app versions
// (xml_doc columns written by create_work, the transitioner and add_app) into the typed
// parts of a scheduler reply: <file_info>s and the <file_ref>s of an <app_version>,
// <workunit> or <result>, plus a workunit's <command_line>.
#pragma once

#include <string>
#include <vector>

#include "lib/protocol/scheduler_reply.h"
#include "lib/result.h"

namespace tharsis {

struct StoredDescription {
  std::vector<ReplyFileInfo> file_infos;
  std::vector<ReplyFileRef> file_refs;  // those inside the <app_version>/<workunit>/<result> element
  std::string command_line;
};

// `element` names the element holding the file_refs: "app_version", "workunit" or "result".
Result<StoredDescription> read_stored_description(const std::string& xml, const std::string& element);

}  // namespace tharsis
