// The graph scheduler's shell: operand states on top of the workunit law (docs/operand_graphs.md).
// Each pass, in one transaction per operand (locking the operand, then its workunit):
//  - UNSCHEDULED operands whose predecessors all finished: stage the predecessors'
//    outputs into download/ as this workunit's inputs (md5, size), prefer the host that
//    computed most of the input bytes for `prefer_seconds`, release the held workunit
//    (transition_time = now: the transitioner creates its results) -> READY. The inputs
//    are taken (record_workunit_inputs) and then checked again, one a file deleter
//    unlinked while it was staged or reused is staged again; one a file deleter is
//    unlinking leaves the operand for the next pass. An input
//    missing or failing its checksum instead triggers the two-pass reassignment
//    (plan_reassign): producers run again in new held workunits, dependents are held.
//  - READY operands with a result sent -> RUNNING.
//  - READY operands reserved for a host that can take no work now (gone, its daily quota
//    spent, or no RPC for `silent_seconds`: reservation_verdict) are released early for
//    any host, instead of waiting out prefer_seconds (issue 18). A cursor walks all the
//    reserved operands over successive passes, a batch at a time.
//  - READY/RUNNING/CANCELLING operands whose workunit is assimilated -> FINISHED (output
//    name, md5, size and host recorded), FATAL (and every descendant cancelled), or
//    CANCELLED.
//  - FINISHED operands whose successors all finished -> FREED (the file deleter may now
//    delete the output).
//  - READY/RUNNING operands with a result that failed downloading: inputs checked; a lost
//    one triggers the reassignment (the operand restarts in a new workunit).
//  - Graphs: RUNNING -> DONE/FAILED, CANCELLING -> CANCELLED (graph_state_after); a final
//    graph frees its FINISHED operands, and a failed or cancelled one removes the staged
//    copies no workunit took (producers_of_leftover_copies).
#pragma once

#include <cstdint>
#include <vector>

#include "db/states.h"
#include "lib/daemon/daemon_loop.h"

namespace tharsis {

class GraphSchedulerPass final : public DaemonWork {
 public:
  GraphSchedulerPass(const ProjectConfig& config, int64_t prefer_seconds, int64_t silent_seconds = 3600)
      : config_(config), prefer_seconds_(prefer_seconds), silent_seconds_(silent_seconds) {}
  int do_pass(Database& db, const DaemonContext& context, int64_t now) override;

  bool promote_ready(Database& db, int64_t operand_id, int64_t now);
  bool mark_running(Database& db, int64_t operand_id, int64_t now);
  bool end_job(Database& db, int64_t operand_id, int64_t now);
  bool free_output(Database& db, int64_t operand_id, int64_t now);
  bool check_download_failure(Database& db, int64_t operand_id, int64_t now);
  bool settle_graph(Database& db, int64_t graph_id, int64_t now);
  // Releases a batch of reservations whose host can take no work; returns how many.
  int release_idle_reservations(Database& db, const DaemonContext& context, int64_t now);

 private:
  void remove_leftover_copies(Database& db, GraphState final_state, int64_t graph_id);

  const ProjectConfig& config_;
  int64_t prefer_seconds_;
  int64_t silent_seconds_;
  int64_t reservation_cursor_ = 0;  // last operand id checked; 0: start over
};

// Mars's two-pass reassignment for `needing` operands of one graph, inside the caller's
// transaction: reruns and holds as plan_reassign says. Returns the operands rerun. An
// uploaded chunk among the lost cannot be rerun: it becomes FATAL and its descendants are
// cancelled (the graph fails), and nothing is rerun.
std::vector<int64_t> reassign_lost_data(Database& db, const ProjectConfig& config, int64_t graph_id,
                                        const std::vector<int64_t>& needing, int64_t now);

}  // namespace tharsis
