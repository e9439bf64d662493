// The scheduler and the upload handler as CGI programs under a real Apache on 127.0.0.1,
// spoken to over real HTTP with hand-written protocol documents: a volunteer gets work,
// uploads its output with the signed certificate, reports it; hostile requests (wrong
// account key, malformed XML, another host's result, forged certificate, unsafe names,
// oversized uploads) get clear errors and change nothing. The same binary as FastCGI under
// mod_fcgid serves a sequence of RPCs, hostile ones included, from one persistent process;
// as a FastCGI pool behind mod_proxy_fcgi it serves a burst beyond its workers, replaces a
// killed worker, refuses a second pool, and stops with the project's stop trigger.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <latch>
#include <map>
#include <mutex>
#include <pugixml.hpp>
#include <set>
#include <thread>

#include "daemons/transitioner/lib/transitioner_pass.h"
#include "db/result_store.h"
#include "db/sql.h"
#include "db/user_store.h"
#include "db/workunit_store.h"
#include "lib/crypto/md5.h"
#include "lib/protocol/upload_protocol.h"
#include "lib/text_file.h"
#include "lib/work/create_work.h"
#include "lib/work/fanout.h"
#include "sched/lib/candidate_cache.h"
#include "tests/support/accounts.h"
#include "tests/support/child_process.h"
#include "tests/support/test_web_server.h"
#include "tools/lib/app_admin.h"

namespace tharsis::scheduler_http_test {
namespace {

using testing::http_post;

constexpr const char* kPlatform = "x86_64-pc-linux-gnu";

std::string request(const std::string& authenticator, int64_t hostid, const std::string& body_extra,
                    double work_seconds = 1000) {
  return "<scheduler_request>\n<authenticator>" + authenticator + "</authenticator>\n<hostid>" +
         std::to_string(hostid) +
         "</hostid>\n<rpc_seqno>1</rpc_seqno>\n<core_client_major_version>7</core_client_major_version>\n"
         "<core_client_minor_version>20</core_client_minor_version>\n<core_client_release>2</"
         "core_client_release>\n"
         "<platform_name>" +
         std::string(kPlatform) + "</platform_name>\n<work_req_seconds>" + std::to_string(work_seconds) +
         "</work_req_seconds>\n<host_info>\n<domain_name>volunteer" + std::to_string(hostid) +
         "</domain_name>\n<host_cpid>cpid" + authenticator + std::to_string(hostid) +
         "</host_cpid>\n<p_ncpus>2</p_ncpus>\n<p_fpops>1000000000</p_fpops>\n<m_nbytes>8000000000</"
         "m_nbytes>\n"
         "<d_total>200000000000</d_total>\n<d_free>100000000000</d_free>\n<os_name>Linux</os_name>\n</"
         "host_info>\n" +
         body_extra + "</scheduler_request>\n";
}

class SchedulerHttp : public ::testing::Test {
 protected:
  SchedulerHttp() = default;
  // The project's database on `admin`'s server (one the test may stop), not the shared one.
  explicit SchedulerHttp(const DbConfig& admin) : project_("http://127.0.0.1:8080/", admin) {}

  void SetUp() override {
    db_ = project_.open();
    testing::add_account(*db_, "volunteer", "good_key_0123456789");
    ASSERT_TRUE(project_.publish_example_version(*db_, kPlatform).ok());
    add_jobs(0, 3);
    server_ = std::make_unique<testing::TestWebServer>(project_);
  }

  // Jobs job<first>..job<first+count-1> of 1e9 flops each, their results created
  // (`results` per workunit, all needed for its quorum).
  void add_jobs(int first, int count, int results = 1) {
    for (int i = first; i < first + count; ++i) {
      JobSpec job;
      job.min_quorum = job.target_nresults = results;
      job.name = "job" + std::to_string(i);
      job.appid = project_.appid();
      job.inputs = {InputFile{job.name + ".in", "in", "seed " + job.name, false}};
      job.output_template_file = project_.output_template();
      job.delay_bound = 3600;
      job.rsc_fpops_est = 1e9;
      ASSERT_TRUE(create_workunit(*db_, project_.config(), job, std::time(nullptr)).ok());
    }
    DaemonOptions options;
    DaemonContext context{project_.config(), options, Shard{}, 1000};
    TransitionerPass transitioner(project_.config());
    transitioner.do_pass(*db_, context, std::time(nullptr));
  }

  // One RPC to the scheduler as CGI (cgi) or FastCGI (fcgi).
  pugi::xml_document rpc(const std::string& body, const std::string& program = "cgi") {
    auto reply = http_post(server_->url("test_cgi/" + program), body);
    EXPECT_TRUE(reply.error.empty()) << reply.error;
    EXPECT_EQ(reply.status, 200) << reply.body;
    pugi::xml_document doc;
    EXPECT_TRUE(doc.load_string(reply.body.c_str())) << "reply is not well-formed XML:\n" << reply.body;
    return doc;
  }
  int64_t count(const std::string& sql) { return query_int(*db_, sql); }
  // Accounts with authenticators `prefix`first .. `prefix`(last - 1).
  void add_accounts(const std::string& prefix, int first, int last) {
    for (int i = first; i < last; ++i) {
      UserRow user;
      user.authenticator = prefix + std::to_string(i);
      insert_user(*db_, user);
    }
  }

  // `program` (the scheduler) as a pool of `processes` FastCGI workers started up front, as `start` runs
  // it from a <daemon> entry (bin/scheduler --fastcgi_socket run/scheduler.sock), and an
  // Apache reaching it through mod_proxy_fcgi at test_cgi/pool. Fails the test when the
  // workers do not come up.
  struct Pool {
    std::string program, socket;
    std::unique_ptr<testing::ChildProcess> process;
    std::unique_ptr<testing::TestWebServer> web;
  };
  void start_pool(Pool& pool, int processes, const std::string& program = "scheduler");

  // What the project's other connections (the schedulers') ran while `action` did, from the
  // general log, by kind: "candidate_read" (the locked read of the queue's head),
  // "queue_part_read" (a pool worker's read of its part), "other_execute", "execute" (all
  // three), "commit", "begin", "rollback", "other"; and "read_ahead", the transactions of
  // part reads alone (a pool worker's between requests), whose commits are not in "commit".
  std::map<std::string, int64_t> statements_during(const std::function<void()>& action);

  std::string upload(const std::string& name, const std::string& signature, double max_nbytes,
                     const std::string& data, double offset = 0) {
    std::string body = render_file_upload_header(ClientVersion{7, 20, 2}, name, signature, max_nbytes,
                                                 static_cast<double>(data.size()), md5_hex(data), offset) +
                       data.substr(static_cast<size_t>(offset));
    return http_post(server_->url("test_cgi/file_upload_handler"), body).body;
  }

  testing::TestProject project_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<testing::TestWebServer> server_;
};

TEST_F(SchedulerHttp, VolunteerGetsWorkUploadsAndReports) {
  auto reply = rpc(request("good_key_0123456789", 0, ""));
  auto root = reply.child("scheduler_reply");
  int64_t hostid = root.child("hostid").text().as_llong();
  ASSERT_GT(hostid, 0) << "no host created";
  auto result_node = root.child("result");
  ASSERT_TRUE(result_node) << "no work sent";
  std::string result_name = result_node.child_value("name");
  auto sent = fetch_result_by_name(*db_, result_name);
  ASSERT_TRUE(sent.has_value());
  EXPECT_EQ(sent->server_state, ServerState::InProgress);
  EXPECT_EQ(sent->hostid, hostid);
  EXPECT_TRUE(root.child("app_version")) << "no app version sent";

  // The output's file_info carries the upload certificate.
  std::string output = result_name + "_0";
  pugi::xml_node out_info;
  for (auto info : root.children("file_info")) {
    if (output == info.child_value("name")) out_info = info;
  }
  ASSERT_TRUE(out_info) << "no file_info for output " << output;
  std::string signature = out_info.child_value("xml_signature");
  double max_nbytes = out_info.child("max_nbytes").text().as_double();
  ASSERT_FALSE(signature.empty());

  // Forged certificate and an over-long upload are refused; nothing is stored.
  EXPECT_NE(upload(output, signature, max_nbytes * 2, "answer").find("<status>-1</status>"),
            std::string::npos);
  std::string path = fanout_path(project_.config().upload_dir, output, project_.config().uldl_dir_fanout);
  EXPECT_FALSE(read_text_file(path).ok());
  EXPECT_NE(upload("../escape", signature, max_nbytes, "x").find("<status>-1</status>"), std::string::npos);

  // A real upload, in two parts (resume at the size the server reports).
  std::string data = "answer 42\n";
  std::string first_part = render_file_upload_header(ClientVersion{7, 20, 2}, output, signature, max_nbytes,
                                                     static_cast<double>(data.size()), md5_hex(data), 0) +
                           data.substr(0, 4);
  http_post(server_->url("test_cgi/file_upload_handler"), first_part);
  auto size_reply = http_post(server_->url("test_cgi/file_upload_handler"),
                              render_get_file_size_request(ClientVersion{7, 20, 2}, output));
  EXPECT_NE(size_reply.body.find("<file_size>4</file_size>"), std::string::npos) << size_reply.body;
  EXPECT_NE(upload(output, signature, max_nbytes, data, 4).find("<status>0</status>"), std::string::npos);
  EXPECT_EQ(*read_text_file(path), data);

  // Report it; then report it again: acknowledged twice, changed once.
  std::string report =
      "<result>\n<name>" + result_name +
      "</name>\n<final_cpu_time>1.5</final_cpu_time>\n<final_elapsed_time>2</final_elapsed_time>\n"
      "<exit_status>0</exit_status>\n<state>5</state>\n<file_info>\n<name>" +
      output + "</name>\n<nbytes>10</nbytes>\n<md5_cksum>" + md5_hex(data) +
      "</md5_cksum>\n</file_info>\n</result>\n";
  auto reported = rpc(request("good_key_0123456789", hostid, report, 0));
  EXPECT_STREQ(reported.child("scheduler_reply").child("result_ack").child_value("name"),
               result_name.c_str());
  // A known host gets no <hostid> (the 7.20 client would take its state for a copy and
  // make a new host CPID); the first reply gave the code-signing key.
  EXPECT_FALSE(reported.child("scheduler_reply").child("hostid"));
  EXPECT_TRUE(root.child("code_sign_key"));
  auto over = fetch_result_by_name(*db_, result_name);
  EXPECT_EQ(over->server_state, ServerState::Over);
  EXPECT_EQ(over->outcome, Outcome::Success);
  auto again = rpc(request("good_key_0123456789", hostid, report, 0));
  EXPECT_TRUE(again.child("scheduler_reply").child("result_ack"));
  EXPECT_EQ(fetch_result_by_name(*db_, result_name)->received_time, over->received_time);
}

TEST_F(SchedulerHttp, CodeSignKeyIsSentOnlyToAClientWithoutIt) {
  auto key = read_text_file(project_.config().key_dir + "/code_sign_public");
  ASSERT_TRUE(key.ok());
  std::string rewrapped;  // the client stores the key stripped; whitespace may differ
  for (char c : *key) rewrapped += c == '\n' ? std::string(" \n") : std::string(1, c);
  auto holding =
      rpc(request("good_key_0123456789", 0, "<code_sign_key>\n" + rewrapped + "\n</code_sign_key>\n", 0));
  EXPECT_FALSE(holding.child("scheduler_reply").child("code_sign_key"));
  auto fresh = rpc(request("good_key_0123456789", 0, "", 0));
  EXPECT_TRUE(fresh.child("scheduler_reply").child("code_sign_key"));
}

// Each reply's document is kept in a variable: a node of a temporary document dangles
// (AddressSanitizer's heap-use-after-free in the suite under THARSIS_SANITIZE).
TEST_F(SchedulerHttp, HostileRequestsGetClearErrorsAndChangeNothing) {
  auto wrong = rpc(request("not_a_key", 0, ""));
  EXPECT_NE(std::string(wrong.child("scheduler_reply").child_value("message")).find("account key"),
            std::string::npos);
  EXPECT_EQ(count("SELECT COUNT(*) FROM host"), 0);

  for (const std::string& bad : {std::string("<scheduler_request><authenticator>x</authen"),
                                 std::string("not xml at all"), std::string(3 << 20, '<')}) {
    auto reply = rpc(bad);
    EXPECT_TRUE(reply.child("scheduler_reply").child("message")) << "no error message for bad input";
  }
  EXPECT_EQ(count("SELECT COUNT(*) FROM result WHERE server_state <> 2"), 0);

  // Host A gets a result; host B (another account) cannot report it.
  auto a_doc = rpc(request("good_key_0123456789", 0, ""));
  auto a = a_doc.child("scheduler_reply");
  std::string name = a.child("result").child_value("name");
  ASSERT_FALSE(name.empty());
  UserRow other;
  other.authenticator = "other_key_987654321";
  insert_user(*db_, other);
  auto b_doc = rpc(request("other_key_987654321", 0, "", 0));
  auto b = b_doc.child("scheduler_reply");
  int64_t b_host = b.child("hostid").text().as_llong();
  rpc(request("other_key_987654321", b_host,
              "<result><name>" + name + "</name><state>5</state><exit_status>0</exit_status></result>", 0));
  EXPECT_EQ(fetch_result_by_name(*db_, name)->server_state, ServerState::InProgress);
}

// Found by bench/chaos.sh: a body over max_request_size sent to the CGI scheduler got no
// answer at all (Apache failed writing the unread body into the exited CGI, then reset
// the connection) instead of the "Request too large" error reply; about two times in three.
TEST_F(SchedulerHttp, OversizedRequestToTheCgiGetsAnErrorReplyEveryTime) {
  std::string too_big(static_cast<size_t>(project_.config().max_request_size) + (1 << 20), '<');
  for (int i = 0; i < 6; ++i) {
    auto reply = rpc(too_big);
    EXPECT_STREQ(reply.child("scheduler_reply").child_value("message"), "Request too large")
        << "attempt " << i;
  }
  EXPECT_EQ(count("SELECT COUNT(*) FROM host"), 0);
}

// The processes running <project>/cgi-bin/fcgi (mod_fcgid starts them on demand).
std::set<pid_t> fastcgi_processes(const std::string& program) {
  std::set<pid_t> pids;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    auto exe = std::filesystem::read_symlink(entry.path() / "exe", ec);
    if (!ec && exe == program) pids.insert(static_cast<pid_t>(std::stol(name)));
  }
  return pids;
}

bool wait_for(const std::function<bool()>& done) {
  for (int i = 0; i < 200 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  return done();
}

std::string text_of(const std::string& file) {
  auto text = read_text_file(file);
  return text.ok() ? *text : std::string();
}

void SchedulerHttp::start_pool(Pool& pool, int processes, const std::string& program) {
  namespace fs = std::filesystem;
  const std::string dir = project_.config().project_dir;
  pool.program = dir + "/bin/" + program;
  pool.socket = dir + "/run/" + program + ".sock";
  fs::create_directories(dir + "/run");
  fs::copy_file(testing::built_programs_dir() + "/" + program, pool.program,
                fs::copy_options::overwrite_existing);
  pool.process = std::make_unique<testing::ChildProcess>(
      pool.program,
      std::vector<std::string>{"--fastcgi_socket", pool.socket, "--processes", std::to_string(processes)},
      dir + "/pool.log");
  ASSERT_TRUE(wait_for([&] {
    return fs::exists(pool.socket) &&
           fastcgi_processes(pool.program).size() == static_cast<size_t>(processes) + 1;
  })) << "no pool of "
      << processes << " workers on " << pool.socket << ": " << text_of(dir + "/pool.log");
  pool.web = std::make_unique<testing::TestWebServer>(
      project_, 0, "apache_pool",
      std::vector<std::string>{"ProxyPass \"/test_cgi/pool\" \"unix:" + pool.socket + "|fcgi://" + program +
                               "/\" retry=0"});
}

std::map<std::string, int64_t> SchedulerHttp::statements_during(const std::function<void()>& action) {
  std::vector<int64_t> project_threads;
  {
    auto rows = query(*db_,
                      "SELECT ID FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND ID <> "
                      "CONNECTION_ID()");
    while (rows->next()) project_threads.push_back(rows->getInt64(1));
  }
  EXPECT_FALSE(project_threads.empty()) << "the FastCGI scheduler holds no connection";
  std::string thread_list = "0";
  for (int64_t id : project_threads) thread_list += "," + std::to_string(id);
  // The log is not emptied (a test beside this one may be counting too): these threads'
  // entries from now on are the action's.
  exec(*db_, "SET GLOBAL log_output = 'TABLE'");
  std::string since;
  {
    auto now = query(*db_, "SELECT CAST(NOW(6) AS CHAR)");
    if (now->next()) since = now->getString(1);
  }
  exec(*db_, "SET GLOBAL general_log = 1");
  action();
  exec(*db_, "SET GLOBAL general_log = 0");
  auto rows = query(
      *db_,
      "SELECT CASE WHEN command_type = 'Execute' AND CONVERT(argument USING utf8mb4) LIKE '%SKIP LOCKED%' "
      "THEN 'candidate_read' WHEN command_type = 'Execute' AND CONVERT(argument USING utf8mb4) LIKE "
      "'%MOD(r.workunitid%' THEN 'queue_part_read' WHEN command_type = 'Execute' THEN 'other_execute' "
      "WHEN command_type = 'Query' AND UPPER(CONVERT(argument USING utf8mb4)) LIKE 'COMMIT%' THEN "
      "'commit' WHEN command_type = 'Query' AND (UPPER(CONVERT(argument USING utf8mb4)) LIKE 'START%' OR "
      "UPPER(CONVERT(argument USING utf8mb4)) LIKE 'BEGIN%') THEN 'begin' WHEN command_type = 'Query' "
      "AND UPPER(CONVERT(argument USING utf8mb4)) LIKE 'ROLLBACK%' THEN 'rollback' ELSE 'other' END, "
      "thread_id FROM mysql.general_log WHERE thread_id IN (" +
          thread_list + ") AND event_time >= ? ORDER BY event_time",
      since);
  std::map<std::string, int64_t> out;
  struct Transaction {
    bool at_start = true;          // nothing ran since the last one ended
    bool part_reads_only = false;  // it ran part reads so far and nothing else
  };
  std::map<int64_t, Transaction> of_thread;
  while (rows->next()) {
    std::string kind = rows->getString(1);
    Transaction& t = of_thread[rows->getInt64(2)];
    if (kind == "commit" || kind == "rollback") {
      if (kind == "commit" && t.part_reads_only) kind = "read_ahead";
      t = Transaction{};
    } else if (kind != "begin") {
      t.part_reads_only = kind == "queue_part_read" && (t.at_start || t.part_reads_only);
      t.at_start = false;
    }
    ++out[kind];
  }
  out["execute"] = out["candidate_read"] + out["queue_part_read"] + out["other_execute"];
  return out;
}

std::string success_report(const std::string& result_name) {
  return "<result>\n<name>" + result_name +
         "</name>\n<final_cpu_time>1</final_cpu_time>\n<exit_status>0</exit_status>\n<state>5</state>\n"
         "<file_info>\n<name>" +
         result_name +
         "_0</name>\n<nbytes>3</nbytes>\n<md5_cksum>x</md5_cksum>\n"
         "</file_info>\n</result>\n";
}

// Found by bench/chaos.sh: a host that had reported one result of a quorum-2 workunit was
// sent the other one too (the check looked only at results still in progress), so it
// could validate its own answer. Both results at the top of the send order here.
TEST_F(SchedulerHttp, AHostNeverGetsTwoResultsOfOneWorkunitEvenAfterReportingTheFirst) {
  JobSpec job;
  job.name = "pair";
  job.appid = project_.appid();
  job.inputs = {InputFile{"pair.in", "in", "seed pair", false}};
  job.output_template_file = project_.output_template();
  job.min_quorum = job.target_nresults = 2;
  job.priority = 10;
  job.delay_bound = 3600;
  job.rsc_fpops_est = 1e9;
  auto pair = create_workunit(*db_, project_.config(), job, std::time(nullptr));
  ASSERT_TRUE(pair.ok()) << pair.error();
  DaemonOptions options;
  DaemonContext context{project_.config(), options, Shard{}, 1000};
  TransitionerPass(project_.config()).do_pass(*db_, context, std::time(nullptr));

  // One result per request (1 s of work at 1 GFLOPS, 1e9 flops each).
  auto first_doc = rpc(request("good_key_0123456789", 0, "", 1));
  auto first = first_doc.child("scheduler_reply");
  int64_t hostid = first.child("hostid").text().as_llong();
  std::string r1 = first.child("result").child_value("name");
  ASSERT_EQ(fetch_result_by_name(*db_, r1)->workunitid, *pair) << "the pair's results lead the send order";
  auto second_doc = rpc(request("good_key_0123456789", hostid, success_report(r1), 1));
  auto second = second_doc.child("scheduler_reply");
  EXPECT_STREQ(second.child("result_ack").child_value("name"), r1.c_str());
  std::string r2 = second.child("result").child_value("name");
  ASSERT_FALSE(r2.empty()) << "no work sent after the report, though three jobs wait";
  EXPECT_NE(fetch_result_by_name(*db_, r2)->workunitid, *pair) << "sent " << r2 << " after " << r1;
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM result WHERE workunitid = ? AND hostid = ?", *pair, hostid),
            1);
}

TEST_F(SchedulerHttp, FastCgiProcessServesManyRpcsAndSurvivesHostileOnes) {
  const std::string program = project_.config().project_dir + "/cgi-bin/fcgi";
  // A new host gets one result (work for 1 s at 1 GFLOPS; each job is 1e9 flops).
  auto first_doc = rpc(request("good_key_0123456789", 0, "", 1), "fcgi");
  auto first = first_doc.child("scheduler_reply");
  int64_t hostid = first.child("hostid").text().as_llong();
  ASSERT_GT(hostid, 0) << "no host created";
  std::string r1 = first.child("result").child_value("name");
  ASSERT_FALSE(r1.empty()) << "no work sent to the new host";
  const std::set<pid_t> serving = fastcgi_processes(program);
  ASSERT_EQ(serving.size(), 1u) << "expected one FastCGI scheduler process";

  // Report it and get the next one, over the same process.
  auto second_doc = rpc(request("good_key_0123456789", hostid, success_report(r1), 1), "fcgi");
  auto second = second_doc.child("scheduler_reply");
  EXPECT_STREQ(second.child("result_ack").child_value("name"), r1.c_str());
  std::string r2 = second.child("result").child_value("name");
  ASSERT_FALSE(r2.empty()) << "no second result";
  EXPECT_NE(r2, r1);
  EXPECT_EQ(fetch_result_by_name(*db_, r1)->server_state, ServerState::Over);
  EXPECT_EQ(fetch_result_by_name(*db_, r2)->hostid, hostid);

  // Hostile requests: each an error reply, nothing changed, the process carries on.
  for (const std::string& bad :
       {std::string("<scheduler_request><authenticator>good_key_0123456789</authen"),
        request("not_a_key", hostid, success_report(r2), 1), std::string(5 << 20, '<')}) {
    auto reply = rpc(bad, "fcgi");
    EXPECT_TRUE(reply.child("scheduler_reply").child("message")) << "no error message for bad input";
  }
  EXPECT_EQ(fetch_result_by_name(*db_, r2)->server_state, ServerState::InProgress);
  EXPECT_EQ(count("SELECT COUNT(*) FROM host"), 1);

  auto third_doc = rpc(request("good_key_0123456789", hostid, success_report(r2), 0), "fcgi");

  auto third = third_doc.child("scheduler_reply");
  EXPECT_STREQ(third.child("result_ack").child_value("name"), r2.c_str());
  EXPECT_EQ(fetch_result_by_name(*db_, r2)->outcome, Outcome::Success);
  EXPECT_EQ(fastcgi_processes(program), serving) << "the FastCGI process was replaced";
}

// A warm FastCGI process's report+get RPC (one reported, one sent) is one transaction of
// eight prepared statements and its COMMIT, with no START TRANSACTION (the session's
// autocommit is off) and no statement after the commit; and it leaves no transaction open
// between requests: the rows it locked are free, its writes visible.
TEST_F(SchedulerHttp, AReportAndGetRpcIsOneTransactionOfEightStatementsOverFastCgiAndOneCommitAsCgi) {
  add_jobs(3, 10);
  const std::string program = project_.config().project_dir + "/cgi-bin/fcgi";
  auto reply = rpc(request("good_key_0123456789", 0, "", 1), "fcgi");
  int64_t hostid = reply.child("scheduler_reply").child("hostid").text().as_llong();
  std::string sent = reply.child("scheduler_reply").child("result").child_value("name");
  ASSERT_FALSE(sent.empty());
  for (int i = 0; i < 2; ++i) {  // the first report+get prepares its statements
    std::map<std::string, int64_t> ran;
    auto report_get = [&] {
      reply = rpc(request("good_key_0123456789", hostid, success_report(sent), 1), "fcgi");
    };
    if (i == 0) {
      report_get();
    } else {
      ran = statements_during(report_get);
    }
    auto next = reply.child("scheduler_reply");
    EXPECT_STREQ(next.child("result_ack").child_value("name"), sent.c_str());
    EXPECT_EQ(fetch_result_by_name(*db_, sent)->server_state, ServerState::Over);
    sent = next.child("result").child_value("name");
    ASSERT_FALSE(sent.empty()) << "no work sent";
    if (i == 0) continue;
    EXPECT_EQ(ran["execute"], 7);
    EXPECT_EQ(ran["candidate_read"], 1) << "a mod_fcgid process reads and locks its candidates";
    EXPECT_EQ(ran["commit"], 1);
    EXPECT_EQ(ran["begin"], 0);
    EXPECT_EQ(ran["rollback"], 0);
  }
  EXPECT_EQ(fastcgi_processes(program).size(), 1u);
  const int64_t cgi_start = count("SELECT UNIX_TIMESTAMP()");
  // Nothing held between requests: the host row and the sent result's workunit lock at once.
  EXPECT_EQ(query_int(*db_, "SELECT id FROM host WHERE id = ? FOR UPDATE NOWAIT", hostid), hostid);
  EXPECT_GT(query_int(*db_,
                      "SELECT w.id FROM workunit w JOIN result r ON r.workunitid = w.id WHERE r.name = ? "
                      "FOR UPDATE NOWAIT",
                      sent),
            0);
  EXPECT_EQ(fetch_result_by_name(*db_, sent)->hostid, hostid);
  // (the server is shared with other tests: this project's connections only)
  EXPECT_EQ(
      count("SELECT COUNT(*) FROM information_schema.INNODB_TRX t JOIN information_schema.PROCESSLIST p "
            "ON p.ID = t.trx_mysql_thread_id WHERE p.DB = DATABASE()"),
      0);

  // As CGI each run is a fresh connection: its schema check is the first statement of the
  // RPC's one transaction, not a transaction (and commit) of its own. (In this test: one
  // test only turns the general log on and off.)
  auto cgi_logged = [&](const std::string& condition) {
    return count(
        "SELECT COUNT(*) FROM mysql.general_log g WHERE g.thread_id IN (SELECT c.thread_id FROM "
        "mysql.general_log c WHERE c.command_type = 'Connect' AND c.event_time >= FROM_UNIXTIME(" +
        std::to_string(cgi_start) +
        ") AND CONVERT(c.argument USING utf8mb4) LIKE CONCAT('% on ', DATABASE(), ' %')) AND " + condition);
  };
  exec(*db_, "SET GLOBAL general_log = 1");
  reply = rpc(request("good_key_0123456789", hostid, success_report(sent), 1));
  exec(*db_, "SET GLOBAL general_log = 0");
  EXPECT_STREQ(reply.child("scheduler_reply").child("result_ack").child_value("name"), sent.c_str());
  EXPECT_FALSE(std::string(reply.child("scheduler_reply").child("result").child_value("name")).empty());
  EXPECT_EQ(cgi_logged("g.command_type = 'Connect'"), 1) << "not one CGI run's connection";
  EXPECT_EQ(
      cgi_logged("g.command_type = 'Query' AND UPPER(CONVERT(g.argument USING utf8mb4)) LIKE 'COMMIT%'"), 1);
  EXPECT_EQ(
      cgi_logged("g.command_type = 'Query' AND UPPER(CONVERT(g.argument USING utf8mb4)) LIKE 'ROLLBACK%'"),
      0);
  EXPECT_EQ(
      cgi_logged("g.command_type = 'Execute' AND CONVERT(g.argument USING utf8mb4) LIKE '%schema_version%'"),
      1);
}

// Two hosts asking at the same moment compete for the same best result; the one that
// loses the claim must get the next one, not an empty reply, while work remains.
TEST_F(SchedulerHttp, ConcurrentHostsOverFastCgiEachGetWorkEveryTime) {
  add_jobs(3, 120);
  UserRow other;
  other.authenticator = "other_key_987654321";
  insert_user(*db_, other);
  constexpr int kRpcs = 25;  // each asks for 1 s on 2 CPUs: two 1 s results
  std::vector<std::string> failures(2);
  std::vector<int> sent(2, 0);
  std::vector<std::thread> hosts;
  for (int h = 0; h < 2; ++h) {
    hosts.emplace_back([&, h] {
      std::string key = h == 0 ? "good_key_0123456789" : "other_key_987654321";
      int64_t hostid = 0;
      std::string reports;
      for (int i = 0; i < kRpcs && failures[h].empty(); ++i) {
        auto reply = http_post(server_->url("test_cgi/fcgi"), request(key, hostid, reports, 1));
        pugi::xml_document doc;
        doc.load_string(reply.body.c_str());
        auto root = doc.child("scheduler_reply");
        if (hostid == 0) hostid = root.child("hostid").text().as_llong();  // sent to new hosts only
        reports.clear();
        for (auto result : root.children("result")) {
          reports += success_report(result.child_value("name"));
          ++sent[h];
        }
        if (reports.empty()) failures[h] = "RPC " + std::to_string(i) + " got no work:\n" + reply.body;
      }
    });
  }
  for (auto& t : hosts) t.join();
  EXPECT_EQ(failures[0], "");
  EXPECT_EQ(failures[1], "");
  EXPECT_EQ(count("SELECT COUNT(*) FROM result WHERE server_state <> 2"), sent[0] + sent[1]);
  EXPECT_EQ(count("SELECT COUNT(*) FROM host"), 2);
  EXPECT_EQ(count("SELECT COUNT(*) FROM (SELECT workunitid FROM result WHERE hostid <> 0 "
                  "GROUP BY workunitid, hostid HAVING COUNT(*) > 1) twice"),
            0);
}

// Many new hosts asking at the same moment for a few unsent results, each RPC its own
// scheduler process (CGI): no result goes to two hosts, and what the replies say matches
// the database.
TEST_F(SchedulerHttp, ManyHostsRacingForFewResultsNeverGetTheSameOne) {
  constexpr int kHosts = 8;
  add_accounts("racer_key_", 0, kHosts);
  int64_t unsent = count("SELECT COUNT(*) FROM result WHERE server_state = 2");
  ASSERT_GT(unsent, 0);
  std::vector<std::vector<std::string>> got(kHosts);
  std::vector<int64_t> hostids(kHosts, 0);
  std::latch start(kHosts);
  std::vector<std::thread> hosts;
  for (int h = 0; h < kHosts; ++h) {
    hosts.emplace_back([&, h] {
      start.arrive_and_wait();
      auto reply =
          http_post(server_->url("test_cgi/cgi"), request("racer_key_" + std::to_string(h), 0, "", 2));
      pugi::xml_document doc;
      doc.load_string(reply.body.c_str());
      auto root = doc.child("scheduler_reply");
      hostids[h] = root.child("hostid").text().as_llong();
      for (auto result : root.children("result")) got[h].push_back(result.child_value("name"));
    });
  }
  for (auto& t : hosts) t.join();
  std::map<std::string, int> receivers;
  for (int h = 0; h < kHosts; ++h) {
    ASSERT_GT(hostids[h], 0) << "host " << h << " got no host id";
    for (const auto& name : got[h]) {
      ++receivers[name];
      EXPECT_EQ(fetch_result_by_name(*db_, name)->hostid, hostids[h])
          << name << " is recorded for another host";
    }
  }
  for (const auto& [name, n] : receivers) EXPECT_EQ(n, 1) << name << " was sent to " << n << " hosts";
  EXPECT_EQ(count("SELECT COUNT(*) FROM result WHERE server_state = 4"),
            static_cast<int64_t>(receivers.size()));
  EXPECT_EQ(count("SELECT SUM(nresults_today) FROM host"), static_cast<int64_t>(receivers.size()))
      << "the daily counts differ from what was sent";
  // Each host wants more than the three workunits can give it, so none is left unsent.
  EXPECT_EQ(static_cast<int64_t>(receivers.size()), unsent);
}

// The scheduler as a pool of FastCGI workers started up front (sched/lib/fastcgi_pool.h),
// Apache reaching it through mod_proxy_fcgi, as `start` runs it from a <daemon> entry.
TEST_F(SchedulerHttp, FastCgiPoolServesBurstsReplacesDeadWorkersAndStopsWithTheProject) {
  namespace fs = std::filesystem;
  add_jobs(3, 40);
  const std::string dir = project_.config().project_dir;
  Pool started;
  ASSERT_NO_FATAL_FAILURE(start_pool(started, 3));
  const std::string& program = started.program;
  const std::string& socket = started.socket;
  auto& pool = started.process;
  // The workers: the program's processes but the pool's own.
  auto workers = [&] {
    std::set<pid_t> pids = fastcgi_processes(program);
    pids.erase(pool->pid());
    return pids;
  };
  testing::TestWebServer& proxied = *started.web;
  auto pool_rpc = [&](const std::string& body) {
    auto reply = http_post(proxied.url("test_cgi/pool"), body);
    pugi::xml_document doc;
    doc.load_string(reply.body.c_str());
    return std::pair{reply.status, std::move(doc)};
  };

  // A volunteer attaches, reports and gets more, through the pool.
  auto [status, first] = pool_rpc(request("good_key_0123456789", 0, "", 1));
  ASSERT_EQ(status, 200);
  int64_t hostid = first.child("scheduler_reply").child("hostid").text().as_llong();
  std::string r1 = first.child("scheduler_reply").child("result").child_value("name");
  ASSERT_GT(hostid, 0);
  ASSERT_FALSE(r1.empty()) << "no work through the pool";
  auto [status2, second] = pool_rpc(request("good_key_0123456789", hostid, success_report(r1), 1));
  EXPECT_STREQ(second.child("scheduler_reply").child("result_ack").child_value("name"), r1.c_str());
  EXPECT_EQ(fetch_result_by_name(*db_, r1)->outcome, Outcome::Success);

  // A burst of new hosts, four times the workers, at once: each waits its turn in the
  // socket's backlog and gets an answer with work.
  constexpr int kBurst = 12;
  std::vector<std::string> sent(kBurst);
  std::vector<std::thread> burst;
  for (int h = 0; h < kBurst; ++h) {
    burst.emplace_back([&, h] {
      auto reply = http_post(proxied.url("test_cgi/pool"), request("good_key_0123456789", 0, "", 1));
      pugi::xml_document doc;
      doc.load_string(reply.body.c_str());
      sent[h] = doc.child("scheduler_reply").child("result").child_value("name");
    });
  }
  for (auto& t : burst) t.join();
  std::set<std::string> distinct(sent.begin(), sent.end());
  EXPECT_EQ(distinct.size(), static_cast<size_t>(kBurst)) << "a host got no work, or two got the same result";
  EXPECT_EQ(distinct.count(""), 0u);

  // A worker killed outright is replaced, and the pool keeps serving.
  const std::set<pid_t> before = workers();
  ASSERT_EQ(before.size(), 3u);
  ::kill(*before.begin(), SIGKILL);
  ASSERT_TRUE(wait_for([&] {
    auto now = workers();
    return now.size() == 3 && !now.count(*before.begin());
  })) << "the killed worker was not replaced";
  EXPECT_EQ(pool_rpc(request("good_key_0123456789", 0, "", 1)).first, 200);

  // A second pool of the same program refuses to start (the pid file names the first).
  testing::ChildProcess second_pool(program, {"--fastcgi_socket", dir + "/run/other.sock"},
                                    dir + "/second_pool.log");
  EXPECT_EQ(second_pool.wait(10), 3);
  EXPECT_FALSE(fs::exists(dir + "/run/other.sock"));

  // The project's stop trigger (`stop`) ends the pool: workers gone, socket removed.
  ASSERT_TRUE(write_text_file(dir + "/stop_daemons", "").ok());
  EXPECT_EQ(pool->wait(15), 0) << text_of(dir + "/pool.log");
  EXPECT_TRUE(workers().empty());
  EXPECT_FALSE(fs::exists(socket));
  fs::remove(dir + "/stop_daemons");

  // Bad options are refused with a clear message, never served as a request.
  testing::ChildProcess bad(program, {"--fastcgi_socket", socket, "--processes", "0"}, dir + "/bad.log");
  EXPECT_EQ(bad.wait(10), 2);
  EXPECT_NE(text_of(dir + "/bad.log").find("--processes"), std::string::npos);
}

// As a pool, each worker takes its candidates from its part of the queue, kept in memory
// (sched/lib/candidate_cache.h), instead of reading and locking the head of the queue at
// every request: a report+get RPC is one statement shorter. Hosts asking at once still
// never get one result twice nor two results of one workunit, each RPC gets work while
// there is work, also when its worker's part runs out, and the queue drains completely.
// A pool worker reads its part of the queue ahead between requests, in a transaction of
// its own: a host polling steadily never waits for that read inside its RPC (the read's
// tens of ms were the latency's tail, docs/benchmarks.md).
TEST_F(SchedulerHttp, APoolWorkerReadsItsPartOfTheQueueAheadBetweenRequests) {
  add_jobs(3, 60, /*results=*/2);
  Pool pool;
  ASSERT_NO_FATAL_FAILURE(start_pool(pool, 2));  // (a pool of one reads the whole queue)
  int64_t hostid = 0;
  std::vector<std::string> held;
  auto report_get = [&] {
    std::string reports;
    for (const auto& name : held) reports += success_report(name);
    auto reply =
        http_post(pool.web->url("test_cgi/pool"), request("good_key_0123456789", hostid, reports, 1));
    pugi::xml_document doc;
    doc.load_string(reply.body.c_str());
    auto root = doc.child("scheduler_reply");
    if (hostid == 0) hostid = root.child("hostid").text().as_llong();
    held.clear();
    for (auto result : root.children("result")) held.push_back(result.child_value("name"));
    EXPECT_FALSE(held.empty()) << reply.body;
  };
  // Each worker's first request reads its part (and checks the schema) on a new connection.
  auto connections = [&] {
    return count(
        "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND ID <> "
        "CONNECTION_ID()");
  };
  for (int i = 0; i < 50 && connections() < 2; ++i) report_get();
  ASSERT_EQ(connections(), 2) << "a worker got no request";
  // Past the point where the rows were due again, a request every 200 ms.
  const auto span = std::chrono::seconds(CandidateCache::kMaxAgeSeconds + 2);
  int requests = 0;
  auto ran = statements_during([&] {
    const auto end = std::chrono::steady_clock::now() + span;
    while (std::chrono::steady_clock::now() < end) {
      report_get();
      ++requests;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  });
  EXPECT_GE(ran["read_ahead"], 1) << "the worker never read its part between requests";
  EXPECT_EQ(ran["commit"], requests);
  // Each request ran five statements, none of them a part read: those ran apart.
  EXPECT_EQ(ran["other_execute"], 5 * requests);
  EXPECT_EQ(ran["queue_part_read"], 2 * ran["read_ahead"]) << "a part read ran inside a request";
}

// The server exists before the fixture's project is made on it (base from member).
struct OwnDatabaseServer {
  testing::DedicatedServer dedicated_;
};
class SchedulerPoolOutage : public OwnDatabaseServer, public SchedulerHttp {
 protected:
  SchedulerPoolOutage() : SchedulerHttp(dedicated_.admin()) {}
};

// A pool outlives a database outage: while the server is down each request gets BOINC's
// "try again later" (the worker drops its connection, so no read ahead runs on it); once
// the server is back, the same workers, none replaced, connect again and send work.
TEST_F(SchedulerPoolOutage, WorkersOutliveADatabaseOutageAndSendWorkAgain) {
  add_jobs(3, 20, /*results=*/2);
  Pool pool;
  ASSERT_NO_FATAL_FAILURE(start_pool(pool, 2));
  const auto workers = fastcgi_processes(pool.program);
  auto ask = [&] {
    return http_post(pool.web->url("test_cgi/pool"), request("good_key_0123456789", 0, "", 1));
  };
  for (int i = 0; i < 4; ++i) {  // (each worker's first request reads its part)
    auto reply = ask();
    EXPECT_NE(reply.body.find("<result>"), std::string::npos) << reply.body;
  }
  db_.reset();
  dedicated_.halt();
  const auto outage_end = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (std::chrono::steady_clock::now() < outage_end) {  // past the workers' reads ahead
    auto reply = ask();
    EXPECT_EQ(reply.status, 200) << reply.error;
    EXPECT_NE(reply.body.find("try again later"), std::string::npos) << reply.body;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  dedicated_.start();
  db_ = project_.open();
  int sent = 0;
  for (int i = 0; i < 20 && sent < 4; ++i) {
    auto reply = ask();
    if (reply.body.find("<result>") != std::string::npos) ++sent;
  }
  EXPECT_EQ(sent, 4) << "the pool did not send work again after the outage";
  EXPECT_EQ(fastcgi_processes(pool.program), workers) << "a worker died and was replaced";
}

TEST_F(SchedulerHttp, APoolWorkerTakesCandidatesFromItsPartOfTheQueueInMemory) {
  add_jobs(3, 60, /*results=*/2);  // with the fixture's 3 single-result jobs: 123 results
  const int64_t queued = count("SELECT COUNT(*) FROM result WHERE server_state = 2");
  ASSERT_EQ(queued, 123);
  Pool pool;
  ASSERT_NO_FATAL_FAILURE(start_pool(pool, 2));
  constexpr int kHosts = 4;
  add_accounts("pool_key_", 1, kHosts);
  auto key_of = [](int h) {
    return h == 0 ? std::string("good_key_0123456789") : "pool_key_" + std::to_string(h);
  };
  std::vector<int64_t> hostids(kHosts, 0);
  std::vector<std::vector<std::string>> held(kHosts);  // reported at the host's next RPC
  std::vector<std::string> last_reply(kHosts);
  std::mutex mutex;
  std::map<std::string, int> receivers;
  // One report+get of host h (for 1 s of its 2 CPUs: two results): what it was sent.
  auto report_get = [&](int h) {
    std::string reports;
    for (const auto& name : held[h]) reports += success_report(name);
    auto reply = http_post(pool.web->url("test_cgi/pool"), request(key_of(h), hostids[h], reports, 1));
    last_reply[h] = reply.body;
    pugi::xml_document doc;
    doc.load_string(reply.body.c_str());
    auto root = doc.child("scheduler_reply");
    if (hostids[h] == 0) hostids[h] = root.child("hostid").text().as_llong();
    held[h].clear();
    for (auto result : root.children("result")) held[h].push_back(result.child_value("name"));
    std::lock_guard lock(mutex);
    for (const auto& name : held[h]) ++receivers[name];
    return held[h];
  };
  for (int h = 0; h < kHosts; ++h) ASSERT_FALSE(report_get(h).empty()) << "host " << h << " got no work";

  // One host's report+get RPCs in a row: none reads the queue's head with locks, nor what
  // the reply says of the results sent; each is five statements and the commit (and a
  // worker reads its part again when its two seconds run out).
  constexpr int kInARow = 10;
  auto ran = statements_during([&] {
    for (int i = 0; i < kInARow; ++i) EXPECT_FALSE(report_get(0).empty()) << "RPC " << i << " got no work";
  });
  EXPECT_EQ(ran["candidate_read"], 0);
  EXPECT_LE(ran["queue_part_read"], 4);
  EXPECT_EQ(ran["other_execute"], 5 * kInARow);
  // What the last reply says of its results, from the cache, is what the database holds.
  pugi::xml_document last;
  ASSERT_TRUE(last.load_string(last_reply[0].c_str()));
  auto root = last.child("scheduler_reply");
  ASSERT_EQ(held[0].size(), 2u);
  for (const auto& name : held[0]) {
    pugi::xml_node result;
    for (auto r : root.children("result")) {
      if (name == r.child_value("name")) result = r;
    }
    ASSERT_TRUE(result) << name << " is not described";
    auto row = fetch_result_by_name(*db_, name);
    ASSERT_TRUE(row.has_value());
    EXPECT_EQ(result.child("report_deadline").text().as_llong(), row->report_deadline);
    auto wu = fetch_workunit(*db_, row->workunitid);
    ASSERT_TRUE(wu.has_value());
    EXPECT_STREQ(result.child_value("wu_name"), wu->name.c_str());
    bool described = false;
    for (auto w : root.children("workunit")) described = described || wu->name == w.child_value("name");
    EXPECT_TRUE(described) << "workunit " << wu->name << " is not described";
    bool signed_upload = false;
    for (auto f : root.children("file_info")) {
      if (std::string(f.child_value("name")).rfind(name, 0) == 0)
        signed_upload = f.child("upload_url") && f.child("xml_signature");
    }
    EXPECT_TRUE(signed_upload) << name << "'s output has no upload URL and certificate";
  }
  EXPECT_EQ(ran["commit"], kInARow);  // (a worker's reads ahead between them commit apart)
  EXPECT_EQ(ran["rollback"], 0);

  // All hosts at once until each gets nothing (the rest of the queue locked by the others'
  // requests, or gone), then each in turn until it gets nothing: no work is left behind,
  // whichever worker's part it is in (two results per workunit, four hosts).
  std::vector<std::thread> hosts;
  for (int h = 0; h < kHosts; ++h) {
    hosts.emplace_back([&, h] {
      while (!report_get(h).empty()) {
      }
    });
  }
  for (auto& t : hosts) t.join();
  for (int h = 0; h < kHosts; ++h) {
    while (!report_get(h).empty()) {
    }
  }
  EXPECT_EQ(count("SELECT COUNT(*) FROM result WHERE server_state = 2"), 0) << "work left unsent";
  EXPECT_EQ(static_cast<int64_t>(receivers.size()), queued);
  for (const auto& [name, n] : receivers) EXPECT_EQ(n, 1) << name << " was sent " << n << " times";
  EXPECT_EQ(count("SELECT COUNT(*) FROM (SELECT workunitid FROM result WHERE hostid <> 0 "
                  "GROUP BY workunitid, hostid HAVING COUNT(*) > 1) twice"),
            0)
      << "a host got two results of one workunit";
  EXPECT_EQ(count("SELECT SUM(nresults_today) FROM host"), queued)
      << "the daily counts differ from what was sent";
}

// A pool worker serves the requests that wait at its socket together, one transaction for
// the group (sched/lib/rpc/grouped_rpc.h): eight hosts reporting and asking at once of a
// pool of one worker share commits, and still every host gets work while there is work,
// every report is taken once, no result goes twice, no host gets two of one workunit.
TEST_F(SchedulerHttp, APoolWorkerServesTheRequestsWaitingAtItsSocketAsGroups) {
  add_jobs(3, 60, /*results=*/2);
  const int64_t queued = count("SELECT COUNT(*) FROM result WHERE server_state = 2");
  Pool pool;
  ASSERT_NO_FATAL_FAILURE(start_pool(pool, 1));
  constexpr int kHosts = 8;
  add_accounts("group_key_", 0, kHosts);
  std::vector<int64_t> hostids(kHosts, 0);
  std::vector<std::vector<std::string>> held(kHosts);
  std::mutex mutex;
  std::map<std::string, int> receivers;
  std::set<std::string> acked;
  std::atomic<int> rpcs{0};
  auto report_get = [&](int h) {
    std::string reports;
    for (const auto& name : held[h]) reports += success_report(name);
    auto reply = http_post(pool.web->url("test_cgi/pool"),
                           request("group_key_" + std::to_string(h), hostids[h], reports, 1));
    ++rpcs;
    pugi::xml_document doc;
    doc.load_string(reply.body.c_str());
    auto root = doc.child("scheduler_reply");
    if (hostids[h] == 0) hostids[h] = root.child("hostid").text().as_llong();
    std::lock_guard lock(mutex);
    for (auto ack : root.children("result_ack")) EXPECT_TRUE(acked.insert(ack.child_value("name")).second);
    held[h].clear();
    for (auto result : root.children("result")) {
      held[h].push_back(result.child_value("name"));
      ++receivers[held[h].back()];
    }
    return held[h];
  };
  for (int h = 0; h < kHosts; ++h) ASSERT_FALSE(report_get(h).empty()) << "host " << h << " got no work";

  rpcs = 0;
  auto ran = statements_during([&] {
    std::latch start(kHosts);
    std::vector<std::thread> hosts;
    for (int h = 0; h < kHosts; ++h) {
      hosts.emplace_back([&, h] {
        start.arrive_and_wait();
        while (!report_get(h).empty()) {
        }
      });
    }
    for (auto& t : hosts) t.join();
  });
  EXPECT_LT(ran["commit"], rpcs.load()) << "no two requests were served together";
  for (int h = 0; h < kHosts; ++h) {
    while (!report_get(h).empty()) {
    }
  }
  EXPECT_EQ(count("SELECT COUNT(*) FROM result WHERE server_state = 2"), 0) << "work left unsent";
  EXPECT_EQ(static_cast<int64_t>(receivers.size()), queued);
  for (const auto& [name, n] : receivers) EXPECT_EQ(n, 1) << name << " was sent " << n << " times";
  EXPECT_EQ(static_cast<int64_t>(acked.size()), queued) << "a report was not taken";
  EXPECT_EQ(count("SELECT COUNT(*) FROM result WHERE outcome = 1"), queued);
  EXPECT_EQ(count("SELECT COUNT(*) FROM (SELECT workunitid FROM result WHERE hostid <> 0 "
                  "GROUP BY workunitid, hostid HAVING COUNT(*) > 1) twice"),
            0)
      << "a host got two results of one workunit";
  EXPECT_EQ(count("SELECT SUM(nresults_today) FROM host"), queued)
      << "the daily counts differ from what was sent";
}

// A connection to 127.0.0.1:`port` that sends `bytes` and stays open: a client whose
// request has not all arrived.
class RawClient {
 public:
  RawClient(int port, const std::string& bytes) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 && send(bytes);
  }
  ~RawClient() { ::close(fd_); }
  bool connected() const { return connected_; }
  bool send(const std::string& bytes) {
    return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
  }
  // Everything the server sends until it closes (Connection: close).
  std::string answer() {
    std::string out;
    char buffer[4096];
    for (ssize_t n; (n = ::recv(fd_, buffer, sizeof buffer, 0)) > 0;)
      out.append(buffer, static_cast<size_t>(n));
    return out;
  }

 private:
  int fd_;
  bool connected_ = false;
};

// Each body POSTed to test_cgi/pool at `port` by a RawClient that sends all but its last
// `held_back` bytes (kept in `rest`), once Apache has had time to pass them on.
struct HeldRequest {
  std::unique_ptr<RawClient> client;
  std::string rest;
};
std::vector<HeldRequest> post_all_but(int port, const std::vector<std::string>& bodies, size_t held_back) {
  std::vector<HeldRequest> held;
  for (const auto& body : bodies) {
    std::string head =
        "POST /test_cgi/pool HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        "Content-Length: " +
        std::to_string(body.size()) + "\r\n\r\n";
    const size_t sent = body.size() - std::min(held_back, body.size());
    held.push_back({std::make_unique<RawClient>(port, head + body.substr(0, sent)), body.substr(sent)});
    EXPECT_TRUE(held.back().client->connected());
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  return held;
}

// Sends each held request's rest and returns the answers, in order.
std::vector<std::string> finish_held(std::vector<HeldRequest>& held) {
  std::vector<std::string> answers;
  for (auto& request : held) {
    EXPECT_TRUE(request.client->send(request.rest));
    answers.push_back(request.client->answer());
  }
  return answers;
}

// A POST and the seconds it took.
std::pair<testing::HttpResult, double> timed_post(const std::string& url, const std::string& body) {
  auto start = std::chrono::steady_clock::now();
  auto reply = http_post(url, body);
  return {reply, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

TEST_F(SchedulerHttp, ClientsThatSendTheirRequestsSlowlyHoldNoPoolWorker) {
  // Apache connects to the pool as soon as a request's headers are in and streams the body
  // as it comes: a worker that waited on one body would serve no one else meanwhile.
  add_jobs(3, 10);
  Pool pool;
  ASSERT_NO_FATAL_FAILURE(start_pool(pool, 1));
  add_accounts("slow_key_", 0, 4);
  std::vector<std::string> bodies;
  for (int i = 0; i < 3; ++i) bodies.push_back(request("slow_key_" + std::to_string(i), 0, ""));
  auto slow = post_all_but(pool.web->port(), bodies, 50);

  auto [reply, seconds] = timed_post(pool.web->url("test_cgi/pool"), request("slow_key_3", 0, ""));
  ASSERT_TRUE(reply.error.empty()) << reply.error;
  EXPECT_LT(seconds, 5.0) << "the one worker waited for the slow clients' bodies";
  EXPECT_NE(reply.body.find("<result>"), std::string::npos) << reply.body;

  // The slow ones are served once their bodies are whole.
  const std::vector<std::string> answers = finish_held(slow);
  for (size_t i = 0; i < answers.size(); ++i) {
    EXPECT_NE(answers[i].find("200"), std::string::npos) << answers[i];
    EXPECT_NE(answers[i].find("<hostid>"), std::string::npos) << "client " << i << ": " << answers[i];
  }
}

TEST_F(SchedulerHttp, SlowUploadsHoldNoUploadPoolWorker) {
  // An upload takes as long as its client sends: a pool worker serves several at once.
  constexpr int kUploads = 4;
  add_jobs(3, kUploads);
  add_accounts("upload_key_", 0, kUploads);
  struct Output {
    std::string name, signature;
    double max_nbytes = 0;
  };
  std::vector<Output> outputs;
  for (int i = 0; i < kUploads; ++i) {
    auto root = rpc(request("upload_key_" + std::to_string(i), 0, "", 1)).child("scheduler_reply");
    std::string output = std::string(root.child("result").child_value("name")) + "_0";
    for (auto info : root.children("file_info")) {
      if (output == info.child_value("name"))
        outputs.push_back(
            {output, info.child_value("xml_signature"), info.child("max_nbytes").text().as_double()});
    }
    ASSERT_EQ(outputs.size(), static_cast<size_t>(i + 1)) << "host " << i << " got no output to upload";
  }
  Pool pool;
  ASSERT_NO_FATAL_FAILURE(start_pool(pool, 1, "file_upload_handler"));
  const std::string data(100, 'a');
  auto upload_body = [&](const Output& o) {
    return render_file_upload_header(ClientVersion{7, 20, 2}, o.name, o.signature, o.max_nbytes,
                                     static_cast<double>(data.size()), md5_hex(data), 0) +
           data;
  };
  std::vector<std::string> bodies;
  for (int i = 0; i < kUploads - 1; ++i) bodies.push_back(upload_body(outputs[i]));
  auto slow = post_all_but(pool.web->port(), bodies, 50);

  auto [reply, seconds] = timed_post(pool.web->url("test_cgi/pool"), upload_body(outputs.back()));
  EXPECT_TRUE(reply.error.empty()) << reply.error;
  EXPECT_LT(seconds, 5.0) << "the one worker waited for the slow uploads";
  EXPECT_NE(reply.body.find("<status>0</status>"), std::string::npos) << reply.body;

  const std::vector<std::string> answers = finish_held(slow);
  for (size_t i = 0; i < answers.size(); ++i)
    EXPECT_NE(answers[i].find("<status>0</status>"), std::string::npos)
        << "upload " << i << ": " << answers[i];
  for (const auto& o : outputs) {
    auto stored =
        read_text_file(fanout_path(project_.config().upload_dir, o.name, project_.config().uldl_dir_fanout));
    EXPECT_TRUE(stored.ok() && *stored == data) << o.name << " not stored whole";
  }
}

}  // namespace
}  // namespace tharsis::scheduler_http_test
