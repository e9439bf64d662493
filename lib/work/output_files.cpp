// Implementation of lib/work/output_files.h.
#include "lib/work/output_files.h"

#include "lib/work/fanout.h"
#include "lib/work/file_refs.h"

namespace tharsis {

Result<std::vector<std::string>> output_file_paths(const ProjectConfig& config, const ResultRow& result) {
  auto files = file_infos_in(result.xml_doc_in);
  if (!files.ok()) return make_error("result " + std::to_string(result.id) + ": " + files.error());
  std::vector<std::string> paths;
  for (const auto& file : *files)
    paths.push_back(fanout_path(config.upload_dir, file.name, config.uldl_dir_fanout));
  return paths;
}

}  // namespace tharsis
