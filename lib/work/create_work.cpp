// Implementation of lib/work/create_work.h.
#include "lib/work/create_work.h"

#include <sys/stat.h>

#include <set>
#include <sstream>

#include "db/file_store.h"
#include "db/stale_row.h"
#include "db/workunit_bulk_store.h"
#include "db/workunit_store.h"
#include "lib/crypto/md5.h"
#include "lib/protocol/xml_text.h"
#include "lib/text_file.h"
#include "lib/work/fanout.h"
#include "lib/work/file_refs.h"

namespace tharsis {
namespace {

bool safe_name(const std::string& name) {
  if (name.empty() || name.size() > 200 || name[0] == '.') return false;
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  }
  return name.find("..") == std::string::npos;
}

}  // namespace

StagedInput describe_input(const InputFile& input) {
  return StagedInput{input.name,
                     input.open_name,
                     md5_hex(input.content),
                     static_cast<int64_t>(input.content.size()),
                     input.no_delete,
                     ""};
}

Result<StagedInput> stage_input_file(const ProjectConfig& config, const InputFile& input) {
  if (!safe_name(input.name)) return make_error("create_work: unsafe input file name '" + input.name + "'");
  auto path = fanout_path_create(config.download_dir, input.name, config.uldl_dir_fanout);
  if (!path.ok()) return make_error(path.error());
  struct stat info {};
  if (!input.content.empty() || stat(path->c_str(), &info) != 0) {
    if (Status written = write_text_file(*path, input.content); !written.ok())
      return make_error(written.error());
    return describe_input(input);  // what was just written needs no second read
  }
  auto md5 = md5_file_hex(*path);
  if (!md5.ok()) return make_error(md5.error());
  if (stat(path->c_str(), &info) != 0) return make_error("create_work: cannot stat " + *path);
  return StagedInput{input.name, input.open_name, *md5, static_cast<int64_t>(info.st_size), input.no_delete,
                     ""};
}

std::string workunit_xml_doc(const ProjectConfig& config, const std::vector<StagedInput>& inputs,
                             const std::string& command_line) {
  std::ostringstream xml;
  std::set<std::string> described;  // one file may be opened under two names (a + a)
  for (const auto& input : inputs) {
    if (!described.insert(input.name).second) continue;
    xml << "<file_info><name>" << input.name << "</name><url>";
    if (input.url.empty()) {
      xml << xml_escape(config.download_url) << "/" << fanout_dir(input.name, config.uldl_dir_fanout) << "/"
          << input.name;
    } else {
      xml << xml_escape(input.url);
    }
    xml << "</url><md5_cksum>" << xml_escape(input.md5) << "</md5_cksum><nbytes>" << input.nbytes
        << "</nbytes>" << (input.no_delete ? "<no_delete/>" : "") << "</file_info>\n";
  }
  xml << "<workunit>\n";
  for (const auto& input : inputs) {
    xml << "<file_ref><file_name>" << input.name << "</file_name><open_name>" << xml_escape(input.open_name)
        << "</open_name></file_ref>\n";
  }
  if (!command_line.empty()) xml << "<command_line>" << xml_escape(command_line) << "</command_line>\n";
  xml << "</workunit>\n";
  return xml.str();
}

Status check_job_spec(const JobSpec& job) {
  if (!safe_name(job.name)) return make_error("create_work: unsafe workunit name '" + job.name + "'");
  if (job.min_quorum < 1 || job.target_nresults < job.min_quorum ||
      job.max_total_results < job.target_nresults || job.max_success_results < job.min_quorum) {
    return make_error("create_work: " + job.name +
                      ": expected 1 <= min_quorum <= target_nresults <= max_total_results and "
                      "min_quorum <= max_success_results");
  }
  return Status::success();
}

Result<WorkunitRow> prepare_workunit(const ProjectConfig& config, const JobSpec& job, int64_t now) {
  if (Status checked = check_job_spec(job); !checked.ok()) return make_error(checked.error());
  std::vector<StagedInput> staged;
  for (const auto& input : job.inputs) {
    auto one = stage_input_file(config, input);
    if (!one.ok()) return make_error(one.error());
    staged.push_back(*one);
  }
  return build_workunit_row(config, job, staged, now);
}

WorkunitRow build_workunit_row(const ProjectConfig& config, const JobSpec& job,
                               const std::vector<StagedInput>& staged, int64_t now) {
  WorkunitRow wu;
  wu.create_time = now;
  wu.appid = job.appid;
  wu.name = job.name;
  wu.xml_doc = workunit_xml_doc(config, staged, job.command_line);
  wu.batch = job.batch;
  wu.rsc_fpops_est = job.rsc_fpops_est;
  wu.rsc_fpops_bound = job.rsc_fpops_bound;
  wu.rsc_memory_bound = job.rsc_memory_bound;
  wu.rsc_disk_bound = job.rsc_disk_bound;
  wu.delay_bound = job.delay_bound;
  wu.min_quorum = job.min_quorum;
  wu.target_nresults = job.target_nresults;
  wu.max_error_results = job.max_error_results;
  wu.max_total_results = job.max_total_results;
  wu.max_success_results = job.max_success_results;
  wu.priority = job.priority;
  wu.transition_time = job.held ? kTransitionNever : now;
  wu.result_template_file = job.output_template_file;
  wu.graph_id = job.graph_id;
  return wu;
}

void insert_prepared_workunits(Database& db, const std::vector<PreparedWorkunit>& workunits) {
  std::vector<WorkunitRow> rows;
  std::vector<std::pair<std::string, std::string>> inputs;
  rows.reserve(workunits.size());
  for (const auto& wu : workunits) {
    rows.push_back(wu.row);
    for (const auto& name : wu.input_names) inputs.emplace_back(wu.row.name, name);
  }
  insert_workunits_bulk(db, rows);
  record_workunit_inputs_bulk(db, inputs);
}

int64_t insert_prepared_workunit(Database& db, const WorkunitRow& wu) {
  int64_t id = insert_workunit(db, wu);
  std::vector<std::string> names;
  if (auto inputs = file_infos_in(wu.xml_doc); inputs.ok()) {
    for (const auto& f : *inputs) names.push_back(f.name);
  }
  record_workunit_inputs(db, id, names);
  return id;
}

Result<int64_t> create_workunit(Database& db, const ProjectConfig& config, const JobSpec& job, int64_t now) {
  auto wu = prepare_workunit(config, job, now);
  if (!wu.ok()) return make_error(wu.error());
  try {
    return db.transaction([&](Database& d) -> Result<int64_t> {
      int64_t id = insert_prepared_workunit(d, *wu);
      // The inputs were staged (or found there) before the workunit took them: a file
      // deleter that read no user for a file reused here may have unlinked it since.
      // Taken now, they stay; a missing one is written again, or the job is refused.
      for (const auto& input : job.inputs) {
        if (is_in_download(config, input.name)) continue;
        if (input.content.empty())
          return make_error("create_work: input file " + input.name +
                            " was deleted from download/ meanwhile");
        auto path = fanout_path(config.download_dir, input.name, config.uldl_dir_fanout);
        if (Status written = write_text_file(path, input.content); !written.ok())
          return make_error(written.error());
      }
      return id;
    });
  } catch (const StaleRow& e) {  // an input a file deleter is unlinking (take_download_files)
    return make_error(std::string("create_work: ") + e.what());
  } catch (const DbError& e) {
    if (e.duplicate_key()) return make_error("create_work: workunit '" + job.name + "' already exists");
    throw;
  }
}

bool is_in_download(const ProjectConfig& config, const std::string& name) {
  struct stat info {};
  return stat(fanout_path(config.download_dir, name, config.uldl_dir_fanout).c_str(), &info) == 0;
}

std::string first_missing_download(const ProjectConfig& config, const std::vector<std::string>& names) {
  for (const auto& name : names) {
    if (!is_in_download(config, name)) return name;
  }
  return "";
}

Result<std::string> write_output_template(const ProjectConfig& config, const std::string& name, int outputs,
                                          int64_t max_nbytes) {
  if (!safe_name(name)) return make_error("create_work: unsafe template name '" + name + "'");
  std::ostringstream xml;
  for (int i = 0; i < outputs; ++i) {
    xml << "<file_info><name><OUTFILE_" << i << "/></name><generated_locally/><upload_when_present/>"
        << "<max_nbytes>" << max_nbytes << "</max_nbytes><url><UPLOAD_URL/></url></file_info>\n";
  }
  xml << "<result>\n";
  for (int i = 0; i < outputs; ++i) {
    xml << "<file_ref><file_name><OUTFILE_" << i << "/></file_name><open_name>out"
        << (i ? std::to_string(i) : "") << "</open_name><copy_file/></file_ref>\n";
  }
  xml << "</result>\n";
  std::string relative = "templates/" + name;
  mkdir((config.project_dir + "/templates").c_str(), 0755);
  if (Status written = write_text_file(config.project_dir + "/" + relative, xml.str()); !written.ok()) {
    return make_error(written.error());
  }
  return relative;
}

}  // namespace tharsis
