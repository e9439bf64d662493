// The reclustering page (docs/reclustering.md): per app, the policy and current cluster size k, the
// estimated task and job failure rates α and β over time, and the model's makespan curve
// M(k) with the current k marked in the table.
#pragma once

#include <string>
#include <vector>

#include "db/status_rows.h"
#include "lib/web/page.h"

namespace tharsis {

std::string render_recluster_html(const std::vector<ReclusterApp>& apps, const PageContext& context);

}  // namespace tharsis
