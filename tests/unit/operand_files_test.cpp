// Chunk files (.npy) and operand spec files: round trips, and bad input gives a clear
// error instead of a crash.
#include <gtest/gtest.h>

#include "lib/operand/kernels.h"
#include "lib/operand/npy.h"
#include "lib/operand/operand_spec.h"

namespace tharsis::operand {
namespace {

OperandStep step(StepKind kind, Shape shape, double scalar = 0, int axis = kAllAxes) {
  OperandStep out;
  out.kind = kind;
  out.shape = std::move(shape);
  out.scalar = scalar;
  out.axis = axis;
  return out;
}

OperandStep rand_step(uint64_t seed, Shape shape, Shape tensor, Shape offset) {
  OperandStep out = step(StepKind::Rand, std::move(shape));
  out.seed = seed;
  out.tensor_shape = std::move(tensor);
  out.offset = std::move(offset);
  return out;
}

TEST(OperandNpy, RoundTripsShapesIncludingScalarsAndVectors) {
  for (const NdArray& array : {NdArray{{}, {3.5}}, NdArray{{3}, {1, -2, 1e300}},
                               NdArray{{2, 3}, {1, 2, 3, 4, 5, 6}}, NdArray{{0, 4}, {}}}) {
    const std::string bytes = encode_npy(array);
    EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
    const size_t header = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
    EXPECT_EQ((10 + header) % 64, 0u);  // data aligned as NumPy writes it
    auto back = decode_npy(bytes, "test");
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(*back, array);
  }
}

TEST(OperandNpy, HeaderIsWhatNumpyWrites) {
  const std::string bytes = encode_npy(NdArray{{7}, std::vector<double>(7, 0.0)});
  EXPECT_NE(bytes.find("{'descr': '<f8', 'fortran_order': False, 'shape': (7,), }"), std::string::npos);
}

TEST(OperandNpy, RejectsOtherDtypesFortranOrderAndTruncatedData) {
  std::string good = encode_npy(NdArray{{2, 2}, {1, 2, 3, 4}});
  std::string int_dtype = good;
  int_dtype.replace(int_dtype.find("<f8"), 3, "<i8");
  std::string fortran = good;
  fortran.replace(fortran.find("False"), 5, "True ");
  const std::string truncated = good.substr(0, good.size() - 3);
  std::string huge_shape = good;
  huge_shape.replace(huge_shape.find("(2, 2)"), 6, "(99999999999, 99999999999, 99999)");
  struct Case {
    std::string bytes;
    std::string message;
  };
  for (const Case& c :
       {Case{int_dtype, "dtype must be '<f8'"}, Case{fortran, "C order"}, Case{truncated, "does not match"},
        Case{huge_shape, "does not match"}, Case{"not npy", "no \\x93NUMPY magic"}}) {
    auto decoded = decode_npy(c.bytes, "chunk.npy");
    ASSERT_FALSE(decoded.ok());
    EXPECT_NE(decoded.error().find(c.message), std::string::npos) << decoded.error();
    EXPECT_EQ(decoded.error().rfind("chunk.npy", 0), 0u) << decoded.error();
  }
}

TEST(OperandSpec, FormatsAndParsesEveryStepKind) {
  OperandSpec spec;
  spec.inputs = {"in0", "in1"};
  OperandStep rand = rand_step(18446744073709551615ull, {2, 3}, {4, 6}, {2, 3});
  OperandStep add = step(StepKind::Add, {2, 3});
  OperandStep scalar = step(StepKind::ScalarRdiv, {2, 3}, 0.1);
  OperandStep axis_sum = step(StepKind::Sum, {3}, 0, 0);
  OperandStep all_sum = step(StepKind::Sum, {});
  spec.steps = {add, scalar, axis_sum, all_sum};
  auto back = parse_operand_spec(format_operand_spec(spec));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(*back, spec);
  auto step = parse_step(format_step(rand));
  ASSERT_TRUE(step.ok()) << step.error();
  EXPECT_EQ(*step, rand);
  EXPECT_EQ(format_step(all_sum), "sum shape=() axis=all");
}

TEST(OperandSpec, BadSpecsNameTheLineAndProblem) {
  const std::string header = "tharsis-operand-spec 1\n";
  struct Case {
    std::string text;
    std::string message;
  };
  for (const Case& c : {
           Case{"", "spec is empty"},
           Case{"tharsis-operand-spec 9\n", "line 1: expected 'tharsis-operand-spec 1'"},
           Case{header + "input ../etc/passwd\nstep transpose shape=(1)\noutput out\n",
                "not a plain file name"},
           Case{header + "input in0\nstep frobnicate shape=(1)\noutput out\n",
                "unknown operation 'frobnicate'"},
           Case{header + "input in0\nstep transpose\noutput out\n", "missing shape="},
           Case{header + "input in0\nstep sum shape=() axis=x\noutput out\n", "expected 'all' or an axis"},
           Case{header + "input in0\nstep transpose shape=(1) seed=3\noutput out\n", "unknown key 'seed'"},
           Case{header + "input in0\nstep add shape=(1)\noutput out\n", "takes 2 inputs, spec lists 1"},
           Case{header + "input in0\nstep transpose shape=(99999,99999,99999)\noutput out\n",
                "exceeds the limits"},
           Case{header + "input in0\nstep transpose shape=(2)\nstep add shape=(2)\noutput out\n",
                "cannot follow another step"},
           Case{header + "input in0\nstep transpose shape=(2)\n", "no output line"},
       }) {
    auto parsed = parse_operand_spec(c.text);
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_NE(parsed.error().find(c.message), std::string::npos) << parsed.error();
  }
}

TEST(OperandKernels, ComputeHandCheckedValues) {
  const NdArray a{{2, 2}, {1, 2, 3, 4}};
  const NdArray b{{2, 2}, {5, 6, 7, 8}};
  auto product = run_step(step(StepKind::MatMul, {2, 2}), {&a, &b});
  ASSERT_TRUE(product.ok());
  EXPECT_EQ(product->data, (std::vector<double>{19, 22, 43, 50}));
  auto rows = run_step(step(StepKind::Sum, {2}, 0, 1), {&a});
  EXPECT_EQ(rows->data, (std::vector<double>{3, 7}));
  auto columns = run_step(step(StepKind::Sum, {2}, 0, 0), {&a});
  EXPECT_EQ(columns->data, (std::vector<double>{4, 6}));
  auto transposed = run_step(step(StepKind::Transpose, {2, 2}), {&a});
  EXPECT_EQ(transposed->data, (std::vector<double>{1, 3, 2, 4}));
  auto rsub = run_step(step(StepKind::ScalarRsub, {2, 2}, 10), {&a});
  EXPECT_EQ(rsub->data, (std::vector<double>{9, 8, 7, 6}));
  auto n = run_step(step(StepKind::AddN, {2, 2}), {&a, &b, &a});
  EXPECT_EQ(n->data, (std::vector<double>{7, 10, 13, 16}));
}

TEST(OperandKernels, RandomChunkEqualsTheSameRegionOfTheWholeTensor) {
  auto whole = run_step(rand_step(42, {5, 7}, {5, 7}, {0, 0}), {});
  auto part = run_step(rand_step(42, {2, 3}, {5, 7}, {3, 4}), {});
  ASSERT_TRUE(whole.ok() && part.ok());
  for (int64_t r = 0; r < 2; ++r) {
    for (int64_t c = 0; c < 3; ++c) {
      EXPECT_EQ(part->data[static_cast<size_t>(r * 3 + c)],
                whole->data[static_cast<size_t>((r + 3) * 7 + c + 4)]);
    }
  }
  auto other_seed = run_step(rand_step(43, {5, 7}, {5, 7}, {0, 0}), {});
  EXPECT_NE(other_seed->data, whole->data);
  for (double v : whole->data) EXPECT_TRUE(v >= 0 && v < 1);
}

TEST(OperandKernels, MismatchedInputsAreErrorsNotCrashes) {
  const NdArray a{{2, 2}, {1, 2, 3, 4}};
  const NdArray c{{3}, {1, 2, 3}};
  auto add = run_step(step(StepKind::Add, {2, 2}), {&a, &c});
  ASSERT_FALSE(add.ok());
  EXPECT_NE(add.error().find("input shapes (2,2) and (3) do not broadcast"), std::string::npos)
      << add.error();
  auto mm = run_step(step(StepKind::MatMul, {2, 2}), {&a, &c});
  ASSERT_FALSE(mm.ok());
  EXPECT_NE(mm.error().find("needs (m,k) x (k,n)"), std::string::npos) << mm.error();
  auto declared = run_step(step(StepKind::Transpose, {4}), {&a});
  ASSERT_FALSE(declared.ok());
  EXPECT_NE(declared.error().find("differs from declared (4)"), std::string::npos) << declared.error();
  auto outside = run_step(rand_step(1, {2}, {3}, {2}), {});
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.error().find("outside tensor"), std::string::npos) << outside.error();
}

}  // namespace
}  // namespace tharsis::operand
