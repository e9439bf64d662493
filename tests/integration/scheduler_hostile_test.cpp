// Issue 13's scheduler findings reproduced over real HTTP (private Apache, CGI and FastCGI
// scheduler, private MariaDB), each failing before its fix:
//  - item 2: text that is not UTF-8 (and a NUL in stderr) locked the host out for good;
//  - item 5: a stale rpc_seqno was taken as it came, a negative one too;
//  - item 6: a request reporting thousands of unknown results wrote a log line for each;
//  - item 10: a late success (after the result timed out) was thrown away;
//  - item 12: a host holding results of the first workunits starved while work waited.
#include <gtest/gtest.h>

#include <ctime>
#include <fstream>
#include <optional>
#include <pugixml.hpp>

#include "daemons/transitioner/lib/transitioner_pass.h"
#include "db/app_store.h"
#include "db/host_store.h"
#include "db/result_store.h"
#include "db/sql.h"
#include "lib/crypto/md5.h"
#include "lib/protocol/upload_protocol.h"
#include "lib/protocol/utf8.h"
#include "lib/text_file.h"
#include "lib/work/create_work.h"
#include "tests/support/accounts.h"
#include "tests/support/daemon_rounds.h"
#include "tests/support/test_web_server.h"
#include "tools/lib/app_admin.h"

namespace tharsis::scheduler_hostile_test {
namespace {

using testing::http_post;

constexpr const char* kPlatform = "x86_64-pc-linux-gnu";
constexpr const char* kKey = "hostile_key_0123456789";

// A scheduler request in the stock client's layout, its host description and seqno given.
struct Request {
  int64_t hostid = 0;
  int rpc_seqno = 1;
  double work_seconds = 0;
  std::string domain_name = "volunteer";
  std::string os_name = "Linux";
  std::string p_model = "cpu";
  std::string os_version = "6.1";
  std::string extra;  // reports and the like
  std::string text() const {
    return std::string("<scheduler_request>\n<authenticator>") + kKey + "</authenticator>\n<hostid>" +
           std::to_string(hostid) + "</hostid>\n<rpc_seqno>" + std::to_string(rpc_seqno) +
           "</rpc_seqno>\n<core_client_major_version>7</core_client_major_version>\n"
           "<core_client_minor_version>20</core_client_minor_version>\n<core_client_release>2</"
           "core_client_release>\n"
           "<platform_name>" +
           kPlatform + "</platform_name>\n<work_req_seconds>" + std::to_string(work_seconds) +
           "</work_req_seconds>\n<host_info>\n<domain_name>" + domain_name +
           "</domain_name>\n<host_cpid>hostile_cpid</host_cpid>\n<p_ncpus>1</p_ncpus>\n<p_model>" + p_model +
           "</p_model>\n<p_fpops>1000000000</p_fpops>\n<m_nbytes>8000000000</m_nbytes>\n"
           "<d_total>200000000000</d_total>\n<d_free>100000000000</d_free>\n<os_name>" +
           os_name + "</os_name>\n<os_version>" + os_version + "</os_version>\n</host_info>\n" + extra +
           "</scheduler_request>\n";
  }
};

std::string report_xml(const std::string& name, const std::string& stderr_text = "",
                       const std::string& output = "abc") {
  return "<result>\n<name>" + name +
         "</name>\n<final_cpu_time>1</final_cpu_time>\n<exit_status>0</exit_status>\n<state>5</state>\n"
         "<stderr_out>\n<core_client_version>7.20.2</core_client_version>\n<![CDATA[\n" +
         stderr_text + "\n]]>\n</stderr_out>\n<file_info>\n<name>" + name + "_0</name>\n<nbytes>" +
         std::to_string(output.size()) + "</nbytes>\n<md5_cksum>" + md5_hex(output) +
         "</md5_cksum>\n</file_info>\n</result>\n";
}

class SchedulerHttpHostile : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = project_.open();
    testing::add_account(*db_, "volunteer", kKey);
    ASSERT_TRUE(project_.publish_example_version(*db_, kPlatform).ok());
    server_ = std::make_unique<testing::TestWebServer>(project_);
  }

  // Workunits <prefix><i>, each of 1e9 flops, their results created by a transitioner pass.
  void add_jobs(const std::string& prefix, int count, int target_nresults = 1) {
    for (int i = 0; i < count; ++i) {
      JobSpec job;
      job.name = prefix + std::to_string(i);
      job.appid = project_.appid();
      job.inputs = {InputFile{job.name + ".in", "in", "seed " + job.name, false}};
      job.output_template_file = project_.output_template();
      job.min_quorum = std::min(2, target_nresults);
      job.target_nresults = target_nresults;
      job.delay_bound = 3600;
      job.rsc_fpops_est = 1e9;
      ASSERT_TRUE(create_workunit(*db_, project_.config(), job, std::time(nullptr)).ok());
    }
    transition(std::time(nullptr));
  }
  void transition(int64_t now) {
    DaemonOptions options;
    DaemonContext context{project_.config(), options, Shard{}, 1000};
    TransitionerPass(project_.config()).do_pass(*db_, context, now);
  }

  pugi::xml_node rpc(const Request& request, const std::string& program = "cgi") {
    auto reply = http_post(server_->url("test_cgi/" + program), request.text());
    EXPECT_TRUE(reply.error.empty()) << reply.error;
    EXPECT_EQ(reply.status, 200) << reply.body;
    last_body_ = reply.body;
    docs_.push_back(std::make_unique<pugi::xml_document>());
    EXPECT_TRUE(docs_.back()->load_string(reply.body.c_str())) << "reply is not well-formed XML:\n"
                                                               << reply.body;
    return docs_.back()->child("scheduler_reply");
  }
  // A new host's first RPC asking for work: the reply, the host's id, and the name of the
  // result it was sent ("" if none).
  struct FirstWork {
    pugi::xml_node root;
    int64_t hostid = 0;
    std::string name;
  };
  FirstWork first_work() {
    Request first;
    first.work_seconds = 1;
    FirstWork work;
    work.root = rpc(first);
    work.hostid = work.root.child("hostid").text().as_llong();
    work.name = work.root.child("result").child_value("name");
    return work;
  }
  // Item 10's start: workunit late0's result sent to a new host (`work`), then timed out by
  // the transitioner (the deadline passed: NO_REPLY, and a replacement); `sent` as it was sent.
  void send_then_time_out(FirstWork& work, std::optional<ResultRow>& sent) {
    add_jobs("late", 1);
    work = first_work();
    ASSERT_FALSE(work.name.empty()) << last_body_;
    sent = fetch_result_by_name(*db_, work.name);
    transition(sent->report_deadline + 10);
  }
  int64_t count(const std::string& sql) { return query_int(*db_, sql); }
  int stored_seqno(int64_t host) { return fetch_host(*db_, host)->rpc_seqno; }

  // Uploads `data` as `file` with the certificate the reply `root` gave for it.
  std::string upload(pugi::xml_node root, const std::string& file, const std::string& data) {
    for (auto info : root.children("file_info")) {
      if (file != info.child_value("name")) continue;
      std::string body =
          render_file_upload_header(ClientVersion{7, 20, 2}, file, info.child_value("xml_signature"),
                                    info.child("max_nbytes").text().as_double(),
                                    static_cast<double>(data.size()), md5_hex(data), 0) +
          data;
      return http_post(server_->url("test_cgi/file_upload_handler"), body).body;
    }
    return "no file_info for " + file;
  }

  testing::TestProject project_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<testing::TestWebServer> server_;
  std::vector<std::unique_ptr<pugi::xml_document>> docs_;
  std::string last_body_;
};

// Item 2. MariaDB refused the bytes (error 1366), the RPC was rolled back with "Server
// error", and the next RPC carried the same bytes: the host could never report nor get work.
TEST_F(SchedulerHttpHostile, TextThatIsNotUtf8IsStoredReplacedAndTheHostGoesOn) {
  add_jobs("job", 3);
  const std::string bad = "\xff\xfe\xc3\x28\xed\xa0\x80";
  const std::string R = "\xEF\xBF\xBD";
  auto [root, hostid, name] = first_work();
  ASSERT_GT(hostid, 0) << last_body_;
  ASSERT_FALSE(name.empty()) << last_body_;

  for (const std::string program : {"cgi", "fcgi"}) {
    Request hostile;
    hostile.hostid = hostid;
    hostile.rpc_seqno = program == "cgi" ? 2 : 3;
    hostile.work_seconds = 1;
    hostile.domain_name = "box " + bad + " \xF0\x9F\x98\x80";  // an emoji is kept
    hostile.os_name = "Linux " + bad;
    hostile.p_model = bad + " model";
    // The CGI request's stderr has invalid bytes only (MariaDB refused them: "Server
    // error"), the FastCGI one's a NUL too (pugixml stopped at it: "malformed").
    std::string nul = program == "cgi" ? "" : std::string(1, '\0');
    hostile.extra = report_xml(name, "stderr " + bad + nul + " end");
    auto reply = rpc(hostile, program);
    EXPECT_STREQ(reply.child("result_ack").child_value("name"), name.c_str()) << program << ":\n"
                                                                              << last_body_;
    EXPECT_FALSE(reply.child("message") &&
                 std::string(reply.child_value("message")).find("error") != std::string::npos)
        << last_body_;
    auto over = fetch_result_by_name(*db_, name);
    EXPECT_EQ(over->server_state, ServerState::Over) << program;
    EXPECT_EQ(over->outcome, Outcome::Success) << program;
    std::string stderr_text = fetch_result_stderr(*db_, over->id);
    EXPECT_TRUE(is_valid_utf8(stderr_text));
    EXPECT_NE(stderr_text.find("stderr " + R + R + R + "(" + R + R + R + (nul.empty() ? "" : R) + " end"),
              std::string::npos)
        << stderr_text;
    std::string next = reply.child("result").child_value("name");
    EXPECT_FALSE(next.empty()) << program << ": no work after the report:\n" << last_body_;
    auto host = fetch_host(*db_, hostid);
    EXPECT_EQ(host->domain_name, "box " + R + R + R + "(" + R + R + R + " \xF0\x9F\x98\x80");
    EXPECT_EQ(host->os_name, "Linux " + R + R + R + "(" + R + R + R);
    EXPECT_EQ(host->p_model, R + R + R + "(" + R + R + R + " model");
    name = next;
  }
  EXPECT_EQ(count("SELECT COUNT(*) FROM host"), 1);
}

// Item 2's neighbour: os_version may be 8 KiB by the protocol's limits but its column holds
// 254 characters; MariaDB's strict mode refused the longer text (error 1406) just as it
// refused bad bytes, every RPC. It is now cut at a character boundary.
TEST_F(SchedulerHttpHostile, HostTextLongerThanItsColumnIsCutNotRefused) {
  Request first;
  first.os_version = std::string(253, 'v') + "\xC3\xA9\xC3\xA9" + std::string(3000, 'w');
  first.p_model = std::string(255, 'm');  // the longest name the parser takes
  auto root = rpc(first);
  int64_t hostid = root.child("hostid").text().as_llong();
  ASSERT_GT(hostid, 0) << last_body_;
  auto host = fetch_host(*db_, hostid);
  EXPECT_EQ(host->os_version, std::string(253, 'v') + "\xC3\xA9");
  EXPECT_EQ(host->p_model, std::string(254, 'm'));
}

// Item 5, BOINC's rule: a lower rpc_seqno than stored is a copy of the client state on
// another computer; it gets a host of its own and its reports are not the original's. A
// negative one is refused.
TEST_F(SchedulerHttpHostile, StaleRpcSeqnoMakesANewHostAndANegativeOneIsRefused) {
  add_jobs("job", 3);
  auto [root, original, name] = first_work();
  ASSERT_FALSE(name.empty()) << last_body_;
  Request at16;
  at16.hostid = original;
  at16.rpc_seqno = 16;
  EXPECT_FALSE(rpc(at16).child("hostid"));
  EXPECT_EQ(stored_seqno(original), 16);

  std::set<int64_t> copies;
  for (int stale : {3, 1}) {
    Request copy = at16;
    copy.rpc_seqno = stale;
    copy.extra = report_xml(name);
    auto reply = rpc(copy);
    int64_t new_host = reply.child("hostid").text().as_llong();
    EXPECT_GT(new_host, 0) << "seqno " << stale << " after 16 kept the host:\n" << last_body_;
    EXPECT_NE(new_host, original);
    copies.insert(new_host);
    EXPECT_EQ(stored_seqno(original), 16) << "the original's seqno went backwards";
    EXPECT_EQ(fetch_result_by_name(*db_, name)->server_state, ServerState::InProgress)
        << "a copy's report was taken for the original host";
  }
  EXPECT_EQ(copies.size(), 2u);

  Request negative = at16;
  negative.rpc_seqno = -5;
  negative.extra = report_xml(name);
  auto refused = rpc(negative);
  EXPECT_NE(std::string(refused.child_value("message")).find("rpc_seqno"), std::string::npos) << last_body_;
  EXPECT_FALSE(refused.child("result_ack"));
  EXPECT_EQ(stored_seqno(original), 16);
  EXPECT_EQ(count("SELECT COUNT(*) FROM host"), 3);
  EXPECT_EQ(fetch_result_by_name(*db_, name)->server_state, ServerState::InProgress);

  // The original goes on counting; the copy goes on as its new host, from 0 (stored 0).
  Request next = at16;
  next.rpc_seqno = 17;
  next.extra = report_xml(name);
  auto taken = rpc(next);
  EXPECT_FALSE(taken.child("hostid"));
  EXPECT_STREQ(taken.child("result_ack").child_value("name"), name.c_str());
  EXPECT_EQ(fetch_result_by_name(*db_, name)->server_state, ServerState::Over);
  EXPECT_EQ(stored_seqno(original), 17);
  int64_t copy_host = *copies.begin();
  EXPECT_EQ(stored_seqno(copy_host), 0);
  Request copy_next;
  copy_next.hostid = copy_host;
  copy_next.rpc_seqno = 1;
  EXPECT_FALSE(rpc(copy_next).child("hostid")) << last_body_;
  EXPECT_EQ(stored_seqno(copy_host), 1);
  EXPECT_EQ(count("SELECT COUNT(*) FROM host"), 3);
}

// Item 6: 4,999 unknown names (under the 5,000 limit) wrote 4,998 log lines.
TEST_F(SchedulerHttpHostile, ReportingThousandsOfUnknownResultsWritesAFewLogLines) {
  Request first;
  int64_t hostid = rpc(first).child("hostid").text().as_llong();
  ASSERT_GT(hostid, 0);
  const std::string log_path = project_.dir() + "/apache/error.log";
  auto lines = [&] {
    std::ifstream in(log_path);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  };
  for (const std::string program : {"cgi", "fcgi"}) {
    size_t before = lines().size();
    Request many;
    many.hostid = hostid;
    many.rpc_seqno = program == "cgi" ? 2 : 3;
    for (int i = 0; i < 4999; ++i)
      many.extra += "<result><name>nosuch_" + std::to_string(i) + "</name></result>\n";
    auto reply = rpc(many, program);
    EXPECT_EQ(std::distance(reply.children("result_ack").begin(), reply.children("result_ack").end()), 4999);
    auto after = lines();
    ASSERT_GE(after.size(), before);
    EXPECT_LE(after.size() - before, 3u)
        << program << ": " << after.size() - before << " log lines, last: " << after.back();
    bool summary = false;
    for (size_t i = before; i < after.size(); ++i) {
      summary =
          summary || after[i].find("4999 reports from host " + std::to_string(hostid)) != std::string::npos;
    }
    EXPECT_TRUE(summary) << program << ": no summary line in " << log_path;
  }
}

// Item 10: after the transitioner timed a result out (NO_REPLY), its host's success was
// ignored though the workunit still waited for one. BOINC keeps such a result; so do we,
// while the workunit is open, and the workunit then validates with it.
TEST_F(SchedulerHttpHostile, LateSuccessIsTakenWhileItsWorkunitIsOpenAndItThenValidates) {
  FirstWork work;
  std::optional<ResultRow> sent;
  ASSERT_NO_FATAL_FAILURE(send_then_time_out(work, sent));
  auto& [root, hostid, name] = work;
  auto timed_out = fetch_result_by_name(*db_, name);
  ASSERT_EQ(timed_out->server_state, ServerState::Over);
  ASSERT_EQ(timed_out->outcome, Outcome::NoReply);
  ASSERT_EQ(count("SELECT COUNT(*) FROM result WHERE workunitid = " + std::to_string(sent->workunitid)), 2);

  // The host still holds it: told to abort it only if not started (BOINC's rule), so a
  // computation under way can still report.
  Request holding;
  holding.hostid = hostid;
  holding.rpc_seqno = 2;
  holding.extra =
      "<other_results>\n<other_result>\n<name>" + name + "</name>\n</other_result>\n</other_results>\n";
  auto told = rpc(holding);
  EXPECT_FALSE(told.child("result_abort")) << last_body_;
  EXPECT_STREQ(told.child("result_abort_if_not_started").child_value("name"), name.c_str()) << last_body_;

  const std::string output = "late answer\n";
  EXPECT_NE(upload(root, name + "_0", output).find("<status>0</status>"), std::string::npos);
  Request late;
  late.hostid = hostid;
  late.rpc_seqno = 3;
  late.extra = report_xml(name, "", output);
  auto reply = rpc(late);
  EXPECT_STREQ(reply.child("result_ack").child_value("name"), name.c_str());
  auto taken = fetch_result_by_name(*db_, name);
  EXPECT_EQ(taken->server_state, ServerState::Over);
  EXPECT_EQ(taken->outcome, Outcome::Success) << "the late success was thrown away";
  EXPECT_GT(taken->received_time, 0);
  EXPECT_EQ(taken->validate_state, ValidateState::Init);
  EXPECT_EQ(taken->file_delete_state, FileDeleteState::Init);
  int64_t now = std::time(nullptr);
  EXPECT_LE(count("SELECT transition_time FROM workunit WHERE id = " + std::to_string(sent->workunitid)),
            now);

  ASSERT_TRUE(testing::run_daemons_until_idle(*db_, project_.config(), now + 1));
  EXPECT_EQ(count("SELECT canonical_resultid FROM workunit WHERE id = " + std::to_string(sent->workunitid)),
            sent->id);
  EXPECT_EQ(fetch_result_by_name(*db_, name)->validate_state, ValidateState::Valid);
}

TEST_F(SchedulerHttpHostile, LateSuccessIsNotTakenOnceItsWorkunitHasACanonicalResult) {
  FirstWork work;
  std::optional<ResultRow> sent;
  ASSERT_NO_FATAL_FAILURE(send_then_time_out(work, sent));
  auto& [root, hostid, name] = work;
  // Another host's result (the replacement) became canonical meanwhile.
  int64_t replacement = count("SELECT id FROM result WHERE workunitid = " + std::to_string(sent->workunitid) +
                              " AND id <> " + std::to_string(sent->id));
  ASSERT_GT(replacement, 0);
  exec(*db_, "UPDATE workunit SET canonical_resultid = ? WHERE id = ?", replacement, sent->workunitid);
  auto before = fetch_result_by_name(*db_, name);

  Request late;
  late.hostid = hostid;
  late.rpc_seqno = 2;
  late.extra = report_xml(name, "late stderr");
  auto reply = rpc(late);
  EXPECT_STREQ(reply.child("result_ack").child_value("name"), name.c_str()) << "not acknowledged";
  auto after = fetch_result_by_name(*db_, name);
  EXPECT_EQ(after->outcome, Outcome::NoReply);
  EXPECT_EQ(after->received_time, before->received_time);
  EXPECT_EQ(fetch_result_stderr(*db_, after->id), "") << "a refused report stored its stderr";
}

// Item 12, the numbers: target_nresults 3, the host holds one result of each of the
// first 104 workunits; 360 unsent results of 120 workunits it holds nothing of wait behind
// the 208 it may not take. It was told "No tasks are available".
TEST_F(SchedulerHttpHostile, AHostHoldingResultsOfTheFirstWorkunitsStillGetsWorkFromDeeperInTheQueue) {
  constexpr int kHeld = 104, kFree = 120;
  add_jobs("deep", kHeld + kFree, 3);
  ASSERT_EQ(count("SELECT COUNT(*) FROM result WHERE server_state = 2"), 3 * (kHeld + kFree));
  Request first;
  int64_t hostid = rpc(first).child("hostid").text().as_llong();
  ASSERT_GT(hostid, 0);
  // One result of each of the first 104 workunits to this host, as 104 earlier RPCs would have.
  auto first_results =
      query(*db_, "SELECT MIN(id), workunitid FROM result GROUP BY workunitid ORDER BY workunitid LIMIT " +
                      std::to_string(kHeld));
  std::vector<std::pair<int64_t, int64_t>> held;
  while (first_results->next()) held.push_back({first_results->getInt64(1), first_results->getInt64(2)});
  ASSERT_EQ(held.size(), static_cast<size_t>(kHeld));
  int64_t userid = fetch_host(*db_, hostid)->userid;
  int64_t now = std::time(nullptr);
  db_->transaction([&](Database& d) {
    for (const auto& [result, wu] : held) {
      ASSERT_TRUE(claim_unsent_result(d, SendClaim{result, wu, hostid, userid, now, 3600, 0}));
    }
  });
  int64_t last_held_wu = held.back().second;
  ASSERT_EQ(
      count("SELECT COUNT(*) FROM result r WHERE server_state = 2 AND NOT EXISTS (SELECT 1 FROM result h "
            "WHERE h.workunitid = r.workunitid AND h.hostid = " +
            std::to_string(hostid) + ")"),
      3 * kFree);

  int seqno = 2;
  for (const std::string program : {"cgi", "fcgi"}) {
    Request ask;
    ask.hostid = hostid;
    ask.rpc_seqno = seqno++;
    ask.work_seconds = 1;
    auto reply = rpc(ask, program);
    std::string name = reply.child("result").child_value("name");
    ASSERT_FALSE(name.empty()) << program << ": starved with " << 3 * kFree
                               << " results it may take waiting:\n"
                               << last_body_;
    EXPECT_GT(fetch_result_by_name(*db_, name)->workunitid, last_held_wu) << program;
  }
  EXPECT_EQ(count("SELECT COUNT(*) FROM (SELECT workunitid FROM result WHERE hostid = " +
                  std::to_string(hostid) + " GROUP BY workunitid HAVING COUNT(*) > 1) twice"),
            0);
}

// Item 12, the general case: what the host may not take at the head of the queue is not
// only workunits it holds. 250 results of an app with no version for its platform and 250
// needing more memory than it has, all of higher priority, stood before the one result it
// could run: the windows of 16 and 200 candidates held nothing for it.
TEST_F(SchedulerHttpHostile, WorkTheHostCannotRunAtTheHeadOfTheQueueDoesNotHideWorkItCan) {
  std::string app_file = project_.dir() + "/winonly_app";
  ASSERT_TRUE(write_text_file(app_file, "MZ").ok());
  AppRow app;
  app.name = "winonly";
  insert_app(*db_, app);
  ASSERT_TRUE(
      publish_app_version(*db_, project_.config(), {"winonly", "windows_x86_64", 100, {app_file}}).ok());
  int64_t winonly = fetch_app_by_name(*db_, "winonly")->id;
  auto create = [&](const std::string& name, int64_t appid, int priority, double memory) {
    JobSpec job;
    job.name = name;
    job.appid = appid;
    job.inputs = {InputFile{name + ".in", "in", "seed " + name, false}};
    job.output_template_file = project_.output_template();
    job.delay_bound = 3600;
    job.priority = priority;
    job.rsc_memory_bound = memory;
    ASSERT_TRUE(create_workunit(*db_, project_.config(), job, std::time(nullptr)).ok());
  };
  for (int i = 0; i < 250; ++i) create("win" + std::to_string(i), winonly, 10, 1e8);
  for (int i = 0; i < 250; ++i) create("big" + std::to_string(i), project_.appid(), 10, 64e9);  // 8 GB host
  create("fits", project_.appid(), 0, 1e8);
  transition(std::time(nullptr));
  ASSERT_EQ(count("SELECT COUNT(*) FROM result WHERE server_state = 2"), 501);

  int seqno = 1;
  int64_t hostid = 0;
  for (const std::string program : {"cgi", "fcgi"}) {
    Request ask;
    ask.hostid = hostid;
    ask.rpc_seqno = seqno++;
    ask.work_seconds = 1;
    auto reply = rpc(ask, program);
    if (hostid == 0) hostid = reply.child("hostid").text().as_llong();
    std::string name = reply.child("result").child_value("name");
    if (program == "cgi") {
      ASSERT_EQ(name, "fits_0") << "starved behind 500 results it cannot run:\n" << last_body_;
    } else {
      // The one result it could run is gone; work of its own platform is still queued.
      EXPECT_TRUE(name.empty()) << last_body_;
      EXPECT_NE(last_body_.find("No tasks are available"), std::string::npos) << last_body_;
    }
  }
  EXPECT_EQ(count("SELECT COUNT(*) FROM result WHERE server_state = 4"), 1);
  // Once only work of an app it has no version for is left, the reply says so (the
  // memory-bound work goes to another host).
  auto big = query(*db_,
                   "SELECT r.id, r.workunitid FROM result r JOIN workunit w ON w.id = r.workunitid "
                   "WHERE r.server_state = 2 AND w.name LIKE 'big%'");
  std::vector<std::pair<int64_t, int64_t>> big_results;
  while (big->next()) big_results.push_back({big->getInt64(1), big->getInt64(2)});
  ASSERT_EQ(big_results.size(), 250u);
  for (const auto& [result, wu] : big_results) {
    ASSERT_TRUE(
        claim_unsent_result(*db_, SendClaim{result, wu, hostid + 1000, 1, std::time(nullptr), 3600, 0}));
  }
  Request last;
  last.hostid = hostid;
  last.rpc_seqno = seqno++;
  last.work_seconds = 1;
  rpc(last, "cgi");
  EXPECT_NE(last_body_.find("No application is available for your platform"), std::string::npos)
      << last_body_;
}

}  // namespace
}  // namespace tharsis::scheduler_hostile_test
