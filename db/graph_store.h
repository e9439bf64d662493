// SQL for operand graphs: the graph, operand and operand_dependency tables behind typed
// functions over GraphRow and OperandRow. Writes that change a state are guarded on the
// state loaded (UPDATE .. WHERE state = old), so a repeated or raced write is a no-op;
// callers run them inside Database::transaction, locking the operand before its workunit.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "db/database.h"
#include "db/rows.h"
#include "db/shard.h"

namespace tharsis {

int64_t insert_graph(Database& db, const GraphRow& graph);  // returns the new id
std::optional<GraphRow> fetch_graph(Database& db, int64_t id, bool for_update = false);
std::optional<GraphRow> fetch_graph_by_name(Database& db, const std::string& name);
std::vector<GraphRow> fetch_graphs_in_state(Database& db, GraphState state, Shard shard, int limit);
// state from -> to (finish_time set when `to` is final); false when the graph was not in `from`.
bool update_graph_state(Database& db, int64_t id, GraphState from, GraphState to, int64_t now);

std::optional<OperandRow> fetch_operand(Database& db, int64_t id, bool for_update = false);
std::vector<OperandRow> fetch_operands_of_graph(Database& db, int64_t graph_id);
// Writes every mutable column of `after` only if the row still holds `before`'s state,
// workunitid and runs; returns whether it wrote.
bool update_operand_guarded(Database& db, const OperandRow& before, const OperandRow& after);

// submit_graph's set-based writes, inside its transaction: a few statements per few
// hundred operands, never one per operand.
// The operands (ids assigned by the database; `id` is ignored) in multi-row INSERTs.
void insert_operands_bulk(Database& db, const std::vector<OperandRow>& operands);
// The graph's operand ids by name (names are unique within a graph).
std::unordered_map<std::string, int64_t> fetch_operand_ids(Database& db, int64_t graph_id);
// Each (operand id, workunit id): the operand's first run, workunitid = it and runs = 1,
// for an operand with no run yet. Returns the operands changed.
int64_t record_first_runs(Database& db, const std::vector<std::pair<int64_t, int64_t>>& runs);
struct OperandInput {
  OperandRow producer;
  int input_index = 0;
};
// The operand's inputs: each predecessor with its input index, by index.
std::vector<OperandInput> fetch_inputs(Database& db, int64_t operand_id);
std::vector<OperandRow> fetch_successors(Database& db, int64_t operand_id);
struct DependencyEdge {
  int64_t predecessor_id = 0;
  int64_t successor_id = 0;
  int input_index = 0;
};
std::vector<DependencyEdge> fetch_edges_of_graph(Database& db, int64_t graph_id);
// The edges in multi-row INSERTs.
void insert_dependencies_bulk(Database& db, const std::vector<DependencyEdge>& edges);

// Operand counts by state for one graph.
std::map<OperandState, int64_t> count_operand_states(Database& db, int64_t graph_id);
// The same for several graphs in one statement (index operand_graph_state), by graph id.
std::map<int64_t, std::map<OperandState, int64_t>> count_operand_states_of_graphs(
    Database& db, const std::vector<int64_t>& graph_ids);

// A submitter's graphs (graph.user_id), newest first, at most `limit`; `expression` is
// left empty (it can be large; fetch_graph reads it).
std::vector<GraphRow> fetch_graphs_of_user(Database& db, int64_t user_id, int limit);
// The graph's first operand (by id) in `state`, if any (why a graph failed: its FATAL one).
std::optional<OperandRow> fetch_first_operand_in_state(Database& db, int64_t graph_id, OperandState state);

// Work lists of the graph scheduler (sharded by operand id, at most `limit`, by id):
// UNSCHEDULED operands whose predecessors are all FINISHED or FREED (FREED only after a
// re-run made them needed again; the data check then finds the output gone).
std::vector<OperandRow> fetch_operands_inputs_done(Database& db, Shard shard, int limit);
// READY operands still reserved for their preferred host (preferred_until > now), by id
// above `after_id`, with that host's quota and last RPC (host_exists false when the host
// row is gone).
struct ReservedOperand {
  int64_t id = 0;
  int64_t preferred_host = 0;
  int64_t preferred_until = 0;
  bool host_exists = false;
  int64_t rpc_time = 0;
  int nresults_today = 0;
  int nresults_day = 0;
  int max_results_day = 0;
};
std::vector<ReservedOperand> fetch_reserved_operands(Database& db, Shard shard, int64_t now, int64_t after_id,
                                                     int limit);
// Ends the reservation now (preferred_until = now; preferred_host kept for the record) if
// the operand is still READY and reserved as read; returns whether it wrote.
bool release_reservation(Database& db, const ReservedOperand& operand, int64_t now);

// READY operands whose current workunit has a result sent (RUNNING is due).
std::vector<OperandRow> fetch_operands_started(Database& db, Shard shard, int limit);
// READY or RUNNING operands whose current workunit is assimilated, and CANCELLING ones
// whose workunit is assimilated with no result in progress.
std::vector<OperandRow> fetch_operands_job_done(Database& db, Shard shard, int limit);
// FINISHED operands with at least one successor, every successor FINISHED or FREED.
std::vector<OperandRow> fetch_operands_freeable(Database& db, Shard shard, int limit);
// READY or RUNNING operands with a result that failed while downloading its inputs,
// reported after the operand's state_time (each report handled once).
std::vector<OperandRow> fetch_operands_download_failed(Database& db, Shard shard, int limit);

// Bytes of operand outputs the server holds for the graph (FINISHED operands' outputs).
int64_t staged_output_bytes(Database& db, int64_t graph_id);
// The size of the graph's result tensor's data: the result chunks' output_bytes.
int64_t result_chunk_bytes(Database& db, int64_t graph_id);

// Every graph's id, in id order (tools/check, graph_status).
std::vector<int64_t> fetch_graph_ids(Database& db);
// A finished graph's FINISHED operands become FREED at `now` (their outputs are no longer
// needed: the result chunks are in the results store). Returns the rows changed.
int64_t free_finished_operands(Database& db, int64_t graph_id, int64_t now);

}  // namespace tharsis
