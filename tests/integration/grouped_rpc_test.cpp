// The grouped scheduler walk (sched/lib/rpc/grouped_rpc.h) against a real MariaDB and a
// project: a group of hosts reports and gets work as each would alone, in a number of
// statements that does not grow with the group; a member that is not the common case is
// left to be served alone; a refused account gets its refusal; nothing goes twice.
#include "sched/lib/rpc/grouped_rpc.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "db/app_store.h"
#include "db/host_store.h"
#include "db/result_store.h"
#include "db/sql.h"
#include "db/user_store.h"
#include "lib/crypto/boinc_key.h"
#include "sched/lib/candidate_cache.h"
#include "sched/lib/rpc/scheduler_rpc.h"
#include "tests/integration/backend_fixture.h"

namespace tharsis::grouped_rpc_test {
namespace {

class GroupedRpc : public testing::BackendFixture {
 protected:
  void SetUp() override {
    BackendFixture::SetUp();
    int64_t platform = insert_platform(*db_, {0, "x86_64-pc-linux-gnu", "Linux"});
    insert_app_version(*db_,
                       {0, project_.appid(), 100, platform, "",
                        "<file_info><name>app_1</name><url>http://x/app_1</url><executable/></file_info>\n"
                        "<app_version><file_ref><file_name>app_1</file_name><main_program/></file_ref>"
                        "</app_version>\n"});
    auto key = load_boinc_private_key(config().key_dir + "/upload_private");
    ASSERT_TRUE(key.ok()) << key.error();
    context_ = std::make_unique<SchedulerContext>(
        SchedulerContext{config(), *key, "", ProtocolLimits{}, &versions_, &queue_head_, &cache_});
  }

  // A volunteer with its own account and host (made by a first RPC, as a client's).
  struct Volunteer {
    std::string key;
    int64_t host = 0;
  };
  Volunteer volunteer(const std::string& name) {
    UserRow user;
    user.name = name;
    user.authenticator = "key_" + name;
    insert_user(*db_, user);
    Volunteer v{user.authenticator, 0};
    v.host = handle_scheduler_request(body(v, 0, {}), *db_, *context_, now_).hostid;
    EXPECT_GT(v.host, 0);
    return v;
  }
  // A request of `v` naming host `host`, asking for `seconds` of work and reporting each
  // of `errors` as a computation error.
  std::string body(const Volunteer& v, double seconds, const std::vector<std::string>& errors,
                   int64_t host = -1) {
    std::string text =
        "<scheduler_request>\n<authenticator>" + v.key + "</authenticator>\n<hostid>" +
        std::to_string(host < 0 ? v.host : host) +
        "</hostid>\n<rpc_seqno>5</rpc_seqno>\n<platform_name>x86_64-pc-linux-gnu</platform_name>\n"
        "<work_req_seconds>" +
        std::to_string(seconds) + "</work_req_seconds>\n<host_info>\n<host_cpid>cpid_" + v.key +
        "</host_cpid>\n<p_ncpus>1</p_ncpus>\n<p_fpops>1e9</p_fpops>\n<d_free>1e10</d_free>\n"
        "<m_nbytes>1e10</m_nbytes>\n</host_info>\n";
    for (const auto& name : errors) {
      text +=
          "<result>\n<name>" + name + "</name>\n<state>3</state>\n<exit_status>1</exit_status>\n</result>\n";
    }
    return text + "</scheduler_request>\n";
  }
  int64_t statements() {
    return query_int(*db_,
                     "SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = "
                     "'COM_STMT_EXECUTE'");
  }
  // Serves `bodies` as a group; `spent`: its statements (less the counter's reads).
  std::vector<std::optional<SchedulerReply>> group(const std::vector<std::string>& bodies,
                                                   int64_t* spent = nullptr) {
    int64_t before = statements();
    auto replies = handle_scheduler_group(bodies, *db_, *context_, now_);
    if (spent) *spent = statements() - before - 1;
    return replies;
  }
  std::vector<std::string> sent_names(const SchedulerReply& reply) {
    std::vector<std::string> names;
    for (const auto& r : reply.results) names.push_back(r.name);
    return names;
  }

  AppVersionCache versions_;
  QueueHeadMemory queue_head_;
  CandidateCache cache_{QueuePart{1, 0}};
  std::unique_ptr<SchedulerContext> context_;
};

TEST_F(GroupedRpc, AGroupReportsAndGetsWorkAsEachAloneWouldInStatementsThatDoNotGrowWithIt) {
  std::vector<Volunteer> hosts;
  for (const char* name : {"ann", "bob", "cat", "dan"}) hosts.push_back(volunteer(name));
  for (int i = 0; i < 8; ++i) create("job" + std::to_string(i), 2, 2);
  run_daemons();

  // Two, then four, ask for one job's worth each (after a first group has read the queue
  // and the app versions into the process's caches, as a pool worker's first request does).
  std::map<std::string, int64_t> sent_to;  // result name -> host
  auto warm = group({body(hosts[2], 1, {}), body(hosts[3], 1, {})});
  for (size_t k = 0; k < 2; ++k) {
    ASSERT_TRUE(warm[k]);
    for (const auto& name : sent_names(*warm[k])) sent_to.emplace(name, hosts[k + 2].host);
  }
  int64_t spent_two = 0, spent_four = 0;
  auto two = group({body(hosts[0], 1, {}), body(hosts[1], 1, {})}, &spent_two);
  auto four =
      group({body(hosts[2], 1, {}), body(hosts[3], 1, {}), body(hosts[0], 1, {}), body(hosts[1], 1, {})},
            &spent_four);
  auto take = [&](const std::optional<SchedulerReply>& reply, const Volunteer& v) {
    ASSERT_TRUE(reply);
    ASSERT_FALSE(reply->results.empty()) << v.key << " got no work";
    for (const auto& name : sent_names(*reply)) {
      EXPECT_TRUE(sent_to.emplace(name, v.host).second) << name << " sent twice";
      auto row = fetch_result_by_name(*db_, name);
      ASSERT_TRUE(row);
      EXPECT_EQ(row->hostid, v.host);
      EXPECT_EQ(row->server_state, ServerState::InProgress);
    }
  };
  take(two[0], hosts[0]);
  take(two[1], hosts[1]);
  for (size_t k = 0; k < 4; ++k) take(four[k], hosts[(k + 2) % 4]);
  EXPECT_EQ(spent_four, spent_two) << "a group of four took " << spent_four << " statements, of two "
                                   << spent_two;
  EXPECT_LE(spent_two, 5);
  // Never two results of one workunit to one host.
  auto rows = query(
      *db_, "SELECT COUNT(*) FROM result WHERE hostid > 0 GROUP BY workunitid, hostid HAVING COUNT(*) > 1");
  EXPECT_FALSE(rows->next());
  for (const auto& v : hosts) {
    EXPECT_EQ(query_int(*db_, "SELECT nresults_today FROM host WHERE id = ?", v.host),
              query_int(*db_, "SELECT COUNT(*) FROM result WHERE hostid = ?", v.host));
  }

  // All four report their results as errors and ask for nothing: every report taken, once.
  std::map<int64_t, std::vector<std::string>> held;
  for (const auto& [name, host] : sent_to) held[host].push_back(name);
  std::vector<std::string> reports;
  for (const auto& v : hosts) reports.push_back(body(v, 0, held[v.host]));
  auto reported = group(reports);
  for (size_t k = 0; k < hosts.size(); ++k) {
    ASSERT_TRUE(reported[k]);
    std::set<std::string> acked(reported[k]->result_acks.begin(), reported[k]->result_acks.end());
    EXPECT_EQ(acked, std::set<std::string>(held[hosts[k].host].begin(), held[hosts[k].host].end()));
    for (const auto& name : held[hosts[k].host]) {
      auto row = fetch_result_by_name(*db_, name);
      EXPECT_EQ(row->server_state, ServerState::Over);
      EXPECT_EQ(row->outcome, Outcome::ClientError);
      EXPECT_EQ(row->received_time, now_);
    }
    // An accepted error halves the host's daily quota (report_plan.h).
    EXPECT_LT(query_int(*db_, "SELECT max_results_day FROM host WHERE id = ?", hosts[k].host),
              config().daily_result_quota);
  }
}

TEST_F(GroupedRpc, AMemberThatIsNotTheCommonCaseIsLeftToBeServedAlone) {
  Volunteer ann = volunteer("ann"), bob = volunteer("bob");
  create("job", 2, 2);
  run_daemons();
  Volunteer thief{ann.key, 0};
  std::vector<std::string> bodies{
      body(ann, 1, {}),
      body(thief, 1, {}, bob.host),                     // another account's host
      body(Volunteer{"key_nobody", 0}, 1, {}, 999999),  // no such account
      body(ann, 1, {}),                                 // the same host again
      "<scheduler_request><hostid>",                    // malformed
      body(bob, 1, {}, 0),                              // a new host
  };
  auto replies = group(bodies);
  ASSERT_EQ(replies.size(), bodies.size());
  ASSERT_TRUE(replies[0]);
  EXPECT_EQ(replies[0]->results.size(), 1u);
  EXPECT_FALSE(replies[1]) << "another account's host was served in the group";
  ASSERT_TRUE(replies[2]);
  EXPECT_EQ(replies[2]->hostid, 0);
  ASSERT_EQ(replies[2]->messages.size(), 1u);
  EXPECT_EQ(replies[2]->messages[0].text,
            handle_scheduler_request(bodies[2], *db_, *context_, now_).messages[0].text);
  EXPECT_FALSE(replies[3]);
  EXPECT_FALSE(replies[4]);
  EXPECT_FALSE(replies[5]);
  // Bob's host was not written by the request that named it from another account.
  EXPECT_EQ(query_int(*db_, "SELECT userid FROM host WHERE id = ?", bob.host),
            query_int(*db_, "SELECT id FROM user WHERE authenticator = 'key_bob'"));
  // Served alone, the one naming bob's host gets a host of its own account.
  SchedulerReply alone = handle_scheduler_request(bodies[1], *db_, *context_, now_);
  EXPECT_GT(alone.hostid, 0);
  EXPECT_NE(alone.hostid, bob.host);
}

TEST_F(GroupedRpc, TwoHostsOfAGroupMayTakeTheTwoResultsOfOneWorkunit) {
  Volunteer ann = volunteer("ann"), bob = volunteer("bob");
  int64_t wu = create("pair", 2, 2);
  run_daemons();
  auto replies = group({body(ann, 1, {}), body(bob, 1, {})});
  ASSERT_TRUE(replies[0] && replies[1]);
  EXPECT_EQ(replies[0]->results.size(), 1u);
  EXPECT_EQ(replies[1]->results.size(), 1u);
  std::set<int64_t> hosts;
  for (const auto& r : results_of(wu)) {
    EXPECT_EQ(r.server_state, ServerState::InProgress);
    hosts.insert(r.hostid);
  }
  EXPECT_EQ(hosts, (std::set<int64_t>{ann.host, bob.host}));
}

}  // namespace
}  // namespace tharsis::grouped_rpc_test
