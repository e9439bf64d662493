// Read-only queries behind the volunteers status page (tables user and host): counts, top
// lists by total and recent credit, and one page of each table. Top lists walk the credit
// indexes backwards (user_total_credit, user_expavg_credit, host_*), so their cost does not
// grow with the number of volunteers; pages walk the primary key from an id.
#pragma once

#include <cstdint>

#include "db/database.h"
#include "db/status_rows.h"

namespace tharsis {

struct VolunteerQuery {
  int top_n = 10;           // length of each top list
  int page_size = 100;      // rows of each full table
  int64_t users_after = 0;  // the user page starts after this id
  int64_t hosts_after = 0;
};

VolunteerTables fetch_volunteer_tables(Database& db, const VolunteerQuery& query);

}  // namespace tharsis
