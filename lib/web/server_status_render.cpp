// Server status in HTML, JSON and Prometheus text (see server_status_render.h).
#include "lib/web/server_status_render.h"

#include <algorithm>

#include "db/states.h"
#include "lib/web/html_escape.h"
#include "lib/web/json_writer.h"
#include "lib/web/prometheus_text.h"

namespace tharsis {

std::string server_state_name(int code) {
  switch (static_cast<ServerState>(code)) {
    case ServerState::Unsent: return "UNSENT";
    case ServerState::InProgress: return "IN_PROGRESS";
    case ServerState::Over: return "OVER";
  }
  return std::to_string(code);
}

std::string outcome_name(int code) {
  switch (static_cast<Outcome>(code)) {
    case Outcome::Init: return "INIT";
    case Outcome::Success: return "SUCCESS";
    case Outcome::CouldntSend: return "COULDNT_SEND";
    case Outcome::ClientError: return "CLIENT_ERROR";
    case Outcome::NoReply: return "NO_REPLY";
    case Outcome::DidntNeed: return "DIDNT_NEED";
    case Outcome::ValidateError: return "VALIDATE_ERROR";
    case Outcome::ClientDetached: return "CLIENT_DETACHED";
  }
  return std::to_string(code);
}

namespace {

int64_t heartbeat_age(const DaemonStatusRow& daemon, int64_t now) {
  return daemon.last_heartbeat == 0 ? -1 : std::max<int64_t>(0, now - daemon.last_heartbeat);
}

std::string td(std::string_view text, std::string_view cls = "") {
  return "<td" + (cls.empty() ? std::string() : " class=\"" + html_attr(cls) + "\"") + ">" +
         html_escape(text) + "</td>";
}

}  // namespace

std::string render_server_status_html(const ServerStatus& status, const PageContext& context) {
  std::string body;
  if (status.db_reachable) {
    body += "<p class=\"banner ok\">Database reachable.</p>\n";
  } else {
    body += "<p class=\"banner error\">Database unreachable: " +
            html_escape(status.db_error.empty() ? "no reason given" : status.db_error) + "</p>\n";
  }

  body += "<section>\n<h2>Daemons</h2>\n";
  if (status.daemons.empty()) {
    body += "<p class=\"empty\">No daemon has reported a heartbeat.</p>\n";
  } else {
    body += "<table>\n<thead><tr><th>Daemon</th><th>Host</th><th class=\"num\">PID</th><th>State</th>"
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
  body += "<table>\n<thead><tr><th>Queue</th><th class=\"num\">Items</th><th class=\"num\">Oldest</th>"
          "</tr></thead>\n<tbody>\n";
  for (const auto& queue : status.queues) {
    body += "<tr>" + td(queue.name) + td(std::to_string(queue.count), "num") +
            td(queue.count == 0 ? "-" : format_duration(queue.oldest_age_seconds), "num") + "</tr>\n";
  }
  body += "</tbody>\n</table>\n</section>\n";

  body += "<section>\n<h2>Results by state</h2>\n";
  body += "<table>\n<thead><tr><th>server_state</th><th>outcome</th><th class=\"num\">Results</th>"
          "</tr></thead>\n<tbody>\n";
  int64_t total = 0;
  for (const auto& row : status.results) {
    total += row.count;
    body += "<tr>" + td(server_state_name(row.server_state)) + td(outcome_name(row.outcome)) +
            td(std::to_string(row.count), "num") + "</tr>\n";
  }
  body += "</tbody>\n<tfoot><tr><th colspan=\"2\">Total</th><td class=\"num\">" + std::to_string(total) +
          "</td></tr></tfoot>\n</table>\n</section>\n";
  body += "<p class=\"formats\">Also as <a href=\"?format=json\">JSON</a> and "
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
    if (age < 0) json.null(); else json.value(age);
    json.end_object();
  }
  json.end_array();
  json.key("queues").begin_array();
  for (const auto& queue : status.queues) {
    json.begin_object();
    json.key("name").value(queue.name);
    json.key("count").value(queue.count);
    json.key("oldest_age_seconds").value(queue.oldest_age_seconds);
    json.end_object();
  }
  json.end_array();
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
  out.family("tharsis_results", "Results by server_state and outcome", "gauge");
  for (const auto& row : status.results) {
    out.sample("tharsis_results",
               {{"server_state", server_state_name(row.server_state)}, {"outcome", outcome_name(row.outcome)}},
               static_cast<double>(row.count));
  }
  return out.str();
}

}  // namespace tharsis
