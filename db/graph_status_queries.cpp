// Implementation of db/graph_status_queries.h.
#include "db/graph_status_queries.h"

#include <unordered_map>

#include "db/sql.h"
#include "db/state_names.h"

namespace tharsis {

std::vector<GraphSummary> fetch_graph_summaries(Database& db, int limit) {
  std::vector<GraphSummary> graphs;
  auto rows = query(db, "SELECT id, name, state FROM graph ORDER BY id DESC LIMIT ?", limit);
  while (rows->next()) {
    GraphSummary graph;
    graph.id = rows->getInt64(1);
    graph.name = rows->getString(2);
    graph.state = graph_state_name(static_cast<GraphState>(rows->getInt(3)));
    graphs.push_back(std::move(graph));
  }
  if (graphs.empty()) return graphs;
  // The page holds every graph between its lowest and highest id, so one range covers it.
  std::unordered_map<int64_t, GraphSummary*> by_id;
  for (auto& graph : graphs) by_id[graph.id] = &graph;
  auto counts = query(
      db,
      "SELECT graph_id, state, COUNT(*) FROM operand WHERE graph_id BETWEEN ? AND ? GROUP BY graph_id, state",
      graphs.back().id, graphs.front().id);
  while (counts->next()) {
    auto it = by_id.find(counts->getInt64(1));
    if (it != by_id.end())
      it->second->operands_by_state[static_cast<OperandState>(counts->getInt(2))] = counts->getInt64(3);
  }
  return graphs;
}

int64_t count_graphs(Database& db) { return query_int(db, "SELECT COUNT(*) FROM graph"); }

std::optional<GraphDetail> fetch_graph_detail(Database& db, int64_t graph_id) {
  auto head = query(db, "SELECT id, name, state FROM graph WHERE id = ?", graph_id);
  if (!head->next()) return std::nullopt;
  GraphDetail graph;
  graph.id = head->getInt64(1);
  graph.name = head->getString(2);
  graph.state = graph_state_name(static_cast<GraphState>(head->getInt(3)));

  // The output is held from the assimilation of the operand's current workunit; state_time
  // of a FREED operand is when it was freed.
  auto rows = query(
      db,
      "SELECT o.id, o.name, o.depth, o.state, o.output_nbytes, COALESCE(a.time, 0), o.state_time FROM "
      "operand o "
      "LEFT JOIN assimilation a ON a.workunitid = o.workunitid WHERE o.graph_id = ? ORDER BY o.depth, o.id",
      graph_id);
  std::unordered_map<int64_t, size_t> index;
  while (rows->next()) {
    OperandNode node;
    node.id = rows->getInt64(1);
    node.label = rows->getString(2);
    node.depth = rows->getInt(3);
    node.state = static_cast<OperandState>(rows->getInt(4));
    node.output_bytes = rows->getInt64(5);
    node.finish_time = rows->getInt64(6);
    if (node.state == OperandState::Freed) node.freed_time = rows->getInt64(7);
    index[node.id] = graph.operands.size();
    graph.operands.push_back(std::move(node));
  }
  auto edges = query(db,
                     "SELECT d.successor_id, d.predecessor_id FROM operand o "
                     "JOIN operand_dependency d ON d.successor_id = o.id WHERE o.graph_id = ? "
                     "ORDER BY d.successor_id, d.predecessor_id",
                     graph_id);
  while (edges->next()) {
    auto it = index.find(edges->getInt64(1));
    if (it != index.end()) graph.operands[it->second].preds.push_back(edges->getInt64(2));
  }
  return graph;
}

}  // namespace tharsis
