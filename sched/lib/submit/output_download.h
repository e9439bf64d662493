// BOINC's get_output.php for remote submitters (docs/remote_submission.md#output-files):
//   ?cmd=result_file&result_name=R&file_num=I&auth_str=md5(authenticator + R)
//     one output file of a job instance (the canonical one is served from the results
//     store, where the assimilator keeps it; others from upload/ while they last);
//   ?cmd=batch_files&batch_id=B&auth_str=md5(authenticator + B)
//     the canonical outputs of every finished job of the batch as one zip, each stored
//     as "<job name>/<file name>";
//   ?cmd=graph_output&graph_id=G&auth_str=md5(authenticator + "graph" + G)
//     an operand graph's result as .npy (graph_output_download.h).
// The authenticator is the batch owner's: only the owner can form auth_str. Errors are
// "ERROR: <why>" in text/plain with status 400 (bad request), 403 (auth) or 404.
#pragma once

#include <string_view>

#include "db/database.h"
#include "lib/config/project_config.h"
#include "sched/lib/cgi_server.h"

namespace tharsis {

// A batch's zip is built in memory: at most this many bytes of outputs (else an error
// that says to fetch the files one by one).
inline constexpr size_t kMaxBatchArchiveBytes = 512u << 20;

HttpResponse handle_get_output(std::string_view query_string, Database& db, const ProjectConfig& config);

}  // namespace tharsis
