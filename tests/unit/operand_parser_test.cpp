// The submission forms (issue 6): the expression language and its JSON form build the
// same graphs, and bad submissions get messages that say where and what.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>

#include "lib/json_reader.h"
#include "lib/operand/direct_evaluator.h"
#include "lib/operand/graph_compiler.h"
#include "lib/operand/local_executor.h"

namespace tharsis::operand {
namespace {

const char* kSeedExample =
    "a = rand(seed=1, shape=(400,400), chunk=(100,100)); b = rand(seed=2, shape=(400,400), chunk=(100,100)); "
    "result = (a + b).sum()";

double chunked_vs_direct(const std::string& text) {
  auto compiled = compile_graph(text);
  EXPECT_TRUE(compiled.ok()) << compiled.error();
  if (!compiled.ok()) return 1;
  auto chunked = run_locally(compiled->chunks, id_order(compiled->chunks));
  EXPECT_TRUE(chunked.ok()) << chunked.error();
  auto direct = evaluate_directly(compiled->tensors);
  EXPECT_TRUE(direct.ok()) << direct.error();
  auto diff = max_relative_difference(chunked->result, *direct);
  EXPECT_TRUE(diff.ok()) << diff.error();
  return diff.ok() ? *diff : 1;
}

std::string error_of(const std::string& text) {
  auto compiled = compile_graph(text);
  EXPECT_FALSE(compiled.ok()) << text;
  return compiled.ok() ? "" : compiled.error();
}

TEST(OperandParser, SeedExampleCompilesToTheFusedGraph) {
  auto compiled = compile_graph(kSeedExample);
  ASSERT_TRUE(compiled.ok()) << compiled.error();
  EXPECT_EQ(compiled->chunks.operands.size(), 16u * 3 + 5);
  EXPECT_TRUE(compiled->chunks.result_shape.empty());
  EXPECT_LE(chunked_vs_direct(kSeedExample), 1e-9);
}

TEST(OperandParser, JsonFormBuildsTheSameGraph) {
  const std::string json = R"({
    "tensors": {"a": {"op": "rand", "seed": 1, "shape": [400, 400], "chunk": [100, 100]},
                "b": {"op": "rand", "seed": 2, "shape": [400, 400], "chunk": [100, 100]}},
    "result": {"op": "sum", "args": [{"op": "add", "args": ["a", "b"]}]}})";
  auto from_json = compile_graph(json);
  ASSERT_TRUE(from_json.ok()) << from_json.error();
  auto from_text = compile_graph(kSeedExample);
  ASSERT_TRUE(from_text.ok());
  EXPECT_EQ(from_json->chunks, from_text->chunks);
}

TEST(OperandParser, EveryOperationMatchesTheDirectComputation) {
  const std::string text = R"(
    # comments and newlines separate statements; newlines inside parentheses do not
    x = rand(seed=5, shape=(60, 40), chunk=(25, 15))
    y = rand(seed=6, shape=(40, 60),
             chunk=(15, 25))
    z = (2 * x - 1) / (y.T + 0.5) * 3 - x / 4
    w = -(1 - z) + 10 / (x + 1)
    m = (w @ y).mean(axis=0) + sum(x.dot(y), 0) - matmul(x, y).sum(axis=-2) * 0.5
    v = rand(seed=7, shape=(50,), chunk=(7,))
    result = m / mean(w) + transpose(w).mean(1).sum() * (2 + 3) - v.sum(axis=0)
  )";
  EXPECT_LE(chunked_vs_direct(text), 1e-9);
}

TEST(OperandParser, ThreeDimensionalTensorsMatchTheDirectComputation) {
  const std::string text =
      "c = rand(seed=8, shape=(5,6,7), chunk=(2,4,3))\n"
      "d = c.T * rand(seed=9, shape=(7,6,5), chunk=(3,4,2))\n"
      "result = d.sum(axis=1) - d.mean(axis=-1).T.mean()";
  EXPECT_LE(chunked_vs_direct(text), 1e-9);
}

TEST(OperandParser, LastBareExpressionIsTheResultAndUnusedNamesAreDropped) {
  auto compiled = compile_graph(
      "unused = rand(seed=9, shape=(1000,), chunk=(10,))\n"
      "a = rand(seed=3, shape=(8,), chunk=(4,))\na * a");
  ASSERT_TRUE(compiled.ok()) << compiled.error();
  EXPECT_EQ(compiled->tensors.nodes.size(), 2u);  // rand a and the product
  EXPECT_EQ(compiled->chunks.result_shape, (Shape{8}));
}

TEST(OperandParser, OperandLabelsAreUniqueSoTheyCanNameOperands) {
  auto compiled = compile_graph(
      "a = rand(seed=1, shape=(40,40), chunk=(10,10)); b = a * 2\n"
      "((a + b) + (b + a) @ a).sum() + (a + b).sum()");
  ASSERT_TRUE(compiled.ok()) << compiled.error();
  const Status valid = check_chunk_graph(compiled->chunks);
  EXPECT_TRUE(valid.ok()) << valid.error();
  ChunkGraph broken = compiled->chunks;
  broken.operands[1].label = broken.operands[0].label;
  EXPECT_NE(check_chunk_graph(broken).error().find("label used twice"), std::string::npos);
}

TEST(OperandParser, ErrorsSayWhereAndWhat) {
  struct Case {
    std::string text;
    std::string message;
  };
  const std::string a = "a = rand(seed=1, shape=(4,4), chunk=(2,2))\n";
  for (const Case& c : {
           Case{a + "result = a + b", "line 2, column 14: unknown name 'b' (defined: a)"},
           Case{a + "result = (a + 1", "line 2, column 16: expected ')', found the end"},
           Case{a + "c = rand(seed=2, shape=(4,5), chunk=(2,2))\nresult = a + c",
                "line 3, column 12: add: shapes differ: (4,4) and (4,5)"},
           Case{a + "c = rand(seed=2, shape=(4,4), chunk=(4,4))\nresult = a * c", "chunkings differ"},
           Case{a + "result = a @ rand(seed=2, shape=(3,4), chunk=(3,4))", "matmul: needs (m,k) @ (k,n)"},
           Case{a + "b = a + 1", "no result"},
           Case{"result = 1 + 2", "the result is a number"},
           Case{a + "result = frob(a)", "unknown function 'frob'"},
           Case{a + "result = a $ 2", "line 2, column 12: unexpected character '$'"},
           Case{"result = rand(shape=(4,))", "rand: needs seed="},
           Case{"result = rand(seed=1.5, shape=(4,))", "seed must be a whole number"},
           Case{"result = rand(seed=1, shape=(4,0))", "shape extent must be a whole number"},
           Case{"result = rand(seed=1, shape=(100000,100000))", "elements"},
           Case{"result = rand(seed=1, shape=(1000000,), chunk=(1,))", "chunks, more than"},
           Case{"m = rand(seed=1, shape=(1000,1000), chunk=(5,5))\nresult = m @ m",
                "more than 1000000 chunk operands"},
           Case{a + "result = a.sum(axis=2)", "axis 2 is out of range for shape (4,4)"},
           Case{a + "result = a.sum(colour=2)", "unknown argument 'colour'"},
           Case{a + "result = a b", "line 2, column 12: expected ';' or a new line, found 'b'"},
           Case{"result = " + std::string(5000, '(') + "1" + std::string(5000, ')'), "nested too deeply"},
           Case{R"({"result": {"op": "sum", "args": ["nope"]}})", "result.args[0]: unknown tensor \"nope\""},
           Case{R"({"result": {"op": "rand", "seed": 1, "shape": [4, "x"]}})",
                "result.shape[1]: expected a number"},
           Case{R"({"result": {"args": []}})", "result: needs \"op\""},
           Case{"{\"result\": \n {\"op\": }", "JSON line 2, column 9: expected a value"},
           Case{R"({"result": 1, "result": 2})", "duplicate member"},
       }) {
    EXPECT_NE(error_of(c.text).find(c.message), std::string::npos) << "got: " << error_of(c.text);
  }
}

// Found by fuzz/expression_fuzz.cpp (fuzz/regressions/expression/chunk-count-before-extents):
// a shape of millions of chunks was cut into its list of extents before the chunk limit
// refused it, a vector of up to 2^27 entries (1 GiB) for one line of a submission, seconds
// of work per request. The count is now checked first.
TEST(OperandParser, TooManyChunksAreRefusedBeforeTheirExtentsAreBuilt) {
  const std::string text = "result = rand(seed=1, shape=(134217728,), chunk=(1,))";
  auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < 20; ++i) {
    EXPECT_NE(error_of(text).find("makes 134217728 chunks, more than 100000"), std::string::npos)
        << error_of(text);
  }
  // Building the extents took ~0.5 s a time at least (2 GiB of vector copies); the
  // refusal takes microseconds.
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(2));
  EXPECT_NE(error_of("result = full(value=1, shape=(33333336,), chunk=(3,))").find("makes 11111112 chunks"),
            std::string::npos);
}

// Found with the above: each node holds a copy of its chunking, so 450 additions of a
// 100,000-chunk tensor (under 1 KB of text) held 400 MB before tiling refused the graph.
// The chunks of all nodes together are now bounded as tiling bounds its operands.
TEST(OperandParser, AGraphsChunksInAllAreBounded) {
  std::string sum = "a";
  for (int i = 0; i < 449; ++i) sum += "+a";
  const std::string wide = "a = rand(seed=1, shape=(100000,), chunk=(1,))\nresult = ";
  EXPECT_NE(error_of(wide + sum).find("more than 1000000 chunks in all"), std::string::npos)
      << error_of(wide + sum);
  // Nine additions (ten nodes of 100,000 chunks) are within the bound.
  auto nine = parse_submission(wide + "a+a+a+a+a+a+a+a+a+a");
  EXPECT_TRUE(nine.ok()) << nine.error();
  auto ten = parse_submission(wide + "a+a+a+a+a+a+a+a+a+a+a");
  ASSERT_FALSE(ten.ok());
  EXPECT_NE(ten.error().find("more than 1000000 chunks in all"), std::string::npos) << ten.error();
}

TEST(JsonReader, ReadsNestedDocumentsInOrderAndRejectsTrailingData) {
  auto doc = parse_json(R"( {"b": [1, -2.5e3, true, false, null], "a": {"s": "x\"\u00e9\n"}} )");
  ASSERT_TRUE(doc.ok()) << doc.error();
  ASSERT_EQ(doc->members.size(), 2u);
  EXPECT_EQ(doc->members[0].first, "b");
  EXPECT_EQ(doc->find("b")->items[1].number, -2500);
  EXPECT_TRUE(doc->find("b")->items[2].boolean);
  EXPECT_FALSE(doc->find("b")->items[3].boolean);
  EXPECT_EQ(doc->find("b")->items[4].kind, JsonValue::Kind::Null);
  EXPECT_EQ(doc->find("a")->find("s")->text, "x\"\xc3\xa9\n");
  for (const char* bad : {"{} x", "[1,]", "01", "\"a", "{\"a\" 1}", "[", "tru"}) {
    EXPECT_FALSE(parse_json(bad).ok()) << bad;
  }
  EXPECT_FALSE(parse_json(std::string(100, '[') + std::string(100, ']')).ok());
}

// Found by fuzz/json_reader_fuzz.cpp (fuzz/regressions/json_reader/): 1e999 read as
// infinity, a value no JSON text can spell back.
TEST(JsonReader, NumbersBeyondDoubleRangeAreAnError) {
  for (const char* bad : {"2e888888888888878888888888888888888888888838", "[-1e999]", "{\"seed\": 1e309}"}) {
    auto doc = parse_json(bad);
    ASSERT_FALSE(doc.ok()) << bad;
    EXPECT_NE(doc.error().find("number out of range"), std::string::npos) << doc.error();
  }
  auto largest = parse_json("[1.7976931348623157e308, 1e-400]");
  ASSERT_TRUE(largest.ok()) << largest.error();
  EXPECT_EQ(largest->items[1].number, 0);  // underflow reads as zero
}

TEST(JsonReader, AtFindsMembersAndItemsAndNamesWhatIsMissing) {
  auto doc = parse_json(R"({"list": [10, {"k": "v"}]})");
  ASSERT_TRUE(doc.ok()) << doc.error();
  EXPECT_EQ(doc->at("list").at(0).number, 10);
  EXPECT_EQ(doc->at("list").at(1).at("k").text, "v");
  try {
    (void)doc->at("nope");
    ADD_FAILURE() << "no exception for a missing member";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("'nope'"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)doc->at("list").at(2), std::out_of_range);
  EXPECT_THROW((void)doc->at("list").at("k"), std::out_of_range);  // an array has no members
  EXPECT_THROW((void)doc->at(0), std::out_of_range);               // an object has no items
}

}  // namespace
}  // namespace tharsis::operand
