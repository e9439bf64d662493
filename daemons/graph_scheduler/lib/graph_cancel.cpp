// Implementation of daemons/graph_scheduler/lib/graph_cancel.h.
#include "daemons/graph_scheduler/lib/graph_cancel.h"

#include "daemons/graph_scheduler/graph_scheduler_rules.h"
#include "db/graph_store.h"
#include "db/stale_row.h"
#include "db/workunit_store.h"

namespace tharsis {

bool cancel_operand(Database& db, int64_t operand_id, int64_t now) {
  auto operand = fetch_operand(db, operand_id, /*for_update=*/true);
  if (!operand) return false;
  OperandRow after = *operand;
  after.state = state_on_cancel(operand->state);
  if (after.state == operand->state) return false;
  after.state_time = now;
  if (cancel_marks_workunit(operand->state)) mark_workunit_cancelled(db, operand->workunitid, now);
  require_written(update_operand_guarded(db, *operand, after), "operand " + std::to_string(operand_id));
  return true;
}

Status cancel_graph(Database& db, int64_t graph_id, int64_t now) {
  try {
    return db.transaction([&](Database& d) -> Status {
      auto graph = fetch_graph(d, graph_id, /*for_update=*/true);
      if (!graph) return make_error("cancel_graph: no graph " + std::to_string(graph_id));
      if (graph->state != GraphState::Running && graph->state != GraphState::Cancelling) {
        return make_error("cancel_graph: graph " + std::to_string(graph_id) + " (" + graph->name +
                          ") is over already (state " + std::to_string(code(graph->state)) + ")");
      }
      update_graph_state(d, graph_id, GraphState::Running, GraphState::Cancelling, now);
      for (const auto& operand : fetch_operands_of_graph(d, graph_id)) cancel_operand(d, operand.id, now);
      return Status::success();
    });
  } catch (const StaleRow& e) {
    return make_error(std::string("cancel_graph: ") + e.what() + "; try again");
  }
}

}  // namespace tharsis
