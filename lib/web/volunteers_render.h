// The volunteers' page: top users and top hosts (by total and by recent credit), then a
// page of the full user and host tables with a link to the next page. Pure function of
// VolunteerTables.
#pragma once

#include <string>

#include "db/status_rows.h"
#include "lib/web/page.h"

namespace tharsis {

// Next-page links are "<volunteers>?users_after=ID" and "?hosts_after=ID".
std::string render_volunteers_html(const VolunteerTables& tables, const PageContext& context);

}  // namespace tharsis
