// SQL for the host table, behind typed functions over HostRow: the scheduler creates a
// host at its first RPC, finds it again by id (or by owner and host_cpid when the client
// lost its id), updates it on every RPC and counts results sent against the daily quota.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "db/database.h"
#include "db/result_store.h"
#include "db/rows.h"

namespace tharsis {

int64_t insert_host(Database& db, const HostRow& host);  // returns the new id
// for_update: lock the row (SELECT .. FOR UPDATE) inside a transaction.
std::optional<HostRow> fetch_host(Database& db, int64_t id, bool for_update = false);
// What the scheduler's first statement locks: the host row, and the workunits of those of
// the request's report names (distinct) whose results are sent to this host and still take
// a report (lock_workunits_of_reportable, db/result_store.h, without a statement of its
// own). nullopt host (and nothing locked) when there is no such host.
struct LockedHost {
  std::optional<HostRow> host;
  ReportLocks reports;
};
// In one statement: the account of `authenticator` (read, not locked), then as LockedHost
// its host `id` (locked, FOR UPDATE) and the reports' workunits: a request that names its
// host reads its account and its host in one round trip. No such account: no user, and no
// host read or locked.
struct AccountAndHost {
  std::optional<UserRow> user;
  LockedHost locked;
};
AccountAndHost lock_account_host_and_reported_workunits(Database& db, const std::string& authenticator,
                                                        int64_t id, const std::vector<std::string>& names);
// One request of a group (sched/lib/rpc/grouped_rpc.h) for
// lock_accounts_hosts_and_reported_workunits.
struct AccountHostQuery {
  std::string authenticator;
  int64_t host_id = 0;                    // > 0
  std::vector<std::string> report_names;  // distinct
};
// lock_account_host_and_reported_workunits for each of `queries` in one statement:
// out[i] answers queries[i]. The accounts are read, not locked; the hosts and the
// reports' workunits are locked in the statement's order (a concurrent group locking some
// of the same rows in another order is a deadlock, which re-runs one of the two).
std::vector<AccountAndHost> lock_accounts_hosts_and_reported_workunits(
    Database& db, const std::vector<AccountHostQuery>& queries);
// The newest host of `userid` with this host_cpid (a client that lost its host id);
// for_update as for fetch_host.
std::optional<HostRow> fetch_host_by_cpid(Database& db, int64_t userid, const std::string& host_cpid,
                                          bool for_update = false);
// An RPC's one write of its host row: what the request says of the host (owner, rpc
// seqno and time, description), the daily quota, and results_sent added to today's count
// as add_results_sent does. The stored rpc_seqno never goes down, except to 0 (a host id
// announced to the client restarts its count). Credit (total, expavg and its time) and
// error_rate are not written: they belong to the validator, which may have changed them
// since `host` was read.
void update_host(Database& db, const HostRow& host, int64_t now, int results_sent);
// update_host for several hosts (distinct ids, rows this transaction holds locked) in one
// statement: each row written as update_host writes it, with its own results sent.
struct HostWrite {
  HostRow row;
  int results_sent = 0;
};
void update_hosts(Database& db, const std::vector<HostWrite>& writes, int64_t now);
// Adds n results sent at `now` to the host's count for today (unix day now / 86400),
// starting a fresh count on a new day, in one statement so concurrent RPCs add up.
// add_results_sent only adds; count_results_sent also returns the count for today after.
void add_results_sent(Database& db, int64_t host_id, int64_t now, int n);
int count_results_sent(Database& db, int64_t host_id, int64_t now, int n);
// Sets the host's daily quota (0 = the project's default); the scheduler shrinks it on
// errors and grows it back on successes.
void set_max_results_day(Database& db, int64_t host_id, int max_results_day);
// rpc_time := now, rpc_seqno + 1 (a host that contacted the server; reclustering counts
// hosts with a recent RPC as the active resources r).
void touch_host_rpc(Database& db, int64_t host_id, int64_t now);

// Ids of the hosts with a scheduler RPC at or after `since`, in id order.
std::vector<int64_t> fetch_host_ids_active_since(Database& db, int64_t since);

}  // namespace tharsis
