// SQL for the result table, behind typed functions over ResultRow.
// `update_result_guarded` writes a rule's ResultUpdate only if the row's state columns
// still equal `before`'s, so a repeated or raced write changes nothing.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "db/database.h"
#include "db/row_changes.h"
#include "db/rows.h"
#include "db/shard.h"

namespace tharsis {

int64_t insert_result(Database& db, const ResultRow& result);   // returns the new id
void insert_result_row(Database& db, const ResultRow& result);  // the same, one round trip less
// The rows in multi-row INSERTs (db/multi_row_insert.h: up to 256 rows per statement);
// their ids are not read back.
void insert_result_rows(Database& db, const std::vector<ResultRow>& results);
std::optional<ResultRow> fetch_result(Database& db, int64_t id, bool for_update = false);
std::optional<ResultRow> fetch_result_by_name(Database& db, const std::string& name, bool for_update = false);
// Whether a result read fills the file lists (xml_doc_in, xml_doc_out: the files a result
// has, which the validator, assimilator and file deleter read) or leaves them empty:
// deciding a state change (the transitioner's rules) reads neither. The guarded writes
// never write them. (A client's stderr is not in the result row: fetch_result_stderr.)
enum class ResultText { FileLists, None };
std::vector<ResultRow> fetch_results_of_workunit(Database& db, int64_t wu_id, bool for_update = false,
                                                 ResultText text = ResultText::FileLists);
// The results of these workunits, by workunit then id, in one statement.
std::vector<ResultRow> fetch_results_of_workunits(Database& db, const std::vector<int64_t>& wu_ids,
                                                  bool for_update = false,
                                                  ResultText text = ResultText::FileLists);
// Results with file_delete_state READY, except the canonical result of a graph operand's
// current workunit while the operand may still need its output (not FREED/FATAL/CANCELLED),
// and except results whose deletion failed and waits in file_delete_retry until after `now`.
// In id order, only ids in (after_id, upto_id]: the file deleter reads on from where its
// last read ended (lib/daemon/cursor_read.h).
std::vector<ResultRow> fetch_file_delete_ready_results(Database& db, Shard shard, int limit, int64_t now,
                                                       int64_t after_id, int64_t upto_id);

// The stderr_out its client reported with the result (table result_stderr, apart from the
// result row that every daemon reads); "" when there is none or no such result.
std::string fetch_result_stderr(Database& db, int64_t result_id);

bool update_result_guarded(Database& db, const ResultUpdate& update);
// The same for a set of updates (distinct rows) in one statement: each row is written
// only if its state columns still equal its `before`'s. Returns the rows that matched:
// updates.size() unless some changed meanwhile (then the caller rolls back and writes row
// by row to find which). An update whose granted_credit is not finite is not written and
// not counted (a JSON number cannot hold it); the row-by-row write can.
int64_t update_results_guarded(Database& db, const std::vector<ResultUpdate>& updates);

}  // namespace tharsis

namespace tharsis {
// Results of workunits with ids in [first_wu, last_wu], ordered by workunit then id
// (tools/check walks the table in such ranges).
std::vector<ResultRow> fetch_results_of_workunit_range(Database& db, int64_t first_wu, int64_t last_wu);
}  // namespace tharsis

namespace tharsis {
// The scheduler's writes to a result, each guarded on the result's state so a duplicate or
// a race is a no-op, each one statement that locks the workunit row before the result row
// (the daemons' order), each poking the workunit's transition_time as BOINC's law says. Call
// them inside Database::transaction.
//
// Send: UNSENT -> IN_PROGRESS to the host, deadline now + delay_bound, transition_time =
// min(.., deadline). False when the result is no longer UNSENT (another scheduler process
// claimed it first: a result never goes to two hosts), is not of `workunit_id`, or the
// host was ever sent a result of this workunit (never two to one host; checked
// in the same statement, under the workunit's lock).
struct SendClaim {
  int64_t result_id = 0;
  int64_t workunit_id = 0;
  int64_t host_id = 0;
  int64_t user_id = 0;
  int64_t now = 0;
  int delay_bound = 0;
  int64_t app_version_id = 0;
};
bool claim_unsent_result(Database& db, const SendClaim& claim);
// A round of sends as one statement: each claim as claim_unsent_result, with the same
// guards, the rows changed in the order given (callers pass them in workunit order,
// claim_order's, so that concurrent claimers lock alike). Claims may be of several hosts
// (a group of requests, sched/lib/rpc/grouped_rpc.h), all at one time; one host's must be
// of distinct workunits (std::invalid_argument otherwise): the once-per-host guard sees
// the table as it was before the statement. Returns the result ids won: when every claim
// matched, known from the statement's matched-row count; else one read of which rows are
// now their hosts', sent at `now` — exact when the caller read the rows UNSENT under this
// transaction's locks (lock_send_candidates), or took them from its process's part of the
// queue (candidate_cache.h), so that no other request can have sent them meanwhile.
std::vector<int64_t> claim_unsent_results(Database& db, const std::vector<SendClaim>& claims);
// Whether `host_id` was ever sent a result of `workunit_id`, in progress or over: a host
// gets one result of a workunit at most (it would otherwise check its own answer). The
// scheduler asks only when a claim failed, to know why.
bool host_has_result_of(Database& db, int64_t workunit_id, int64_t host_id);
// The send for a caller that knows only the result id (one more statement: its workunit),
// without the once-per-host check (simulated hosts and tests send as they are told).
bool mark_result_sent(Database& db, int64_t result_id, int64_t host_id, int64_t user_id, int64_t now,
                      int delay_bound, int64_t app_version_id);
// Resend of a lost result still IN_PROGRESS for the host: sent_time = now, a fresh deadline.
bool refresh_sent_result(Database& db, int64_t result_id, int64_t workunit_id, int64_t host_id, int64_t now,
                         int delay_bound);

// Report: a result sent to that host and still taking its report (sched/lib/
// result_acceptance.h: IN_PROGRESS, or timed out while its workunit is open — a late
// result, which BOINC also keeps) -> OVER with the client's outcome, received_time and
// transition_time = now; a non-empty stderr_out goes into result_stderr (replacing any
// there) only when the report is taken. Two statements (lock the workunit; the guarded
// write), a third for stderr. False
// (nothing changed) for an unknown result, another host's, a duplicate report, or one the
// server no longer needs (its workunit has a canonical result, failed or is assimilated).
struct ResultReport {
  Outcome outcome = Outcome::Success;  // SUCCESS or CLIENT_ERROR
  ClientState client_state = ClientState::Uploaded;
  int exit_status = 0;
  double cpu_time = 0;
  double elapsed_time = 0;
  double claimed_credit = 0;
  std::string xml_doc_out;
  std::string stderr_out;
};
bool mark_result_reported(Database& db, int64_t result_id, int64_t host_id, int64_t now,
                          const ResultReport& report);
bool mark_result_reported_by_name(Database& db, const std::string& name, int64_t host_id, int64_t now,
                                  const ResultReport& report);
// The reports of one request: each as mark_result_reported_by_name, with the same guard,
// in two statements for the whole list: one locks the workunits of the results that take a
// report (lock_workunits_of_reportable), one writes those results and their workunits
// (write_locked_reports), and a third for the stderr of those taken when any carries one.
// Names must be distinct (std::invalid_argument otherwise). Returns
// the names taken, in the list's order.
struct NamedReport {
  std::string name;
  ResultReport report;
};
std::vector<std::string> mark_results_reported_by_name(Database& db, const std::vector<NamedReport>& reports,
                                                       int64_t host_id, int64_t now);
// Report name -> the workunit locked for it.
using ReportLocks = std::map<std::string, int64_t>;
// Locks, in the list's order, the workunit of each of `names` whose result is sent to
// `host_id` and still takes a report (workunit before result, as the daemons lock them;
// the result rows are not locked), in one statement. lock_account_host_and_reported_workunits
// (db/host_store.h) does the same with the host row's lock.
ReportLocks lock_workunits_of_reportable(Database& db, const std::vector<std::string>& names,
                                         int64_t host_id);
// The reports whose workunits `locked` holds, written in one statement (up to
// kMaxRowsPerStatement, fewer when large: db/multi_row_insert.h), each under the one-report
// guard, decided on the rows as they are now. A read-back of which were taken only when
// the guard refused some (a result that changed after the lock's read). Then the stderr of
// the reports taken, in one multi-row statement (none when none carries stderr; more only
// past kMaxRowsPerStatement reports or kMaxBytesPerStatement of text): a report refused
// (another host's, a duplicate, a stale one) leaves the stderr stored before it.
std::vector<std::string> write_locked_reports(Database& db, const std::vector<NamedReport>& reports,
                                              const ReportLocks& locked, int64_t host_id, int64_t now);
// write_locked_reports for several hosts' requests (a group, sched/lib/rpc/grouped_rpc.h)
// in the same statements: one write for all (each result under its own host's guard), a
// read-back only when a guard refused one or two results of one workunit were written,
// one stderr write. An entry's names must be distinct (std::invalid_argument otherwise);
// a name is taken for the host its result was sent to, whichever entries name it.
// Returns the names taken of each entry, in its list's order.
struct HostReports {
  int64_t host_id = 0;
  const std::vector<NamedReport>* reports = nullptr;
  const ReportLocks* locked = nullptr;
};
std::vector<std::vector<std::string>> write_locked_reports_of_hosts(Database& db,
                                                                    const std::vector<HostReports>& hosts,
                                                                    int64_t now);
}  // namespace tharsis
