// JsonWriter and the server status page's JSON form (lib/web/json_writer.h,
// lib/web/server_status_render.h).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "lib/web/json_writer.h"
#include "lib/web/server_status_render.h"
#include "tests/unit/web_test_json_parser.h"

namespace tharsis {
namespace {

using test::JsonValue;
using test::parse_json;

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
  const JsonValue parsed = parse_json(json.str());
  EXPECT_EQ(parsed[nasty].text, nasty);
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
  const JsonValue doc = parse_json(render_server_status_json(status, 1060));
  EXPECT_EQ(doc["generated_at"].number, 1060);
  EXPECT_TRUE(doc["db_reachable"].boolean);
  ASSERT_EQ(doc["daemons"].items.size(), 2u);
  EXPECT_EQ(doc["daemons"][0]["name"].text, status.daemons[0].name);
  EXPECT_EQ(doc["daemons"][0]["host"].text, "host&'1");
  EXPECT_EQ(doc["daemons"][0]["pid"].number, 4242);
  EXPECT_TRUE(doc["daemons"][0]["running"].boolean);
  EXPECT_EQ(doc["daemons"][0]["heartbeat_age"].number, 60);
  EXPECT_FALSE(doc["daemons"][1]["running"].boolean);
  EXPECT_EQ(doc["daemons"][1]["heartbeat_age"].kind, JsonValue::Kind::Null);  // never beat
  ASSERT_EQ(doc["queues"].items.size(), 2u);
  EXPECT_EQ(doc["queues"][0]["name"].text, "transition");
  EXPECT_EQ(doc["queues"][0]["count"].number, 3);
  EXPECT_EQ(doc["queues"][0]["oldest_age_seconds"].number, 120);
  ASSERT_EQ(doc["results"].items.size(), 3u);
  EXPECT_EQ(doc["results"][0]["server_state_name"].text, "IN_PROGRESS");
  EXPECT_EQ(doc["results"][1]["outcome_name"].text, "SUCCESS");
  EXPECT_EQ(doc["results"][1]["count"].number, 40);
  EXPECT_EQ(doc["results"][2]["outcome_name"].text, "9");  // unknown code shows as its number
}

TEST(WebJson, ServerStatus_CarriesTheCensusTimeAndCappedQueues) {
  ServerStatus status = hostile_status();
  status.queues[0] = {"transition", 10000, 120, true, 250000};
  status.census = {true, 1000, 0.5, 60, true, "the census daemon is not running"};
  const JsonValue doc = parse_json(render_server_status_json(status, 1060));
  EXPECT_EQ(doc["results_source"].text, "census");
  EXPECT_EQ(doc["results_as_of"].number, 1000);
  EXPECT_TRUE(doc["census"]["present"].boolean);
  EXPECT_EQ(doc["census"]["taken_at"].number, 1000);
  EXPECT_EQ(doc["census"]["age_seconds"].number, 60);
  EXPECT_EQ(doc["census"]["duration_seconds"].number, 0.5);
  EXPECT_EQ(doc["census"]["interval_seconds"].number, 60);
  EXPECT_TRUE(doc["census"]["stale"].boolean);
  EXPECT_EQ(doc["census"]["stale_reason"].text, status.census.stale_reason);
  EXPECT_TRUE(doc["queues"][0]["count_capped"].boolean);
  EXPECT_EQ(doc["queues"][0]["census_count"].number, 250000);
  EXPECT_FALSE(doc["queues"][1]["count_capped"].boolean);
  EXPECT_EQ(doc["queues"][1]["census_count"].kind, JsonValue::Kind::Null);
  // Without a snapshot: counted live, as of the page's own time.
  const JsonValue live = parse_json(render_server_status_json(hostile_status(), 1060));
  EXPECT_EQ(live["results_source"].text, "live");
  EXPECT_EQ(live["results_as_of"].number, 1060);
  EXPECT_FALSE(live["census"]["present"].boolean);
  EXPECT_EQ(live["census"].members.count("taken_at"), 0u);  // no snapshot, no time
}

TEST(WebJson, ServerStatus_UnreachableDatabaseCarriesTheReason) {
  ServerStatus status;
  status.db_reachable = false;
  status.db_error = "Can't connect to \"db\"\n(111)";
  const JsonValue doc = parse_json(render_server_status_json(status, 5));
  EXPECT_FALSE(doc["db_reachable"].boolean);
  EXPECT_EQ(doc["db_error"].text, status.db_error);
  EXPECT_TRUE(doc["daemons"].items.empty());
}

}  // namespace
}  // namespace tharsis
