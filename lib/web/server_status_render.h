// The admins' server status page in three forms, all pure functions of a ServerStatus:
//  - HTML (daemons, queue backlogs, results by server_state and outcome with the time they
//    were counted and a warning when the census snapshot is stale, DB reachability);
//  - JSON for scripts (format=json);
//  - Prometheus text exposition (format=prometheus), metrics named tharsis_*.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "db/status_rows.h"
#include "lib/web/page.h"

namespace tharsis {

// Seed names of result codes: "UNSENT", "IN_PROGRESS", "OVER"; "INIT", "SUCCESS", ...,
// "CLIENT_DETACHED". An unknown code shows as its number ("9").
std::string server_state_name(int code);
std::string outcome_name(int code);

std::string render_server_status_html(const ServerStatus& status, const PageContext& context);

// {"generated_at":n,"db_reachable":b,"db_error":s,"daemons":[{"name","host","pid","running",
//  "last_heartbeat","heartbeat_age"}],"queues":[{"name","count","oldest_age_seconds",
//  "count_capped","census_count"}],"results_source":"census"|"live","results_as_of":n,
//  "census":{"present",["taken_at","age_seconds","duration_seconds","interval_seconds",]
//  "stale","stale_reason"},"results":[{"server_state","server_state_name","outcome",
//  "outcome_name","count"}]}
std::string render_server_status_json(const ServerStatus& status, int64_t now);

// Families: tharsis_db_up, tharsis_daemon_up{daemon,host},
// tharsis_daemon_heartbeat_age_seconds{daemon,host}, tharsis_queue_backlog{queue},
// tharsis_queue_oldest_age_seconds{queue}, tharsis_queue_backlog_capped{queue},
// tharsis_queue_backlog_census{queue}, tharsis_results_from_census,
// tharsis_results_timestamp_seconds, with a snapshot tharsis_census_age_seconds,
// tharsis_census_duration_seconds and tharsis_census_stale; tharsis_results{server_state,outcome}.
std::string render_server_status_prometheus(const ServerStatus& status, int64_t now);

}  // namespace tharsis
