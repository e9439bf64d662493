// Server status in HTML, JSON and Prometheus text (see server_status_render.h).
#include "lib/web/server_status_render.h"

#include <algorithm>
#include <cstdio>

#include "db/queue_stats.h"
#include "db/state_names.h"
#include "lib/web/html_escape.h"
#include "lib/web/json_writer.h"
#include "lib/web/prometheus_text.h"

namespace tharsis {

std::string server_state_name(int code) {
  std::string_view name = to_string(static_cast<ServerState>(code));
  return name.empty() ? std::to_string(code) : std::string(name);
}

std::string outcome_name(int code) {
  std::string_view name = to_string(static_cast<Outcome>(code));
  return name.empty() ? std::to_string(code) : std::string(name);
}

namespace {

int64_t heartbeat_age(const DaemonStatusRow& daemon, int64_t now) {
  return daemon.last_heartbeat == 0 ? -1 : std::max<int64_t>(0, now - daemon.last_heartbeat);
}

std::string td(std::string_view text, std::string_view cls = "") {
  return "<td" + (cls.empty() ? std::string() : " class=\"" + html_attr(cls) + "\"") + ">" +
         html_escape(text) + "</td>";
}

std::string queue_count_text(const QueueBacklogRow& queue) {
  if (!queue.capped) return std::to_string(queue.count);
  std::string text = "\u2265 " + std::to_string(queue.count);
  if (queue.census_count >= 0) text += " (census: " + std::to_string(queue.census_count) + ")";
  return text;
}

std::string seconds_text(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f s", seconds);
  return buffer;
}

// The line above the results table saying where its counts come from and how old they are.
std::string census_note_html(const CensusStatus& census, int64_t now) {
  if (!census.present) {
    return "<p class=\"census live\">Counted live for this view: the census daemon has taken no snapshot "
           "yet (a live count reads every result; start <code>census</code>).</p>\n";
  }
  const std::string when = html_escape(format_utc_time(census.taken_at)) + " (" +
                           html_escape(format_duration(now - census.taken_at)) + " ago)";
  if (census.stale) {
    return "<p class=\"census stale\">Stale: counted by the census daemon at " + when + "; " +
           html_escape(census.stale_reason) + ".</p>\n";
  }
  return "<p class=\"census\">Counted by the census daemon at " + when + " in " +
         html_escape(seconds_text(census.duration_seconds)) + "; a new count every " +
         html_escape(format_duration(census.interval_seconds)) + ".</p>\n";
}

}  // namespace

std::string render_server_status_html(const ServerStatus& status, const PageContext& context) {
  std::string body;
  if (status.db_reachable) {
    body += "<p class=\"banner ok\">Database reachable.</p>\n";
    if (status.replica.used) {
      body += std::string("<p class=\"banner ") +
              (status.replica.stale ? "error replica stale" : "ok replica") + "\">" +
              (status.replica.stale ? "Stale: read" : "Read") + " from a read replica; " +
              html_escape(status.replica.note) + ".</p>\n";
    }
  } else {
    body += "<p class=\"banner error\">Database unreachable: " +
            html_escape(status.db_error.empty() ? "no reason given" : status.db_error) + "</p>\n";
  }

  body += "<section>\n<h2>Daemons</h2>\n";
  if (status.daemons.empty()) {
    body += "<p class=\"empty\">No daemon has reported a heartbeat.</p>\n";
  } else {
    body +=
        "<table>\n<thead><tr><th>Daemon</th><th>Host</th><th class=\"num\">PID</th><th>State</th>"
        "<th>Last heartbeat</th><th class=\"num\">Age</th></tr></thead>\n<tbody>\n";
    for (const auto& daemon : status.daemons) {
      const int64_t age = heartbeat_age(daemon, context.now);
      body += "<tr>" + td(daemon.name) + td(daemon.host) + td(std::to_string(daemon.pid), "num") +
              td(daemon.running ? "running" : "not running", daemon.running ? "state-ok" : "state-bad") +
              td(format_utc_time(daemon.last_heartbeat)) + td(age < 0 ? "-" : format_duration(age), "num") +
              "</tr>\n";
    }
    body += "</tbody>\n</table>\n";
  }
  body += "</section>\n";

  body += "<section>\n<h2>Queue backlogs</h2>\n";
  body +=
      "<table>\n<thead><tr><th>Queue</th><th class=\"num\">Items</th><th class=\"num\">Oldest</th>"
      "</tr></thead>\n<tbody>\n";
  bool any_capped = false;
  for (const auto& queue : status.queues) {
    any_capped = any_capped || queue.capped;
    body += "<tr>" + td(queue.name) + td(queue_count_text(queue), "num") +
            td(queue.count == 0 ? "-" : format_duration(queue.oldest_age_seconds), "num") + "</tr>\n";
  }
  body += "</tbody>\n</table>\n";
  if (any_capped) {
    body += "<p class=\"census\">Each view counts a queue up to " + std::to_string(kQueueCountCap) + " items";
    if (status.census.present) {
      body += "; the exact count in parentheses is the census daemon's, at " +
              html_escape(format_utc_time(status.census.taken_at));
    }
    body += ".</p>\n";
  }
  body +=
      "<p id=\"file-delete-retries\">Rows in file-deletion retry: " +
      (status.file_delete_retries < 0 ? std::string("unknown (run upgrade_db)")
                                      : std::to_string(status.file_delete_retries)) +
      (status.file_delete_retries > 0 ? " (files the file deleter cannot unlink; its log says why)" : "") +
      "</p>\n";
  body += "</section>\n";

  const int64_t as_of = status.census.present ? status.census.taken_at : context.now;
  body += "<section id=\"results\" data-source=\"" + std::string(status.census.present ? "census" : "live") +
          "\" data-as-of=\"" + std::to_string(as_of) + "\">\n<h2>Results by state</h2>\n";
  if (status.db_reachable) body += census_note_html(status.census, context.now);
  body +=
      "<table>\n<thead><tr><th>server_state</th><th>outcome</th><th class=\"num\">Results</th>"
      "</tr></thead>\n<tbody>\n";
  int64_t total = 0;
  for (const auto& row : status.results) {
    total += row.count;
    body += "<tr>" + td(server_state_name(row.server_state)) + td(outcome_name(row.outcome)) +
            td(std::to_string(row.count), "num") + "</tr>\n";
  }
  body += "</tbody>\n<tfoot><tr><th colspan=\"2\">Total</th><td class=\"num\">" + std::to_string(total) +
          "</td></tr></tfoot>\n</table>\n</section>\n";
  body +=
      "<p class=\"formats\">Also as <a href=\"?format=json\">JSON</a> and "
      "<a href=\"?format=prometheus\">Prometheus metrics</a>.</p>\n";
  return render_page(context, PageId::ServerStatus, "Server status", body);
}

std::string render_server_status_json(const ServerStatus& status, int64_t now) {
  JsonWriter json;
  json.begin_object();
  json.key("generated_at").value(now);
  json.key("db_reachable").value(status.db_reachable);
  json.key("db_error").value(status.db_error);
  json.key("daemons").begin_array();
  for (const auto& daemon : status.daemons) {
    json.begin_object();
    json.key("name").value(daemon.name);
    json.key("host").value(daemon.host);
    json.key("pid").value(daemon.pid);
    json.key("running").value(daemon.running);
    json.key("last_heartbeat").value(daemon.last_heartbeat);
    const int64_t age = heartbeat_age(daemon, now);
    json.key("heartbeat_age");
    if (age < 0)
      json.null();
    else
      json.value(age);
    json.end_object();
  }
  json.end_array();
  json.key("queues").begin_array();
  for (const auto& queue : status.queues) {
    json.begin_object();
    json.key("name").value(queue.name);
    json.key("count").value(queue.count);
    json.key("oldest_age_seconds").value(queue.oldest_age_seconds);
    json.key("count_capped").value(queue.capped);
    json.key("census_count");
    if (queue.census_count < 0)
      json.null();
    else
      json.value(queue.census_count);
    json.end_object();
  }
  json.end_array();
  json.key("file_delete_retries").value(status.file_delete_retries);
  const CensusStatus& census = status.census;
  json.key("results_source").value(census.present ? "census" : "live");
  json.key("results_as_of").value(census.present ? census.taken_at : now);
  json.key("census").begin_object();
  json.key("present").value(census.present);
  if (census.present) {
    json.key("taken_at").value(census.taken_at);
    json.key("age_seconds").value(now - census.taken_at);
    json.key("duration_seconds").value(census.duration_seconds);
    json.key("interval_seconds").value(census.interval_seconds);
  }
  json.key("stale").value(census.stale);
  json.key("stale_reason").value(census.stale_reason);
  json.end_object();
  const ReplicaStatus& replica = status.replica;
  json.key("replica").begin_object();
  json.key("used").value(replica.used);
  if (replica.used) {
    json.key("replication_known").value(replica.replication_known);
    json.key("replicating").value(replica.replicating);
    json.key("lag_seconds");
    if (replica.lag_seconds < 0)
      json.null();
    else
      json.value(replica.lag_seconds);
    json.key("newest_heartbeat_age_seconds");
    if (replica.newest_heartbeat_age < 0)
      json.null();
    else
      json.value(replica.newest_heartbeat_age);
    json.key("stale").value(replica.stale);
    json.key("note").value(replica.note);
  }
  json.end_object();
  json.key("results").begin_array();
  for (const auto& row : status.results) {
    json.begin_object();
    json.key("server_state").value(row.server_state);
    json.key("server_state_name").value(server_state_name(row.server_state));
    json.key("outcome").value(row.outcome);
    json.key("outcome_name").value(outcome_name(row.outcome));
    json.key("count").value(row.count);
    json.end_object();
  }
  json.end_array();
  json.end_object();
  return json.str() + "\n";
}

std::string render_server_status_prometheus(const ServerStatus& status, int64_t now) {
  PrometheusWriter out;
  out.family("tharsis_db_up", "1 if the status page reached the project database, else 0", "gauge");
  out.sample("tharsis_db_up", {}, status.db_reachable ? 1 : 0);

  out.family("tharsis_daemon_up", "1 if the daemon instance is running, else 0", "gauge");
  for (const auto& daemon : status.daemons) {
    out.sample("tharsis_daemon_up", {{"daemon", daemon.name}, {"host", daemon.host}}, daemon.running ? 1 : 0);
  }
  out.family("tharsis_daemon_heartbeat_age_seconds",
             "Seconds since the daemon instance last wrote its heartbeat row", "gauge");
  for (const auto& daemon : status.daemons) {
    const int64_t age = heartbeat_age(daemon, now);
    if (age < 0) continue;  // never beat: no age to report
    out.sample("tharsis_daemon_heartbeat_age_seconds", {{"daemon", daemon.name}, {"host", daemon.host}},
               static_cast<double>(age));
  }
  out.family("tharsis_queue_backlog", "Items waiting in a back-end queue", "gauge");
  for (const auto& queue : status.queues) {
    out.sample("tharsis_queue_backlog", {{"queue", queue.name}}, static_cast<double>(queue.count));
  }
  out.family("tharsis_queue_oldest_age_seconds", "Age of the oldest item in a back-end queue", "gauge");
  for (const auto& queue : status.queues) {
    out.sample("tharsis_queue_oldest_age_seconds", {{"queue", queue.name}},
               static_cast<double>(queue.oldest_age_seconds));
  }
  out.family("tharsis_queue_backlog_capped",
             "1 if tharsis_queue_backlog stopped at its cap (the backlog is at least that), else 0", "gauge");
  for (const auto& queue : status.queues) {
    out.sample("tharsis_queue_backlog_capped", {{"queue", queue.name}}, queue.capped ? 1 : 0);
  }
  out.family("tharsis_queue_backlog_census", "Exact backlog of a capped queue, as of the census snapshot",
             "gauge");
  for (const auto& queue : status.queues) {
    if (queue.census_count < 0) continue;
    out.sample("tharsis_queue_backlog_census", {{"queue", queue.name}},
               static_cast<double>(queue.census_count));
  }
  if (status.file_delete_retries >= 0) {
    out.family("tharsis_file_delete_retries",
               "Workunits and results whose files could not all be deleted, waiting to be retried", "gauge");
    out.sample("tharsis_file_delete_retries", {}, static_cast<double>(status.file_delete_retries));
  }
  if (status.replica.used) {
    out.family("tharsis_replica_stale",
               "1 if the page reads a replica that does not replicate or lags, else 0", "gauge");
    out.sample("tharsis_replica_stale", {}, status.replica.stale ? 1 : 0);
    if (status.replica.lag_seconds >= 0) {
      out.family("tharsis_replica_lag_seconds", "Seconds the replica the page reads is behind the primary",
                 "gauge");
      out.sample("tharsis_replica_lag_seconds", {}, static_cast<double>(status.replica.lag_seconds));
    }
  }
  const CensusStatus& census = status.census;
  out.family("tharsis_results_from_census",
             "1 if tharsis_results comes from the census snapshot, 0 if counted live for this scrape",
             "gauge");
  out.sample("tharsis_results_from_census", {}, census.present ? 1 : 0);
  out.family("tharsis_results_timestamp_seconds", "Unix time at which tharsis_results was counted", "gauge");
  out.sample("tharsis_results_timestamp_seconds", {},
             static_cast<double>(census.present ? census.taken_at : now));
  if (census.present) {
    out.family("tharsis_census_age_seconds", "Seconds since the census snapshot was taken", "gauge");
    out.sample("tharsis_census_age_seconds", {}, static_cast<double>(now - census.taken_at));
    out.family("tharsis_census_duration_seconds", "Seconds the census daemon took to count", "gauge");
    out.sample("tharsis_census_duration_seconds", {}, census.duration_seconds);
    out.family("tharsis_census_stale", "1 if the census snapshot is stale or its daemon is not running",
               "gauge");
    out.sample("tharsis_census_stale", {}, census.stale ? 1 : 0);
  }
  out.family("tharsis_results", "Results by server_state and outcome", "gauge");
  for (const auto& row : status.results) {
    out.sample(
        "tharsis_results",
        {{"server_state", server_state_name(row.server_state)}, {"outcome", outcome_name(row.outcome)}},
        static_cast<double>(row.count));
  }
  return out.str();
}

}  // namespace tharsis
