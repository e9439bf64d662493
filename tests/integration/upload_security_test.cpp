// Issue 13 over real HTTP (Apache, the CGI and FastCGI programs, MariaDB): the upload
// handler takes output only for a result that still takes it and never rewrites a
// complete file (item 1); its memory stays small whatever the upload's size (item 11); a
// chunked body reaches the CGI programs (item 4); a body over mod_fcgid's limit sent to a
// FastCGI program gets the protocol's answer, not Apache's HTML error page (item 3).
#include <curl/curl.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <pugixml.hpp>

#include "db/result_store.h"
#include "lib/crypto/boinc_key.h"
#include "lib/crypto/boinc_signature.h"
#include "lib/crypto/md5.h"
#include "lib/protocol/upload_protocol.h"
#include "lib/text_file.h"
#include "lib/work/fanout.h"
#include "tests/support/accounts.h"
#include "tests/support/child_process.h"
#include "tests/support/test_web_server.h"
#include "tests/support/upload_targets.h"
#include "tools/lib/make_project.h"

namespace tharsis::upload_security_test {
namespace {

namespace fs = std::filesystem;
using testing::http_post;
using testing::HttpResult;

constexpr const char* kPlatform = "x86_64-pc-linux-gnu";
constexpr const char* kAuthenticator = "upload_key_0123456789";
const ClientVersion kClient{7, 20, 2};

std::string scheduler_request(int64_t hostid, const std::string& extra, double work_seconds) {
  static int seqno = 0;  // rising, as a real client's
  return "<scheduler_request>\n<authenticator>" + std::string(kAuthenticator) + "</authenticator>\n<hostid>" +
         std::to_string(hostid) + "</hostid>\n<rpc_seqno>" + std::to_string(++seqno) +
         "</rpc_seqno>\n<core_client_major_version>7</core_client_major_version>\n"
         "<core_client_minor_version>20</core_client_minor_version>\n<core_client_release>2</"
         "core_client_release>\n"
         "<platform_name>" +
         std::string(kPlatform) + "</platform_name>\n<work_req_seconds>" + std::to_string(work_seconds) +
         "</work_req_seconds>\n<host_info>\n<domain_name>uploader</domain_name>\n<host_cpid>cpid_uploader</"
         "host_cpid>\n"
         "<p_ncpus>2</p_ncpus>\n<p_fpops>1000000000</p_fpops>\n<m_nbytes>8000000000</m_nbytes>\n"
         "<d_total>200000000000</d_total>\n<d_free>100000000000</d_free>\n<os_name>Linux</os_name>\n</"
         "host_info>\n" +
         extra + "</scheduler_request>\n";
}

size_t collect(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

struct ChunkedBody {
  const std::string* text;
  size_t at = 0;
};

size_t feed(char* buffer, size_t size, size_t n, void* source) {
  auto* body = static_cast<ChunkedBody*>(source);
  size_t k = std::min(size * n, body->text->size() - body->at);
  std::memcpy(buffer, body->text->data() + body->at, k);
  body->at += k;
  return k;
}

// A POST with `Transfer-Encoding: chunked` (no Content-Length), as libcurl sends a body
// from a read callback.
HttpResult post_chunked(const std::string& url, const std::string& text) {
  HttpResult result;
  ChunkedBody body{&text};
  CURL* curl = curl_easy_init();
  curl_slist* headers = curl_slist_append(nullptr, "Transfer-Encoding: chunked");
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_POST, 1L);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_READFUNCTION, feed);
  curl_easy_setopt(curl, CURLOPT_READDATA, &body);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &result.body);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 60L);
  CURLcode code = curl_easy_perform(curl);
  if (code != CURLE_OK) result.error = curl_easy_strerror(code);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &result.status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  return result;
}

// A message of a scheduler reply, or a note that the answer is no scheduler reply.
std::string scheduler_message(const HttpResult& reply) {
  pugi::xml_document doc;
  if (!doc.load_string(reply.body.c_str()) || !doc.child("scheduler_reply")) {
    return "<not a scheduler_reply: HTTP " + std::to_string(reply.status) + " " + reply.body.substr(0, 200) +
           ">";
  }
  return doc.child("scheduler_reply").child_value("message");
}

// What the scheduler sent: a result in progress and its first output's certificate.
struct SentOutput {
  int64_t hostid = 0;
  std::string result;
  std::string name;
  std::string signature;
  double max_nbytes = 0;
};

// Peak memory and output of the upload handler run directly as a CGI program.
struct CgiRun {
  std::string output;
  long max_rss_kib = -1;  // VmHWM, kiB
  int status = -1;
};

class UploadSecurity : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = project_.open();
    testing::add_account(*db_, "uploader", kAuthenticator);
    ASSERT_TRUE(project_.publish_example_version(*db_, kPlatform).ok());
    server_ = std::make_unique<testing::TestWebServer>(project_);
  }

  const ProjectConfig& config() const { return project_.config(); }
  std::string cgi(const std::string& program) const { return server_->url("test_cgi/" + program); }
  std::string path(const std::string& name) const {
    return fanout_path(config().upload_dir, name, config().uldl_dir_fanout);
  }
  std::string stored(const std::string& name) const {
    auto text = read_text_file(path(name));
    return text.ok() ? *text : "<missing>";
  }
  pugi::xml_node rpc(pugi::xml_document& doc, const std::string& body) {
    auto reply = http_post(cgi("cgi"), body);
    EXPECT_TRUE(doc.load_string(reply.body.c_str())) << reply.body;
    return doc.child("scheduler_reply");
  }

  // Gets one result over the scheduler and the certificate of its first output.
  SentOutput get_work() {
    testing::make_workunit(*db_, project_, "job" + std::to_string(jobs_++));
    pugi::xml_document doc;
    auto root = rpc(doc, scheduler_request(hostid_, "", 1));
    SentOutput sent;
    sent.hostid = hostid_ = hostid_ != 0 ? hostid_ : root.child("hostid").text().as_llong();
    sent.result = root.child("result").child_value("name");
    sent.name = sent.result + "_0";
    for (auto info : root.children("file_info")) {
      if (sent.name == info.child_value("name")) {
        sent.signature = info.child_value("xml_signature");
        sent.max_nbytes = info.child("max_nbytes").text().as_double();
      }
    }
    EXPECT_FALSE(sent.signature.empty()) << "no certificate for " << sent.name;
    return sent;
  }

  std::string upload_body(const std::string& name, const std::string& signature, double max_nbytes,
                          const std::string& data, double offset = 0) const {
    return render_file_upload_header(kClient, name, signature, max_nbytes, static_cast<double>(data.size()),
                                     md5_hex(data), offset) +
           data.substr(static_cast<size_t>(offset));
  }
  std::string upload(const SentOutput& sent, const std::string& data,
                     const std::string& program = "file_upload_handler") {
    return http_post(cgi(program), upload_body(sent.name, sent.signature, sent.max_nbytes, data)).body;
  }
  // A certificate the project's upload key really signed (as the scheduler would).
  std::string sign(const std::string& name, double max_nbytes) const {
    auto key = load_boinc_private_key(config().key_dir + "/upload_private").value();
    return sign_block_boinc(key, upload_certificate_text(name, max_nbytes)).value();
  }

  void report(const SentOutput& sent, const std::string& data) {
    std::string report = "<result>\n<name>" + sent.result +
                         "</name>\n<final_cpu_time>1</final_cpu_time>\n<exit_status>0</exit_status>\n"
                         "<state>5</state>\n<file_info>\n<name>" +
                         sent.name + "</name>\n<nbytes>" + std::to_string(data.size()) +
                         "</nbytes>\n<md5_cksum>" + md5_hex(data) + "</md5_cksum>\n</file_info>\n</result>\n";
    pugi::xml_document doc;
    auto root = rpc(doc, scheduler_request(sent.hostid, report, 0));
    ASSERT_STREQ(root.child("result_ack").child_value("name"), sent.result.c_str());
  }

  // Rewrites config.xml (the CGI programs read it at each start).
  void change_config(const std::function<void(ProjectConfig&)>& change) {
    ProjectConfig changed = config();
    change(changed);
    ASSERT_TRUE(write_text_file(config().project_dir + "/config.xml", render_project_config(changed)).ok());
  }

  // Runs cgi-bin/file_upload_handler as Apache would run a CGI: the request in its
  // environment, `head` then `tail_size` bytes from `tail` (repeated) on its stdin.
  CgiRun run_handler_as_cgi(const std::string& head, uint64_t tail_size, const std::string& tail) {
    int in[2], out[2];
    EXPECT_EQ(pipe(in), 0);
    EXPECT_EQ(pipe(out), 0);
    std::string program = testing::built_programs_dir() + "/file_upload_handler";
    std::string length = "CONTENT_LENGTH=" + std::to_string(head.size() + tail_size);
    std::string project = "THARSIS_PROJECT_DIR=" + config().project_dir;
    pid_t pid = fork();
    if (pid == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      for (int fd : {in[0], in[1], out[0], out[1]}) close(fd);
      const char* env[] = {"REQUEST_METHOD=POST", length.c_str(), project.c_str(),
                           "GATEWAY_INTERFACE=CGI/1.1", nullptr};
      execle(program.c_str(), program.c_str(), static_cast<char*>(nullptr), env);
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    CgiRun run;
    // All but the last byte: the program cannot have finished (it reads up to
    // CONTENT_LENGTH), so its peak RSS so far (VmHWM of its own address space, which
    // getrusage would mix with ours: a forked child's high-water mark is inherited) covers
    // reading and storing the whole body.
    bool sent = write_all(in[1], head.data(), head.size());
    for (uint64_t left = tail_size - 1; sent && left > 0;) {
      size_t n = static_cast<size_t>(std::min<uint64_t>(left, tail.size()));
      sent = write_all(in[1], tail.data(), n);
      left -= n;
    }
    run.max_rss_kib = peak_rss_kib(pid);
    sent = sent && write_all(in[1], tail.data() + (tail_size - 1) % tail.size(), 1);
    EXPECT_TRUE(sent) << "the program stopped reading its input";
    close(in[1]);
    char buffer[4096];
    for (ssize_t n; (n = read(out[0], buffer, sizeof buffer)) > 0;)
      run.output.append(buffer, static_cast<size_t>(n));
    close(out[0]);
    waitpid(pid, &run.status, 0);
    return run;
  }
  static long peak_rss_kib(pid_t pid) {
    auto status = read_text_file("/proc/" + std::to_string(pid) + "/status");
    size_t at = status.ok() ? status->find("VmHWM:") : std::string::npos;
    return at == std::string::npos ? -1 : std::atol(status->c_str() + at + 6);
  }
  static bool write_all(int fd, const char* data, size_t n) {
    for (size_t done = 0; done < n;) {
      ssize_t w = write(fd, data + done, n - done);
      if (w <= 0) return false;
      done += static_cast<size_t>(w);
    }
    return true;
  }

  testing::TestProject project_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<testing::TestWebServer> server_;
  int64_t hostid_ = 0;
  int jobs_ = 0;
};

// Item 1, the attack of the issue: a host reports its result (OVER, success, 95 bytes),
// then uploads the same file name with the same certificate but other bytes of another
// size; the handler answered 0 and replaced the stored file.
TEST_F(UploadSecurity, AReportedOutputCannotBeSwapped) {
  SentOutput sent = get_work();
  std::string honest(95, 'h');
  ASSERT_NE(upload(sent, honest).find("<status>0</status>"), std::string::npos);
  report(sent, honest);
  ASSERT_EQ(fetch_result_by_name(*db_, sent.result)->server_state, ServerState::Over);

  std::string forged(93, 'f');
  std::string refused = upload(sent, forged);
  EXPECT_NE(refused.find("<status>-1</status>"), std::string::npos) << refused;
  EXPECT_NE(refused.find("never rewritten"), std::string::npos) << refused;
  EXPECT_NE(upload(sent, std::string(95, 'f')).find("<status>-1</status>"), std::string::npos);
  EXPECT_EQ(stored(sent.name), honest);
  EXPECT_FALSE(fs::exists(path(sent.name) + ".partial"));
  // A repeat of the same content is acknowledged and changes nothing.
  EXPECT_NE(upload(sent, honest).find("<status>0</status>"), std::string::npos);
  EXPECT_EQ(stored(sent.name), honest);
}

// Item 1: a reported result whose output never arrived cannot get one afterwards.
TEST_F(UploadSecurity, AReportedResultTakesNoOutputAfterwards) {
  SentOutput sent = get_work();
  report(sent, "never uploaded\n");
  std::string refused = upload(sent, "after the report\n");
  EXPECT_NE(refused.find("<status>-1</status>"), std::string::npos) << refused;
  EXPECT_NE(refused.find("no longer takes output"), std::string::npos) << refused;
  EXPECT_EQ(stored(sent.name), "<missing>");
}

TEST_F(UploadSecurity, AnUploadForANameOfNoResultsOutputIsRefused) {
  SentOutput sent = get_work();
  for (const std::string& name : {std::string("nobody_0"), sent.result + "_7", std::string("plainname")}) {
    std::string reply =
        http_post(cgi("file_upload_handler"), upload_body(name, sign(name, 1000), 1000, "data\n")).body;
    EXPECT_NE(reply.find("<status>-1</status>"), std::string::npos) << name << ": " << reply;
    EXPECT_NE(reply.find("no result has an output file named"), std::string::npos) << reply;
    EXPECT_EQ(stored(name), "<missing>");
  }
}

TEST_F(UploadSecurity, ACompleteFileOfAResultInProgressIsNeverRewritten) {
  SentOutput sent = get_work();
  std::string first = "first complete upload\n";
  ASSERT_NE(upload(sent, first).find("<status>0</status>"), std::string::npos);
  EXPECT_NE(upload(sent, "other bytes\n").find("<status>-1</status>"), std::string::npos);
  EXPECT_NE(upload(sent, std::string(first.size(), 'o')).find("<status>-1</status>"), std::string::npos);
  EXPECT_EQ(stored(sent.name), first);
  EXPECT_EQ(fetch_result_by_name(*db_, sent.result)->server_state, ServerState::InProgress);
}

TEST_F(UploadSecurity, ADeadDatabaseIsATransientError) {
  SentOutput sent = get_work();
  change_config([](ProjectConfig& c) {
    c.db.socket = "/nonexistent/mysqld.sock";
    c.db.host = "127.0.0.1";
  });
  std::string reply = upload(sent, "answer\n");
  EXPECT_NE(reply.find("<status>1</status>"), std::string::npos) << reply;
  EXPECT_NE(reply.find("try later"), std::string::npos) << reply;
  EXPECT_EQ(stored(sent.name), "<missing>");
  change_config([](ProjectConfig&) {});
  EXPECT_NE(upload(sent, "answer\n").find("<status>0</status>"), std::string::npos);
}

// Item 4: under CGI, a chunked body came with no CONTENT_LENGTH and was read as empty.
TEST_F(UploadSecurity, AChunkedBodyReachesTheCgiSchedulerAndUploadHandler) {
  for (const std::string program : {"cgi", "fcgi"}) {
    auto reply = post_chunked(cgi(program), scheduler_request(0, "", 0));
    pugi::xml_document doc;
    ASSERT_TRUE(doc.load_string(reply.body.c_str())) << program << ": " << reply.body;
    // An empty document would have made no host.
    EXPECT_GT(doc.child("scheduler_reply").child("hostid").text().as_llong(), 0)
        << program << ": " << reply.body;
  }
  SentOutput sent = get_work();
  std::string data(200000, 'c');
  auto uploaded =
      post_chunked(cgi("file_upload_handler"), upload_body(sent.name, sent.signature, sent.max_nbytes, data));
  EXPECT_NE(uploaded.body.find("<status>0</status>"), std::string::npos) << uploaded.body;
  EXPECT_EQ(stored(sent.name), data);
  // A GET has neither Content-Length nor a chunked body: read as empty, not waited for.
  EXPECT_EQ(scheduler_message(testing::http_get(cgi("cgi"))), "Scheduler requests must be POSTed");
  EXPECT_NE(testing::http_get(cgi("file_upload_handler")).body.find("<status>1</status>"), std::string::npos);
  // Over the scheduler's limit, chunked: the protocol's answer.
  std::string too_big(static_cast<size_t>(config().max_request_size) + 1000, '<');
  EXPECT_EQ(scheduler_message(post_chunked(cgi("cgi"), too_big)), "Request too large");
}

// Item 3: a body over mod_fcgid's FcgidMaxRequestLen got Apache's HTML 500 page from the
// FastCGI scheduler and a FastCGI upload handler.
TEST_F(UploadSecurity, OversizedBodiesToFastCgiProgramsGetTheProtocolsAnswer) {
  fs::copy_file(testing::built_programs_dir() + "/file_upload_handler",
                config().project_dir + "/cgi-bin/file_upload_handler.fcgi",
                fs::copy_options::overwrite_existing);
  change_config([](ProjectConfig& c) { c.max_upload_size = int64_t{32} << 20; });
  // Over the 64 MiB FcgidMaxRequestLen Apache had, over the scheduler's and the upload
  // handler's own limits.
  std::string huge((size_t{65} << 20), '<');
  for (int i = 0; i < 2; ++i) {
    auto reply = http_post(cgi("fcgi"), huge);
    EXPECT_EQ(reply.status, 200) << reply.body.substr(0, 300);
    EXPECT_EQ(scheduler_message(reply), "Request too large");
    auto upload_reply = http_post(cgi("file_upload_handler.fcgi"), huge);
    EXPECT_EQ(upload_reply.status, 200) << upload_reply.body.substr(0, 300);
    EXPECT_NE(upload_reply.body.find("<status>-1</status>"), std::string::npos)
        << upload_reply.body.substr(0, 300);
    EXPECT_NE(upload_reply.body.find("upload too large"), std::string::npos)
        << upload_reply.body.substr(0, 300);
  }
  // Between the FastCGI limit and the scheduler's own, and chunked: the same answer.
  std::string over(static_cast<size_t>(kFastCgiMaxRequestBytes) + 1, '<');
  EXPECT_EQ(scheduler_message(http_post(cgi("fcgi"), over)), "Request too large");
  EXPECT_EQ(scheduler_message(post_chunked(cgi("fcgi"), over)), "Request too large");
  // The FastCGI upload handler still takes a real upload.
  SentOutput sent = get_work();
  EXPECT_NE(upload(sent, "over fastcgi\n", "file_upload_handler.fcgi").find("<status>0</status>"),
            std::string::npos);
  EXPECT_EQ(stored(sent.name), "over fastcgi\n");
}

// Item 11: the handler held the whole body (up to 128 MiB) in memory, certificate unchecked.
TEST_F(UploadSecurity, TheHandlersMemoryStaysSmallWhateverTheUploadsSize) {
  const std::string result = testing::make_result_in_progress(*db_, project_, "big");
  const std::string name = result + "_0";
  const uint64_t size = uint64_t{100} << 20;
  std::string block(1 << 20, '\0');
  for (size_t i = 0; i < block.size(); ++i) block[i] = static_cast<char>('a' + i % 26);
  std::string whole;
  whole.reserve(static_cast<size_t>(size));
  while (whole.size() < size) whole += block;
  const double max_nbytes = 200e6;
  std::string head = render_file_upload_header(kClient, name, sign(name, max_nbytes), max_nbytes,
                                               static_cast<double>(size), md5_hex(whole), 0);
  whole = std::string();
  CgiRun stored_run = run_handler_as_cgi(head, size, block);
  EXPECT_NE(stored_run.output.find("<status>0</status>"), std::string::npos) << stored_run.output;
  EXPECT_EQ(fs::file_size(path(name)), size);
  EXPECT_GT(stored_run.max_rss_kib, 0);
  EXPECT_LT(stored_run.max_rss_kib, 32 * 1024) << "peak RSS of a 100 MiB upload";

  // 100 MB of junk after a header without a valid certificate: refused, memory small.
  std::string junk_head = render_file_upload_header(kClient, result + "_1", "00ff", 1e9, 1e8, "", 0);
  CgiRun junk = run_handler_as_cgi(junk_head, 100000000, block);
  EXPECT_NE(junk.output.find("<status>-1</status>"), std::string::npos) << junk.output;
  EXPECT_GT(junk.max_rss_kib, 0);
  EXPECT_LT(junk.max_rss_kib, 32 * 1024) << "peak RSS of a refused 100 MB upload";
  EXPECT_FALSE(fs::exists(path(result + "_1") + ".partial"));
}

}  // namespace
}  // namespace tharsis::upload_security_test
