// The graph language's extensions for array clients (issue 15): comparisons, maximum and
// minimum, max/min reductions, ones/zeros/full, uploaded input tensors and numpy
// broadcasting. Expected values were computed with numpy; each case runs both the chunked
// graph (local executor) and the direct evaluator.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "lib/operand/direct_evaluator.h"
#include "lib/operand/fusion.h"
#include "lib/operand/graph_compiler.h"
#include "lib/operand/kernels.h"
#include "lib/operand/local_executor.h"
#include "lib/operand/npy.h"
#include "lib/operand/operand_spec.h"

namespace tharsis::operand {
namespace {

std::string chunk_name(int k) {
  char hex[3];
  std::snprintf(hex, sizeof hex, "%02x", k);
  return "jf_" + std::string(30, '0') + hex;
}

// X = [[1.5,-2,3],[0,7,-1]] in (1,2) chunks, Y = [2,-2,3] in (2,) chunks, Z = [[10],[-1]]
// in (1,1) chunks, W = [[1,nan],[3,4]] in (1,1) chunks; files named chunk_name(0..11).
const double kNan = std::nan("");
const InputChunks kUploads = {
    {chunk_name(0), {{1, 2}, {1.5, -2}}}, {chunk_name(1), {{1, 1}, {3}}},  {chunk_name(2), {{1, 2}, {0, 7}}},
    {chunk_name(3), {{1, 1}, {-1}}},      {chunk_name(4), {{2}, {2, -2}}}, {chunk_name(5), {{1}, {3}}},
    {chunk_name(6), {{1, 1}, {10}}},      {chunk_name(7), {{1, 1}, {-1}}}, {chunk_name(8), {{1, 1}, {1}}},
    {chunk_name(9), {{1, 1}, {kNan}}},    {chunk_name(10), {{1, 1}, {3}}}, {chunk_name(11), {{1, 1}, {4}}},
};

std::string files(int first, int count) {
  std::string text = "files=(";
  for (int k = first; k < first + count; ++k) text += "\"" + chunk_name(k) + "\",";
  return text + ")";
}

const std::string kInputs = "X = input(shape=(2,3), chunk=(1,2), " + files(0, 4) +
                            ")\n"
                            "Y = input(shape=(3,), chunk=(2,), " +
                            files(4, 2) +
                            ")\n"
                            "Z = input(shape=(2,1), chunk=(1,1), " +
                            files(6, 2) +
                            ")\n"
                            "W = input(shape=(2,2), chunk=(1,1), " +
                            files(8, 4) + ")\n";

// Equal as numpy prints them: NaN equals NaN, otherwise within 1e-12 relative.
void expect_values(const NdArray& got, const Shape& shape, const std::vector<double>& expected,
                   const std::string& what) {
  ASSERT_EQ(got.shape, shape) << what;
  ASSERT_EQ(got.data.size(), expected.size()) << what;
  for (size_t i = 0; i < expected.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(got.data[i])) << what << " [" << i << "] = " << got.data[i];
    } else {
      EXPECT_NEAR(got.data[i], expected[i], 1e-12 * std::max(1.0, std::fabs(expected[i])))
          << what << " [" << i << "]";
    }
  }
}

// Runs `result` over the inputs chunked (fan-in 2, so trees have levels) and directly.
void expect_result(const std::string& result, const Shape& shape, const std::vector<double>& expected) {
  auto compiled = compile_graph(kInputs + "result = " + result, {2});
  ASSERT_TRUE(compiled.ok()) << result << ": " << compiled.error();
  auto chunked = run_locally(compiled->chunks, id_order(compiled->chunks), kUploads);
  ASSERT_TRUE(chunked.ok()) << result << ": " << chunked.error();
  expect_values(chunked->result, shape, expected, result + " (chunked)");
  auto direct = evaluate_directly(compiled->tensors, kUploads);
  ASSERT_TRUE(direct.ok()) << result << ": " << direct.error();
  expect_values(*direct, shape, expected, result + " (direct)");
}

TEST(OperandExtensions, ComparisonsGiveOneOrZeroWithBroadcasting) {
  expect_result("X < Y", {2, 3}, {1, 0, 0, 1, 0, 1});
  expect_result("X <= Y", {2, 3}, {1, 1, 1, 1, 0, 1});
  expect_result("X > Y", {2, 3}, {0, 0, 0, 0, 1, 0});
  expect_result("X >= Y", {2, 3}, {0, 1, 1, 0, 1, 0});
  expect_result("X == Y", {2, 3}, {0, 1, 1, 0, 0, 0});
  expect_result("X != Y", {2, 3}, {1, 0, 0, 1, 1, 1});
  expect_result("greater_equal(X, Y)", {2, 3}, {0, 1, 1, 0, 1, 0});
}

TEST(OperandExtensions, ComparisonsWithANumberOnEitherSide) {
  expect_result("2 < X", {2, 3}, {0, 0, 1, 0, 1, 0});
  expect_result("X >= 0", {2, 3}, {1, 0, 1, 1, 1, 0});
  expect_result("(X > 0).mean(axis=0)", {3}, {0.5, 0.5, 0.5});
  expect_result("X + (1 < 2)", {2, 3}, {2.5, -1, 4, 1, 8, 0});  // a folded comparison is 1
}

TEST(OperandExtensions, MaximumAndMinimumBroadcastAndTakeNumbers) {
  expect_result("maximum(X, Y)", {2, 3}, {2, -2, 3, 2, 7, 3});
  expect_result("minimum(X, Z)", {2, 3}, {1.5, -2, 3, -1, -1, -1});
  expect_result("maximum(X, 0.5)", {2, 3}, {1.5, 0.5, 3, 0.5, 7, 0.5});
  expect_result("minimum(1, X)", {2, 3}, {1, -2, 1, 0, 1, -1});
}

TEST(OperandExtensions, BroadcastingFollowsNumpy) {
  expect_result("X + Z", {2, 3}, {11.5, 8, 13, -1, 6, -2});
  expect_result("Z * Y", {2, 3}, {20, -20, 30, -2, 2, -3});  // (2,1) * (3,) -> (2,3)
  expect_result("X - X.mean(axis=0)", {2, 3}, {0.75, -4.5, 2, -0.75, 4.5, -2});
}

TEST(OperandExtensions, MaxAndMinReduceAlongAnAxisOrAll) {
  expect_result("X.max(axis=0)", {3}, {1.5, 7, 3});
  expect_result("min(X, 1)", {2}, {-2, -1});
  expect_result("X.max()", {}, {7});
  expect_result("(X * Z).min()", {}, {-20});
}

TEST(OperandExtensions, NanPropagatesThroughMaxAndCompareUnequal) {
  expect_result("W.max(axis=0)", {2}, {3, kNan});
  expect_result("maximum(W, 2)", {2, 2}, {2, kNan, 3, 4});
  expect_result("W == W", {2, 2}, {1, 0, 1, 1});
  expect_result("W != W", {2, 2}, {0, 1, 0, 0});
  expect_result("W.min()", {}, {kNan});
}

TEST(OperandExtensions, OnesZerosAndFull) {
  expect_result("ones(shape=(3,), chunk=(2,)) - Y", {3}, {-1, 3, -2});
  expect_result("zeros(shape=(2,1), chunk=(1,1)) + Z", {2, 1}, {10, -1});
  expect_result("full(value=2.5, shape=(2,3), chunk=(1,2)) + X", {2, 3}, {4, 0.5, 5.5, 2.5, 9.5, 1.5});
}

TEST(OperandExtensions, AnUploadedResultIsReturnedAsItIs) {
  expect_result("X", {2, 3}, {1.5, -2, 3, 0, 7, -1});
  expect_result("X.T", {3, 2}, {1.5, 0, -2, 7, 3, -1});
}

TEST(OperandExtensions, JsonFormBuildsTheSameGraphAsText) {
  const std::string json =
      R"({"tensors": {"X": {"op": "input", "shape": [2, 3], "chunk": [1, 2], "files": [")" + chunk_name(0) +
      R"(", ")" + chunk_name(1) + R"(", ")" + chunk_name(2) + R"(", ")" + chunk_name(3) + R"("]}},
      "result": {"op": "max", "axis": 0, "args": [{"op": "less_equal", "args": ["X", {"op": "full", "value": 2,
                 "shape": [2, 3], "chunk": [1, 2]}]}]}})";
  auto from_json = compile_graph(json);
  ASSERT_TRUE(from_json.ok()) << from_json.error();
  auto from_text =
      compile_graph(kInputs + "result = (X <= full(value=2, shape=(2,3), chunk=(1,2))).max(axis=0)");
  ASSERT_TRUE(from_text.ok()) << from_text.error();
  EXPECT_EQ(from_json->chunks, from_text->chunks);
}

TEST(OperandExtensions, UploadedChunksAreFilesNotJobs) {
  auto compiled = compile_graph(kInputs + "result = (X * 2).sum(axis=1)");
  ASSERT_TRUE(compiled.ok()) << compiled.error();
  int uploads = 0;
  for (const ChunkOperand& o : compiled->chunks.operands) {
    if (!o.is_input()) continue;
    ++uploads;
    EXPECT_TRUE(o.is_source());
    // X * 2 has each X chunk as its only input, yet is not fused into it.
    EXPECT_EQ(o.steps.size(), 1u) << o.label;
  }
  EXPECT_EQ(uploads, 4);
  auto missing = run_locally(compiled->chunks, id_order(compiled->chunks), {});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("uploaded chunk " + chunk_name(0) + " is not given"), std::string::npos);
}

TEST(OperandExtensions, NewStepsRoundTripThroughTheSpecAndInputStepsAreRefused) {
  for (const std::string& line :
       {std::string("lt shape=(2,2)"), std::string("maximum shape=(3)"),
        std::string("ge_scalar shape=(2) value=0.5"), std::string("minimum_scalar shape=() value=-1"),
        std::string("full shape=(2,2) value=2.5"), std::string("max shape=(2) axis=1"),
        std::string("min shape=() axis=all"), std::string("maximum_n shape=(4)"),
        std::string("minimum_n shape=(4)")}) {
    auto step = parse_step(line);
    ASSERT_TRUE(step.ok()) << line << ": " << step.error();
    EXPECT_EQ(format_step(*step), line);
  }
  auto input = parse_step("input shape=(2) file=" + chunk_name(1));
  ASSERT_FALSE(input.ok());
  EXPECT_NE(input.error().find("not a step a job runs"), std::string::npos);
}

TEST(OperandExtensions, BroadcastKernelMatchesNumpyForThreeAxes) {
  // a: (2,1,3) = 0..5, b: (4,1) = 10, 20, 30, 40; numpy: a * b has shape (2,4,3).
  NdArray a{{2, 1, 3}, {0, 1, 2, 3, 4, 5}};
  NdArray b{{4, 1}, {10, 20, 30, 40}};
  OperandStep step;
  step.kind = StepKind::Mul;
  step.shape = {2, 4, 3};
  auto out = run_step(step, {&a, &b});
  ASSERT_TRUE(out.ok()) << out.error();
  expect_values(*out, {2, 4, 3}, {0,  10, 20, 0,  20, 40,  0,  30,  60,  0,   40,  80,
                                  30, 40, 50, 60, 80, 100, 90, 120, 150, 120, 160, 200},
                "a * b");
  NdArray c{{3, 2}, {1, 2, 3, 4, 5, 6}};
  step.shape = {3, 2};
  auto bad = run_step(step, {&a, &c});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("do not broadcast"), std::string::npos);
}

TEST(OperandExtensions, LargerChunkedGraphsMatchTheDirectComputation) {
  const std::string text = R"(
    a = rand(seed=11, shape=(30, 20), chunk=(7, 6))
    r = rand(seed=12, shape=(20,), chunk=(6,))
    c = rand(seed=13, shape=(30, 1), chunk=(7, 1))
    k = rand(seed=14, shape=(4, 30, 20), chunk=(3, 7, 6))
    m = maximum(a - r, c) * (a > 0.5) + minimum(0.25, a) - (c <= r)
    n = (k * m + full(value=3, shape=(20,), chunk=(6,))).max(axis=0)
    result = n.min(axis=1).sum() + m.max(axis=1).mean() - (k != k).sum() + k.min(axis=2).max() + (m @ m.T).max()
  )";
  for (int fan_in : {2, 3, 4}) {
    auto compiled = compile_graph(text, {fan_in});
    ASSERT_TRUE(compiled.ok()) << compiled.error();
    auto chunked = run_locally(compiled->chunks, id_order(compiled->chunks));
    ASSERT_TRUE(chunked.ok()) << chunked.error();
    auto direct = evaluate_directly(compiled->tensors);
    ASSERT_TRUE(direct.ok()) << direct.error();
    EXPECT_LE(*max_relative_difference(chunked->result, *direct), 1e-12) << "fan-in " << fan_in;
  }
}

TEST(OperandExtensions, ErrorsSayWhatIsWrong) {
  struct Case {
    std::string text;
    std::string message;
  };
  const std::string x = "x = rand(seed=1, shape=(4,6), chunk=(2,3))\n";
  for (const Case& c : {
           Case{x + "result = x + rand(seed=2, shape=(4,), chunk=(2,))", "add: shapes differ: (4,6) and (4)"},
           Case{x + "result = x * rand(seed=2, shape=(6,), chunk=(2,))", "chunkings differ"},
           Case{x + "result = x < 1 < 2", "comparisons do not chain"},
           Case{x + "result = x ! 2", "unexpected character '!'"},
           Case{"result = input(shape=(4,), chunk=(2,), files=(\"" + chunk_name(1) + "\"))",
                "2 chunks, but 1 files are given"},
           Case{"result = input(shape=(2,), files=(\"../etc/passwd\"))", "is not an uploaded chunk name"},
           Case{"result = input(shape=(2,), files=(\"jf_" + std::string(32, 'A') + "\"))",
                "is not an uploaded chunk name"},
           Case{"result = input(shape=(2,))", "input: needs files="},
           Case{"result = input(shape=(2,), files=(1, 2))", "expected a quoted file name"},
           Case{"result = full(shape=(2,))", "full: needs value="},
           Case{"result = ones(shape=(2,), seed=3)", "ones: unknown argument 'seed'"},
           Case{x + "result = x.max(axis=2)", "max: axis 2 is out of range for shape (4,6)"},
           Case{"result = input(shape=(2,), files=(\"jf_1)", "a quoted name is not closed"},
           Case{R"({"result": {"op": "input", "shape": [2], "files": "jf_x"}})",
                "result.files: expected an array of file names"},
           Case{R"({"result": {"op": "input", "shape": [2], "files": [3]}})",
                "result.files[0]: expected a string"},
       }) {
    auto compiled = compile_graph(c.text);
    ASSERT_FALSE(compiled.ok()) << c.text;
    EXPECT_NE(compiled.error().find(c.message), std::string::npos) << "got: " << compiled.error();
  }
}

TEST(OperandExtensions, NpyShapeIsReadFromTheHeaderAndTheSizeChecked) {
  const std::string dir = ::testing::TempDir() + "/npy_shape";
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(write_npy(dir + "/a.npy", NdArray{{2, 3}, {1, 2, 3, 4, 5, 6}}).ok());
  auto shape = read_npy_shape(dir + "/a.npy");
  ASSERT_TRUE(shape.ok()) << shape.error();
  EXPECT_EQ(*shape, (Shape{2, 3}));
  std::filesystem::resize_file(dir + "/a.npy", std::filesystem::file_size(dir + "/a.npy") - 8);
  auto cut = read_npy_shape(dir + "/a.npy");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().find("does not match"), std::string::npos);
  EXPECT_FALSE(read_npy_shape(dir + "/missing.npy").ok());
}

}  // namespace
}  // namespace tharsis::operand
