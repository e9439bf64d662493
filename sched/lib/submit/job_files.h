// BOINC's job_file.php for remote submitters: input files uploaded ahead of a batch into
// download/ (with the project's fan-out) and held in the account's sandbox (a job_file
// row, db/job_file_store.h), then named in submit_batch as sandbox or local_staged.
//   <query_files><authenticator/><phys_name>N</phys_name>...</query_files>
//     -> <absent_files><file>I</file>...</absent_files>: the indexes of the names this
//        account does not hold (or whose file is gone), so the client uploads only those;
//        another account's upload of the same content counts as absent (nobody learns
//        what others uploaded); the held ones are kept longer (as below);
//   <upload_files><authenticator/><phys_name>N</phys_name>...</upload_files> with the
//     files as multipart parts file_0, file_1, ... -> <success/>: the account now holds them.
// Both take BOINC's optional <delete_time> (held until then; default 30 days from now, at
// most a year ahead) and <batch_id> (the account's batch, not retired, that uses them:
// they then stay while it lives).
// Tharsis requires every name to be "jf_<md5 of the content>" (what BOINC's clients
// make), so a file is immutable by construction: an upload whose content does not match
// its name is refused, and a name already present is not written again. All names and
// contents are checked before any file is written; an error writes nothing. Needs a
// submit grant (a user_submit row).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "db/database.h"
#include "lib/config/project_config.h"
#include "sched/lib/submit/submit_limits.h"

namespace tharsis {

// The reply text for one job_file request body.
std::string handle_job_file_rpc(std::string_view body, Database& db, const ProjectConfig& config,
                                const SubmitLimits& limits, int64_t now);

// Pure: whether `name` is "jf_" followed by the md5 of `content` (lower-case hex).
bool names_its_content(std::string_view name, std::string_view content);

}  // namespace tharsis
