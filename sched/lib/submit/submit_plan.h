// Pure rules of submit_batch and the job queries: which inputs are acceptable, how jobs
// and content-addressed input files are named, the job parameters a job gets from its
// batch, a job's status, a result's state text, the batch's time estimate.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "db/rows.h"
#include "lib/result.h"
#include "lib/work/create_work.h"
#include "sched/lib/submit/submit_request.h"

namespace tharsis {

// Defaults where neither the job nor the batch's job_params say (create_work's).
inline constexpr double kDefaultFpopsEst = 1e9;

// A plain file name as download/ holds it: letters, digits, '_', '-', '.', no leading
// dot, no "..", at most 200 bytes (the same rule as create_work's).
bool is_plain_file_name(std::string_view name);
// 32 hex digits.
bool is_md5(std::string_view text);

// An uploaded file's name: "jf_" and 32 lower-case hex digits (BOINC's job file name).
bool is_job_file_name(std::string_view name);
// Whether the input names a file of the submitter's sandbox, which the account must
// hold (db/job_file_store.h): mode sandbox, or local_staged with a job file name (so no
// account can use another's upload, or a jf_ file another job staged inline).
bool uses_sandbox(const SubmitInput& input);

// Whether `input` (job number `job_index`, 1-based, input `input_index`) is acceptable
// before anything is staged: local_staged names a safe file; sandbox a job file name;
// remote has an http(s) URL without spaces or control characters, an md5 and a whole
// nbytes >= 0; semilocal an http(s) URL, and only when `limits` allow semilocal; local is
// not served (a path on the server).
Status check_input(const SubmitInput& input, size_t job_index, size_t input_index,
                   const SubmitLimits& limits);

// BOINC's content-addressed name of an inline or remote input: "jf_<md5>".
std::string job_file_name(std::string_view md5);
// The name of a job the request left unnamed: "<app>_<batch id>_<index>" (index from 0).
std::string default_job_name(std::string_view app, int64_t batch_id, size_t index);
// The batch name when the request gives none: "<app>_<user id>_<now>_<batch_id hint>".
std::string default_batch_name(std::string_view app, int64_t user_id, int64_t now, uint32_t salt);
// The first name given twice in the request's jobs, or "".
std::string duplicate_job_name(const std::vector<SubmitJob>& jobs);

// The JobSpec of a job (name, app, template, parameters, priority), inputs not filled:
// job value, else the batch's job_params (when > 0), else create_work's default.
JobSpec job_spec_for(const BatchDescription& batch, const SubmitJob& job, int64_t appid, int64_t batch_id,
                     const std::string& name, const std::string& output_template);

// Open name of input `index` (0-based): "in", "in1", "in2", ...
std::string input_open_name(size_t index);

// A job's status for query_batch's details: "done" (canonical result), "error" (error
// mask), "in_progress" (a result sent), else "queued".
const char* job_status(int64_t canonical_resultid, int error_mask, bool result_in_progress);
// A result's state for query_job: "unsent", "in_progress", then by outcome "completed",
// "error", "no_reply", "not_needed", "invalid", "abandoned".
const char* result_state_text(const ResultRow& result);

// estimate_batch: seconds = total FLOPs / project FLOPS (at least 1e9 FLOPS).
double estimate_batch_seconds(double total_fpops, double project_flops);

}  // namespace tharsis
