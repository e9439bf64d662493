// Implementation of sched/lib/rpc/host_step.h.
#include "sched/lib/rpc/host_step.h"

#include "db/host_store.h"
#include "lib/log.h"
#include "sched/lib/rpc/host_plan.h"

namespace tharsis {

// A request naming this account's host with a lower rpc_seqno than stored comes from a
// copy of that host's client state (host_identity.h): it gets a new record, and the named
// host is neither written nor credited with its reports.
RecordedHost find_or_create_host(Database& db, const SchedulerRequest& req, int64_t user_id, int64_t now,
                                 LockedHost named_host) {
  std::optional<HostRow> host;
  std::optional<ReportLocks> report_locks;
  NamedHost named = NamedHost::NotThisAccount;
  if (req.hostid > 0) {
    host = std::move(named_host.host);
    report_locks = std::move(named_host.reports);
    named = judge_named_host(host, user_id, req.rpc_seqno);
    if (named == NamedHost::CopiedState) {
      log_info("host ", host->id, ": rpc_seqno ", req.rpc_seqno, " below the stored ", host->rpc_seqno,
               " (a copy of its client state); creating a new host");
    }
    // Not this request's host: the workunits its reports locked stay locked to the commit,
    // unwritten (another host's reports change nothing).
    if (named != NamedHost::Use) {
      host.reset();
      report_locks.reset();
    }
  }
  // Locked either way: concurrent requests of one host take their reports one after the
  // other. The RPC's one write of the row (update_host) leaves the validator's credit alone.
  std::string cpid = host_text(req.host.host_cpid);
  if (!host && named != NamedHost::CopiedState && !cpid.empty()) {
    host = fetch_host_by_cpid(db, user_id, cpid, /*for_update=*/true);
  }
  if (host && host->id != req.hostid) report_locks.reset();  // found by its CPID
  RecordedHost recorded{describe_host(std::move(host), req, user_id, now), false, std::move(report_locks)};
  if (recorded.row.id == 0) {
    recorded.row.id = insert_host(db, recorded.row);
    recorded.created = true;
  }
  return recorded;
}

}  // namespace tharsis
