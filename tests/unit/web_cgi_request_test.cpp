// Query-string parsing and CGI responses of the status pages (lib/web/cgi_request.h).
#include <gtest/gtest.h>

#include "lib/web/cgi_request.h"

namespace tharsis {
namespace {

TEST(WebCgiRequest, PercentDecode_DecodesEscapesAndPlus) {
  auto decoded = percent_decode("a%20b+c%2Fd%2f%C3%A9");
  ASSERT_TRUE(decoded) << decoded.error();
  EXPECT_EQ(*decoded, "a b c/d/\xC3\xA9");
}

TEST(WebCgiRequest, PercentDecode_RejectsTruncatedOrNonHexEscapesAndNul) {
  EXPECT_FALSE(percent_decode("abc%"));
  EXPECT_FALSE(percent_decode("abc%2"));
  EXPECT_FALSE(percent_decode("%zz"));
  EXPECT_FALSE(percent_decode("%g0"));
  const auto nul = percent_decode("a%00b");
  ASSERT_FALSE(nul);
  EXPECT_NE(nul.error().find("NUL"), std::string::npos);
}

TEST(WebCgiRequest, Parse_ReadsPairsSkipsEmptyOnesAndKeepsValuelessNames) {
  auto params = QueryParams::parse("id=42&&format=json&verbose&name=a%26b%3Dc");
  ASSERT_TRUE(params) << params.error();
  EXPECT_EQ(*params->get_string("format"), "json");
  EXPECT_TRUE(params->has("verbose"));
  EXPECT_EQ(*params->get_string("verbose"), "");
  EXPECT_EQ(*params->get_string("name"), "a&b=c");
  EXPECT_EQ(params->all().size(), 4u);
  EXPECT_TRUE(QueryParams::parse(""));
}

TEST(WebCgiRequest, Parse_RejectsOverlongQueryStrings) {
  const std::string long_query = "x=" + std::string(kMaxQueryStringLength, 'a');
  auto params = QueryParams::parse(long_query);
  ASSERT_FALSE(params);
  EXPECT_NE(params.error().find("at most 2048"), std::string::npos) << params.error();
  EXPECT_TRUE(QueryParams::parse("x=abc", 5));
  EXPECT_FALSE(QueryParams::parse("x=abcd", 5));
}

TEST(WebCgiRequest, Parse_RejectsBadNamesDuplicatesAndControlCharacters) {
  EXPECT_FALSE(QueryParams::parse("=1"));
  EXPECT_FALSE(QueryParams::parse("a%20b=1"));
  EXPECT_FALSE(QueryParams::parse("<script>=1"));
  EXPECT_FALSE(QueryParams::parse(std::string(65, 'n') + "=1"));
  auto duplicate = QueryParams::parse("id=1&id=2");
  ASSERT_FALSE(duplicate);
  EXPECT_NE(duplicate.error().find("'id' given more than once"), std::string::npos);
  EXPECT_FALSE(QueryParams::parse("a=x%0Ay"));
  EXPECT_FALSE(QueryParams::parse("a=x%1By"));
  EXPECT_FALSE(QueryParams::parse("a=%zz"));
}

TEST(WebCgiRequest, GetInt_AcceptsOnlyWholeDecimalIntegersInRange) {
  auto params = QueryParams::parse("a=42&b=-7&c=12abc&d=&e=99999999999999999999&f=1e3&g=+5&h=0x10");
  ASSERT_TRUE(params);
  EXPECT_EQ(*params->get_int("a", 0, 100), 42);
  EXPECT_EQ(*params->get_int("b", -10, 0), -7);
  for (const char* name : {"c", "d", "e", "f", "g", "h"}) {
    auto value = params->get_int(name, INT64_MIN, INT64_MAX);
    EXPECT_FALSE(value) << name;
  }
  auto out_of_range = params->get_int("a", 0, 10);
  ASSERT_FALSE(out_of_range);
  EXPECT_EQ(out_of_range.error(), "parameter 'a': expected an integer in [0, 10], found 42");
  auto missing = params->get_int("zz", 0, 1);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error(), "missing parameter 'zz'");
  auto not_number = params->get_int("c", 0, 100);
  EXPECT_EQ(not_number.error(), "parameter 'c': expected an integer, found '12abc'");
}

TEST(WebCgiRequest, GetOr_MissingMeansDefaultButBadValueIsAnError) {
  auto params = QueryParams::parse("limit=abc&format=xml");
  ASSERT_TRUE(params);
  EXPECT_EQ(*params->get_int_or("page", 1, 1, 100), 1);
  EXPECT_FALSE(params->get_int_or("limit", 10, 1, 100));
  EXPECT_EQ(params->get_string_or("missing", "dflt"), "dflt");
  EXPECT_EQ(*params->get_choice_or("other", {"html", "json"}, "html"), "html");
  auto bad_choice = params->get_choice_or("format", {"html", "json", "prometheus"}, "html");
  ASSERT_FALSE(bad_choice);
  EXPECT_EQ(bad_choice.error(), "parameter 'format': expected one of html, json, prometheus, found 'xml'");
}

TEST(WebCgiRequest, Response_HasStatusContentTypeLengthAndBody) {
  CgiResponse response;
  response.content_type = "application/json";
  response.body = "{\"a\":1}";
  EXPECT_EQ(render_cgi_response(response),
            "Status: 200 OK\r\nContent-Type: application/json\r\nContent-Length: 7\r\n"
            "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\r\n{\"a\":1}");
}

TEST(WebCgiRequest, ErrorResponse_EscapesTheMessage) {
  const CgiResponse response = cgi_error_response(400, "bad id '<script>'");
  EXPECT_EQ(response.status, 400);
  EXPECT_EQ(response.body.find("<script>"), std::string::npos);
  EXPECT_NE(response.body.find("bad id &#39;&lt;script&gt;&#39;"), std::string::npos);
  EXPECT_EQ(render_cgi_response(response).rfind("Status: 400 Bad Request\r\n", 0), 0u);
}

}  // namespace
}  // namespace tharsis
