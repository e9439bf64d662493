// Where a result's output files live on the server: the names in its xml_doc_in (the
// expanded output template) under upload/ with the project's fan-out.
#pragma once

#include <string>
#include <vector>

#include "db/rows.h"
#include "lib/config/project_config.h"
#include "lib/result.h"

namespace tharsis {

Result<std::vector<std::string>> output_file_paths(const ProjectConfig& config, const ResultRow& result);

}  // namespace tharsis
