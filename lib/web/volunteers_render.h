// The volunteers' page: top users and top hosts (by total and by recent credit), then the
// full user and host tables. Pure function of VolunteerTables.
#pragma once

#include <string>
#include <vector>

#include "lib/web/page.h"
#include "lib/web/status_model.h"

namespace tharsis {

// The n rows with the most total credit (recent=false) or recent credit (recent=true),
// highest first; ties by smaller id, so the order is stable across page loads.
std::vector<UserCreditRow> top_users(const std::vector<UserCreditRow>& users, int n, bool recent);
std::vector<HostCreditRow> top_hosts(const std::vector<HostCreditRow>& hosts, int n, bool recent);

std::string render_volunteers_html(const VolunteerTables& tables, const PageContext& context);

}  // namespace tharsis
