// JsonWriter and the server status page's JSON form (lib/web/json_writer.h,
// lib/web/server_status_render.h).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "lib/json_reader.h"
#include "lib/web/json_writer.h"
#include "lib/web/server_status_render.h"

namespace tharsis {
namespace {

// The document (the project's strict reader); invalid JSON throws, failing the test with
// the reader's error.
JsonValue parsed(const std::string& text) {
  auto doc = parse_json(text);
  if (!doc.ok()) throw std::runtime_error("invalid JSON: " + doc.error() + "\n" + text);
  return std::move(*doc);
}

TEST(WebJson, Quote_EscapesQuotesBackslashesAndEveryControlCharacter) {
  EXPECT_EQ(json_quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(json_quote("\n\r\t\b\f"), "\"\\n\\r\\t\\b\\f\"");
  EXPECT_EQ(json_quote(std::string("\x01\x1f\x7f\0", 4)), "\"\\u0001\\u001f\\u007f\\u0000\"");
}

TEST(WebJson, Quote_EscapesLessThanSoScriptTagsCannotCloseAnEmbedding) {
  EXPECT_EQ(json_quote("</script>"), "\"\\u003c/script>\"");
}

TEST(WebJson, Writer_TinyDocumentMatchesExactText) {
  JsonWriter json;
  json.begin_object();
  json.key("a").value(1);
  json.key("b").begin_array().value(true).null().value("x").end_array();
  json.key("c").begin_object().end_object();
  json.key("d").value(0.5);
  json.end_object();
  EXPECT_EQ(json.str(), "{\"a\":1,\"b\":[true,null,\"x\"],\"c\":{},\"d\":0.5}");
}

TEST(WebJson, Writer_NonFiniteNumbersBecomeNull) {
  JsonWriter json;
  json.begin_array().value(std::numeric_limits<double>::quiet_NaN()).value(INFINITY).end_array();
  EXPECT_EQ(json.str(), "[null,null]");
}

TEST(WebJson, Writer_RejectsMisuse) {
  {
    JsonWriter json;
    json.begin_object();
    EXPECT_THROW(json.value(1), std::logic_error);  // value without key
  }
  {
    JsonWriter json;
    json.begin_array();
    EXPECT_THROW(json.key("k"), std::logic_error);  // key inside an array
    EXPECT_THROW(json.end_object(), std::logic_error);
    EXPECT_THROW((void)json.str(), std::logic_error);  // unfinished
  }
  {
    JsonWriter json;
    json.value(1);
    EXPECT_THROW(json.value(2), std::logic_error);  // two top-level values
  }
}

TEST(WebJson, Writer_StringsRoundTripThroughAParser) {
  const std::string nasty = "<script>\"&'\\\n\x01 ok";
  JsonWriter json;
  json.begin_object().key(nasty).value(nasty).end_object();
  const JsonValue doc = parsed(json.str());
  EXPECT_EQ(doc.at(nasty).text, nasty);
}

ServerStatus hostile_status() {
  ServerStatus status;
  status.db_reachable = true;
  status.daemons.push_back({"validator <script>\"x\"</script>", "host&'1", 4242, true, 1000});
  status.daemons.push_back({"assimilator", "h2", 7, false, 0});
  status.queues.push_back({"transition", 3, 120});
  status.queues.push_back({"validation", 0, 0});
  status.results.push_back({4, 0, 17});
  status.results.push_back({5, 1, 40});
  status.results.push_back({5, 9, 2});
  return status;
}

TEST(WebJson, ServerStatus_ParsesBackWithEveryField) {
  const ServerStatus status = hostile_status();
  const JsonValue doc = parsed(render_server_status_json(status, 1060));
  EXPECT_EQ(doc.at("generated_at").number, 1060);
  EXPECT_TRUE(doc.at("db_reachable").boolean);
  ASSERT_EQ(doc.at("daemons").items.size(), 2u);
  EXPECT_EQ(doc.at("daemons").at(0).at("name").text, status.daemons.at(0).name);
  EXPECT_EQ(doc.at("daemons").at(0).at("host").text, "host&'1");
  EXPECT_EQ(doc.at("daemons").at(0).at("pid").number, 4242);
  EXPECT_TRUE(doc.at("daemons").at(0).at("running").boolean);
  EXPECT_EQ(doc.at("daemons").at(0).at("heartbeat_age").number, 60);
  EXPECT_FALSE(doc.at("daemons").at(1).at("running").boolean);
  EXPECT_EQ(doc.at("daemons").at(1).at("heartbeat_age").kind, JsonValue::Kind::Null);  // never beat
  ASSERT_EQ(doc.at("queues").items.size(), 2u);
  EXPECT_EQ(doc.at("queues").at(0).at("name").text, "transition");
  EXPECT_EQ(doc.at("queues").at(0).at("count").number, 3);
  EXPECT_EQ(doc.at("queues").at(0).at("oldest_age_seconds").number, 120);
  ASSERT_EQ(doc.at("results").items.size(), 3u);
  EXPECT_EQ(doc.at("results").at(0).at("server_state_name").text, "IN_PROGRESS");
  EXPECT_EQ(doc.at("results").at(1).at("outcome_name").text, "SUCCESS");
  EXPECT_EQ(doc.at("results").at(1).at("count").number, 40);
  EXPECT_EQ(doc.at("results").at(2).at("outcome_name").text, "9");  // unknown code shows as its number
}

TEST(WebJson, ServerStatus_CarriesTheCensusTimeAndCappedQueues) {
  ServerStatus status = hostile_status();
  status.queues.at(0) = {"transition", 10000, 120, true, 250000};
  status.census = {true, 1000, 0.5, 60, true, "the census daemon is not running"};
  const JsonValue doc = parsed(render_server_status_json(status, 1060));
  EXPECT_EQ(doc.at("results_source").text, "census");
  EXPECT_EQ(doc.at("results_as_of").number, 1000);
  EXPECT_TRUE(doc.at("census").at("present").boolean);
  EXPECT_EQ(doc.at("census").at("taken_at").number, 1000);
  EXPECT_EQ(doc.at("census").at("age_seconds").number, 60);
  EXPECT_EQ(doc.at("census").at("duration_seconds").number, 0.5);
  EXPECT_EQ(doc.at("census").at("interval_seconds").number, 60);
  EXPECT_TRUE(doc.at("census").at("stale").boolean);
  EXPECT_EQ(doc.at("census").at("stale_reason").text, status.census.stale_reason);
  EXPECT_TRUE(doc.at("queues").at(0).at("count_capped").boolean);
  EXPECT_EQ(doc.at("queues").at(0).at("census_count").number, 250000);
  EXPECT_FALSE(doc.at("queues").at(1).at("count_capped").boolean);
  EXPECT_EQ(doc.at("queues").at(1).at("census_count").kind, JsonValue::Kind::Null);
  // Without a snapshot: counted live, as of the page's own time.
  const JsonValue live = parsed(render_server_status_json(hostile_status(), 1060));
  EXPECT_EQ(live.at("results_source").text, "live");
  EXPECT_EQ(live.at("results_as_of").number, 1060);
  EXPECT_FALSE(live.at("census").at("present").boolean);
  EXPECT_EQ(live.at("census").find("taken_at"), nullptr);  // no snapshot, no time
}

TEST(WebJson, ServerStatus_UnreachableDatabaseCarriesTheReason) {
  ServerStatus status;
  status.db_reachable = false;
  status.db_error = "Can't connect to \"db\"\n(111)";
  const JsonValue doc = parsed(render_server_status_json(status, 5));
  EXPECT_FALSE(doc.at("db_reachable").boolean);
  EXPECT_EQ(doc.at("db_error").text, status.db_error);
  EXPECT_TRUE(doc.at("daemons").items.empty());
}

}  // namespace
}  // namespace tharsis
