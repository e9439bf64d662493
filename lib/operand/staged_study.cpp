#include "lib/operand/staged_study.h"

#include "lib/operand/execution_order.h"
#include "lib/operand/fusion.h"
#include "lib/operand/local_executor.h"
#include "lib/operand/tiling.h"

namespace tharsis::operand {

Result<StagedStudyResult> run_staged_study(const StagedStudyConfig& config) {
  if (config.leaves < 2 || config.fan_in < 2 || config.workers < 1) {
    return make_error("staged study: needs leaves >= 2, fan-in >= 2 and workers >= 1");
  }
  // rand(...).sum() over `leaves` one-element chunks: after fusion each leaf is one
  // rand+partial-sum operand and the rest is the AddN tree.
  TensorGraphBuilder builder;
  auto leaves = builder.rand(1, {config.leaves}, {1});
  if (!leaves.ok()) return Error{leaves.error()};
  auto sum = builder.reduce_all(TensorOp::Sum, *leaves);
  if (!sum.ok()) return Error{sum.error()};
  auto chunks = tile(std::move(builder).finish(*sum), {config.fan_in});
  if (!chunks.ok()) return Error{chunks.error()};
  const ChunkGraph graph = fuse_chains(*chunks);
  auto depth_first = peak_staged_chunks(graph, execution_order(graph, OrderPolicy::Priority, config.workers));
  auto breadth_first =
      peak_staged_chunks(graph, execution_order(graph, OrderPolicy::BreadthFirst, config.workers));
  if (!depth_first.ok()) return Error{depth_first.error()};
  if (!breadth_first.ok()) return Error{breadth_first.error()};
  return StagedStudyResult{static_cast<int64_t>(graph.operands.size()), *depth_first, *breadth_first};
}

}  // namespace tharsis::operand
