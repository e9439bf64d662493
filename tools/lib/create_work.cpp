// Implementation of tools/lib/create_work.h.
#include "tools/lib/create_work.h"

#include <sys/stat.h>

#include <sstream>

#include "db/file_store.h"
#include "db/workunit_store.h"
#include "lib/crypto/md5.h"
#include "lib/fanout.h"
#include "lib/protocol/xml_text.h"
#include "lib/text_file.h"

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

Result<int64_t> create_workunit(Database& db, const ProjectConfig& config, const JobSpec& job, int64_t now) {
  if (!safe_name(job.name)) return make_error("create_work: unsafe workunit name '" + job.name + "'");
  if (job.min_quorum < 1 || job.target_nresults < job.min_quorum ||
      job.max_total_results < job.target_nresults || job.max_success_results < job.min_quorum) {
    return make_error("create_work: " + job.name +
                      ": expected 1 <= min_quorum <= target_nresults <= max_total_results and "
                      "min_quorum <= max_success_results");
  }
  std::ostringstream xml;
  std::vector<std::string> names;
  for (const auto& input : job.inputs) {
    if (!safe_name(input.name)) return make_error("create_work: unsafe input file name '" + input.name + "'");
    auto path = fanout_path_create(config.download_dir, input.name, config.uldl_dir_fanout);
    if (!path.ok()) return make_error(path.error());
    struct stat info {};
    if (!input.content.empty() || stat(path->c_str(), &info) != 0) {
      if (Status written = write_text_file(*path, input.content); !written.ok()) return make_error(written.error());
    }
    auto md5 = md5_file_hex(*path);
    if (!md5.ok()) return make_error(md5.error());
    stat(path->c_str(), &info);
    xml << "<file_info><name>" << input.name << "</name><url>" << xml_escape(config.download_url) << "/"
        << fanout_dir(input.name, config.uldl_dir_fanout) << "/" << input.name << "</url><md5_cksum>" << *md5
        << "</md5_cksum><nbytes>" << info.st_size << "</nbytes>" << (input.no_delete ? "<no_delete/>" : "")
        << "</file_info>\n";
    names.push_back(input.name);
  }
  xml << "<workunit>\n";
  for (const auto& input : job.inputs) {
    xml << "<file_ref><file_name>" << input.name << "</file_name><open_name>" << xml_escape(input.open_name)
        << "</open_name></file_ref>\n";
  }
  if (!job.command_line.empty()) xml << "<command_line>" << xml_escape(job.command_line) << "</command_line>\n";
  xml << "</workunit>\n";

  WorkunitRow wu;
  wu.create_time = now;
  wu.appid = job.appid;
  wu.name = job.name;
  wu.xml_doc = xml.str();
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
  wu.transition_time = now;
  wu.result_template_file = job.output_template_file;
  wu.graph_id = job.graph_id;
  try {
    return db.transaction([&](Database& d) {
      int64_t id = insert_workunit(d, wu);
      record_workunit_inputs(d, id, names);
      return id;
    });
  } catch (const DbError& e) {
    if (e.code() == 1062) return make_error("create_work: workunit '" + job.name + "' already exists");
    throw;
  }
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
    xml << "<file_ref><file_name><OUTFILE_" << i << "/></file_name><open_name>out" << (i ? std::to_string(i) : "")
        << "</open_name><copy_file/></file_ref>\n";
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
