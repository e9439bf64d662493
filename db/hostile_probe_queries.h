// Read-only queries of bench/chaos_hostile (the hostile half of bench/chaos.sh): the
// results it forges requests about, and what it checks in a result's row afterwards to
// tell whether the server took a forged report. Bounded lists, newest results first.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "db/database.h"

namespace tharsis {

// What a report changes in a result's row.
struct ResultReportFacts {
  std::string name;
  int64_t hostid = 0;
  int64_t received_time = 0;
  double cpu_time = 0;
};

// A reported result, and what its host sends in a request (its account's authenticator
// and the host's identity), so a request can pose as that host.
struct ReportedResultOfHost {
  ResultReportFacts result;
  std::string authenticator;
  std::string host_cpid;
  int rpc_seqno = 0;
  std::string domain_name;
};

// The result's row; nullopt when there is no result of that name.
std::optional<ResultReportFacts> fetch_result_report_facts(Database& db, const std::string& name);

// Up to `limit` of the newest results reported (OVER, received) by hosts other than the
// one with `skip_host_cpid`.
std::vector<ReportedResultOfHost> fetch_reported_results_of_hosts(Database& db,
                                                                  const std::string& skip_host_cpid,
                                                                  int limit);

// Up to `limit` results sent to hosts other than the one with `skip_host_cpid`: those
// in progress first, then the newest.
std::vector<ResultReportFacts> fetch_sent_results_of_hosts(Database& db, const std::string& skip_host_cpid,
                                                           int limit);

// Up to `limit` names of the newest results whose output files are on the server:
// reported successes whose files are not yet deleted, and results in progress.
std::vector<std::string> fetch_results_with_outputs_on_server(Database& db, int limit);

}  // namespace tharsis
