// user and host stores against a real private MariaDB: typed round trips, lookup by
// authenticator and host_cpid, the unique authenticator, and the daily quota counter.
#include <gtest/gtest.h>

#include "db/host_store.h"
#include "db/sql.h"
#include "db/user_store.h"
#include "tests/support/rows_read.h"
#include "tests/support/test_database.h"

namespace tharsis {
namespace {

using testing::TestDatabase;

UserRow sample_user(const std::string& auth) {
  UserRow u;
  u.create_time = 500;
  u.email_addr = auth + "@example.org";
  u.name = "Volunteer " + auth;
  u.authenticator = auth;
  u.cross_project_id = "cpid_" + auth;
  u.total_credit = 12.5;
  u.expavg_credit = 1.25;
  u.expavg_time = 400;
  return u;
}

HostRow sample_host(int64_t userid, const std::string& cpid) {
  HostRow h;
  h.create_time = 600;
  h.userid = userid;
  h.rpc_seqno = 3;
  h.rpc_time = 650;
  h.domain_name = "box-" + cpid;
  h.host_cpid = cpid;
  h.platform_name = "x86_64-pc-linux-gnu";
  h.p_ncpus = 8;
  h.p_vendor = "GenuineIntel";
  h.p_model = "Xeon";
  h.p_fpops = 3e9;
  h.p_iops = 9e9;
  h.os_name = "Linux";
  h.os_version = "6.1";
  h.m_nbytes = 16e9;
  h.m_swap = 2e9;
  h.d_total = 500e9;
  h.d_free = 200e9;
  h.max_results_day = 40;
  h.error_rate = 0.05;
  return h;
}

TEST(UserStore, RoundTripsAndFindsByAuthenticator) {
  TestDatabase tdb;
  auto db = tdb.open();
  UserRow u = sample_user("auth_a");
  u.id = insert_user(*db, u);
  ASSERT_GT(u.id, 0);
  auto back = fetch_user(*db, u.id);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->create_time, 500);
  EXPECT_EQ(back->email_addr, "auth_a@example.org");
  EXPECT_EQ(back->name, "Volunteer auth_a");
  EXPECT_EQ(back->cross_project_id, "cpid_auth_a");
  EXPECT_DOUBLE_EQ(back->total_credit, 12.5);
  EXPECT_DOUBLE_EQ(back->expavg_credit, 1.25);
  EXPECT_DOUBLE_EQ(back->expavg_time, 400);

  insert_user(*db, sample_user("auth_b"));
  auto by_auth = fetch_user_by_authenticator(*db, "auth_a");
  ASSERT_TRUE(by_auth.has_value());
  EXPECT_EQ(by_auth->id, u.id);
  EXPECT_FALSE(fetch_user_by_authenticator(*db, "auth_nobody").has_value());

  u.name = "Renamed";
  u.total_credit = 99;
  update_user(*db, u);
  EXPECT_EQ(fetch_user(*db, u.id)->name, "Renamed");
  EXPECT_DOUBLE_EQ(fetch_user(*db, u.id)->total_credit, 99);
  EXPECT_EQ(fetch_user_by_authenticator(*db, "auth_b")->name, "Volunteer auth_b");
}

TEST(UserStore, AuthenticatorIsUnique) {
  TestDatabase tdb;
  auto db = tdb.open();
  insert_user(*db, sample_user("same"));
  UserRow twin = sample_user("same");
  twin.email_addr = "other@example.org";
  try {
    insert_user(*db, twin);
    FAIL() << "expected a duplicate-key DbError";
  } catch (const DbError& e) {
    EXPECT_EQ(e.code(), 1062) << e.what();  // ER_DUP_ENTRY
  }
}

TEST(HostStore, RoundTripsAndFindsByCpid) {
  TestDatabase tdb;
  auto db = tdb.open();
  HostRow h = sample_host(7, "cpid1");
  h.id = insert_host(*db, h);
  ASSERT_GT(h.id, 0);
  auto back = fetch_host(*db, h.id);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->userid, 7);
  EXPECT_EQ(back->rpc_seqno, 3);
  EXPECT_EQ(back->rpc_time, 650);
  EXPECT_EQ(back->domain_name, "box-cpid1");
  EXPECT_EQ(back->platform_name, "x86_64-pc-linux-gnu");
  EXPECT_EQ(back->p_ncpus, 8);
  EXPECT_EQ(back->p_vendor, "GenuineIntel");
  EXPECT_EQ(back->p_model, "Xeon");
  EXPECT_DOUBLE_EQ(back->p_fpops, 3e9);
  EXPECT_DOUBLE_EQ(back->p_iops, 9e9);
  EXPECT_EQ(back->os_name, "Linux");
  EXPECT_EQ(back->os_version, "6.1");
  EXPECT_DOUBLE_EQ(back->m_nbytes, 16e9);
  EXPECT_DOUBLE_EQ(back->m_swap, 2e9);
  EXPECT_DOUBLE_EQ(back->d_total, 500e9);
  EXPECT_DOUBLE_EQ(back->d_free, 200e9);
  EXPECT_EQ(back->max_results_day, 40);
  EXPECT_DOUBLE_EQ(back->error_rate, 0.05);
  EXPECT_FALSE(fetch_host(*db, h.id + 100).has_value());

  HostRow other_user = sample_host(8, "cpid1");
  other_user.id = insert_host(*db, other_user);
  auto found = fetch_host_by_cpid(*db, 7, "cpid1");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->id, h.id);
  EXPECT_EQ(fetch_host_by_cpid(*db, 8, "cpid1")->id, other_user.id);
  EXPECT_FALSE(fetch_host_by_cpid(*db, 7, "cpid2").has_value());

  h.rpc_seqno = 4;
  h.rpc_time = 700;
  h.d_free = 100e9;
  h.os_version = "6.2";
  update_host(*db, h, 700, 0);
  auto updated = db->transaction([&](Database& d) { return fetch_host(d, h.id, true); });
  ASSERT_TRUE(updated.has_value());
  EXPECT_EQ(updated->rpc_seqno, 4);
  EXPECT_EQ(updated->rpc_time, 700);
  EXPECT_DOUBLE_EQ(updated->d_free, 100e9);
  EXPECT_EQ(updated->os_version, "6.2");
  EXPECT_EQ(fetch_host(*db, other_user.id)->os_version, "6.1");
}

TEST(HostStore, DailyCountAddsWithinADayAndRestartsOnTheNext) {
  TestDatabase tdb;
  auto db = tdb.open();
  int64_t id = insert_host(*db, sample_host(1, "q"));
  const int64_t day = 20000 * 86400;
  EXPECT_EQ(count_results_sent(*db, id, day + 10, 2), 2);
  EXPECT_EQ(count_results_sent(*db, id, day + 86399, 3), 5);
  EXPECT_EQ(count_results_sent(*db, id, day + 86400, 1), 1);  // a new day
  auto h = fetch_host(*db, id);
  EXPECT_EQ(h->nresults_today, 1);
  EXPECT_EQ(h->nresults_day, 20001);
  set_max_results_day(*db, id, 12);
  EXPECT_EQ(fetch_host(*db, id)->max_results_day, 12);
  // update_host adds to the count in the database, whatever the row it was given says,
  // and leaves the validator's credit alone.
  exec(*db, "UPDATE host SET total_credit = 50, expavg_credit = 5, error_rate = 0.25 WHERE id = ?", id);
  HostRow stale = *h;
  stale.nresults_today = 0;
  stale.os_version = "7.0";
  update_host(*db, stale, day + 86400, 2);
  auto after = fetch_host(*db, id);
  EXPECT_EQ(after->nresults_today, 3);
  EXPECT_EQ(after->os_version, "7.0");
  EXPECT_DOUBLE_EQ(after->total_credit, 50);
  EXPECT_DOUBLE_EQ(after->expavg_credit, 5);
  EXPECT_DOUBLE_EQ(after->error_rate, 0.25);
  update_host(*db, stale, day + 2 * 86400, 0);  // the next day's first RPC
  EXPECT_EQ(fetch_host(*db, id)->nresults_today, 0);
}

// A host's first RPC looks for its cpid among its owner's hosts: an index lookup, not a
// read of every host the account has (rows counted by the server, not timed).
TEST(HostStore, FindingByCpidReadsFewRowsWhateverTheOwnersHostCount) {
  TestDatabase tdb;
  auto db = tdb.open();
  exec(*db, "INSERT INTO host (userid, host_cpid) SELECT 7, CONCAT('cpid', seq) FROM seq_1_to_3000");
  query(*db, "ANALYZE TABLE host");  // (it returns rows: query, not exec)
  auto rows_read = [&] { return testing::rows_read(*db); };
  int64_t start = rows_read();
  int64_t overhead = rows_read() - start;
  int64_t before = rows_read();
  EXPECT_FALSE(fetch_host_by_cpid(*db, 7, "a-new-cpid").has_value());
  EXPECT_EQ(fetch_host_by_cpid(*db, 7, "cpid1500")->host_cpid, "cpid1500");
  EXPECT_LT(rows_read() - before - 2 * overhead, 20) << "looking up a cpid read the owner's 3000 hosts";
}

// The scheduler writes the host row back whole: found by cpid (a client that lost its id),
// the row is locked like one found by id, so a credit added meanwhile waits, not lost.
TEST(HostStore, FindingByCpidForUpdateLocksTheRow) {
  TestDatabase tdb;
  auto db = tdb.open();
  auto other = tdb.open();
  int64_t id = insert_host(*db, sample_host(7, "cpid1"));
  db->transaction([&](Database& d) {
    ASSERT_EQ(fetch_host_by_cpid(d, 7, "cpid1", /*for_update=*/true)->id, id);
    EXPECT_THROW(query_int(*other, "SELECT id FROM host WHERE id = ? FOR UPDATE NOWAIT", id), DbError)
        << "the host row is not locked";
  });
  EXPECT_EQ(query_int(*other, "SELECT id FROM host WHERE id = ? FOR UPDATE NOWAIT", id), id);
}

// Issue 13 item 2: text a client sends is stored whatever its characters. The connection
// and every text column are utf8mb4, so four-byte characters (emoji) are kept, not refused.
TEST(HostStore, TextColumnsAreUtf8mb4AndKeepFourByteCharacters) {
  TestDatabase tdb;
  auto db = tdb.open();
  auto rows = query(*db, "SELECT @@character_set_connection, @@character_set_client");
  ASSERT_TRUE(rows->next());
  EXPECT_EQ(rows->getString(1), "utf8mb4");
  EXPECT_EQ(rows->getString(2), "utf8mb4");
  auto other = query(
      *db,
      "SELECT CONCAT(TABLE_NAME, '.', COLUMN_NAME, ' ', CHARACTER_SET_NAME) FROM information_schema.COLUMNS "
      "WHERE TABLE_SCHEMA = DATABASE() AND CHARACTER_SET_NAME IS NOT NULL AND CHARACTER_SET_NAME <> "
      "'utf8mb4'");
  while (other->next()) ADD_FAILURE() << "not utf8mb4: " << other->getString(1);
  HostRow h = sample_host(7, "emoji");
  h.domain_name = "box \xF0\x9F\x98\x80 \xEF\xBF\xBD caf\xC3\xA9";
  h.id = insert_host(*db, h);
  EXPECT_EQ(fetch_host(*db, h.id)->domain_name, h.domain_name);
}

// Issue 13 item 5: the stored rpc_seqno of a host never went backwards only if the
// scheduler's write says so; two RPCs of one host may write in either order.
TEST(HostStore, StoredRpcSeqnoOnlyMovesForwardOrRestartsAtZero) {
  TestDatabase tdb;
  auto db = tdb.open();
  HostRow h = sample_host(7, "seq");
  h.rpc_seqno = 16;
  h.id = insert_host(*db, h);
  h.rpc_seqno = 15;  // an RPC that read the row before the one that wrote 16
  update_host(*db, h, 700, 0);
  EXPECT_EQ(fetch_host(*db, h.id)->rpc_seqno, 16);
  h.rpc_seqno = 17;
  update_host(*db, h, 700, 0);
  EXPECT_EQ(fetch_host(*db, h.id)->rpc_seqno, 17);
  h.rpc_seqno = 0;  // a host id announced again: the client starts its count anew
  update_host(*db, h, 700, 0);
  EXPECT_EQ(fetch_host(*db, h.id)->rpc_seqno, 0);
}

}  // namespace
}  // namespace tharsis
