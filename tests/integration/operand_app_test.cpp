// The operand app as a real process (issue 6): every operand of a graph run as its own
// job in its own slot directory, inputs reached through BOINC soft-link files, gives the
// answer of the in-memory run; bad inputs exit non-zero with the reason.
#include <gtest/gtest.h>

#include <filesystem>

#include "lib/operand/direct_evaluator.h"
#include "lib/operand/graph_compiler.h"
#include "lib/operand/local_executor.h"
#include "lib/operand/npy.h"
#include "lib/operand/operand_spec.h"
#include "lib/text_file.h"
#include "tests/support/child_process.h"
#include "tests/support/test_database.h"

namespace tharsis::operand {
namespace {

class OperandAppTest : public ::testing::Test {
 protected:
  // Runs operand_app in `slot`; returns its exit code and leaves its stderr in log().
  int run_app(const std::string& slot) {
    log_ = slot + ".log";
    testing::ChildProcess app("operand_app", {slot}, log_);
    return app.wait(60);
  }
  std::string log() const {
    auto text = read_text_file(log_);
    return text.ok() ? *text : "";
  }
  std::string make_slot(const std::string& name) {
    const std::string slot = dir_.path() + "/" + name;
    std::filesystem::create_directories(slot);
    return slot;
  }
  void write(const std::string& path, const std::string& text) {
    ASSERT_TRUE(write_text_file(path, text).ok());
  }

  testing::TempDir dir_{"tharsis-operand-app"};
  std::string log_;
};

TEST_F(OperandAppTest, EveryOperandRunAsAJobGivesTheInMemoryAnswer) {
  auto graph = compile_graph(
      "a = rand(seed=1, shape=(200,200), chunk=(50,50)); b = rand(seed=2, shape=(200,200), chunk=(50,50))\n"
      "result = ((a + b) @ b.T).sum(axis=1) / 3");
  ASSERT_TRUE(graph.ok()) << graph.error();
  std::map<int64_t, std::string> output_file;  // operand id -> where its job left the output
  for (const ChunkOperand& operand : graph->chunks.operands) {
    const std::string slot = make_slot("op" + std::to_string(operand.id));
    const OperandSpec spec = make_operand_spec(operand);
    write(slot + "/spec", format_operand_spec(spec));
    for (size_t i = 0; i < operand.inputs.size(); ++i) {
      // As the stock client lays out a slot: a soft-link file naming the real file.
      const std::string target = std::filesystem::relative(output_file.at(operand.inputs[i]), slot).string();
      write(slot + "/" + spec.inputs[i], "<soft_link>" + target + "</soft_link>\n");
    }
    ASSERT_EQ(run_app(slot), 0) << operand.label << ": " << log();
    output_file[operand.id] = slot + "/" + spec.output;
  }
  std::map<int64_t, NdArray> outputs;
  for (const ResultChunk& chunk : graph->chunks.result_chunks) {
    auto array = read_npy(output_file.at(chunk.operand));
    ASSERT_TRUE(array.ok()) << array.error();
    outputs[chunk.operand] = *array;
  }
  auto from_jobs = assemble_result(graph->chunks, outputs);
  ASSERT_TRUE(from_jobs.ok()) << from_jobs.error();
  auto in_memory = run_locally(graph->chunks, id_order(graph->chunks));
  ASSERT_TRUE(in_memory.ok());
  EXPECT_EQ(*from_jobs, in_memory->result);  // bit for bit: the same deterministic kernels
  auto direct = evaluate_directly(graph->tensors);
  ASSERT_TRUE(direct.ok());
  EXPECT_LE(*max_relative_difference(*from_jobs, *direct), 1e-9);
}

// The stock-client build (BOINC API) runs the same job to the same bytes; soft links are
// resolved by BOINC's own code here.
TEST_F(OperandAppTest, BoincApiBuildWritesTheSameOutput) {
  const std::string boinc_app = testing::built_programs_dir() + "/operand_app_boinc";
  if (!std::filesystem::exists(boinc_app))
    GTEST_SKIP() << "operand_app_boinc not built (no libboinc-app-dev)";
  auto graph = compile_graph("x = rand(seed=3, shape=(30,20), chunk=(30,20)); (x.T @ x - 1).mean(axis=0)");
  ASSERT_TRUE(graph.ok()) << graph.error();
  ASSERT_EQ(graph->chunks.operands.size(), 3u);  // rand; transpose; matmul with the rest fused
  std::vector<std::string> outputs;
  for (const std::string& flavour : {std::string("plain"), std::string("boinc")}) {
    std::string previous;
    for (const ChunkOperand& operand : graph->chunks.operands) {
      const std::string slot = make_slot(flavour + std::to_string(operand.id));
      write(slot + "/spec", format_operand_spec(make_operand_spec(operand)));
      for (size_t i = 0; i < operand.inputs.size(); ++i) {
        const std::string source = dir_.path() + "/" + flavour + std::to_string(operand.inputs[i]) + "/out";
        write(slot + "/" + operand_input_name(i), "<soft_link>" + source + "</soft_link>\n");
      }
      if (flavour == "plain") {
        ASSERT_EQ(run_app(slot), 0) << log();
      } else {
        log_ = slot + ".log";
        testing::ChildProcess app("/bin/sh", {"-c", "cd '" + slot + "' && exec '" + boinc_app + "'"}, log_);
        ASSERT_EQ(app.wait(60), 0) << log();
      }
      previous = slot + "/out";
    }
    auto bytes = read_text_file(previous);
    ASSERT_TRUE(bytes.ok()) << bytes.error();
    outputs.push_back(*bytes);
  }
  EXPECT_EQ(outputs[0], outputs[1]);
}

TEST_F(OperandAppTest, BadInputExitsNonZeroWithTheReason) {
  const std::string spec = "tharsis-operand-spec 1\ninput in0\nstep sum shape=() axis=all\noutput out\n";
  const std::string missing = make_slot("missing");
  write(missing + "/spec", spec);
  EXPECT_EQ(run_app(missing), 1);
  EXPECT_NE(log().find("operand_app: input in0:"), std::string::npos) << log();

  const std::string corrupt = make_slot("corrupt");
  write(corrupt + "/spec", spec);
  write(corrupt + "/in0", "not numbers");
  EXPECT_EQ(run_app(corrupt), 1);
  EXPECT_NE(log().find("not a .npy file"), std::string::npos) << log();

  const std::string bad_spec = make_slot("bad_spec");
  write(bad_spec + "/spec", "tharsis-operand-spec 1\ninput in0\nstep explode shape=()\noutput out\n");
  EXPECT_EQ(run_app(bad_spec), 1);
  EXPECT_NE(log().find("unknown operation 'explode'"), std::string::npos) << log();

  const std::string wrong_shape = make_slot("wrong_shape");
  write(wrong_shape + "/spec", "tharsis-operand-spec 1\ninput in0\nstep transpose shape=(3,2)\noutput out\n");
  ASSERT_TRUE(write_npy(wrong_shape + "/in0", NdArray{{2, 2}, {1, 2, 3, 4}}).ok());
  EXPECT_EQ(run_app(wrong_shape), 1);
  EXPECT_NE(log().find("differs from declared (3,2)"), std::string::npos) << log();
  EXPECT_FALSE(std::filesystem::exists(wrong_shape + "/out"));
}

}  // namespace
}  // namespace tharsis::operand
