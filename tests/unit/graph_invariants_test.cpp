// Operand-graph invariants of tools/check: each rule fires on a snapshot that breaks it
// and stays quiet on a sound one.
#include "tools/lib/graph_invariants.h"

#include <gtest/gtest.h>

namespace tharsis {
namespace {

using S = OperandState;

// a -> b; a's workunit 10, b's workunit 20.
GraphSnapshot snapshot(S a, S b) {
  GraphSnapshot s;
  s.graph.id = 1;
  s.graph.state = GraphState::Running;
  OperandRow oa, ob;
  oa.id = 1, oa.name = "a", oa.state = a, oa.workunitid = 10, oa.output_file = "a_out";
  ob.id = 2, ob.name = "b", ob.state = b, ob.workunitid = 20, ob.output_file = "b_out";
  s.operands = {oa, ob};
  s.edges = {{1, 2, 0}};
  WorkunitRow wa, wb;
  wa.id = 10, wb.id = 20;
  wa.transition_time = wb.transition_time = kTransitionNever;
  s.workunits = {{10, wa}, {20, wb}};
  return s;
}

bool has_rule(const std::vector<std::string>& violations, const std::string& rule) {
  for (const auto& v : violations) {
    if (v.rfind("[" + rule + "]", 0) == 0) return true;
  }
  return false;
}

TEST(GraphInvariants, SoundSnapshotsPass) {
  EXPECT_TRUE(check_graph_invariants(snapshot(S::Running, S::Unscheduled), false).empty());
  EXPECT_TRUE(check_graph_invariants(snapshot(S::Finished, S::Running), false).empty());
  EXPECT_TRUE(check_graph_invariants(snapshot(S::Freed, S::Finished), false).empty());
}

TEST(GraphInvariants, EachRuleFires) {
  EXPECT_TRUE(has_rule(check_graph_invariants(snapshot(S::Running, S::Ready), false), "ready_after_inputs"));
  EXPECT_TRUE(
      has_rule(check_graph_invariants(snapshot(S::Freed, S::Running), false), "freed_after_successors"));
  auto released = snapshot(S::Running, S::Unscheduled);
  released.workunits[20].transition_time = 5;
  EXPECT_TRUE(has_rule(check_graph_invariants(released, false), "held_until_ready"));
  released.workunits[20].error_mask = kWuErrorCancelled;
  EXPECT_FALSE(has_rule(check_graph_invariants(released, false), "held_until_ready"))
      << "cancelled: may be due";
  auto no_output = snapshot(S::Finished, S::Running);
  no_output.operands[0].output_file.clear();
  EXPECT_TRUE(has_rule(check_graph_invariants(no_output, false), "finished_has_output"));
  EXPECT_TRUE(has_rule(check_graph_invariants(snapshot(S::Finished, S::Running), true), "settled"));
  auto done = snapshot(S::Freed, S::Freed);
  done.graph.state = GraphState::Done;
  EXPECT_TRUE(check_graph_invariants(done, true).empty());
}

}  // namespace
}  // namespace tharsis
