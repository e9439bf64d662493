// Tiling, fusion and the local executor (issue 6): chunked runs match the direct
// computation; fused chains carry their step sequences.
#include <gtest/gtest.h>

#include "lib/operand/direct_evaluator.h"
#include "lib/operand/fusion.h"
#include "lib/operand/local_executor.h"
#include "lib/operand/tiling.h"

namespace tharsis::operand {
namespace {

int must(Result<int> r) {
  EXPECT_TRUE(r.ok()) << r.error();
  return r.ok() ? *r : -1;
}

// (a + b).sum() over 400x400 in 100x100 chunks, as in the seed's example.
TensorGraph add_then_sum() {
  TensorGraphBuilder b;
  const int x = must(b.rand(1, {400, 400}, {100, 100}));
  const int y = must(b.rand(2, {400, 400}, {100, 100}));
  const int s = must(b.binary(StepKind::Add, x, y));
  return std::move(b).finish(must(b.reduce_all(TensorOp::Sum, s)));
}

void expect_matches_direct(const TensorGraph& tensors, const ChunkGraph& chunks) {
  ASSERT_TRUE(check_chunk_graph(chunks).ok()) << check_chunk_graph(chunks).error();
  auto chunked = run_locally(chunks, id_order(chunks));
  ASSERT_TRUE(chunked.ok()) << chunked.error();
  auto direct = evaluate_directly(tensors);
  ASSERT_TRUE(direct.ok()) << direct.error();
  auto diff = max_relative_difference(chunked->result, *direct);
  ASSERT_TRUE(diff.ok()) << diff.error();
  EXPECT_LE(*diff, 1e-9);
}

TEST(OperandGraph, AddThenSumMatchesDirectComputation) {
  const TensorGraph tensors = add_then_sum();
  auto chunks = tile(tensors, {4});
  ASSERT_TRUE(chunks.ok()) << chunks.error();
  // 16 + 16 rand, 16 add, 16 partial sums, a 4-ary tree of 4 + 1.
  EXPECT_EQ(chunks->operands.size(), 16u * 4 + 5);
  expect_matches_direct(tensors, *chunks);
  const ChunkGraph fused = fuse_chains(*chunks);
  expect_matches_direct(tensors, fused);
  auto direct = evaluate_directly(tensors);
  // The sum of 2 * 160000 uniform values is near 160000.
  EXPECT_NEAR(direct->data[0], 160000, 2000);
}

TEST(OperandGraph, FusionMergesAddWithPartialSumButNotRand) {
  auto chunks = tile(add_then_sum(), {4});
  ASSERT_TRUE(chunks.ok());
  const ChunkGraph fused = fuse_chains(*chunks);
  EXPECT_EQ(fused.operands.size(), 16u * 3 + 5);
  int fused_adds = 0;
  for (const ChunkOperand& operand : fused.operands) {
    if (operand.steps.size() == 2) {
      EXPECT_EQ(operand.steps[0].kind, StepKind::Add);
      EXPECT_EQ(operand.steps[1].kind, StepKind::Sum);
      EXPECT_EQ(operand.inputs.size(), 2u);
      EXPECT_TRUE(fused.operands[static_cast<size_t>(operand.inputs[0])].steps[0].kind == StepKind::Rand);
      EXPECT_EQ(operand.depth, 1);
      ++fused_adds;
    } else {
      EXPECT_EQ(operand.steps.size(), 1u) << operand.label;
    }
  }
  EXPECT_EQ(fused_adds, 16);
}

TEST(OperandGraph, FusionMergesAWholeSingleChainIntoOneOperand) {
  TensorGraphBuilder b;
  const int x = must(b.rand(3, {6, 4}, {6, 4}));
  const int t = must(b.transpose(x));
  const int m = must(b.scalar(StepKind::ScalarMul, t, 2.5));
  const TensorGraph tensors = std::move(b).finish(must(b.reduce(TensorOp::Mean, m, 1)));
  auto chunks = tile(tensors);
  ASSERT_TRUE(chunks.ok());
  const ChunkGraph fused = fuse_chains(*chunks);
  ASSERT_EQ(fused.operands.size(), 1u);
  std::vector<StepKind> kinds;
  for (const OperandStep& step : fused.operands[0].steps) kinds.push_back(step.kind);
  EXPECT_EQ(kinds, (std::vector<StepKind>{StepKind::Rand, StepKind::Transpose, StepKind::ScalarMul,
                                          StepKind::Sum, StepKind::ScalarDiv}));
  EXPECT_EQ(fused.operands[0].shape, (Shape{4}));
  EXPECT_EQ(fused.operands[0].label, "fuse(t0.rand[0,0],+3,t3.mean[0])");
  expect_matches_direct(tensors, fused);
}

TEST(OperandGraph, SquareOfOneTensorKeepsBothInputs) {
  TensorGraphBuilder b;
  const int x = must(b.rand(4, {10}, {5}));
  const TensorGraph tensors = std::move(b).finish(must(b.binary(StepKind::Mul, x, x)));
  auto chunks = tile(tensors);
  ASSERT_TRUE(chunks.ok());
  const ChunkGraph fused = fuse_chains(*chunks);
  ASSERT_EQ(fused.operands.size(), 4u);  // x*x has two inputs, so nothing fuses
  EXPECT_EQ(fused.operands[2].inputs, (std::vector<int64_t>{0, 0}));
  expect_matches_direct(tensors, fused);
}

// A chain of matmuls over >= 100 chunk operands, with ragged chunks and transpose.
TEST(OperandGraph, MatmulChainMatchesDirectComputation) {
  TensorGraphBuilder b;
  const int x = must(b.rand(11, {120, 90}, {40, 30}));
  const int y = must(b.rand(12, {90, 70}, {30, 25}));
  const int z = must(b.rand(13, {50, 70}, {20, 25}));
  const int xy = must(b.matmul(x, y));
  const int xyzt = must(b.matmul(xy, must(b.transpose(z))));
  const TensorGraph tensors = std::move(b).finish(must(b.scalar(StepKind::ScalarSub, xyzt, 1.0)));
  auto chunks = tile(tensors, {2});
  ASSERT_TRUE(chunks.ok()) << chunks.error();
  const ChunkGraph fused = fuse_chains(*chunks);
  EXPECT_GE(fused.operands.size(), 100u);
  expect_matches_direct(tensors, fused);
}

TEST(OperandGraph, SumAndMeanAlongAnAxisMatchDirectComputation) {
  for (bool mean : {false, true}) {
    for (int axis : {0, 1, -1}) {
      TensorGraphBuilder b;
      const int x = must(b.rand(21, {30, 45}, {7, 10}));
      const int y = must(b.rand(22, {30, 45}, {7, 10}));
      const int d = must(b.binary(StepKind::Div, x, must(b.scalar(StepKind::ScalarAdd, y, 1.0))));
      const TensorGraph tensors =
          std::move(b).finish(must(b.reduce(mean ? TensorOp::Mean : TensorOp::Sum, d, axis)));
      auto chunks = tile(tensors, {3});
      ASSERT_TRUE(chunks.ok()) << chunks.error();
      expect_matches_direct(tensors, fuse_chains(*chunks));
    }
  }
}

TEST(OperandGraph, ExecutorRejectsAnOrderThatRunsAnOperandBeforeItsInput) {
  auto chunks = tile(add_then_sum());
  ASSERT_TRUE(chunks.ok());
  std::vector<int64_t> order = id_order(*chunks);
  std::swap(order.front(), order.back());
  auto run = run_locally(*chunks, order);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.error().find("comes before its input"), std::string::npos) << run.error();
}

}  // namespace
}  // namespace tharsis::operand
