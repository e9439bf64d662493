// The upload handler over a streamed body, without a web server or database: the output
// of a result in progress is written in pieces; a reported result's output, a complete
// file and a name of no result are refused and nothing stored changes; a header without
// a valid certificate is refused after the header alone, whatever follows it; a database
// failure is transient (sched/lib/upload_handler.h).
#include "sched/lib/upload_handler.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "lib/crypto/boinc_signature.h"
#include "lib/crypto/md5.h"
#include "lib/text_file.h"
#include "lib/work/fanout.h"

namespace tharsis::upload_handler_test {
namespace {

namespace fs = std::filesystem;

const ClientVersion kClient{7, 20, 2};
constexpr double kMaxNbytes = 1 << 20;

// A body of `head` then `tail_size` bytes of 'x', handed out in pieces of at most `piece`
// bytes; counts what was taken.
struct BodySource {
  std::string head;
  uint64_t tail_size = 0;
  size_t piece = 4096;
  uint64_t taken = 0;
  uint64_t size() const { return head.size() + tail_size; }
  size_t operator()(char* buffer, size_t n) {
    size_t k = static_cast<size_t>(std::min<uint64_t>({n, piece, size() - taken}));
    for (size_t i = 0; i < k; ++i, ++taken) buffer[i] = taken < head.size() ? head[taken] : 'x';
    return k;
  }
};

class UploadHandler : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/upload_handler_test_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    config_.upload_dir = dir_;
    config_.uldl_dir_fanout = 4;
    config_.max_upload_size = 1 << 20;
    auto key = generate_key_pair(512);
    ASSERT_TRUE(key.ok()) << key.error();
    private_key_ = *key;
    public_key_ = public_part(*key).value();
    owner_.emplace();
    owner_->output_names = {"wu_1_0_0", "wu_1_0_1"};
    owner_->state.server_state = ServerState::InProgress;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string header(const std::string& name, const std::string& data, double offset = 0) {
    std::string signature = sign_block_boinc(private_key_, upload_certificate_text(name, kMaxNbytes)).value();
    return render_file_upload_header(kClient, name, signature, kMaxNbytes, static_cast<double>(data.size()),
                                     md5_hex(data), offset);
  }
  DataServerReply post(BodySource& source, bool chunked = false) {
    BodyReader body(std::ref(source), chunked ? std::nullopt : std::optional<uint64_t>(source.size()));
    OutputOwnerLookup lookup = [&](const std::string& result_name) -> std::optional<OutputOwner> {
      looked_up_.push_back(result_name);
      if (database_down_) throw std::runtime_error("Lost connection to server during query");
      return owner_;
    };
    return handle_upload_request(body, config_, public_key_, lookup);
  }
  DataServerReply upload(const std::string& name, const std::string& data, size_t piece = 4096,
                         double offset = 0) {
    BodySource source{header(name, data, offset) + data.substr(static_cast<size_t>(offset)), 0, piece};
    return post(source);
  }
  std::string path(const std::string& name) { return fanout_path(dir_, name, config_.uldl_dir_fanout); }
  std::string stored(const std::string& name) {
    auto text = read_text_file(path(name));
    return text.ok() ? *text : "<missing>";
  }

  std::string dir_;
  ProjectConfig config_;
  RsaKey private_key_;
  RsaKey public_key_;
  std::optional<OutputOwner> owner_;
  bool database_down_ = false;
  std::vector<std::string> looked_up_;
};

TEST_F(UploadHandler, AnOutputOfAResultInProgressIsWrittenFromPieces) {
  std::string data(100000, 'a');
  data += "end\n";
  EXPECT_EQ(upload("wu_1_0_0", data, 7).status, UploadStatus::Success);
  EXPECT_EQ(stored("wu_1_0_0"), data);
  EXPECT_FALSE(fs::exists(path("wu_1_0_0") + ".partial"));
  EXPECT_EQ(looked_up_, std::vector<std::string>{"wu_1_0"});
}

TEST_F(UploadHandler, AnInterruptedUploadResumesAtTheStoredSize) {
  std::string data = "0123456789abcdefghij";
  BodySource first{header("wu_1_0_0", data) + data.substr(0, 8), 0, 4096};
  // The client went away: Content-Length said more than arrived.
  BodyReader cut(std::ref(first), first.size() + 12);
  OutputOwnerLookup lookup = [&](const std::string&) { return owner_; };
  EXPECT_EQ(handle_upload_request(cut, config_, public_key_, lookup).status, UploadStatus::TransientError);
  EXPECT_EQ(stored("wu_1_0_0"), "<missing>");
  BodySource size_query{render_get_file_size_request(kClient, "wu_1_0_0"), 0, 4096};
  EXPECT_EQ(post(size_query).file_size, 8.0);
  EXPECT_EQ(upload("wu_1_0_0", data, 4096, 8).status, UploadStatus::Success);
  EXPECT_EQ(stored("wu_1_0_0"), data);
}

// Issue 13, item 1: a host reported its result, then uploaded other bytes under the same
// certificate and replaced the stored file.
TEST_F(UploadHandler, AReportedResultsOutputIsNeverReplaced) {
  std::string data = "the honest answer\n";
  ASSERT_EQ(upload("wu_1_0_0", data).status, UploadStatus::Success);
  owner_->state.server_state = ServerState::Over;
  owner_->state.outcome = Outcome::Success;
  auto forged = upload("wu_1_0_0", "forged\n");
  EXPECT_EQ(forged.status, UploadStatus::PermanentError);
  EXPECT_NE(forged.message.find("never rewritten"), std::string::npos) << forged.message;
  EXPECT_EQ(upload("wu_1_0_0", std::string(data.size(), 'f')).status, UploadStatus::PermanentError);
  EXPECT_EQ(stored("wu_1_0_0"), data);
  EXPECT_EQ(upload("wu_1_0_0", data).status, UploadStatus::Success);  // a harmless repeat
  // Its other output, never uploaded, cannot be added now either.
  auto added = upload("wu_1_0_1", "late addition\n");
  EXPECT_EQ(added.status, UploadStatus::PermanentError);
  EXPECT_NE(added.message.find("no longer takes output"), std::string::npos) << added.message;
  EXPECT_EQ(stored("wu_1_0_1"), "<missing>");
  EXPECT_FALSE(fs::exists(path("wu_1_0_1") + ".partial"));
}

TEST_F(UploadHandler, ACompleteFileOfAResultInProgressIsNeverRewritten) {
  std::string data = "first complete upload\n";
  ASSERT_EQ(upload("wu_1_0_0", data).status, UploadStatus::Success);
  EXPECT_EQ(upload("wu_1_0_0", "different bytes\n").status, UploadStatus::PermanentError);
  EXPECT_EQ(upload("wu_1_0_0", "different bytes\n", 4096, 3).status, UploadStatus::PermanentError);
  EXPECT_EQ(stored("wu_1_0_0"), data);
  EXPECT_EQ(upload("wu_1_0_0", data).status, UploadStatus::Success);
}

TEST_F(UploadHandler, ANameOfNoResultsOutputIsRefused) {
  auto not_listed = upload("wu_1_0_7", "x\n");
  EXPECT_EQ(not_listed.status, UploadStatus::PermanentError);
  EXPECT_NE(not_listed.message.find("no result has an output file named wu_1_0_7"), std::string::npos);
  owner_.reset();
  EXPECT_EQ(upload("wu_1_0_0", "x\n").status, UploadStatus::PermanentError);
  EXPECT_EQ(upload("no_result_name", "x\n").status, UploadStatus::PermanentError);
  EXPECT_EQ(stored("wu_1_0_7"), "<missing>");
  EXPECT_EQ(stored("wu_1_0_0"), "<missing>");
}

TEST_F(UploadHandler, ADatabaseFailureIsTransient) {
  database_down_ = true;
  auto reply = upload("wu_1_0_0", "answer\n");
  EXPECT_EQ(reply.status, UploadStatus::TransientError);
  EXPECT_NE(reply.message.find("try later"), std::string::npos) << reply.message;
  EXPECT_EQ(stored("wu_1_0_0"), "<missing>");
}

// Issue 13, item 11: junk after a header with no valid certificate is never read.
TEST_F(UploadHandler, AnUploadWithoutAValidCertificateIsRefusedAfterItsHeader) {
  config_.max_upload_size = int64_t{128} << 20;
  for (bool chunked : {false, true}) {
    std::string head = render_file_upload_header(kClient, "wu_1_0_0", "00ff", 1e9, 1e8, "", 0);
    BodySource junk{head, 100000000, 65536};
    auto reply = post(junk, chunked);
    EXPECT_EQ(reply.status, UploadStatus::PermanentError);
    EXPECT_NE(reply.message.find("signature"), std::string::npos) << reply.message;
    EXPECT_LE(junk.taken, UploadLimits{}.max_header_bytes + kUploadReadBufferBytes);
    BodySource garbage{"", 100000000, 65536};
    EXPECT_EQ(post(garbage, chunked).status, UploadStatus::PermanentError);
    EXPECT_LE(garbage.taken, UploadLimits{}.max_header_bytes + kUploadReadBufferBytes);
  }
  EXPECT_TRUE(looked_up_.empty());
  EXPECT_EQ(stored("wu_1_0_0"), "<missing>");
}

TEST_F(UploadHandler, ABodyOverTheProjectsLimitIsRefusedUnread) {
  BodySource big{header("wu_1_0_0", "x"), uint64_t{2} << 20, 65536};
  auto reply = post(big);
  EXPECT_EQ(reply.status, UploadStatus::PermanentError);
  EXPECT_NE(reply.message.find("upload too large"), std::string::npos) << reply.message;
  EXPECT_EQ(big.taken, 0u);
}

TEST_F(UploadHandler, MoreDataThanDeclaredIsRefused) {
  std::string data = "twelve bytes";
  BodySource longer{header("wu_1_0_0", data) + data + "and more", 0, 5};
  EXPECT_EQ(post(longer).status, UploadStatus::PermanentError);
  EXPECT_FALSE(fs::exists(path("wu_1_0_0") + ".partial"));
  // Chunked, the excess shows only while streaming: what was written is taken back.
  std::string longer_data(10000, 'd');  // longer than the first piece read with the header
  BodySource chunked{header("wu_1_0_0", longer_data) + longer_data, 200000, 4096};
  EXPECT_EQ(post(chunked, true).status, UploadStatus::PermanentError);
  EXPECT_EQ(fs::file_size(path("wu_1_0_0") + ".partial"), 0u);
  EXPECT_EQ(stored("wu_1_0_0"), "<missing>");
}

TEST_F(UploadHandler, AChunkedUploadIsStored) {
  std::string data(300000, 'c');
  BodySource source{header("wu_1_0_0", data) + data, 0, 1000};
  EXPECT_EQ(post(source, true).status, UploadStatus::Success);
  EXPECT_EQ(stored("wu_1_0_0"), data);
}

TEST_F(UploadHandler, AnMd5MismatchDropsThePartialFile) {
  std::string data = "the bytes\n";
  std::string signature =
      sign_block_boinc(private_key_, upload_certificate_text("wu_1_0_0", kMaxNbytes)).value();
  BodySource source{render_file_upload_header(kClient, "wu_1_0_0", signature, kMaxNbytes,
                                              static_cast<double>(data.size()), md5_hex("other"), 0) +
                        data,
                    0, 4096};
  EXPECT_EQ(post(source).status, UploadStatus::TransientError);
  EXPECT_EQ(stored("wu_1_0_0"), "<missing>");
  EXPECT_FALSE(fs::exists(path("wu_1_0_0") + ".partial"));
}

TEST_F(UploadHandler, ASecondConcurrentUploadOfAFileWaitsItsTurn) {
  ASSERT_TRUE(fanout_path_create(dir_, "wu_1_0_0", config_.uldl_dir_fanout).ok());
  int fd = open((path("wu_1_0_0") + ".partial").c_str(), O_WRONLY | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_EX), 0);  // another upload of the file is running
  auto reply = upload("wu_1_0_0", "answer\n");
  EXPECT_EQ(reply.status, UploadStatus::TransientError);
  EXPECT_NE(reply.message.find("in progress"), std::string::npos) << reply.message;
  close(fd);
  EXPECT_EQ(upload("wu_1_0_0", "answer\n").status, UploadStatus::Success);
}

}  // namespace
}  // namespace tharsis::upload_handler_test
