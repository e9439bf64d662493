#include "lib/operand/local_executor.h"

#include <map>
#include <optional>

#include "lib/operand/kernels.h"

namespace tharsis::operand {

namespace {

// Walks `order`, checking it, and reports each operand run and each output freed, so the
// arithmetic run and the counting-only run share one notion of "staged".
class StagingWalk {
 public:
  explicit StagingWalk(const ChunkGraph& graph) : graph_(graph), successors_(successors_of(graph)) {
    remaining_.resize(graph.operands.size());
    for (size_t i = 0; i < remaining_.size(); ++i) remaining_[i] = successors_[i].size();
  }

  template <class RunFn, class FreeFn>
  Status walk(const std::vector<int64_t>& order, RunFn run, FreeFn free) {
    const size_t n = graph_.operands.size();
    if (order.size() != n) {
      return make_error("execution order lists " + std::to_string(order.size()) +
                        " operands, the graph has " + std::to_string(n));
    }
    std::vector<bool> done(n, false);
    int64_t staged = 0;
    for (int64_t id : order) {
      if (id < 0 || static_cast<size_t>(id) >= n || done[static_cast<size_t>(id)]) {
        return make_error("execution order: operand " + std::to_string(id) + " is unknown or listed twice");
      }
      const ChunkOperand& operand = graph_.operands[static_cast<size_t>(id)];
      for (int64_t input : operand.inputs) {
        if (!done[static_cast<size_t>(input)]) {
          return make_error("execution order: operand " + std::to_string(id) + " (" + operand.label +
                            ") comes before its input " + std::to_string(input));
        }
      }
      if (Status ok = run(operand); !ok) return ok;
      done[static_cast<size_t>(id)] = true;
      ++staged;
      peak_ = std::max(peak_, staged);
      // An input is freed once its last successor has run (FREED on the server).
      for (int64_t input : predecessors_of(operand)) {
        if (--remaining_[static_cast<size_t>(input)] == 0) {
          free(input);
          --staged;
        }
      }
    }
    return Status::success();
  }

  int64_t peak() const { return peak_; }

 private:
  const ChunkGraph& graph_;
  std::vector<std::vector<int64_t>> successors_;
  std::vector<size_t> remaining_;
  int64_t peak_ = 0;
};

Result<NdArray> uploaded_chunk(const ChunkOperand& operand, const InputChunks& uploaded) {
  const std::string& file = operand.steps[0].file;
  auto found = uploaded.find(file);
  if (found == uploaded.end()) return make_error("uploaded chunk " + file + " is not given");
  if (found->second.shape != operand.shape) {
    return make_error("uploaded chunk " + file + " has shape " + shape_text(found->second.shape) +
                      ", expected " + shape_text(operand.shape));
  }
  return found->second;
}

}  // namespace

Result<LocalRun> run_locally(const ChunkGraph& graph, const std::vector<int64_t>& order,
                             const InputChunks& uploaded) {
  std::map<int64_t, NdArray> staged;
  StagingWalk walk(graph);
  auto run = [&](const ChunkOperand& operand) -> Status {
    std::vector<const NdArray*> inputs;
    for (int64_t input : operand.inputs) inputs.push_back(&staged.at(input));
    auto out = operand.is_input() ? uploaded_chunk(operand, uploaded) : run_steps(operand.steps, inputs);
    if (!out.ok())
      return make_error("operand " + std::to_string(operand.id) + " (" + operand.label + "): " + out.error());
    staged[operand.id] = std::move(*out);
    return Status::success();
  };
  auto free = [&](int64_t id) { staged.erase(id); };
  if (Status ok = walk.walk(order, run, free); !ok) return Error{ok.error()};
  auto result = assemble_result(graph, staged);
  if (!result.ok()) return Error{result.error()};
  return LocalRun{std::move(*result), walk.peak()};
}

Result<int64_t> peak_staged_chunks(const ChunkGraph& graph, const std::vector<int64_t>& order) {
  StagingWalk walk(graph);
  auto run = [](const ChunkOperand&) { return Status::success(); };
  auto free = [](int64_t) {};
  if (Status ok = walk.walk(order, run, free); !ok) return Error{ok.error()};
  return walk.peak();
}

std::vector<int64_t> id_order(const ChunkGraph& graph) {
  std::vector<int64_t> order;
  for (const ChunkOperand& operand : graph.operands) order.push_back(operand.id);
  return order;
}

}  // namespace tharsis::operand
