// Implementation of db/graph_store.h.
#include "db/graph_store.h"

#include <algorithm>

#include "db/id_list.h"
#include "db/multi_row_insert.h"
#include "db/sql.h"
#include "db/states.h"

namespace tharsis {
namespace {

const std::string kGraphColumns =
    "id, create_time, name, state, expression, result_path, finish_time, user_id";

const std::string kOperandColumns =
    "o.id, o.graph_id, o.name, o.workunitid, o.runs, o.state, o.state_time, o.depth, o.priority, "
    "o.output_bytes, o.preferred_host, o.preferred_until, o.output_file, o.output_md5, o.output_nbytes, "
    "o.output_host, o.result_chunk, o.spec";

GraphRow read_graph(sql::ResultSet& r) {
  GraphRow g;
  g.id = r.getInt64("id");
  g.create_time = r.getInt64("create_time");
  g.name = r.getString("name");
  g.state = static_cast<GraphState>(r.getInt("state"));
  g.expression = r.getString("expression");
  g.result_path = r.getString("result_path");
  g.finish_time = r.getInt64("finish_time");
  g.user_id = r.getInt64("user_id");
  return g;
}

OperandRow read_operand(sql::ResultSet& r) {
  OperandRow o;
  o.id = r.getInt64("id");
  o.graph_id = r.getInt64("graph_id");
  o.name = r.getString("name");
  o.workunitid = r.getInt64("workunitid");
  o.runs = r.getInt("runs");
  o.state = static_cast<OperandState>(r.getInt("state"));
  o.state_time = r.getInt64("state_time");
  o.depth = r.getInt("depth");
  o.priority = r.getInt("priority");
  o.output_bytes = r.getInt64("output_bytes");
  o.preferred_host = r.getInt64("preferred_host");
  o.preferred_until = r.getInt64("preferred_until");
  o.output_file = r.getString("output_file");
  o.output_md5 = r.getString("output_md5");
  o.output_nbytes = r.getInt64("output_nbytes");
  o.output_host = r.getInt64("output_host");
  o.result_chunk = r.getInt("result_chunk");
  o.spec = r.getString("spec");
  return o;
}

std::vector<OperandRow> read_operands(std::unique_ptr<sql::ResultSet> rows) {
  std::vector<OperandRow> out;
  while (rows->next()) out.push_back(read_operand(*rows));
  return out;
}

// Operands in one state matching `condition` (SQL over alias o), sharded, by id.
std::vector<OperandRow> operands_where(Database& db, OperandState state, const std::string& condition,
                                       Shard shard, int limit) {
  return read_operands(query(db,
                             "SELECT " + kOperandColumns + " FROM operand o WHERE o.state = ? AND " +
                                 condition + " AND o.id % ? = ? ORDER BY o.id LIMIT ?",
                             state, shard.n, shard.id, limit));
}

}  // namespace

int64_t insert_graph(Database& db, const GraphRow& g) {
  exec(db,
       "INSERT INTO graph (create_time, name, state, expression, result_path, finish_time, user_id) "
       "VALUES (?,?,?,?,?,?,?)",
       g.create_time, g.name, g.state, g.expression, g.result_path, g.finish_time, g.user_id);
  return last_insert_id(db);
}

std::optional<GraphRow> fetch_graph(Database& db, int64_t id, bool for_update) {
  auto rows = query(
      db, "SELECT " + kGraphColumns + " FROM graph WHERE id = ?" + (for_update ? " FOR UPDATE" : ""), id);
  if (!rows->next()) return std::nullopt;
  return read_graph(*rows);
}

std::optional<GraphRow> fetch_graph_by_name(Database& db, const std::string& name) {
  auto rows = query(db, "SELECT " + kGraphColumns + " FROM graph WHERE name = ?", name);
  if (!rows->next()) return std::nullopt;
  return read_graph(*rows);
}

std::vector<GraphRow> fetch_graphs_in_state(Database& db, GraphState state, Shard shard, int limit) {
  auto rows =
      query(db, "SELECT " + kGraphColumns + " FROM graph WHERE state = ? AND id % ? = ? ORDER BY id LIMIT ?",
            state, shard.n, shard.id, limit);
  std::vector<GraphRow> out;
  while (rows->next()) out.push_back(read_graph(*rows));
  return out;
}

bool update_graph_state(Database& db, int64_t id, GraphState from, GraphState to, int64_t now) {
  bool final_state = to == GraphState::Done || to == GraphState::Failed || to == GraphState::Cancelled;
  return exec(db, "UPDATE graph SET state = ?, finish_time = ? WHERE id = ? AND state = ?", to,
              final_state ? now : int64_t{0}, id, from) > 0;
}

std::optional<OperandRow> fetch_operand(Database& db, int64_t id, bool for_update) {
  auto rows = query(
      db, "SELECT " + kOperandColumns + " FROM operand o WHERE o.id = ?" + (for_update ? " FOR UPDATE" : ""),
      id);
  if (!rows->next()) return std::nullopt;
  return read_operand(*rows);
}

std::vector<OperandRow> fetch_operands_of_graph(Database& db, int64_t graph_id) {
  return read_operands(query(
      db, "SELECT " + kOperandColumns + " FROM operand o WHERE o.graph_id = ? ORDER BY o.id", graph_id));
}

bool update_operand_guarded(Database& db, const OperandRow& before, const OperandRow& after) {
  return exec(db,
              "UPDATE operand SET workunitid = ?, runs = ?, state = ?, state_time = ?, priority = ?, "
              "preferred_host = ?, preferred_until = ?, output_file = ?, output_md5 = ?, output_nbytes = ?, "
              "output_host = ? WHERE id = ? AND state = ? AND workunitid = ? AND runs = ?",
              after.workunitid, after.runs, after.state, after.state_time, after.priority,
              after.preferred_host, after.preferred_until, after.output_file, after.output_md5,
              after.output_nbytes, after.output_host, before.id, before.state, before.workunitid,
              before.runs) > 0;
}

void insert_operands_bulk(Database& db, const std::vector<OperandRow>& operands) {
  static const std::string kHead =
      "INSERT INTO operand (graph_id, name, workunitid, runs, state, state_time, depth, priority, "
      "output_bytes, preferred_host, preferred_until, output_file, output_md5, output_nbytes, output_host, "
      "result_chunk, spec) VALUES ";
  insert_rows(
      db, kHead, 17, operands,
      [](sql::PreparedStatement& st, int& index, const OperandRow& o) {
        st.setInt64(index++, o.graph_id);
        st.setString(index++, o.name);
        st.setInt64(index++, o.workunitid);
        st.setInt(index++, o.runs);
        st.setInt(index++, code(o.state));
        st.setInt64(index++, o.state_time);
        st.setInt(index++, o.depth);
        st.setInt(index++, o.priority);
        st.setInt64(index++, o.output_bytes);
        st.setInt64(index++, o.preferred_host);
        st.setInt64(index++, o.preferred_until);
        st.setString(index++, o.output_file);
        st.setString(index++, o.output_md5);
        st.setInt64(index++, o.output_nbytes);
        st.setInt64(index++, o.output_host);
        st.setInt(index++, o.result_chunk);
        st.setString(index++, o.spec);
      },
      [](const OperandRow& o) { return o.name.size() + o.spec.size() + o.output_file.size() + 64; });
}

std::unordered_map<std::string, int64_t> fetch_operand_ids(Database& db, int64_t graph_id) {
  auto rows = query(db, "SELECT id, name FROM operand WHERE graph_id = ?", graph_id);
  std::unordered_map<std::string, int64_t> out;
  while (rows->next()) out.emplace(rows->getString(2), rows->getInt64(1));
  return out;
}

int64_t record_first_runs(Database& db, const std::vector<std::pair<int64_t, int64_t>>& runs) {
  int64_t changed = 0;
  constexpr size_t kPerStatement = 50000;  // a JSON list of a MB or so
  for (size_t start = 0; start < runs.size(); start += kPerStatement) {
    std::string json = "[";
    for (size_t i = start; i < std::min(runs.size(), start + kPerStatement); ++i) {
      json += (i > start ? ",[" : "[") + std::to_string(runs[i].first) + "," +
              std::to_string(runs[i].second) + "]";
    }
    json += "]";
    changed +=
        exec(db,
             "UPDATE JSON_TABLE(?, '$[*]' COLUMNS (operand_id BIGINT PATH '$[0]', workunit_id BIGINT PATH "
             "'$[1]')) r "
             "STRAIGHT_JOIN operand o ON o.id = r.operand_id SET o.workunitid = r.workunit_id, o.runs = 1 "
             "WHERE o.workunitid = 0 AND o.runs = 0",
             json);
  }
  return changed;
}

void insert_dependencies_bulk(Database& db, const std::vector<DependencyEdge>& edges) {
  insert_rows(
      db, "INSERT INTO operand_dependency (predecessor_id, successor_id, input_index) VALUES ", 3, edges,
      [](sql::PreparedStatement& st, int& index, const DependencyEdge& e) {
        st.setInt64(index++, e.predecessor_id);
        st.setInt64(index++, e.successor_id);
        st.setInt(index++, e.input_index);
      },
      [](const DependencyEdge&) { return size_t{24}; });
}

std::vector<OperandInput> fetch_inputs(Database& db, int64_t operand_id) {
  auto rows = query(db,
                    "SELECT " + kOperandColumns +
                        ", d.input_index FROM operand_dependency d JOIN operand o ON o.id = d.predecessor_id "
                        "WHERE d.successor_id = ? ORDER BY d.input_index",
                    operand_id);
  std::vector<OperandInput> out;
  while (rows->next()) out.push_back(OperandInput{read_operand(*rows), rows->getInt("input_index")});
  return out;
}

std::vector<OperandRow> fetch_successors(Database& db, int64_t operand_id) {
  return read_operands(query(db,
                             "SELECT " + kOperandColumns +
                                 " FROM operand_dependency d JOIN operand o ON o.id = d.successor_id "
                                 "WHERE d.predecessor_id = ? ORDER BY o.id",
                             operand_id));
}

std::vector<DependencyEdge> fetch_edges_of_graph(Database& db, int64_t graph_id) {
  auto rows = query(db,
                    "SELECT d.predecessor_id, d.successor_id, d.input_index FROM operand_dependency d "
                    "JOIN operand o ON o.id = d.successor_id WHERE o.graph_id = ? ORDER BY d.successor_id, "
                    "d.input_index",
                    graph_id);
  std::vector<DependencyEdge> out;
  while (rows->next()) out.push_back(DependencyEdge{rows->getInt64(1), rows->getInt64(2), rows->getInt(3)});
  return out;
}

std::map<OperandState, int64_t> count_operand_states(Database& db, int64_t graph_id) {
  auto rows = query(db, "SELECT state, COUNT(*) FROM operand WHERE graph_id = ? GROUP BY state", graph_id);
  std::map<OperandState, int64_t> out;
  while (rows->next()) out[static_cast<OperandState>(rows->getInt(1))] = rows->getInt64(2);
  return out;
}

std::map<int64_t, std::map<OperandState, int64_t>> count_operand_states_of_graphs(
    Database& db, const std::vector<int64_t>& graph_ids) {
  std::map<int64_t, std::map<OperandState, int64_t>> out;
  if (graph_ids.empty()) return out;
  auto rows =
      query(db,
            "SELECT o.graph_id, o.state, COUNT(*) FROM " + kIdListTable +
                " STRAIGHT_JOIN operand o ON o.graph_id = wanted.wanted_id GROUP BY o.graph_id, o.state",
            id_list_json(graph_ids));
  while (rows->next()) out[rows->getInt64(1)][static_cast<OperandState>(rows->getInt(2))] = rows->getInt64(3);
  return out;
}

std::vector<GraphRow> fetch_graphs_of_user(Database& db, int64_t user_id, int limit) {
  auto rows = query(
      db,
      "SELECT id, create_time, name, state, '' AS expression, result_path, finish_time, user_id FROM graph "
      "WHERE user_id = ? ORDER BY id DESC LIMIT ?",
      user_id, limit);
  std::vector<GraphRow> out;
  while (rows->next()) out.push_back(read_graph(*rows));
  return out;
}

std::optional<OperandRow> fetch_first_operand_in_state(Database& db, int64_t graph_id, OperandState state) {
  auto rows =
      read_operands(query(db,
                          "SELECT " + kOperandColumns +
                              " FROM operand o WHERE o.graph_id = ? AND o.state = ? ORDER BY o.id LIMIT 1",
                          graph_id, state));
  if (rows.empty()) return std::nullopt;
  return rows.front();
}

std::vector<OperandRow> fetch_operands_inputs_done(Database& db, Shard shard, int limit) {
  return operands_where(
      db, OperandState::Unscheduled,
      "NOT EXISTS (SELECT 1 FROM operand_dependency d JOIN operand p ON p.id = d.predecessor_id "
      "WHERE d.successor_id = o.id AND p.state NOT IN (" +
          std::to_string(code(OperandState::Finished)) + "," + std::to_string(code(OperandState::Freed)) +
          "))",
      shard, limit);
}

std::vector<OperandRow> fetch_operands_started(Database& db, Shard shard, int limit) {
  return operands_where(
      db, OperandState::Ready,
      "EXISTS (SELECT 1 FROM result r WHERE r.workunitid = o.workunitid AND r.server_state <> " +
          std::to_string(code(ServerState::Unsent)) + ")",
      shard, limit);
}

std::vector<OperandRow> fetch_operands_job_done(Database& db, Shard shard, int limit) {
  std::vector<OperandRow> out;
  const std::string done =
      "EXISTS (SELECT 1 FROM workunit w WHERE w.id = o.workunitid AND w.assimilate_state = " +
      std::to_string(code(AssimilateState::Done)) + ")";
  for (OperandState state : {OperandState::Ready, OperandState::Running}) {
    auto some = operands_where(db, state, done, shard, limit);
    out.insert(out.end(), some.begin(), some.end());
  }
  // A cancelled job's workunit is assimilated at once; its work has stopped only when no
  // result is in flight any more (aborted at the host's next RPC, or timed out).
  auto stopped =
      operands_where(db, OperandState::Cancelling,
                     done +
                         " AND NOT EXISTS (SELECT 1 FROM result r WHERE r.workunitid = o.workunitid "
                         "AND r.server_state = " +
                         std::to_string(code(ServerState::InProgress)) + ")",
                     shard, limit);
  out.insert(out.end(), stopped.begin(), stopped.end());
  return out;
}

std::vector<OperandRow> fetch_operands_freeable(Database& db, Shard shard, int limit) {
  return operands_where(
      db, OperandState::Finished,
      "EXISTS (SELECT 1 FROM operand_dependency d WHERE d.predecessor_id = o.id) AND "
      "NOT EXISTS (SELECT 1 FROM operand_dependency d JOIN operand s ON s.id = d.successor_id "
      "WHERE d.predecessor_id = o.id AND s.state NOT IN (" +
          std::to_string(code(OperandState::Finished)) + "," + std::to_string(code(OperandState::Freed)) +
          "))",
      shard, limit);
}

std::vector<OperandRow> fetch_operands_download_failed(Database& db, Shard shard, int limit) {
  std::vector<OperandRow> out;
  const std::string failed =
      "EXISTS (SELECT 1 FROM result r WHERE r.workunitid = o.workunitid AND r.outcome = " +
      std::to_string(code(Outcome::ClientError)) +
      " AND r.client_state = " + std::to_string(code(ClientState::Downloading)) +
      " AND r.received_time >= o.state_time)";
  for (OperandState state : {OperandState::Ready, OperandState::Running}) {
    auto some = operands_where(db, state, failed, shard, limit);
    out.insert(out.end(), some.begin(), some.end());
  }
  return out;
}

int64_t staged_output_bytes(Database& db, int64_t graph_id) {
  return query_int(db, "SELECT SUM(output_nbytes) FROM operand WHERE graph_id = ? AND state = ?", graph_id,
                   OperandState::Finished);
}

int64_t result_chunk_bytes(Database& db, int64_t graph_id) {
  return query_int(
      db, "SELECT COALESCE(SUM(output_bytes), 0) FROM operand WHERE graph_id = ? AND result_chunk >= 0",
      graph_id);
}

std::vector<ReservedOperand> fetch_reserved_operands(Database& db, Shard shard, int64_t now, int64_t after_id,
                                                     int limit) {
  auto rows =
      query(db,
            "SELECT o.id, o.preferred_host, o.preferred_until, h.id IS NOT NULL, COALESCE(h.rpc_time, 0), "
            "COALESCE(h.nresults_today, 0), COALESCE(h.nresults_day, 0), COALESCE(h.max_results_day, 0) "
            "FROM operand o LEFT JOIN host h ON h.id = o.preferred_host WHERE o.state = ? "
            "AND o.preferred_host <> 0 AND o.preferred_until > ? AND o.id > ? AND o.id % ? = ? "
            "ORDER BY o.id LIMIT ?",
            OperandState::Ready, now, after_id, shard.n, shard.id, limit);
  std::vector<ReservedOperand> out;
  while (rows->next()) {
    ReservedOperand r;
    r.id = rows->getInt64(1);
    r.preferred_host = rows->getInt64(2);
    r.preferred_until = rows->getInt64(3);
    r.host_exists = rows->getInt(4) != 0;
    r.rpc_time = rows->getInt64(5);
    r.nresults_today = rows->getInt(6);
    r.nresults_day = rows->getInt(7);
    r.max_results_day = rows->getInt(8);
    out.push_back(r);
  }
  return out;
}

bool release_reservation(Database& db, const ReservedOperand& operand, int64_t now) {
  return exec(db,
              "UPDATE operand SET preferred_until = ? WHERE id = ? AND state = ? AND preferred_host = ? AND "
              "preferred_until = ?",
              now, operand.id, OperandState::Ready, operand.preferred_host, operand.preferred_until) > 0;
}

std::vector<int64_t> fetch_graph_ids(Database& db) {
  auto rows = query(db, "SELECT id FROM graph ORDER BY id");
  std::vector<int64_t> ids;
  while (rows->next()) ids.push_back(rows->getInt64(1));
  return ids;
}

int64_t free_finished_operands(Database& db, int64_t graph_id, int64_t now) {
  return exec(db, "UPDATE operand SET state = ?, state_time = ? WHERE graph_id = ? AND state = ?",
              OperandState::Freed, now, graph_id, OperandState::Finished);
}

}  // namespace tharsis
