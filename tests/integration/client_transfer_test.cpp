// The client's file transfers against the real upload handler and Apache's download/: an
// upload interrupted midway resumes at the size the handler reports (get_file_size) and
// completes byte for byte; a forged upload certificate is a permanent refusal; a download
// with the wrong md5 is retried, a missing one (404) given up.
#include <gtest/gtest.h>

#include "client/lib/file_transfer.h"
#include "lib/crypto/boinc_key.h"
#include "lib/crypto/boinc_signature.h"
#include "lib/crypto/md5.h"
#include "lib/protocol/upload_protocol.h"
#include "lib/text_file.h"
#include "lib/work/fanout.h"
#include "tests/support/test_web_server.h"
#include "tests/support/upload_targets.h"

namespace tharsis {
namespace {

class ClientTransfer : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<testing::TestWebServer>(project_);
    key_ = load_boinc_private_key(project_.config().key_dir + "/upload_private").value();
    db_ = project_.open();
  }
  // The first output of a new result in progress (the handler takes no other uploads).
  std::string output_name(const std::string& job) {
    return testing::make_result_in_progress(*db_, project_, job) + "_0";
  }
  ClientFile output(const std::string& name, const std::string& data) {
    ClientFile f;
    f.name = name;
    f.upload_urls = {server_->url("test_cgi/file_upload_handler")};
    f.max_nbytes = 4096;
    f.xml_signature = sign_block_boinc(key_, upload_certificate_text(name, f.max_nbytes)).value();
    f.nbytes = static_cast<double>(data.size());
    f.md5_cksum = md5_hex(data);
    return f;
  }
  std::string uploaded(const std::string& name) {
    auto text =
        read_text_file(fanout_path(project_.config().upload_dir, name, project_.config().uldl_dir_fanout));
    return text.ok() ? *text : "<missing>";
  }

  testing::TestProject project_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<testing::TestWebServer> server_;
  RsaKey key_;
  HttpSession http_;
};

TEST_F(ClientTransfer, InterruptedUploadResumesAtTheHandlersSize) {
  std::string data = "0123456789abcdefghij\n";
  const std::string name = output_name("resume");
  ClientFile f = output(name, data);
  std::string local = project_.dir() + "/" + name;
  // The local copy's first 7 bytes differ from what the handler already holds: only a
  // client that resumes (sends bytes 7.. alone) makes the server's file match the md5.
  ASSERT_TRUE(write_text_file(local, "XXXXXXX" + data.substr(7)).ok());
  // The first try got only 7 bytes through.
  std::string partial = render_file_upload_header(ClientVersion{7, 20, 2}, f.name, f.xml_signature,
                                                  f.max_nbytes, f.nbytes, f.md5_cksum, 0) +
                        data.substr(0, 7);
  testing::http_post(f.upload_urls[0], partial);
  EXPECT_EQ(uploaded(name), "<missing>") << "an incomplete upload must not appear under its name";
  f.upload_started = true;
  TransferResult resumed = upload_file(http_, f, local);
  EXPECT_EQ(resumed.outcome, TransferOutcome::Done) << resumed.message;
  EXPECT_EQ(uploaded(name), data);
}

TEST_F(ClientTransfer, ForgedCertificateIsAPermanentRefusal) {
  std::string data = "answer\n";
  const std::string name = output_name("forged");
  ClientFile f = output(name, data);
  f.max_nbytes = 1e9;  // the certificate was for 4096 bytes
  std::string local = project_.dir() + "/" + name;
  ASSERT_TRUE(write_text_file(local, data).ok());
  TransferResult refused = upload_file(http_, f, local);
  EXPECT_EQ(refused.outcome, TransferOutcome::GiveUp) << refused.message;
  EXPECT_EQ(uploaded(name), "<missing>");
}

TEST_F(ClientTransfer, CorruptDownloadIsRetriedMissingOneGivenUp) {
  std::string name = "input_a";
  auto path = fanout_path_create(project_.config().download_dir, name, project_.config().uldl_dir_fanout);
  ASSERT_TRUE(write_text_file(*path, "seed a\n").ok());
  ClientFile f;
  f.name = name;
  f.download_urls = {
      server_->url("test/download/" + fanout_dir(name, project_.config().uldl_dir_fanout) + "/" + name)};
  f.md5_cksum = md5_hex("seed a\n");
  std::string local = project_.dir() + "/got_" + name;
  TransferResult got = download_file(http_, f, local, "");
  EXPECT_EQ(got.outcome, TransferOutcome::Done) << got.message;
  EXPECT_EQ(*read_text_file(local), "seed a\n");
  f.md5_cksum = md5_hex("something else");
  EXPECT_EQ(download_file(http_, f, local + "2", "").outcome, TransferOutcome::Retry);
  f.download_urls = {server_->url("test/download/nowhere")};
  EXPECT_EQ(download_file(http_, f, local + "3", "").outcome, TransferOutcome::GiveUp);
}

}  // namespace
}  // namespace tharsis
