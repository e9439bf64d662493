// The chunk graph (docs/operand_graphs.md): what a submitted tensor
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
  // Comparisons give 1.0 where true, 0.0 where false (NaN compares unequal to all).
  Less = 16,          // x < y (elementwise, numpy broadcasting)
  LessEqual = 17,     // x <= y
  Greater = 18,       // x > y
  GreaterEqual = 19,  // x >= y
  Equal = 20,         // x == y
  NotEqual = 21,      // x != y
  Maximum = 22,       // the larger of x and y (NaN if either is NaN, as numpy.maximum)
  Minimum = 23,       // the smaller of x and y
  ScalarLess = 24,    // x < s
  ScalarLessEqual = 25,
  ScalarGreater = 26,
  ScalarGreaterEqual = 27,
  ScalarEqual = 28,
  ScalarNotEqual = 29,
  ScalarMaximum = 30,  // maximum(x, s)
  ScalarMinimum = 31,
  Full = 32,   // no input: every element the constant s (ones, zeros, full)
  Max = 33,    // largest element over `axis`, or over all axes (NaN if any is NaN)
  Min = 34,    // smallest element over `axis`, or over all axes
  MaxN = 35,   // elementwise maximum of x1 ... xn (tree-reduction node of Max)
  MinN = 36,   // elementwise minimum of x1 ... xn
  Input = 37,  // no input and never run: the chunk is `file`, a .npy the submitter uploaded
};

inline constexpr int kAllAxes = -1;

// "rand", "add", ..., "transpose": the word used in spec files and labels.
std::string_view step_kind_name(StepKind kind);
std::optional<StepKind> step_kind_from_name(std::string_view name);
// How many inputs a step takes; -1 = one or more (AddN, MaxN, MinN).
int step_input_count(StepKind kind);
// x op s steps (ScalarAdd ... ScalarRdiv, ScalarLess ... ScalarMinimum): they carry `scalar`.
bool is_scalar_step(StepKind kind);
// Elementwise steps of two tensors (arithmetic, comparisons, maximum/minimum), which
// broadcast as numpy does.
bool is_elementwise_step(StepKind kind);
// Steps that reduce over `axis` (Sum, Max, Min).
bool is_reduction_step(StepKind kind);

struct OperandStep {
  StepKind kind = StepKind::Add;
  Shape shape;          // this step's output shape
  double scalar = 0;    // Scalar* and Full: the constant s
  int axis = kAllAxes;  // Sum/Max/Min: the axis removed, or kAllAxes
  uint64_t seed = 0;    // Rand: the tensor's seed
  Shape tensor_shape;   // Rand: the whole tensor's shape (global element indices)
  Shape offset;         // Rand: where this chunk starts inside the tensor
  std::string file;     // Input: the chunk's file, "jf_<md5 of its content>"

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
  // A chunk the submitter uploaded (one Input step): it is not run, its output is the file.
  bool is_input() const { return steps.size() == 1 && steps[0].kind == StepKind::Input; }
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

// The contents of uploaded chunks (Input steps) by file name, for running a graph in
// memory (local_executor.h, direct_evaluator.h).
using InputChunks = std::map<std::string, NdArray>;

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
