// The chunk graph (DESIGN §6, seed mars-distributed-execution): what a submitted tensor
// expression becomes before it is run. Each ChunkOperand is one job: it reads the output
// chunks of its predecessors (in `inputs` order, which is also the job's input file order),
// runs its step sequence, and writes one output chunk. Operand ids are indices into
// ChunkGraph::operands and are topological: every input id is smaller than the operand's.
// This header holds only data and pure helpers; building (tiling.h), fusion (fusion.h),
// priority (priority.h) and placement (placement.h) live beside it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lib/operand/nd_array.h"
#include "lib/result.h"

namespace tharsis::operand {

// One elementary chunk computation. The numbers are stable: they may be stored.
enum class StepKind : int {
  Rand = 1,         // no input: uniform [0,1) values keyed by (seed, global element index)
  Add = 2,          // x + y (same shapes, or one of them 0-d and broadcast)
  Sub = 3,          // x - y
  Mul = 4,          // x * y
  Div = 5,          // x / y
  AddN = 6,         // x1 + x2 + ... + xn, summed left to right (tree-reduction node)
  ScalarAdd = 7,    // x + s
  ScalarSub = 8,    // x - s
  ScalarRsub = 9,   // s - x
  ScalarMul = 10,   // x * s
  ScalarDiv = 11,   // x / s
  ScalarRdiv = 12,  // s / x
  Sum = 13,         // sum over `axis`, or over all axes when axis == kAllAxes
  MatMul = 14,      // (m,k) x (k,n) -> (m,n)
  Transpose = 15,   // reverse the axes
};

inline constexpr int kAllAxes = -1;

// "rand", "add", ..., "transpose": the word used in spec files and labels.
std::string_view step_kind_name(StepKind kind);
std::optional<StepKind> step_kind_from_name(std::string_view name);
// How many inputs a step takes; -1 = one or more (AddN).
int step_input_count(StepKind kind);

struct OperandStep {
  StepKind kind = StepKind::Add;
  Shape shape;          // this step's output shape
  double scalar = 0;    // Scalar*: the constant s
  int axis = kAllAxes;  // Sum: the axis removed, or kAllAxes
  uint64_t seed = 0;    // Rand: the tensor's seed
  Shape tensor_shape;   // Rand: the whole tensor's shape (global element indices)
  Shape offset;         // Rand: where this chunk starts inside the tensor

  bool operator==(const OperandStep&) const = default;
};

struct ChunkOperand {
  int64_t id = 0;                  // index in ChunkGraph::operands
  std::vector<OperandStep> steps;  // steps[0] takes `inputs`; each later step takes the
                                   // previous step's output (a fused chain when size > 1)
  std::vector<int64_t> inputs;     // predecessor ids in input order; may repeat (a * a)
  Shape shape;                     // the output chunk's shape (= steps.back().shape)
  int depth = 0;                   // longest path from a source operand; sources are 0
  std::string label;               // unique in the graph, for people and as an operand name:
                                   // "t2.add[1,2]", "fuse(t2.add[0,0],t3.sum[0,0])",
                                   // "fuse(t0.rand[0],+5,t6.mean[0])" (7 fused, the middle counted)

  bool is_source() const { return inputs.empty(); }
  // Bytes of the output chunk's data (8 per element), the "output size" of priority.
  int64_t output_bytes() const { return 8 * element_count(shape); }
  bool operator==(const ChunkOperand&) const = default;
};

// Where one output chunk sits in the graph's result tensor.
struct ResultChunk {
  int64_t operand = 0;
  Shape offset;  // position of the chunk's first element in the result

  bool operator==(const ResultChunk&) const = default;
};

struct ChunkGraph {
  std::vector<ChunkOperand> operands;
  Shape result_shape;
  std::vector<ResultChunk> result_chunks;  // together they tile result_shape exactly

  bool operator==(const ChunkGraph&) const = default;
};

// Distinct successor ids of each operand, ascending (index = operand id).
std::vector<std::vector<int64_t>> successors_of(const ChunkGraph& graph);
// Distinct predecessor ids of one operand, ascending.
std::vector<int64_t> predecessors_of(const ChunkOperand& operand);

// Sets every operand's depth from its inputs (ids must be topological).
void assign_depths(ChunkGraph& graph);

// Checks the graph's invariants: ids equal indices, inputs topological, each operand's
// shape is its last step's shape, labels unique, result chunks name existing operands. The message
// names the first broken operand.
Status check_chunk_graph(const ChunkGraph& graph);

// Puts the result chunks' arrays (outputs keyed by operand id) together into the result
// tensor; a missing or mis-shaped chunk is an error naming the operand.
Result<NdArray> assemble_result(const ChunkGraph& graph, const std::map<int64_t, NdArray>& outputs);

}  // namespace tharsis::operand
