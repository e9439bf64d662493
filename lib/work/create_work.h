// Work creation in BOINC's spirit (the core of tools/create_work): stage a job's input
// files into download/ (hashed fan-out, md5 and size recorded in the workunit's
// <file_info>s), record which inputs the workunit names, and insert the workunit due now
// so the transitioner creates its results. Input files may be shared by many workunits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "db/database.h"
#include "db/rows.h"
#include "lib/config/project_config.h"
#include "lib/result.h"

namespace tharsis {

struct InputFile {
  std::string name;        // name in download/ (must be a safe file name)
  std::string open_name;   // name the app opens ("in")
  std::string content;     // staged when non-empty or when the file is not there yet
  bool no_delete = false;  // keep after the workunit (shared data the project manages)
};

struct JobSpec {
  std::string name;
  int64_t appid = 0;
  std::vector<InputFile> inputs;
  std::string output_template_file;  // relative to the project dir, e.g. templates/out.xml
  std::string command_line;
  int min_quorum = 1, target_nresults = 1, max_error_results = 3, max_total_results = 10,
      max_success_results = 6;
  int delay_bound = 86400;
  double rsc_fpops_est = 1e9, rsc_fpops_bound = 1e12, rsc_memory_bound = 1e8, rsc_disk_bound = 1e8;
  int priority = 0;
  int batch = 0;
  int64_t graph_id = 0;
  // Held: transition_time = never, so the transitioner creates no results until someone
  // (the graph scheduler, when the operand's inputs are ready) sets it to now.
  bool held = false;
};

// An input file staged in download/: what a workunit's <file_info> records.
struct StagedInput {
  std::string name;
  std::string open_name;
  std::string md5;
  int64_t nbytes = 0;
  bool no_delete = false;
  std::string url = "";  // where volunteers download it; empty = download_url + fan-out path
};

// Writes `input` into download/ (when it has content or is not there yet) and reads back
// its md5 and size. Errors: unsafe name, unwritable or unreadable file.
Result<StagedInput> stage_input_file(const ProjectConfig& config, const InputFile& input);

// `input`, whose content is given, described as stage_input_file will stage it (md5 and
// size of the content); nothing is written. For a workunit whose file is written later,
// before the workunit is released (a held operand run).
StagedInput describe_input(const InputFile& input);

// BOINC's workunit xml_doc: one <file_info> per input (download URL, md5, size), then
// <workunit> with the file_refs (open names) and the command line.
std::string workunit_xml_doc(const ProjectConfig& config, const std::vector<StagedInput>& inputs,
                             const std::string& command_line);

// Checks the job's parameters, stages its inputs and builds the row (not inserted).
Result<WorkunitRow> prepare_workunit(const ProjectConfig& config, const JobSpec& job, int64_t now);

// The checks of prepare_workunit that need no files: a safe name, quorum parameters in order.
Status check_job_spec(const JobSpec& job);
// The row for a checked job whose inputs are staged already (`staged`, in the job's order).
WorkunitRow build_workunit_row(const ProjectConfig& config, const JobSpec& job,
                               const std::vector<StagedInput>& staged, int64_t now);

// A row ready to insert with the names of the input files it names (for workunit_input).
struct PreparedWorkunit {
  WorkunitRow row;
  std::vector<std::string> input_names;
};
// Set-based insert of many prepared workunits with their input records, inside the
// caller's transaction: a few statements per few MB of rows (db/workunit_bulk_store.h),
// never one per job. A duplicate name throws DbError (duplicate_key(); the caller rolls back).
void insert_prepared_workunits(Database& db, const std::vector<PreparedWorkunit>& workunits);

// Inserts a prepared workunit and records its input names, inside the caller's
// transaction; returns its id.
int64_t insert_prepared_workunit(Database& db, const WorkunitRow& wu);

// Stages the inputs and inserts the workunit in one transaction; returns its id.
// Errors: unsafe names, quorum parameters out of order, a duplicate workunit name, an
// input reused from download/ (no content given) that a file deleter removed meanwhile
// or is removing (one with content is written again when removed meanwhile).
Result<int64_t> create_workunit(Database& db, const ProjectConfig& config, const JobSpec& job, int64_t now);

// Whether file `name` is in download/ (where the project's fan-out puts it).
bool is_in_download(const ProjectConfig& config, const std::string& name);
// The first of `names` not in download/; empty when all are there. A transaction that took
// its workunits' inputs (record_workunit_inputs) checks them before it commits: a file
// deleter may have unlinked a file found in download/ before it was taken.
std::string first_missing_download(const ProjectConfig& config, const std::vector<std::string>& names);

// Writes an output template with `outputs` files (open names "out", "out1", ...) to
// <project>/templates/<name> and returns its project-relative path.
Result<std::string> write_output_template(const ProjectConfig& config, const std::string& name, int outputs,
                                          int64_t max_nbytes);

}  // namespace tharsis
