// Implementation of daemons/graph_scheduler/lib/graph_scheduler_pass.h.
#include "daemons/graph_scheduler/lib/graph_scheduler_pass.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

#include "daemons/graph_scheduler/graph_scheduler_rules.h"
#include "daemons/graph_scheduler/lib/graph_cancel.h"
#include "daemons/graph_scheduler/lib/operand_jobs.h"
#include "daemons/graph_scheduler/lib/output_staging.h"
#include "db/file_store.h"
#include "db/graph_store.h"
#include "db/result_store.h"
#include "db/stale_row.h"
#include "db/workunit_store.h"
#include "lib/log.h"
#include "lib/operand/operand_job.h"
#include "lib/work/fanout.h"
#include "lib/work/file_refs.h"
#include "lib/work/output_check.h"

namespace tharsis {
namespace {

std::string operand_text(const OperandRow& o) {
  return "operand " + std::to_string(o.id) + " (" + o.name + ") of graph " + std::to_string(o.graph_id);
}

// Runs one operand's unit in a transaction; a stale row leaves it for the next pass.
template <class Fn>
bool unit(Database& db, Fn&& fn) {
  try {
    return db.transaction(fn);
  } catch (const StaleRow& e) {
    log_warning(e.what());
    return false;
  }
}

// Restarts a READY or RUNNING operand, or reruns a FINISHED/FREED one: a new held
// workunit; the old one, if still live, is cancelled so its results in flight are aborted.
void rerun_operand(Database& db, const ProjectConfig& config, const OperandRow& operand, int64_t now) {
  auto wu = fetch_workunit(db, operand.workunitid, /*for_update=*/true);
  if (!wu)
    throw StaleRow(operand_text(operand) + ": workunit " + std::to_string(operand.workunitid) + " is gone");
  if (wu->assimilate_state != AssimilateState::Done) mark_workunit_cancelled(db, wu->id, now);
  auto next = create_operand_run(db, config, operand, job_parameters_of(*wu), now);
  if (!next.ok()) throw std::runtime_error(next.error());
  require_written(update_operand_guarded(db, operand, *next), operand_text(operand));
  log_info(operand_text(operand), ": runs again as workunit ", next->workunitid, " (run ", next->runs, ")");
}

// Cancels every operand downstream of a FATAL one (its successors can never get their input).
void cancel_descendants(Database& db, const OperandRow& operand, int64_t now) {
  std::multimap<int64_t, int64_t> successors_of;
  for (const auto& edge : fetch_edges_of_graph(db, operand.graph_id)) {
    successors_of.emplace(edge.predecessor_id, edge.successor_id);
  }
  for (int64_t id : descendants(successors_of, operand.id)) cancel_operand(db, id, now);
}

// An uploaded chunk whose file is gone cannot be computed again: it is FATAL, and so the graph fails.
void fail_lost_upload(Database& db, const OperandRow& operand, int64_t now) {
  OperandRow after = operand;
  after.state = OperandState::Fatal;
  after.state_time = now;
  require_written(update_operand_guarded(db, operand, after), operand_text(operand));
  log_warning(operand_text(operand), ": uploaded chunk ", operand.output_file,
              " is missing or corrupt in download/ and cannot be recomputed; its successors are cancelled");
  cancel_descendants(db, operand, now);
}

}  // namespace

std::vector<int64_t> reassign_lost_data(Database& db, const ProjectConfig& config, int64_t graph_id,
                                        const std::vector<int64_t>& needing, int64_t now) {
  std::map<int64_t, OperandRow> rows;
  std::map<int64_t, ReassignNode> graph;
  for (auto& o : fetch_operands_of_graph(db, graph_id)) {
    ReassignNode node;
    // An uploaded chunk keeps its file when FREED (the sandbox owns it): it holds its data
    // as long as the file is intact.
    node.state = is_uploaded_chunk(o) && o.state == OperandState::Freed ? OperandState::Finished : o.state;
    node.output_lost = node.state == OperandState::Finished && !output_intact(config, o);
    graph[o.id] = node;
    rows[o.id] = std::move(o);
  }
  for (const auto& edge : fetch_edges_of_graph(db, graph_id)) {
    graph[edge.successor_id].predecessors.push_back(edge.predecessor_id);
  }
  ReassignPlan plan = plan_reassign(graph, needing);
  // A lost uploaded chunk cannot be rerun: it fails, cancelling everything downstream of
  // it, which includes the operands that needed it; nothing else is rerun for them.
  bool upload_lost = false;
  for (int64_t id : plan.rerun) {
    if (!is_uploaded_chunk(rows[id])) continue;
    auto current = fetch_operand(db, id, /*for_update=*/true);
    if (!current || current->state != rows[id].state)
      throw StaleRow(operand_text(rows[id]) + " changed meanwhile");
    fail_lost_upload(db, *current, now);
    upload_lost = true;
  }
  if (upload_lost) return {};
  std::vector<int64_t> rerun;
  for (int64_t id : plan.rerun) {
    auto current = fetch_operand(db, id, /*for_update=*/true);
    if (!current || current->state != rows[id].state)
      throw StaleRow(operand_text(rows[id]) + " changed meanwhile");
    rerun_operand(db, config, *current, now);
    rerun.push_back(id);
  }
  return rerun;
}

bool GraphSchedulerPass::promote_ready(Database& db, int64_t operand_id, int64_t now) {
  return unit(db, [&](Database& d) {
    auto operand = fetch_operand(d, operand_id, /*for_update=*/true);
    if (!operand || operand->state != OperandState::Unscheduled) return false;
    auto inputs = fetch_inputs(d, operand_id);
    std::vector<StagedInput> staged;
    std::vector<InputLocation> locations;
    bool lost = false;
    for (const auto& input : inputs) {
      if (!has_finished(input.producer.state)) return false;  // not all inputs done after all
      auto one = input.producer.state == OperandState::Finished || is_uploaded_chunk(input.producer)
                     ? stage_operand_output(config_, input.producer, input.input_index)
                     : Result<StagedInput>(make_error(operand_text(input.producer) + " was freed"));
      if (!one.ok()) {
        log_warning(operand_text(*operand), ": input ", input.input_index, " lost: ", one.error());
        lost = true;
        continue;
      }
      staged.push_back(*one);
      locations.push_back(InputLocation{input.producer.output_host, input.producer.output_nbytes});
    }
    if (lost) {
      reassign_lost_data(d, config_, operand->graph_id, {operand_id}, now);
      return true;
    }
    auto wu = fetch_workunit(d, operand->workunitid, /*for_update=*/true);
    if (!wu) throw StaleRow(operand_text(*operand) + ": no workunit " + std::to_string(operand->workunitid));
    auto spec = stage_input_file(config_,
                                 InputFile{wu->name + ".spec", operand::kSpecOpenName, operand->spec, false});
    if (!spec.ok()) throw std::runtime_error(operand_text(*operand) + ": " + spec.error());
    staged.insert(staged.begin(), *spec);
    require_written(release_held_workunit(d, wu->id, workunit_xml_doc(config_, staged, ""), now),
                    "held workunit " + std::to_string(wu->id));
    std::vector<std::string> names;
    for (const auto& s : staged) names.push_back(s.name);
    record_workunit_inputs(d, wu->id, names);
    // The inputs were staged (or found staged by a sibling) before this workunit took them:
    // a file deleter that read no user for one may have unlinked it since. Taken now, they
    // stay; one missing is staged again.
    for (size_t i = 0; i < staged.size(); ++i) {
      if (is_in_download(config_, staged[i].name)) continue;
      auto again = i == 0 ? stage_input_file(config_, InputFile{staged[0].name, operand::kSpecOpenName,
                                                                operand->spec, false})
                          : stage_operand_output(config_, inputs[i - 1].producer, inputs[i - 1].input_index);
      if (!again.ok())
        throw StaleRow(operand_text(*operand) + ": input " + staged[i].name + " went: " + again.error());
      log_info(operand_text(*operand), ": input ", staged[i].name,
               " was deleted as it was taken; staged again");
    }
    OperandRow after = *operand;
    after.state = OperandState::Ready;
    after.state_time = now;
    if (int64_t host = preferred_host(locations); host != 0) {
      after.preferred_host = host;
      after.preferred_until = now + prefer_seconds_;
    }
    require_written(update_operand_guarded(d, *operand, after), operand_text(*operand));
    return true;
  });
}

bool GraphSchedulerPass::mark_running(Database& db, int64_t operand_id, int64_t now) {
  return unit(db, [&](Database& d) {
    auto operand = fetch_operand(d, operand_id, /*for_update=*/true);
    if (!operand || operand->state != OperandState::Ready) return false;
    OperandRow after = *operand;
    after.state = OperandState::Running;
    after.state_time = now;
    return update_operand_guarded(d, *operand, after);
  });
}

bool GraphSchedulerPass::end_job(Database& db, int64_t operand_id, int64_t now) {
  return unit(db, [&](Database& d) {
    auto operand = fetch_operand(d, operand_id, /*for_update=*/true);
    if (!operand) return false;
    auto wu = fetch_workunit(d, operand->workunitid, /*for_update=*/true);
    if (!wu || wu->assimilate_state != AssimilateState::Done) return false;
    const std::vector<ResultRow> results = operand->state == OperandState::Cancelling
                                               ? fetch_results_of_workunit(d, wu->id)
                                               : std::vector<ResultRow>{};
    if (!job_has_ended(*operand, *wu, results)) return false;
    OperandRow after = *operand;
    after.state = state_after_job(operand->state, *wu);
    after.state_time = now;
    if (after.state == OperandState::Finished) {
      auto canonical = fetch_result(d, wu->canonical_resultid);
      auto outputs = canonical ? file_infos_in(canonical->xml_doc_in)
                               : Result<std::vector<StoredFile>>(make_error("no canonical result"));
      if (outputs.ok() && !outputs->empty()) {
        after.output_file = outputs->front().name;
        after.output_host = canonical->hostid;
        // Recorded only if the file is what the canonical result reported (issue 13: bytes
        // swapped after assimilation must not become the successors' input). A missing or
        // differing output is recorded without md5: the data check finds it lost later.
        auto reported = reported_outputs_in(canonical->xml_doc_out);
        OutputVerdict verdict = verify_output_file(
            fanout_path(config_.upload_dir, after.output_file, config_.uldl_dir_fanout), after.output_file,
            reported.ok() ? find_reported(*reported, after.output_file) : nullptr);
        if (verdict.error_number == 0 && verdict.match == OutputMatch::Match) {
          after.output_md5 = verdict.on_disk.md5;
          after.output_nbytes = verdict.on_disk.size;
        } else {
          log_warning(operand_text(*operand), ": output ", verdict.message, "; treated as lost");
        }
      }
    }
    require_written(update_operand_guarded(d, *operand, after), operand_text(*operand));
    if (after.state == OperandState::Fatal) {
      log_warning(operand_text(*operand), ": workunit ", wu->id, " failed (error_mask ", wu->error_mask,
                  "); its successors are cancelled");
      cancel_descendants(d, *operand, now);
    }
    return true;
  });
}

bool GraphSchedulerPass::free_output(Database& db, int64_t operand_id, int64_t now) {
  return unit(db, [&](Database& d) {
    auto operand = fetch_operand(d, operand_id, /*for_update=*/true);
    if (!operand || operand->state != OperandState::Finished) return false;
    if (!output_may_be_freed(*operand, fetch_successors(d, operand_id))) return false;
    OperandRow after = *operand;
    after.state = OperandState::Freed;
    after.state_time = now;
    return update_operand_guarded(d, *operand, after);
  });
}

bool GraphSchedulerPass::check_download_failure(Database& db, int64_t operand_id, int64_t now) {
  return unit(db, [&](Database& d) {
    auto operand = fetch_operand(d, operand_id, /*for_update=*/true);
    if (!operand || (operand->state != OperandState::Ready && operand->state != OperandState::Running)) {
      return false;
    }
    bool lost = false;
    for (const auto& input : fetch_inputs(d, operand_id)) {
      auto staged = stage_operand_output(config_, input.producer, input.input_index);
      lost |= !staged.ok();
    }
    if (lost) {
      log_warning(operand_text(*operand), ": a host could not download an input that is lost; reassigning");
      reassign_lost_data(d, config_, operand->graph_id, {operand_id}, now);
      return true;
    }
    // Inputs are in place (re-staged if a copy was missing): a passing fault. Handled up to now.
    OperandRow after = *operand;
    after.state_time = now + 1;
    return update_operand_guarded(d, *operand, after);
  });
}

// The staged copies a failed or cancelled graph leaves that no live workunit names
// (producers_of_leftover_copies), unlinked before the graph's final state commits: none of
// its operands can be promoted any more, so nobody takes one, and a rollback after the
// unlinks only repeats them (a missing file is no error). A copy a live workunit names is
// the file deleter's once that workunit is over.
void GraphSchedulerPass::remove_leftover_copies(Database& db, GraphState final_state, int64_t graph_id) {
  if (!may_leave_copies(final_state)) return;  // a DONE graph's operands are not read for nothing
  const std::vector<OperandRow> operands = fetch_operands_of_graph(db, graph_id);
  std::vector<std::string> names;
  for (const OperandRow* producer : producers_of_leftover_copies(final_state, operands))
    names.push_back(staged_input_name(*producer));
  if (names.empty()) return;
  const auto users = live_file_users(db, names);
  for (const auto& name : names) {
    if (users.count(name)) continue;
    std::string path = fanout_path(config_.download_dir, name, config_.uldl_dir_fanout);
    if (unlink(path.c_str()) == 0) {
      log_info("graph ", graph_id, ": removed ", name, ", staged for a successor that never ran");
    } else if (errno != ENOENT) {
      log_warning("graph ", graph_id, ": cannot remove ", path, ": ", std::strerror(errno));
    }
  }
}

bool GraphSchedulerPass::settle_graph(Database& db, int64_t graph_id, int64_t now) {
  return unit(db, [&](Database& d) {
    auto graph = fetch_graph(d, graph_id, /*for_update=*/true);
    if (!graph) return false;
    auto next = graph_state_after(graph->state, count_operand_states(d, graph_id));
    if (!next) return false;
    require_written(update_graph_state(d, graph_id, graph->state, *next, now),
                    "graph " + std::to_string(graph_id));
    // Nothing of a finished graph needs its outputs any more (the result chunks are in
    // the results store, where the assimilator copied them).
    free_finished_operands(d, graph_id, now);
    remove_leftover_copies(d, *next, graph_id);
    log_info("graph ", graph_id, " (", graph->name, "): state ", code(*next));
    return true;
  });
}

int GraphSchedulerPass::release_idle_reservations(Database& db, const DaemonContext& context, int64_t now) {
  auto reserved = fetch_reserved_operands(db, context.shard, now, reservation_cursor_, context.batch);
  reservation_cursor_ = static_cast<int>(reserved.size()) < context.batch ? 0 : reserved.back().id;
  int released = 0;
  for (const auto& r : reserved) {
    PreferredHostView host{r.host_exists, r.rpc_time, r.nresults_today, r.nresults_day, r.max_results_day};
    ReservationVerdict verdict = reservation_verdict(host, config_.daily_result_quota, silent_seconds_, now);
    if (verdict == ReservationVerdict::Keep) continue;
    // One guarded statement: a send or another pass that changed the row meanwhile wins.
    if (!release_reservation(db, r, now)) continue;
    ++released;
    const char* why = verdict == ReservationVerdict::HostGone     ? "is gone"
                      : verdict == ReservationVerdict::QuotaSpent ? "has spent its daily quota"
                                                                  : "has not asked for work lately";
    log_info("operand ", r.id, ": reservation for host ", r.preferred_host, " released early: the host ",
             why);
  }
  return released;
}

int GraphSchedulerPass::do_pass(Database& db, const DaemonContext& context, int64_t now) {
  int done = 0;
  for (const auto& o : fetch_operands_job_done(db, context.shard, context.batch))
    done += end_job(db, o.id, now);
  for (const auto& o : fetch_operands_freeable(db, context.shard, context.batch))
    done += free_output(db, o.id, now);
  for (const auto& o : fetch_operands_download_failed(db, context.shard, context.batch)) {
    done += check_download_failure(db, o.id, now);
  }
  for (const auto& o : fetch_operands_inputs_done(db, context.shard, context.batch)) {
    if (context.stop_requested()) break;  // staging copies files: stop between units
    done += promote_ready(db, o.id, now);
  }
  for (const auto& o : fetch_operands_started(db, context.shard, context.batch))
    done += mark_running(db, o.id, now);
  done += release_idle_reservations(db, context, now);
  for (GraphState state : {GraphState::Running, GraphState::Cancelling}) {
    for (const auto& g : fetch_graphs_in_state(db, state, context.shard, context.batch)) {
      done += settle_graph(db, g.id, now);
    }
  }
  return done;
}

}  // namespace tharsis
