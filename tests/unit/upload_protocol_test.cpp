// Upload handler protocol: request headers in the 7.20 client's layout, replies, the
// transient/permanent distinction, and file-name safety.
#include "lib/protocol/upload_protocol.h"

#include <gtest/gtest.h>

#include "lib/crypto/boinc_signature.h"

namespace tharsis::upload_protocol_test {
namespace {

const ClientVersion kClient{7, 20, 2};

TEST(UploadProtocol, ParsesGetFileSize) {
  auto parsed = parse_data_server_request(render_get_file_size_request(kClient, "wu_17_0_0"));
  ASSERT_TRUE(parsed.ok()) << parsed.error.message;
  EXPECT_EQ(parsed.request->kind, DataServerRequest::Kind::GetFileSize);
  EXPECT_EQ(parsed.request->file_name, "wu_17_0_0");
  EXPECT_EQ(parsed.request->client, kClient);
}

TEST(UploadProtocol, ParsesUploadHeaderAndFindsDataStart) {
  std::string header = render_file_upload_header(kClient, "wu_17_0_0", "abcd\nef01\n.", 1e6, 10, "0123", 4);
  std::string body = header + "456789";
  auto parsed = parse_data_server_request(body);
  ASSERT_TRUE(parsed.ok()) << parsed.error.message;
  const DataServerRequest& r = *parsed.request;
  EXPECT_EQ(r.kind, DataServerRequest::Kind::FileUpload);
  EXPECT_EQ(r.file_name, "wu_17_0_0");
  EXPECT_EQ(r.xml_signature, "\nabcd\nef01\n.\n");
  EXPECT_DOUBLE_EQ(r.max_nbytes, 1e6);
  EXPECT_DOUBLE_EQ(r.nbytes, 10);
  EXPECT_DOUBLE_EQ(r.offset, 4);
  EXPECT_EQ(r.md5_cksum, "0123");
  EXPECT_EQ(body.substr(r.data_start), "456789");
}

TEST(UploadProtocol, ParsesHeaderWrittenLikeTheStockClient) {
  // The 7.20 client's layout (client/file_xfer.cpp): nothing is closed before <data>.
  std::string body =
      "<data_server_request>\n"
      "    <core_client_major_version>7</core_client_major_version>\n"
      "    <core_client_minor_version>20</core_client_minor_version>\n"
      "    <core_client_release>2</core_client_release>\n"
      "<file_upload>\n<file_info>\n<name>out_1</name>\n<xml_signature>\n0a0b\n.\n</xml_signature>\n"
      "<max_nbytes>65536</max_nbytes>\n</file_info>\n<nbytes>3</nbytes>\n"
      "<md5_cksum>900150983cd24fb0d6963f7d28e17f72</md5_cksum>\n<offset>0</offset>\n<data>\nabc";
  auto parsed = parse_data_server_request(body);
  ASSERT_TRUE(parsed.ok()) << parsed.error.message;
  EXPECT_EQ(body.substr(parsed.request->data_start), "abc");
  EXPECT_EQ(parsed.request->client.number(), 72002);
}

TEST(UploadProtocol, BinaryDataAfterMarkerIsNotScanned) {
  std::string body =
      render_file_upload_header(kClient, "f", "aa\n.", 100, 5, "x", 0) + std::string("<\0</>", 5);
  auto parsed = parse_data_server_request(body);
  ASSERT_TRUE(parsed.ok()) << parsed.error.message;
  EXPECT_EQ(body.size() - parsed.request->data_start, 5u);
}

void expect_failure(std::string_view body, UploadStatus status, const std::string& fragment) {
  auto parsed = parse_data_server_request(body);
  ASSERT_FALSE(parsed.ok()) << body;
  EXPECT_EQ(parsed.error.status, status) << parsed.error.message;
  EXPECT_NE(parsed.error.message.find(fragment), std::string::npos) << parsed.error.message;
}

TEST(UploadProtocol, UnsafeNamesArePermanentErrors) {
  for (const std::string& name : std::vector<std::string>{"../x", "a/b", "", std::string(300, 'n'), ".hidden",
                                                          "a\\b", "x\ny", "a%2e"}) {
    SCOPED_TRACE(name);
    expect_failure(render_file_upload_header(kClient, name, "aa\n.", 100, 5, "x", 0) + "12345",
                   UploadStatus::PermanentError, "name");
    expect_failure(render_get_file_size_request(kClient, name), UploadStatus::PermanentError,
                   "get_file_size");
  }
}

TEST(UploadProtocol, HeaderProblemsAreClassified) {
  std::string good = render_file_upload_header(kClient, "f", "aa\n.", 100, 5, "x", 0);
  // Cut off before <data>: the connection broke, the client may retry.
  expect_failure(good.substr(0, good.size() - 10), UploadStatus::TransientError, "before <data>");
  expect_failure("", UploadStatus::TransientError, "no command");
  // Wrong in a way a retry cannot fix.
  expect_failure("<data_server_request></data_server_request>", UploadStatus::PermanentError, "no command");
  expect_failure("<data_server_request><file_upload><name>f</name><nbytes>5</nbytes></data_server_request>",
                 UploadStatus::PermanentError, "missing <data>");
  expect_failure("<data_server_request><file_upload><name>f</name><offset>0</offset><data>\nx",
                 UploadStatus::PermanentError, "<nbytes> missing");
  expect_failure("<data_server_request><file_upload><name>f</name><nbytes>-3</nbytes><data>\nx",
                 UploadStatus::PermanentError, "expected a byte count");
  expect_failure("<data_server_request><file_upload><name>f</name><nbytes>abc</nbytes><data>\nx",
                 UploadStatus::PermanentError, "expected a byte count");
  expect_failure(
      "<data_server_request><file_upload><name>f</name><nbytes>5</nbytes><offset>9</offset><data>\nx",
      UploadStatus::PermanentError, "beyond <nbytes>");
  expect_failure("garbage", UploadStatus::PermanentError, "expected a tag");
  expect_failure("<data_server_request><file_upload><md5_cksum>" + std::string(1000, 'a') + "</md5_cksum>",
                 UploadStatus::PermanentError, "longer than");
  UploadLimits limits;
  limits.max_header_bytes = 100;
  auto parsed = parse_data_server_request(good + "12345", limits);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error.status, UploadStatus::PermanentError);
}

TEST(UploadProtocol, RendersRepliesTheClientReads) {
  EXPECT_EQ(render_data_server_reply({UploadStatus::Success, std::nullopt, ""}),
            "<data_server_reply>\n    <status>0</status>\n</data_server_reply>\n");
  EXPECT_EQ(
      render_data_server_reply({UploadStatus::Success, 4096, ""}),
      "<data_server_reply>\n    <status>0</status>\n    <file_size>4096</file_size>\n</data_server_reply>\n");
  std::string error =
      render_data_server_reply({UploadStatus::PermanentError, std::nullopt, "invalid signature <&>"});
  EXPECT_NE(error.find("<status>-1</status>"), std::string::npos);
  EXPECT_NE(error.find("<message>invalid signature &lt;&amp;&gt;</message>"), std::string::npos);
  EXPECT_NE(render_data_server_reply({UploadStatus::TransientError, std::nullopt, "busy"})
                .find("<status>1</status>"),
            std::string::npos);
}

TEST(UploadProtocol, RepliesRoundTrip) {
  for (const DataServerReply& reply :
       {DataServerReply{UploadStatus::Success, 123, ""},
        DataServerReply{UploadStatus::TransientError, std::nullopt, "disk <full>"},
        DataServerReply{UploadStatus::PermanentError, std::nullopt, "bad & wrong"}}) {
    EXPECT_EQ(parse_data_server_reply(render_data_server_reply(reply)), reply);
  }
  EXPECT_EQ(parse_data_server_reply("<html>500</html>").status, UploadStatus::TransientError);
}

TEST(UploadProtocol, UploadCertificateIsChecked) {
  auto key = generate_key_pair(1024);
  ASSERT_TRUE(key.ok()) << key.error();
  auto public_key = public_part(*key);
  ASSERT_TRUE(public_key.ok()) << public_key.error();
  auto signature = sign_block_boinc(*key, upload_certificate_text("wu_1_0_0", 1000));
  ASSERT_TRUE(signature.ok()) << signature.error();
  auto request_for = [&](const std::string& name, double max_nbytes, double nbytes) {
    auto parsed = parse_data_server_request(
        render_file_upload_header(kClient, name, *signature, max_nbytes, nbytes, "x", 0) + "data");
    EXPECT_TRUE(parsed.ok()) << parsed.error.message;
    return *parsed.request;
  };
  EXPECT_TRUE(check_upload_certificate(*public_key, request_for("wu_1_0_0", 1000, 1000)).ok());
  auto bigger = check_upload_certificate(*public_key, request_for("wu_1_0_0", 1000, 1001));
  EXPECT_NE(bigger.error().find("exceeds the limit"), std::string::npos) << bigger.error();
  // A certificate for one file does not open another, nor a larger limit.
  EXPECT_NE(check_upload_certificate(*public_key, request_for("wu_2_0_0", 1000, 10))
                .error()
                .find("invalid signature"),
            std::string::npos);
  EXPECT_NE(check_upload_certificate(*public_key, request_for("wu_1_0_0", 5000, 10))
                .error()
                .find("invalid signature"),
            std::string::npos);
  DataServerRequest unsigned_request = request_for("wu_1_0_0", 1000, 10);
  unsigned_request.xml_signature.clear();
  EXPECT_NE(check_upload_certificate(*public_key, unsigned_request).error().find("missing signature"),
            std::string::npos);
}

TEST(UploadProtocol, SafeFileNames) {
  EXPECT_TRUE(is_safe_file_name("wu_17_0_0"));
  EXPECT_TRUE(is_safe_file_name("chunk-3.bin"));
  EXPECT_TRUE(is_safe_file_name(std::string(255, 'a')));
  EXPECT_FALSE(is_safe_file_name(std::string(256, 'a')));
  EXPECT_FALSE(is_safe_file_name("../x"));
  EXPECT_FALSE(is_safe_file_name("a/b"));
  EXPECT_FALSE(is_safe_file_name("a..b"));
  EXPECT_FALSE(is_safe_file_name(""));
  EXPECT_FALSE(is_safe_file_name(".x"));
  EXPECT_FALSE(is_safe_file_name("a<b"));
  EXPECT_FALSE(is_safe_file_name(std::string("a\0b", 3)));
  EXPECT_NE(unsafe_file_name_reason("a/b").find("separator"), std::string::npos);
}

}  // namespace
}  // namespace tharsis::upload_protocol_test
