// SQL for the file upload handler: what it must know about the result an uploaded output
// belongs to, to decide whether that result still takes its output
// (sched/lib/result_acceptance.h) and whether the file is one of its outputs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "db/database.h"
#include "db/states.h"

namespace tharsis {

struct UploadTargetRow {
  ServerState server_state = ServerState::Unsent;
  Outcome outcome = Outcome::Init;
  std::string xml_doc_in;  // the result's output <file_info>s
  int64_t wu_canonical_resultid = 0;
  int wu_error_mask = 0;
  AssimilateState wu_assimilate_state = AssimilateState::Init;
};

// The result named `result_name` (the res_name key) with its workunit's state, in one
// statement; nullopt when there is no such result. Throws DbError.
std::optional<UploadTargetRow> fetch_upload_target(Database& db, const std::string& result_name);

}  // namespace tharsis
