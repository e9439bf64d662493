// Remote job submission (submit_rpc, docs/remote_submission.md) under a real Apache on
// 127.0.0.1, spoken to over real HTTP as BOINC's submit clients speak it (urlencoded form
// as lib/submit_api.py, multipart as lib/remote_submit.cpp), at the URL they build:
// <master_url>submit_rpc_handler.php. Each hostile request gets a well-formed <error>
// and changes nothing (rows counted before and after).
#include <arpa/inet.h>
#include <curl/curl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <pugixml.hpp>
#include <thread>

#include "db/batch_store.h"
#include "db/sql.h"
#include "db/submit_grant_store.h"
#include "db/user_store.h"
#include "db/workunit_store.h"
#include "lib/crypto/md5.h"
#include "lib/text_file.h"
#include "lib/web/status_cgi.h"
#include "lib/work/fanout.h"
#include "tests/support/accounts.h"
#include "tests/support/child_process.h"
#include "tests/support/test_web_server.h"

namespace tharsis::remote_submit_http_test {
namespace {

using testing::http_post;

// The reply's root, or a failure when it is not well-formed XML.
struct Reply {
  pugi::xml_document doc;
  std::string text;
  pugi::xml_node root() const { return doc.document_element(); }
  // The <error_msg> under the root (or the root <error>), "" when none.
  std::string error() const {
    pugi::xml_node e = std::string(root().name()) == "error" ? root() : root().child("error");
    return e ? e.child_value("error_msg") : "";
  }
};

class RemoteSubmitHttp : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = project_.open();
    auto submitters = testing::add_submitters(*db_, "owner_key_0123456789", "other_key_0123456789",
                                              "nogrant_key_0123456789");
    owner_ = submitters.owner;
    other_ = submitters.other;
    server_ = std::make_unique<testing::TestWebServer>(project_);
    url_ = server_->url(project_.config().name + "/submit_rpc_handler.php");
  }

  std::unique_ptr<Reply> post(const std::string& xml, const std::string& url = "") {
    auto result = http_post(url.empty() ? url_ : url, testing::submit_form(xml));
    EXPECT_EQ(result.error, "");
    EXPECT_EQ(result.status, 200) << result.body;
    auto reply = std::make_unique<Reply>();
    reply->text = result.body;
    auto parsed = reply->doc.load_string(result.body.c_str());
    EXPECT_TRUE(parsed) << "reply is not well-formed XML: " << result.body.substr(0, 400);
    return reply;
  }

  // A well-formed error reply whose message contains `expected`.
  void expect_error(const std::string& xml, const std::string& expected) {
    auto reply = post(xml);
    EXPECT_NE(reply->error(), "") << "expected an error, got " << reply->text.substr(0, 300);
    EXPECT_NE(reply->error().find(expected), std::string::npos) << reply->error();
  }

  // Rows that a submission would add or change.
  std::string snapshot() {
    return std::to_string(query_int(*db_, "SELECT COUNT(*) FROM workunit")) + "/" +
           std::to_string(query_int(*db_, "SELECT COUNT(*) FROM batch")) + "/" +
           std::to_string(query_int(*db_, "SELECT COUNT(*) FROM workunit_input")) + "/" +
           std::to_string(query_int(*db_, "SELECT COALESCE(SUM(error_mask), 0) FROM workunit")) + "/" +
           std::to_string(query_int(*db_, "SELECT COALESCE(SUM(state), 0) FROM batch"));
  }

  static std::string job(const std::string& name, const std::string& input_xml) {
    return "<job><name>" + name + "</name><command_line>-n 1</command_line>" + input_xml + "</job>\n";
  }
  static std::string inline_input(const std::string& content) {
    return "<input_file><mode>inline</mode><source>" + content + "</source></input_file>";
  }
  static std::string staged_input(const std::string& name) {
    return "<input_file><mode>local_staged</mode><source>" + name + "</source></input_file>";
  }
  static std::string submit(const std::string& key, const std::string& jobs,
                            const std::string& app = "example", const std::string& extra = "") {
    return "<submit_batch>\n<authenticator>" + key + "</authenticator>\n<batch>\n<app_name>" + app +
           "</app_name>\n" + extra + jobs + "</batch>\n</submit_batch>\n";
  }

  int64_t submit_ok(const std::string& key, const std::string& jobs, const std::string& extra = "") {
    auto reply = post(submit(key, jobs, "example", extra));
    EXPECT_EQ(reply->error(), "");
    return reply->root().child("batch_id").text().as_llong();
  }

  testing::TestProject project_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<testing::TestWebServer> server_;
  std::string url_;
  int64_t owner_ = 0, other_ = 0;
};

TEST_F(RemoteSubmitHttp, PingAnswersAtTheBoincUrlAndTheCgiUrl) {
  auto reply = post("<ping> </ping>\n");
  EXPECT_EQ(std::string(reply->root().name()), "ping");
  EXPECT_EQ(reply->root().child("success").text().as_int(), 1);
  auto direct = post("<ping/>", server_->url(project_.config().name + "_cgi/submit_rpc"));
  EXPECT_EQ(direct->root().child("success").text().as_int(), 1);
}

TEST_F(RemoteSubmitHttp, MultipartFormAsBoincsCppClientSendsIt) {
  // lib/remote_submit.cpp posts multipart/form-data with the document in field "request".
  CURL* curl = curl_easy_init();
  curl_mime* mime = curl_mime_init(curl);
  curl_mimepart* part = curl_mime_addpart(mime);
  curl_mime_name(part, "request");
  std::string xml =
      "<query_batches>\n<authenticator>owner_key_0123456789</authenticator>\n</query_batches>\n";
  curl_mime_data(part, xml.c_str(), CURL_ZERO_TERMINATED);
  std::string body;
  curl_easy_setopt(curl, CURLOPT_URL, url_.c_str());
  curl_easy_setopt(curl, CURLOPT_MIMEPOST, mime);
  curl_easy_setopt(
      curl, CURLOPT_WRITEFUNCTION, +[](char* data, size_t size, size_t n, void* out) {
        static_cast<std::string*>(out)->append(data, size * n);
        return size * n;
      });
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
  ASSERT_EQ(curl_easy_perform(curl), CURLE_OK);
  curl_mime_free(mime);
  curl_easy_cleanup(curl);
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(body.c_str())) << body;
  EXPECT_EQ(std::string(doc.document_element().name()), "query_batches");
  EXPECT_FALSE(doc.document_element().child("error")) << body;
}

TEST_F(RemoteSubmitHttp, SubmitBatchCreatesWorkunitsLikeCreateWork) {
  // A file already staged in download/ (local_staged), and inline content.
  auto staged =
      fanout_path_create(project_.config().download_dir, "shared_in", project_.config().uldl_dir_fanout);
  ASSERT_TRUE(staged.ok());
  ASSERT_TRUE(write_text_file(*staged, "shared content\n").ok());
  std::string jobs = job("j_inline", inline_input("hello &amp; welcome\n")) +
                     job("j_staged", staged_input("shared_in")) +
                     job("j_remote",
                         "<input_file><mode>remote</mode><url>https://data.example.org/x.bin</url>"
                         "<nbytes>1234</nbytes><md5>0123456789abcdef0123456789abcdef</md5></input_file>");
  int64_t batch_id = submit_ok("owner_key_0123456789", jobs, "<batch_name>first</batch_name>");
  ASSERT_GT(batch_id, 0);
  auto batch = fetch_batch(*db_, batch_id);
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch->state, BatchState::InProgress);
  EXPECT_EQ(batch->njobs, 3);
  EXPECT_EQ(batch->user_id, owner_);
  EXPECT_EQ(batch->name, "first");

  auto inline_wu = fetch_workunit_by_name(*db_, "j_inline");
  ASSERT_TRUE(inline_wu);
  EXPECT_EQ(inline_wu->batch, batch_id);
  EXPECT_EQ(inline_wu->transition_time, inline_wu->create_time)
      << "due now: the transitioner makes its results";
  std::string md5 = md5_hex("hello & welcome\n");
  EXPECT_NE(inline_wu->xml_doc.find("<name>jf_" + md5 + "</name>"), std::string::npos) << inline_wu->xml_doc;
  EXPECT_NE(inline_wu->xml_doc.find("<md5_cksum>" + md5 + "</md5_cksum>"), std::string::npos);
  EXPECT_NE(inline_wu->xml_doc.find("<open_name>in</open_name>"), std::string::npos);
  EXPECT_NE(inline_wu->xml_doc.find("<command_line>-n 1</command_line>"), std::string::npos);
  auto content = read_text_file(
      fanout_path(project_.config().download_dir, "jf_" + md5, project_.config().uldl_dir_fanout));
  ASSERT_TRUE(content.ok());
  EXPECT_EQ(*content, "hello & welcome\n");

  auto staged_wu = fetch_workunit_by_name(*db_, "j_staged");
  ASSERT_TRUE(staged_wu);
  EXPECT_NE(staged_wu->xml_doc.find("<md5_cksum>" + md5_hex("shared content\n") + "</md5_cksum>"),
            std::string::npos);
  auto remote_wu = fetch_workunit_by_name(*db_, "j_remote");
  ASSERT_TRUE(remote_wu);
  EXPECT_NE(remote_wu->xml_doc.find("<url>https://data.example.org/x.bin</url>"), std::string::npos)
      << remote_wu->xml_doc;
  EXPECT_NE(remote_wu->xml_doc.find("<nbytes>1234</nbytes><no_delete/>"), std::string::npos);
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM workunit_input WHERE workunitid IN (?, ?)", inline_wu->id,
                      staged_wu->id),
            2);

  // query_batch lists the jobs; query_batches shows the batch.
  auto query =
      post("<query_batch><authenticator>owner_key_0123456789</authenticator><batch_id>" +
           std::to_string(batch_id) + "</batch_id><get_job_details>1</get_job_details></query_batch>");
  EXPECT_EQ(query->root().child("njobs").text().as_int(), 3);
  EXPECT_EQ(query->root().child("state").text().as_int(), 1);
  int jobs_listed = 0;
  for (auto j : query->root().children("job")) {
    ++jobs_listed;
    EXPECT_STREQ(j.child_value("status"), "queued");
  }
  EXPECT_EQ(jobs_listed, 3);
  auto batches = post("<query_batches><authenticator>owner_key_0123456789</authenticator></query_batches>");
  EXPECT_EQ(batches->root().child("batch").child("id").text().as_llong(), batch_id);
}

TEST_F(RemoteSubmitHttp, CreateBatchThenSubmitIntoItThenAbortAndRetire) {
  auto created = post(
      "<create_batch><authenticator>owner_key_0123456789</authenticator><batch_name>later</batch_name>"
      "<app_name>example</app_name><expire_time>0.000000</expire_time></create_batch>");
  int64_t id = created->root().child("batch_id").text().as_llong();
  ASSERT_GT(id, 0) << created->text;
  EXPECT_EQ(fetch_batch(*db_, id)->state, BatchState::Init);
  std::string jobs;
  for (int i = 0; i < 4; ++i) jobs += job("later" + std::to_string(i), inline_input("x" + std::to_string(i)));
  EXPECT_EQ(submit_ok("owner_key_0123456789", jobs, "<batch_id>" + std::to_string(id) + "</batch_id>"), id);
  // A second submit into the same batch: no longer in init.
  expect_error(submit("owner_key_0123456789", job("later9", inline_input("y")), "example",
                      "<batch_id>" + std::to_string(id) + "</batch_id>"),
               "not in init state");

  auto aborted = post(
      "<abort_jobs><authenticator>owner_key_0123456789</authenticator><job_name>later1</job_name>"
      "</abort_jobs>");
  EXPECT_EQ(aborted->root().child("success").text().as_int(), 1) << aborted->text;
  EXPECT_EQ(fetch_workunit_by_name(*db_, "later1")->error_mask & 16, 16);
  EXPECT_EQ(fetch_workunit_by_name(*db_, "later0")->error_mask, 0);

  auto expire = post(
      "<set_expire_time><authenticator>owner_key_0123456789</authenticator><batch_name>later"
      "</batch_name><expire_time>1900000000.000000</expire_time></set_expire_time>");
  EXPECT_EQ(expire->root().child("success").text().as_int(), 1) << expire->text;
  EXPECT_DOUBLE_EQ(fetch_batch(*db_, id)->expire_time, 1.9e9);

  auto abort_batch = post("<abort_batch><authenticator>owner_key_0123456789</authenticator><batch_id>" +
                          std::to_string(id) + "</batch_id></abort_batch>");
  EXPECT_EQ(abort_batch->root().child("success").text().as_int(), 1);
  EXPECT_EQ(fetch_batch(*db_, id)->state, BatchState::Aborted);
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM workunit WHERE batch = ? AND (error_mask & 16) = 16", id),
            4);

  auto retire = post("<retire_batch><authenticator>owner_key_0123456789</authenticator><batch_id>" +
                     std::to_string(id) + "</batch_id></retire_batch>");
  EXPECT_EQ(retire->root().child("success").text().as_int(), 1);
  EXPECT_EQ(fetch_batch(*db_, id)->state, BatchState::Retired);
  auto batches = post("<query_batches><authenticator>owner_key_0123456789</authenticator></query_batches>");
  EXPECT_FALSE(batches->root().child("batch")) << "a retired batch is not listed";
}

// The same binary as FastCGI (submit_rpc.fcgi under mod_fcgid): one persistent process
// serves a sequence of requests, hostile ones between, and stays sound.
TEST_F(RemoteSubmitHttp, FastCgiProcessServesASequenceHostileOnesIncluded) {
  std::string fcgi = server_->url(project_.config().name + "_cgi/submit_rpc.fcgi");
  std::string key = "<authenticator>owner_key_0123456789</authenticator>";
  for (int round = 0; round < 3; ++round) {
    std::string r = std::to_string(round);
    auto submitted = post(submit("owner_key_0123456789", job("fc" + r, inline_input("fc" + r))), fcgi);
    int64_t id = submitted->root().child("batch_id").text().as_llong();
    EXPECT_GT(id, 0) << submitted->text;
    EXPECT_NE(post("<submit_batch><authenticator>owner_key_0123456789</authenticator><batch>", fcgi)->error(),
              "");
    EXPECT_NE(post("<!DOCTYPE x [<!ENTITY a \"b\">]><ping>&a;</ping>", fcgi)->error(), "");
    EXPECT_NE(post(submit("owner_key_0123456789", job("fc" + r, inline_input("again"))), fcgi)->error(), "")
        << "the name is taken now";
    auto query =
        post("<query_batch>" + key + "<batch_id>" + std::to_string(id) + "</batch_id></query_batch>", fcgi);
    EXPECT_EQ(query->root().child("njobs").text().as_int(), 1) << query->text;
  }
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM workunit"), 3);
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM batch"), 3);
}

// tharsis-submit, the shell client: only the URL and the authenticator.
TEST_F(RemoteSubmitHttp, TharsisSubmitClientPingSubmitQueryAbortRetire) {
  auto staged =
      fanout_path_create(project_.config().download_dir, "cli_shared", project_.config().uldl_dir_fanout);
  ASSERT_TRUE(staged.ok());
  ASSERT_TRUE(write_text_file(*staged, "shared\n").ok());
  ASSERT_TRUE(write_text_file(project_.dir() + "/local_in.txt", "local <content> & more\n").ok());
  ASSERT_TRUE(write_text_file(
                  project_.dir() + "/jobs.txt",
                  "# cli jobs\n" + project_.dir() + "/local_in.txt -- --n 1\nstaged:cli_shared -- --n 2\n")
                  .ok());
  std::string master = server_->url(project_.config().name + "/");
  std::string log = project_.dir() + "/tharsis-submit.log";
  auto run = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"--url", master, "--authenticator", "owner_key_0123456789"});
    testing::ChildProcess client("tharsis-submit", args, log);
    return client.wait(60);
  };
  EXPECT_EQ(run({"ping"}), 0);
  EXPECT_EQ(run({"submit", "--app", "example", "--batch_name", "cli", project_.dir() + "/jobs.txt"}), 0);
  auto batch = fetch_batch_by_name(*db_, "cli");
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch->njobs, 2);
  std::string first = "example_" + std::to_string(batch->id) + "_0";
  auto wu = fetch_workunit_by_name(*db_, first);
  ASSERT_TRUE(wu) << first;
  EXPECT_NE(wu->xml_doc.find(md5_hex("local <content> & more\n")), std::string::npos);
  EXPECT_NE(wu->xml_doc.find("<command_line>--n 1</command_line>"), std::string::npos);
  EXPECT_EQ(run({"query", std::to_string(batch->id), "--jobs"}), 0);
  EXPECT_EQ(run({"query"}), 0);
  EXPECT_EQ(run({"abort_jobs", first}), 0);
  EXPECT_EQ(fetch_workunit_by_name(*db_, first)->error_mask & 16, 16);
  EXPECT_EQ(run({"abort", std::to_string(batch->id)}), 0);
  EXPECT_EQ(run({"retire", std::to_string(batch->id)}), 0);
  EXPECT_EQ(fetch_batch(*db_, batch->id)->state, BatchState::Retired);
  // A server error is exit status 1 with the message.
  EXPECT_EQ(run({"retire", "999999"}), 1);
  // upload: the project gets the files it lacks, named by content, usable as staged:.
  ASSERT_TRUE(write_text_file(project_.dir() + "/up_a", "upload a\n").ok());
  EXPECT_EQ(run({"upload", project_.dir() + "/up_a", project_.dir() + "/local_in.txt"}), 0);
  std::string up_name = "jf_" + md5_hex("upload a\n");
  auto uploaded =
      read_text_file(fanout_path(project_.config().download_dir, up_name, project_.config().uldl_dir_fanout));
  ASSERT_TRUE(uploaded.ok());
  EXPECT_EQ(*uploaded, "upload a\n");
  ASSERT_TRUE(write_text_file(project_.dir() + "/jobs2.txt", "staged:" + up_name + " -- --n 3\n").ok());
  EXPECT_EQ(run({"submit", "--app", "example", "--batch_name", "cli2", project_.dir() + "/jobs2.txt"}), 0);
  EXPECT_TRUE(fetch_batch_by_name(*db_, "cli2"));
  auto output = read_text_file(log);
  ASSERT_TRUE(output.ok());
  EXPECT_NE(output->find("batch " + std::to_string(batch->id) + " 'cli' app example: in progress, 2 jobs"),
            std::string::npos)
      << *output;
  EXPECT_NE(output->find("job " + std::to_string(wu->id) + " " + first + ": queued"), std::string::npos)
      << *output;
  EXPECT_NE(output->find("server error: no such batch"), std::string::npos) << *output;
  EXPECT_NE(output->find(project_.dir() + "/up_a staged:" + up_name), std::string::npos) << *output;
}

TEST_F(RemoteSubmitHttp, GrantSubmitToolGrantsAndRevokes) {
  std::string log = project_.dir() + "/grant_submit.log";
  auto grant = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"--project_dir", project_.config().project_dir});
    testing::ChildProcess tool("grant_submit", args, log);
    return tool.wait(60);
  };
  std::string key = "nogrant_key_0123456789";
  expect_error(submit(key, job("gs0", inline_input("a"))), "no submit access");
  EXPECT_EQ(grant({"--email", "nogrant@example.org", "--app", "no_such_app"}), 1);
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM user_submit"), 2) << "a failed grant changes nothing";
  EXPECT_EQ(grant({"--email", "nogrant@example.org", "--app", "example", "--max_jobs_in_progress", "10"}), 0);
  EXPECT_GT(submit_ok(key, job("gs1", inline_input("a"))), 0);
  EXPECT_EQ(grant({"--email", "nogrant@example.org", "--revoke"}), 0);
  expect_error(submit(key, job("gs2", inline_input("a"))), "no submit access");
  EXPECT_EQ(grant({"--user", "999999", "--all"}), 1);
  auto output = read_text_file(log);
  ASSERT_TRUE(output.ok());
  EXPECT_NE(output->find("may submit to example; at most 10 jobs in progress"), std::string::npos) << *output;
  EXPECT_NE(output->find("no remote submission"), std::string::npos) << *output;
  EXPECT_NE(output->find("no app named 'no_such_app'"), std::string::npos) << *output;
}

// A multipart POST as BOINC's clients send job_file.php uploads: "request", then file_0...
std::unique_ptr<Reply> post_multipart(const std::string& url, const std::string& xml,
                                      const std::vector<std::string>& files) {
  CURL* curl = curl_easy_init();
  curl_mime* mime = curl_mime_init(curl);
  curl_mimepart* part = curl_mime_addpart(mime);
  curl_mime_name(part, "request");
  curl_mime_data(part, xml.data(), xml.size());
  for (size_t i = 0; i < files.size(); ++i) {
    part = curl_mime_addpart(mime);
    curl_mime_name(part, ("file_" + std::to_string(i)).c_str());
    curl_mime_filename(part, ("local" + std::to_string(i)).c_str());
    curl_mime_data(part, files[i].data(), files[i].size());
  }
  auto reply = std::make_unique<Reply>();
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_MIMEPOST, mime);
  curl_easy_setopt(
      curl, CURLOPT_WRITEFUNCTION, +[](char* data, size_t size, size_t n, void* out) {
        static_cast<std::string*>(out)->append(data, size * n);
        return size * n;
      });
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply->text);
  EXPECT_EQ(curl_easy_perform(curl), CURLE_OK);
  curl_mime_free(mime);
  curl_easy_cleanup(curl);
  EXPECT_TRUE(reply->doc.load_string(reply->text.c_str())) << reply->text;
  return reply;
}

// job_file.php: inputs uploaded ahead (named jf_<md5>), then used as local_staged.
TEST_F(RemoteSubmitHttp, JobFilesUploadedAheadThenSubmittedAsStaged) {
  std::string url = server_->url(project_.config().name + "/job_file.php");
  std::string a = "alpha input\n", b = std::string(100000, 'b') + "\n";
  std::string name_a = "jf_" + md5_hex(a), name_b = "jf_" + md5_hex(b);
  std::string names = "<phys_name>" + name_a + "</phys_name><phys_name>" + name_b + "</phys_name>";
  std::string key = "<authenticator>owner_key_0123456789</authenticator>";
  auto query = post_multipart(url, "<query_files>" + key + names + "</query_files>", {});
  std::vector<int> absent;
  for (auto f : query->root().child("absent_files").children("file")) absent.push_back(f.text().as_int());
  EXPECT_EQ(absent, (std::vector<int>{0, 1})) << query->text;

  auto path_a = fanout_path(project_.config().download_dir, name_a, project_.config().uldl_dir_fanout);
  // Hostile uploads write nothing: content not matching its name, a name leaving
  // download/, a count mismatch, an account without a grant.
  auto wrong = post_multipart(
      url, "<upload_files>" + key + "<phys_name>" + name_a + "</phys_name></upload_files>", {"not alpha\n"});
  EXPECT_NE(wrong->error().find("md5"), std::string::npos) << wrong->text;
  auto escape =
      post_multipart(url, "<upload_files>" + key + "<phys_name>../../x</phys_name></upload_files>", {a});
  EXPECT_NE(escape->error().find("bad filename"), std::string::npos) << escape->text;
  auto count = post_multipart(url, "<upload_files>" + key + names + "</upload_files>", {a});
  EXPECT_NE(count->error().find("doesn't agree"), std::string::npos) << count->text;
  auto nogrant = post_multipart(
      url, "<upload_files><authenticator>nogrant_key_0123456789</authenticator>" + names + "</upload_files>",
      {a, b});
  EXPECT_NE(nogrant->error().find("no submit access"), std::string::npos) << nogrant->text;
  EXPECT_FALSE(std::filesystem::exists(path_a));

  auto upload = post_multipart(url, "<upload_files>" + key + names + "</upload_files>", {a, b});
  EXPECT_TRUE(upload->root().child("success")) << upload->text;
  auto stored = read_text_file(path_a);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(*stored, a);
  auto again = post_multipart(url, "<query_files>" + key + names + "</query_files>", {});
  EXPECT_FALSE(again->root().child("absent_files").child("file")) << again->text;

  // Held by the account for BOINC's default 30 days, and by the batch that uses them.
  int64_t hold =
      query_int(*db_, "SELECT MIN(delete_time) - UNIX_TIMESTAMP() FROM job_file WHERE user_id = ?", owner_);
  EXPECT_NEAR(static_cast<double>(hold), 30 * 86400, 600);

  int64_t id =
      submit_ok("owner_key_0123456789", job("up0", staged_input(name_a)) + job("up1", staged_input(name_b)));
  EXPECT_GT(id, 0);
  EXPECT_NE(fetch_workunit_by_name(*db_, "up1")->xml_doc.find("<nbytes>100001</nbytes>"), std::string::npos);
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM batch_file_assoc WHERE batch_id = ?", id), 2);
}

// One account's sandbox is its own: another learns nothing of its files and cannot use
// them, until it uploads the same content itself (which proves it has it).
TEST_F(RemoteSubmitHttp, SandboxIsPerAccount) {
  std::string url = server_->url(project_.config().name + "/job_file.php");
  std::string a = "owner's private input\n";
  std::string name_a = "jf_" + md5_hex(a);
  auto owner_key = "<authenticator>owner_key_0123456789</authenticator>";
  auto other_key = "<authenticator>other_key_0123456789</authenticator>";
  std::string names = "<phys_name>" + name_a + "</phys_name>";
  auto up = post_multipart(url, "<upload_files>" + std::string(owner_key) + names + "</upload_files>", {a});
  ASSERT_TRUE(up->root().child("success")) << up->text;

  auto asked = post_multipart(url, "<query_files>" + std::string(other_key) + names + "</query_files>", {});
  EXPECT_EQ(asked->root().child("absent_files").child("file").text().as_int(-1), 0) << asked->text;
  std::string before = snapshot();
  auto sandbox_input = [](const std::string& name) {
    return "<input_file><mode>sandbox</mode><source>" + name + "</source></input_file>";
  };
  expect_error(submit("other_key_0123456789", job("steal0", staged_input(name_a))), "not in your sandbox");
  expect_error(submit("other_key_0123456789", job("steal1", sandbox_input(name_a))), "not in your sandbox");
  EXPECT_EQ(snapshot(), before);
  // A jf_ file another account's job staged inline is no sandbox file either.
  std::string b = "inline content of the owner\n";
  submit_ok("owner_key_0123456789", job("inl", inline_input(b)));
  before = snapshot();
  expect_error(submit("other_key_0123456789", job("steal2", staged_input("jf_" + md5_hex(b)))),
               "not in your sandbox");
  // Names that leave the sandbox.
  for (const char* name : {"../../secret", "/etc/passwd", "jf_../x", "f", "jf_0123"}) {
    expect_error(submit("owner_key_0123456789", job("leave", sandbox_input(name))), "jf_<md5>");
  }
  EXPECT_EQ(snapshot(), before);
  // Another account's batch cannot take the owner's files.
  int64_t theirs = submit_ok("other_key_0123456789", job("theirs", inline_input("x")));
  auto tied = post_multipart(url,
                             "<upload_files>" + std::string(owner_key) + "<batch_id>" +
                                 std::to_string(theirs) + "</batch_id>" + names + "</upload_files>",
                             {a});
  EXPECT_NE(tied->error().find("not owner"), std::string::npos) << tied->text;
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM job_file WHERE user_id = ?", other_), 0);

  // The same content uploaded by the other account: now it holds the file too.
  auto own = post_multipart(url, "<upload_files>" + std::string(other_key) + names + "</upload_files>", {a});
  ASSERT_TRUE(own->root().child("success")) << own->text;
  auto again = post_multipart(url, "<query_files>" + std::string(other_key) + names + "</query_files>", {});
  EXPECT_FALSE(again->root().child("absent_files").child("file")) << again->text;
  int64_t id = submit_ok("other_key_0123456789", job("mine", sandbox_input(name_a)));
  EXPECT_EQ(query_int(*db_,
                      "SELECT COUNT(*) FROM batch_file_assoc a JOIN job_file f ON f.id = a.job_file_id "
                      "WHERE a.batch_id = ? AND f.user_id = ?",
                      id, other_),
            1);
  EXPECT_NE(fetch_workunit_by_name(*db_, "mine")->xml_doc.find("<name>" + name_a + "</name>"),
            std::string::npos);
}

// semilocal (the server fetches a URL) is refused until config.xml enables it, then
// fetched with its size limit, into download/ under its content's name.
TEST_F(RemoteSubmitHttp, SemilocalOnlyWhenEnabledAndWithinItsLimit) {
  const ProjectConfig& c = project_.config();
  std::string small(1000, 's'), big(5000, 'b');
  ASSERT_TRUE(write_text_file(c.download_dir + "/semi_small.dat", small).ok());
  ASSERT_TRUE(write_text_file(c.download_dir + "/semi_big.dat", big).ok());
  auto semilocal = [&](const std::string& file) {
    return "<input_file><mode>semilocal</mode><source>" + server_->url(c.name + "/download/" + file) +
           "</source></input_file>";
  };
  std::string before = snapshot();
  expect_error(submit("owner_key_0123456789", job("semi0", semilocal("semi_small.dat"))), "not enabled");
  EXPECT_EQ(snapshot(), before);

  auto config_text = read_text_file(c.project_dir + "/config.xml");
  ASSERT_TRUE(config_text.ok());
  std::string enabled = *config_text;
  size_t end = enabled.find("</config>");
  ASSERT_NE(end, std::string::npos);
  enabled.insert(
      end, "<submit_semilocal_allow/>\n<submit_semilocal_max_bytes>4096</submit_semilocal_max_bytes>\n");
  ASSERT_TRUE(write_text_file(c.project_dir + "/config.xml", enabled).ok());

  expect_error(submit("owner_key_0123456789", job("semi1", semilocal("semi_big.dat"))), "larger than");
  expect_error(submit("owner_key_0123456789", job("semi2", semilocal("not_there.dat"))), "404");
  expect_error(submit("owner_key_0123456789",
                      job("semi3",
                          "<input_file><mode>semilocal</mode><source>file:///etc/passwd</source>"
                          "</input_file>")),
               "http");
  // A server that redirects to a file:// URL: the fetch does not follow it.
  {
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    ASSERT_EQ(listen(listener, 4), 0);
    ASSERT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length), 0);
    std::thread redirector([listener] {
      int connection = accept(listener, nullptr, nullptr);
      if (connection < 0) return;
      char request[4096];
      (void)!read(connection, request, sizeof request);
      const std::string reply =
          "HTTP/1.1 302 Found\r\nLocation: file:///etc/passwd\r\nContent-Length: 0\r\nConnection: "
          "close\r\n\r\n";
      (void)!write(connection, reply.data(), reply.size());
      close(connection);
    });
    std::string url = "http://127.0.0.1:" + std::to_string(ntohs(address.sin_port)) + "/moved";
    expect_error(submit("owner_key_0123456789", job("semi5", "<input_file><mode>semilocal</mode><source>" +
                                                                 url + "</source></input_file>")),
                 "semilocal " + url + ": Protocol \"file\"");
    shutdown(listener, SHUT_RDWR);
    close(listener);
    redirector.join();
  }
  EXPECT_EQ(snapshot(), before);
  EXPECT_FALSE(std::filesystem::exists(fanout_path(c.download_dir, "jf_" + md5_hex(big), c.uldl_dir_fanout)));

  submit_ok("owner_key_0123456789", job("semi4", semilocal("semi_small.dat")));
  std::string name = "jf_" + md5_hex(small);
  auto staged = read_text_file(fanout_path(c.download_dir, name, c.uldl_dir_fanout));
  ASSERT_TRUE(staged.ok());
  EXPECT_EQ(*staged, small);
  std::string doc = fetch_workunit_by_name(*db_, "semi4")->xml_doc;
  EXPECT_NE(doc.find("<name>" + name + "</name>"), std::string::npos) << doc;
  EXPECT_NE(doc.find("<nbytes>1000</nbytes>"), std::string::npos) << doc;
}

// server_status.php?counts=1, which BOINC's Python client posts to (get_job_counts).
TEST_F(RemoteSubmitHttp, JobCountsAsBoincsServerStatusGivesThem) {
  submit_ok("owner_key_0123456789", job("jc0", inline_input("a")) + job("jc1", inline_input("b")));
  exec(*db_, "UPDATE workunit SET need_validate = 1 WHERE name = 'jc0'");
  std::string url = server_->url(project_.config().name + "/server_status.php?counts=1");
  // Several posts, one with a body near the pages' limit: each is answered (a page that left
  // the body unread lost about one answer in five under mod_cgid).
  const std::string padded = "request=" + std::string(60000, 'x');
  for (int round = 0; round < 8; ++round) {
    auto result = http_post(url, round % 2 == 0 ? "request=" : padded);
    EXPECT_EQ(result.status, 200) << "POST " << round << ": " << result.error << "\n" << result.body;
  }
  EXPECT_EQ(http_post(url, std::string(kMaxStatusRequestBody + 1, 'x')).status, 413);
  for (bool as_post : {true, false}) {
    auto result = as_post ? http_post(url, "request=") : testing::http_get(url);
    EXPECT_EQ(result.status, 200) << (as_post ? "POST: " : "GET: ") << result.error << "\n" << result.body;
    pugi::xml_document doc;
    ASSERT_TRUE(doc.load_string(result.body.c_str())) << result.body;
    pugi::xml_node counts = doc.child("job_counts");
    EXPECT_EQ(counts.child("wus_need_validate").text().as_int(), 1) << result.body;
    EXPECT_EQ(counts.child("results_ready_to_send").text().as_int(), 0);
    EXPECT_TRUE(counts.child("wus_need_file_delete"));
  }
  EXPECT_EQ(testing::http_get(server_->url(project_.config().name + "/server_status.php?counts=2")).status,
            400);
}

// --- Hostile requests: a well-formed <error>, nothing changed. ---

TEST_F(RemoteSubmitHttp, WrongOrMissingAuthenticatorChangesNothing) {
  std::string before = snapshot();
  expect_error(submit("not_a_key", job("a1", inline_input("a"))), "bad authenticator");
  expect_error("<submit_batch><batch><app_name>example</app_name>" + job("a2", inline_input("a")) +
                   "</batch></submit_batch>",
               "no authenticator");
  expect_error("<query_batches><authenticator>wrong</authenticator></query_batches>", "bad authenticator");
  EXPECT_EQ(snapshot(), before);
}

TEST_F(RemoteSubmitHttp, AccountWithoutGrantIsRefused) {
  std::string before = snapshot();
  expect_error(submit("nogrant_key_0123456789", job("n1", inline_input("a"))), "no submit access");
  expect_error("<query_batches><authenticator>nogrant_key_0123456789</authenticator></query_batches>",
               "no submit access");
  EXPECT_EQ(snapshot(), before);
}

TEST_F(RemoteSubmitHttp, GrantForOneAppOnly) {
  put_submit_grant(*db_, SubmitGrant{owner_, false});
  std::string before = snapshot();
  expect_error(submit("owner_key_0123456789", job("g1", inline_input("a"))), "no submit access");
  EXPECT_EQ(snapshot(), before);
  add_app_grant(*db_, owner_, project_.appid());
  EXPECT_GT(submit_ok("owner_key_0123456789", job("g1", inline_input("a"))), 0);
}

TEST_F(RemoteSubmitHttp, AnotherUsersBatchIsNotTouched) {
  int64_t id =
      submit_ok("owner_key_0123456789", job("mine0", inline_input("a")) + job("mine1", inline_input("b")));
  std::string before = snapshot();
  std::string key = "<authenticator>other_key_0123456789</authenticator>";
  std::string ref = "<batch_id>" + std::to_string(id) + "</batch_id>";
  expect_error("<query_batch>" + key + ref + "</query_batch>", "not owner");
  expect_error("<abort_batch>" + key + ref + "</abort_batch>", "not owner");
  expect_error("<retire_batch>" + key + ref + "</retire_batch>", "not owner");
  expect_error("<set_expire_time>" + key + ref + "<expire_time>5</expire_time></set_expire_time>",
               "not owner");
  expect_error("<abort_jobs>" + key + "<job_name>mine0</job_name></abort_jobs>", "not owner");
  auto wu = fetch_workunit_by_name(*db_, "mine0");
  expect_error("<query_job>" + key + "<job_id>" + std::to_string(wu->id) + "</job_id></query_job>",
               "not owner");
  expect_error("<query_completed_job>" + key + "<job_name>mine0</job_name></query_completed_job>",
               "not owner");
  expect_error(submit("other_key_0123456789", job("theirs", inline_input("c")), "example", ref), "not owner");
  EXPECT_EQ(snapshot(), before);
}

TEST_F(RemoteSubmitHttp, UnknownAppAndUnknownOperation) {
  std::string before = snapshot();
  expect_error(submit("owner_key_0123456789", job("u1", inline_input("a")), "no_such_app"), "app not found");
  expect_error("<format_disk><authenticator>owner_key_0123456789</authenticator></format_disk>",
               "bad command");
  EXPECT_EQ(snapshot(), before);
}

TEST_F(RemoteSubmitHttp, MalformedXmlEntityBombAndDeepNesting) {
  std::string before = snapshot();
  expect_error("<submit_batch><authenticator>owner_key_0123456789</authenticator><batch>", "can't parse");
  expect_error("this is not xml", "can't parse");
  std::string bomb =
      "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n<!ENTITY lol \"lol\">\n"
      "<!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n"
      "<!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">\n]>\n" +
      submit("owner_key_0123456789", job("bomb", inline_input("&lol3;")));
  expect_error(bomb, "DOCTYPE");
  std::string deep =
      "<submit_batch><authenticator>owner_key_0123456789</authenticator><batch><app_name>example"
      "</app_name><job><name>deep</name>";
  for (int i = 0; i < 5000; ++i) deep += "<a>";
  for (int i = 0; i < 5000; ++i) deep += "</a>";
  deep += "</job></batch></submit_batch>";
  expect_error(deep, "nested deeper");
  EXPECT_EQ(snapshot(), before);
}

TEST_F(RemoteSubmitHttp, TextThatIsNotUtf8GetsAClearErrorAndChangesNothing) {
  // The database stores text as UTF-8: bytes that are not must be refused by name, not
  // reach it. Inline file content is bytes, not text, and goes to a file as sent.
  std::string before = snapshot();
  const std::string bad = "\xff\xfe";
  expect_error(submit("owner_key_0123456789", job("utf_a", inline_input("a")), "example",
                      "<batch_name>b" + bad + "</batch_name>"),
               "UTF-8");
  expect_error(submit("owner_key_0123456789", "<job><name>utf_b</name><command_line>-n " + bad +
                                                  "</command_line>" + inline_input("b") + "</job>\n"),
               "UTF-8");
  EXPECT_EQ(snapshot(), before);
  int64_t batch_id = submit_ok("owner_key_0123456789", job("utf_c", inline_input("bytes " + bad)));
  EXPECT_GT(batch_id, 0) << "inline content is not text";
}

TEST_F(RemoteSubmitHttp, HugeRequestIsRefused) {
  std::string before = snapshot();
  // Over the 64 MiB default limit: refused before the body is read.
  std::string huge = submit("owner_key_0123456789", job("huge", inline_input(std::string(65u << 20, 'x'))));
  expect_error(huge, "too large");
  EXPECT_EQ(snapshot(), before);
}

TEST_F(RemoteSubmitHttp, FileNamesThatLeaveDownloadAreRefused) {
  ASSERT_TRUE(write_text_file(project_.dir() + "/secret", "secret").ok());
  std::string before = snapshot();
  for (const char* name : {"../../secret", "../config.xml", "/etc/passwd", ".hidden", "a/b"}) {
    expect_error(submit("owner_key_0123456789", job("leave", staged_input(name))), "plain file name");
  }
  expect_error(submit("owner_key_0123456789", job("missing", staged_input("not_there"))), "not in download/");
  expect_error(submit("owner_key_0123456789", job("../evil", inline_input("a"))), "name must be");
  expect_error(submit("owner_key_0123456789", job("sb",
                                                  "<input_file><mode>sandbox</mode><source>../secret</source>"
                                                  "</input_file>")),
               "jf_<md5>");
  expect_error(submit("owner_key_0123456789",
                      job("rm",
                          "<input_file><mode>remote</mode><url>file:///etc/passwd</url><nbytes>1</nbytes>"
                          "<md5>0123456789abcdef0123456789abcdef</md5></input_file>")),
               "http");
  EXPECT_EQ(snapshot(), before);
}

TEST_F(RemoteSubmitHttp, MoreJobsThanTheLimitAndDuplicateNamesChangeNothing) {
  std::string jobs;
  for (int i = 0; i < 100001; ++i) jobs += "<job/>";
  std::string before = snapshot();
  expect_error(submit("owner_key_0123456789", jobs), "exceeds the limit");
  expect_error(
      submit("owner_key_0123456789", job("twice", inline_input("a")) + job("twice", inline_input("b"))),
      "given twice");
  // All or nothing: the last job's name is taken by an existing workunit.
  submit_ok("owner_key_0123456789", job("taken", inline_input("a")));
  before = snapshot();
  expect_error(
      submit("owner_key_0123456789", job("fresh1", inline_input("b")) + job("taken", inline_input("c"))),
      "existing job");
  EXPECT_EQ(snapshot(), before);
  EXPECT_FALSE(fetch_workunit_by_name(*db_, "fresh1"));
}

TEST_F(RemoteSubmitHttp, JobsInProgressLimitOfTheGrant) {
  SubmitGrant grant{owner_, true};
  grant.max_jobs_in_progress = 3;
  put_submit_grant(*db_, grant);
  submit_ok("owner_key_0123456789", job("l0", inline_input("a")) + job("l1", inline_input("b")));
  std::string before = snapshot();
  expect_error(submit("owner_key_0123456789", job("l2", inline_input("c")) + job("l3", inline_input("d"))),
               "limit on jobs in progress");
  EXPECT_EQ(snapshot(), before);
}

}  // namespace
}  // namespace tharsis::remote_submit_http_test
