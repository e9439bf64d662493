// Priority, initial placement, execution order and the staged-data study (issue 6).
#include <gtest/gtest.h>

#include <map>

#include "lib/operand/direct_evaluator.h"
#include "lib/operand/execution_order.h"
#include "lib/operand/graph_compiler.h"
#include "lib/operand/local_executor.h"
#include "lib/operand/placement.h"
#include "lib/operand/priority.h"
#include "lib/operand/staged_study.h"

namespace tharsis::operand {
namespace {

ChunkOperand make_operand(int64_t id, StepKind kind, Shape shape, std::vector<int64_t> inputs) {
  ChunkOperand operand;
  operand.id = id;
  OperandStep step;
  step.kind = kind;
  step.shape = shape;
  if (kind == StepKind::Rand) {
    step.tensor_shape = shape;
    step.offset = Shape(shape.size(), 0);
  }
  operand.steps = {step};
  operand.shape = shape;
  operand.inputs = std::move(inputs);
  operand.label = std::string(step_kind_name(kind)) + std::to_string(id);
  return operand;
}

// 0 feeds two operands, 1 and 2 feed one each; 2 and 5 have larger outputs.
ChunkGraph hand_graph() {
  ChunkGraph graph;
  graph.operands = {
      make_operand(0, StepKind::Rand, {2}, {}),       make_operand(1, StepKind::Rand, {2}, {}),
      make_operand(2, StepKind::Rand, {4}, {}),       make_operand(3, StepKind::Add, {2}, {0, 1}),
      make_operand(4, StepKind::Transpose, {2}, {0}), make_operand(5, StepKind::Transpose, {4}, {2})};
  assign_depths(graph);
  return graph;
}

CompiledGraph compiled(const std::string& text, int fan_in = 4) {
  auto graph = compile_graph(text, {fan_in});
  EXPECT_TRUE(graph.ok()) << graph.error();
  return graph.ok() ? *graph : CompiledGraph{};
}

TEST(OperandPriority, DeeperFirstThenMoreDependentsThenSmallerOutput) {
  const std::vector<int> priority = operand_priorities(hand_graph());
  // Depth 1 before depth 0; 3 and 4 tie (same depth, dependents and size); 5 is larger.
  // Among sources: 0 has two dependents; 1 and 2 one each, 1 smaller.
  EXPECT_EQ(priority, (std::vector<int>{3, 2, 1, 5, 5, 4}));
}

TEST(OperandPriority, ValuesOrderOperandsExactlyAsTheRule) {
  const ChunkGraph graph = compiled(
                               "a = rand(seed=1, shape=(40,30), chunk=(10,10))\n"
                               "b = rand(seed=2, shape=(30,20), chunk=(10,10))\n"
                               "result = (a @ b).sum(axis=0) + a.T.mean()")
                               .chunks;
  const std::vector<int> priority = operand_priorities(graph);
  const auto successors = successors_of(graph);
  ASSERT_EQ(priority.size(), graph.operands.size());
  for (const ChunkOperand& a : graph.operands) {
    EXPECT_GE(priority[static_cast<size_t>(a.id)], 1);
    EXPECT_LE(priority[static_cast<size_t>(a.id)], static_cast<int>(graph.operands.size()));
    for (const ChunkOperand& b : graph.operands) {
      const auto da = static_cast<int64_t>(successors[static_cast<size_t>(a.id)].size());
      const auto db = static_cast<int64_t>(successors[static_cast<size_t>(b.id)].size());
      const bool strictly_first = runs_before(a, da, b, db) &&
                                  !(a.depth == b.depth && da == db && a.output_bytes() == b.output_bytes());
      EXPECT_EQ(priority[static_cast<size_t>(a.id)] > priority[static_cast<size_t>(b.id)], strictly_first)
          << a.label << " vs " << b.label;
    }
  }
}

TEST(OperandPlacement, SourcesFeedingOneOperandShareAHostAndHostsAreBalanced) {
  const ChunkGraph graph = compiled(
                               "a = rand(seed=1, shape=(400,400), chunk=(100,100))\n"
                               "b = rand(seed=2, shape=(400,400), chunk=(100,100))\n"
                               "result = (a + b).sum()")
                               .chunks;
  for (const std::vector<int64_t>& hosts : {std::vector<int64_t>{7, 9}, std::vector<int64_t>{3, 5, 8, 13}}) {
    const auto placement = place_sources(graph, hosts);
    std::map<int64_t, int> load;
    int sources = 0;
    for (const ChunkOperand& operand : graph.operands) {
      if (!operand.is_source()) continue;
      ++sources;
      ASSERT_TRUE(placement.count(operand.id)) << operand.label;
      ++load[placement.at(operand.id)];
    }
    EXPECT_EQ(placement.size(), static_cast<size_t>(sources));
    int local = 0;
    int fused_adds = 0;
    for (const ChunkOperand& operand : graph.operands) {
      if (operand.inputs.size() != 2) continue;
      ++fused_adds;
      local += placement.at(operand.inputs[0]) == placement.at(operand.inputs[1]) ? 1 : 0;
    }
    EXPECT_EQ(local, fused_adds) << "every a(i,j) sits with its b(i,j)";
    ASSERT_EQ(load.size(), hosts.size());
    for (const auto& [host, count] : load) EXPECT_EQ(count, sources / static_cast<int>(hosts.size())) << host;
  }
}

TEST(OperandPlacement, NoHostsMeansNoPlacementAndSpareHostsStayIdle) {
  const ChunkGraph graph = compiled("rand(seed=1, shape=(4,), chunk=(2,)).sum()").chunks;
  EXPECT_TRUE(place_sources(graph, {}).empty());
  const auto placement = place_sources(graph, {1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_EQ(placement.size(), 2u);
  for (const auto& [operand, host] : placement) EXPECT_TRUE(host >= 1 && host <= 8);
}

TEST(OperandExecutionOrder, BothPoliciesGiveValidOrdersWithTheSameAnswer) {
  const CompiledGraph graph = compiled(
      "a = rand(seed=4, shape=(90,90), chunk=(30,30))\n"
      "result = (a @ a.T @ a).mean(axis=1)",
      2);
  auto direct = evaluate_directly(graph.tensors);
  ASSERT_TRUE(direct.ok());
  for (OrderPolicy policy : {OrderPolicy::Priority, OrderPolicy::BreadthFirst}) {
    for (int workers : {1, 3}) {
      const auto order = execution_order(graph.chunks, policy, workers);
      auto run = run_locally(graph.chunks, order);
      ASSERT_TRUE(run.ok()) << run.error();
      EXPECT_LE(*max_relative_difference(run->result, *direct), 1e-9);
    }
  }
}

TEST(OperandStagedStudy, DepthFirstPriorityStagesFewerChunksThanBreadthFirst) {
  auto study = run_staged_study({});
  ASSERT_TRUE(study.ok()) << study.error();
  EXPECT_LT(study->depth_first_peak, study->breadth_first_peak);
  // Breadth-first finishes all 64 leaves before any tree node frees them.
  EXPECT_GE(study->breadth_first_peak, 64);
  for (int workers : {1, 2, 4}) {
    auto other = run_staged_study({256, 4, workers});
    ASSERT_TRUE(other.ok());
    EXPECT_LT(other->depth_first_peak, other->breadth_first_peak) << workers << " workers";
  }
  EXPECT_FALSE(run_staged_study({1, 4, 2}).ok());
}

}  // namespace
}  // namespace tharsis::operand
