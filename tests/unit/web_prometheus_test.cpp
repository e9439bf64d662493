// Prometheus text exposition of the server status (lib/web/prometheus_text.h,
// lib/web/server_status_render.h).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "lib/web/prometheus_text.h"
#include "lib/web/server_status_render.h"

namespace tharsis {
namespace {

// Format 0.0.4 grammar for the lines we emit: comments "# HELP name text" / "# TYPE name
// gauge|counter", and samples "name{label="value",...} number".
const std::regex kHelp(R"(# HELP [a-zA-Z_:][a-zA-Z0-9_:]* ([^\\\n]|\\\\|\\n)*)");
const std::regex kType(R"(# TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (gauge|counter))");
const std::regex kSample(
    R"([a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\\\|\\"|\\n)*"(,[a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\\\|\\"|\\n)*")*\})? (NaN|[+-]Inf|-?[0-9]+(\.[0-9]+)?(e[+-]?[0-9]+)?))");

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Every line well-formed, every sample after its family's HELP and TYPE, each family once,
// and the text ends with a newline.
void expect_well_formed(const std::string& text) {
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  std::string family;
  std::map<std::string, int> types;
  for (const auto& line : lines_of(text)) {
    if (line.starts_with("# HELP ")) {
      EXPECT_TRUE(std::regex_match(line, kHelp)) << line;
      family = line.substr(7, line.find(' ', 7) - 7);
    } else if (line.starts_with("# TYPE ")) {
      EXPECT_TRUE(std::regex_match(line, kType)) << line;
      EXPECT_EQ(line.substr(7, line.find(' ', 7) - 7), family) << "TYPE without its HELP: " << line;
      EXPECT_EQ(++types[family], 1) << "family twice: " << family;
    } else {
      EXPECT_TRUE(std::regex_match(line, kSample)) << line;
      const std::string name = line.substr(0, line.find_first_of("{ "));
      EXPECT_EQ(name, family) << "sample outside its family: " << line;
    }
  }
}

TEST(WebPrometheus, LabelValue_EscapesBackslashQuoteAndNewline) {
  EXPECT_EQ(prometheus_escape_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  EXPECT_EQ(prometheus_escape_label_value("<script>&'"), "<script>&'");  // nothing else needs escaping
}

TEST(WebPrometheus, Help_EscapesBackslashAndNewlineOnly) {
  EXPECT_EQ(prometheus_escape_help("a\\b\n\"c\""), "a\\\\b\\n\"c\"");
}

TEST(WebPrometheus, Names_FollowTheFormatGrammar) {
  EXPECT_TRUE(is_valid_metric_name("tharsis_results"));
  EXPECT_TRUE(is_valid_metric_name("tharsis:rate_5m"));
  EXPECT_FALSE(is_valid_metric_name("9lives"));
  EXPECT_FALSE(is_valid_metric_name("tharsis-results"));
  EXPECT_FALSE(is_valid_metric_name(""));
  EXPECT_TRUE(is_valid_label_name("server_state"));
  EXPECT_FALSE(is_valid_label_name("__name__"));
  EXPECT_FALSE(is_valid_label_name("a:b"));
}

TEST(WebPrometheus, Values_SpellNonFiniteAsTheFormatDoes) {
  EXPECT_EQ(prometheus_format_value(3), "3");
  EXPECT_EQ(prometheus_format_value(0.25), "0.25");
  EXPECT_EQ(prometheus_format_value(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(prometheus_format_value(INFINITY), "+Inf");
  EXPECT_EQ(prometheus_format_value(-INFINITY), "-Inf");
}

TEST(WebPrometheus, Writer_RejectsBadNamesAndSamplesOutsideTheirFamily) {
  PrometheusWriter out;
  EXPECT_THROW(out.family("bad-name", "x", "gauge"), std::invalid_argument);
  EXPECT_THROW(out.family("ok_name", "x", "histogram"), std::invalid_argument);
  out.family("tharsis_a", "x", "gauge");
  EXPECT_THROW(out.sample("tharsis_b", {}, 1), std::invalid_argument);
  EXPECT_THROW(out.sample("tharsis_a", {{"bad label", "v"}}, 1), std::invalid_argument);
  EXPECT_THROW(out.family("tharsis_a", "again", "gauge"), std::invalid_argument);
}

TEST(WebPrometheus, Writer_TinyExpositionMatchesExactText) {
  PrometheusWriter out;
  out.family("tharsis_x", "Help with \\ and\nnewline", "counter");
  out.sample("tharsis_x", {{"a", "q\"v"}, {"b", "line\nbreak"}}, 2);
  out.sample("tharsis_x", {}, 0.5);
  EXPECT_EQ(out.str(),
            "# HELP tharsis_x Help with \\\\ and\\nnewline\n"
            "# TYPE tharsis_x counter\n"
            "tharsis_x{a=\"q\\\"v\",b=\"line\\nbreak\"} 2\n"
            "tharsis_x 0.5\n");
}

TEST(WebPrometheus, ServerStatus_AllLinesWellFormedWithHostileLabels) {
  ServerStatus status;
  status.db_reachable = true;
  status.daemons.push_back({"validator \"<script>\"\\ &", "host\nevil", 11, true, 100});
  status.daemons.push_back({"file_deleter", "h", 12, false, 0});
  status.queues.push_back({"transition", 5, 30});
  status.queues.push_back({"deletion", 0, 0});
  status.results.push_back({2, 0, 9});
  status.results.push_back({5, 4, 3});
  const std::string text = render_server_status_prometheus(status, 160);
  expect_well_formed(text);
  EXPECT_NE(
      text.find("tharsis_daemon_up{daemon=\"validator \\\"<script>\\\"\\\\ &\",host=\"host\\nevil\"} 1\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("tharsis_daemon_heartbeat_age_seconds{daemon=\"validator"), std::string::npos);
  // The daemon that never beat has no age sample.
  EXPECT_EQ(text.find("tharsis_daemon_heartbeat_age_seconds{daemon=\"file_deleter\""), std::string::npos);
  EXPECT_NE(text.find("tharsis_daemon_up{daemon=\"file_deleter\",host=\"h\"} 0\n"), std::string::npos);
  EXPECT_NE(text.find("tharsis_queue_backlog{queue=\"transition\"} 5\n"), std::string::npos);
  EXPECT_NE(text.find("tharsis_queue_oldest_age_seconds{queue=\"transition\"} 30\n"), std::string::npos);
  EXPECT_NE(text.find("tharsis_results{server_state=\"UNSENT\",outcome=\"INIT\"} 9\n"), std::string::npos);
  EXPECT_NE(text.find("tharsis_results{server_state=\"OVER\",outcome=\"NO_REPLY\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find("tharsis_db_up 1\n"), std::string::npos);
}

TEST(WebPrometheus, ServerStatus_CensusTimeAndCappedQueuesAsGauges) {
  ServerStatus status;
  status.db_reachable = true;
  status.queues.push_back({"transition", 10000, 30, true, 250000});
  status.queues.push_back({"validation", 4, 30, false, -1});
  status.results.push_back({2, 0, 9});
  status.census = {true, 100, 0.25, 60, false, ""};
  const std::string text = render_server_status_prometheus(status, 160);
  expect_well_formed(text);
  for (const char* line :
       {"tharsis_queue_backlog{queue=\"transition\"} 10000\n",
        "tharsis_queue_backlog_capped{queue=\"transition\"} 1\n",
        "tharsis_queue_backlog_capped{queue=\"validation\"} 0\n",
        "tharsis_queue_backlog_census{queue=\"transition\"} 250000\n", "tharsis_results_from_census 1\n",
        "tharsis_results_timestamp_seconds 100\n", "tharsis_census_age_seconds 60\n",
        "tharsis_census_duration_seconds 0.25\n", "tharsis_census_stale 0\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << " missing from\n" << text;
  }
  EXPECT_EQ(text.find("tharsis_queue_backlog_census{queue=\"validation\"}"), std::string::npos);
  // Counted live: the scrape's own time, and no census age.
  status.census = CensusStatus{};
  const std::string live = render_server_status_prometheus(status, 160);
  expect_well_formed(live);
  EXPECT_NE(live.find("tharsis_results_from_census 0\n"), std::string::npos);
  EXPECT_NE(live.find("tharsis_results_timestamp_seconds 160\n"), std::string::npos);
  EXPECT_EQ(live.find("tharsis_census_age_seconds"), std::string::npos);
}

TEST(WebPrometheus, ServerStatus_UnreachableDatabaseReportsDbUpZero) {
  ServerStatus status;
  status.db_reachable = false;
  const std::string text = render_server_status_prometheus(status, 1);
  expect_well_formed(text);
  EXPECT_NE(text.find("tharsis_db_up 0\n"), std::string::npos);
}

}  // namespace
}  // namespace tharsis
