// Fuzz findings in files being changed elsewhere at the time (docs/fuzzing.md, "Open
// findings"): each test holds the reproducer and is  until its fix lands; whoever
// fixes one enables its test (and drops the matching skip in the fuzz target).
#include <gtest/gtest.h>

#include "lib/protocol/upload_protocol.h"

namespace tharsis {
namespace {

// fuzz/regressions/data_server_request/get-file-size-name-with-apostrophe: our client
// writes ' and " in <get_file_size> as &apos; / &quot;, which the handler reads raw (it
// unescapes <name> of an upload), so resuming the upload of such a file is refused.
TEST(FuzzOpenFindings, SizeQueryForANameWithQuotesRoundTrips) {
  const ClientVersion client{7, 20, 2};
  auto parsed = parse_data_server_request(render_get_file_size_request(client, "wu_'1'_\"x\"_0_0"));
  ASSERT_TRUE(parsed.ok()) << parsed.error.message;
  EXPECT_EQ(parsed.request->file_name, "wu_'1'_\"x\"_0_0");
}

// fuzz/regressions/data_server_request/md5-with-entities-grows-past-limit: <md5_cksum> is
// written escaped and read raw.
TEST(FuzzOpenFindings, UploadHeaderMd5RoundTrips) {
  auto parsed = parse_data_server_request(
      render_file_upload_header({7, 20, 2}, "out_0", "ab\n.\n", 100, 10, "a&b", 0) + "0123456789");
  ASSERT_TRUE(parsed.ok()) << parsed.error.message;
  EXPECT_EQ(parsed.request->md5_cksum, "a&b");
}

// fuzz/regressions/data_server_reply/negative-file-size: a hostile handler answers the size
// query with a negative size; client/lib/file_transfer.cpp upload_file then computes
// data->substr(static_cast<size_t>(-1.0)) (undefined behaviour, then std::out_of_range).
// Proposed contract: a file_size that is negative, fractional or not a number is absent.
TEST(FuzzOpenFindings, ASizeQueryReplyWithANegativeSizeHasNoSize) {
  auto reply = parse_data_server_reply(
      "<data_server_reply><status>0</status><file_size>-1</file_size></data_server_reply>");
  EXPECT_EQ(reply.status, UploadStatus::Success);
  EXPECT_FALSE(reply.file_size.has_value());
}

}  // namespace
}  // namespace tharsis
