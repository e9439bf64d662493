// Submitted tensor expressions through the graph scheduler and the back-end daemons over a
// real MariaDB: simulated hosts take each unsent job (highest priority first, as the
// scheduler orders them), run its operand spec with the operand kernels on the staged
// .npy inputs and upload the output; one host in five vanishes with the jobs it took (they
// time out and go to others). The assembled result matches the direct computation.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "daemons/graph_scheduler/lib/graph_scheduler_pass.h"
#include "db/graph_store.h"
#include "db/result_store.h"
#include "db/sql.h"
#include "db/workunit_store.h"
#include "lib/crypto/md5.h"
#include "lib/operand/direct_evaluator.h"
#include "lib/operand/graph_compiler.h"
#include "lib/operand/kernels.h"
#include "lib/operand/npy.h"
#include "lib/operand/operand_spec.h"
#include "lib/text_file.h"
#include "lib/work/fanout.h"
#include "lib/work/file_refs.h"
#include "lib/work/output_check.h"
#include "tests/support/daemon_rounds.h"
#include "tests/support/test_project.h"
#include "tools/lib/checker.h"
#include "tools/lib/graph_from_chunks.h"
#include "tools/lib/graph_result.h"

namespace tharsis::graph_submit_test {
namespace {

constexpr int64_t kStart = 1'800'000'000;
constexpr int kDelayBound = 1000;

class GraphSubmit : public ::testing::Test {
 protected:
  void SetUp() override { db_ = project_.open(); }

  int64_t submit(const std::string& name, const std::string& expression) {
    JobSpec job;
    job.appid = project_.appid();
    job.output_template_file = project_.output_template();
    job.delay_bound = kDelayBound;
    job.max_error_results = 3;
    auto id = submit_expression(*db_, project_.config(), name, expression, job, {1, 2, 3, 4, 5}, 60, now_);
    EXPECT_TRUE(id.ok()) << id.error();
    return id.ok() ? *id : 0;
  }

  void run_daemons() {
    GraphSchedulerPass graphs(project_.config(), 60);
    ASSERT_TRUE(testing::run_daemons_until_idle(*db_, project_.config(), now_, {&graphs}));
  }

  std::string path_in(const std::string& dir, const std::string& name) {
    return fanout_path(dir, name, project_.config().uldl_dir_fanout);
  }

  // What the operand app does, from the workunit's file_refs: spec, inputs by open name.
  void compute(const ResultRow& r) {
    auto wu = fetch_workunit(*db_, r.workunitid);
    std::map<std::string, std::string> file_of;  // open name -> file name
    const std::string ref = "<file_ref><file_name>", open = "<open_name>";
    for (size_t at = wu->xml_doc.find(ref); at != std::string::npos; at = wu->xml_doc.find(ref, at + 1)) {
      size_t begin = at + ref.size();
      std::string file = wu->xml_doc.substr(begin, wu->xml_doc.find('<', begin) - begin);
      size_t o = wu->xml_doc.find(open, begin) + open.size();
      file_of[wu->xml_doc.substr(o, wu->xml_doc.find('<', o) - o)] = file;
    }
    auto spec_text = read_text_file(path_in(project_.config().download_dir, file_of["spec"]));
    ASSERT_TRUE(spec_text.ok()) << spec_text.error();
    auto spec = operand::parse_operand_spec(*spec_text);
    ASSERT_TRUE(spec.ok()) << spec.error();
    std::vector<operand::NdArray> arrays;
    for (const auto& name : spec->inputs) {
      ASSERT_TRUE(file_of.count(name)) << wu->name << " lacks input " << name;
      auto array = operand::read_npy(path_in(project_.config().download_dir, file_of[name]));
      ASSERT_TRUE(array.ok()) << array.error();
      arrays.push_back(std::move(*array));
    }
    std::vector<const operand::NdArray*> inputs;
    for (const auto& a : arrays) inputs.push_back(&a);
    auto output = operand::run_steps(spec->steps, inputs);
    ASSERT_TRUE(output.ok()) << output.error();
    auto outputs = file_infos_in(r.xml_doc_in);
    ASSERT_TRUE(outputs.ok() && outputs->size() == 1u);
    auto out_path = fanout_path_create(project_.config().upload_dir, outputs->front().name,
                                       project_.config().uldl_dir_fanout);
    ASSERT_TRUE(operand::write_npy(*out_path, *output).ok());
    ResultReport report;
    report.claimed_credit = 1;
    report.xml_doc_out = *describe_uploaded_outputs(project_.config(), r.xml_doc_in);
    ASSERT_TRUE(
        db_->transaction([&](Database& d) { return mark_result_reported(d, r.id, r.hostid, now_, report); }));
  }

  // Hosts 1..5 take the unsent jobs in priority order; host 5 vanishes with what it takes.
  // Returns the jobs handed out.
  int hand_out_work(int64_t graph_id) {
    std::vector<std::pair<int, int64_t>> unsent;  // (priority, result id)
    for (const auto& o : fetch_operands_of_graph(*db_, graph_id)) {
      for (const auto& r : fetch_results_of_workunit(*db_, o.workunitid)) {
        if (r.server_state == ServerState::Unsent) unsent.emplace_back(r.priority, r.id);
      }
    }
    std::sort(unsent.begin(), unsent.end(),
              [](auto& a, auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    for (const auto& [priority, id] : unsent) {
      int64_t host = 1 + (next_host_++ % 5);
      bool sent = db_->transaction(
          [&](Database& d) { return mark_result_sent(d, id, host, 1, now_, kDelayBound, 1); });
      EXPECT_TRUE(sent);
      if (host == 5) continue;  // vanished: never reports
      compute(fetch_result(*db_, id).value());
      if (HasFatalFailure()) return 0;
    }
    return static_cast<int>(unsent.size());
  }

  // Drives the graph to its end; time moves past the deadlines when only vanished jobs remain.
  GraphState drive(int64_t graph_id) {
    for (int round = 0; round < 500; ++round) {
      run_daemons();
      GraphState state = fetch_graph(*db_, graph_id)->state;
      if (state != GraphState::Running) return state;
      if (hand_out_work(graph_id) == 0) now_ += kDelayBound + 1;
      if (HasFatalFailure()) return state;
    }
    ADD_FAILURE() << "graph did not finish";
    return GraphState::Running;
  }

  void expect_matches_direct(int64_t graph_id, const std::string& expression) {
    auto result = collect_graph_result(*db_, project_.config(), graph_id);
    ASSERT_TRUE(result.ok()) << result.error();
    auto tensors = operand::parse_submission(expression);
    ASSERT_TRUE(tensors.ok());
    auto direct = operand::evaluate_directly(*tensors, uploaded_);
    ASSERT_TRUE(direct.ok()) << direct.error();
    auto difference = operand::max_relative_difference(*result, *direct);
    ASSERT_TRUE(difference.ok()) << difference.error();
    EXPECT_LE(*difference, 1e-9);
  }

  // Puts `array` in download/ as a submitter's upload would: a .npy named jf_<md5>.
  std::string upload(const operand::NdArray& array) {
    const std::string bytes = operand::encode_npy(array);
    const std::string name = "jf_" + md5_hex(bytes);
    auto path = fanout_path_create(project_.config().download_dir, name, project_.config().uldl_dir_fanout);
    EXPECT_TRUE(path.ok() && write_text_file(*path, bytes).ok());
    uploaded_[name] = array;
    return name;
  }

  // A (rows, cols) input tensor in chunks of (chunk, chunk): its files uploaded, its text.
  std::string input_tensor(int64_t rows, int64_t cols, int64_t chunk, double base) {
    std::string files;
    for (int64_t r = 0; r < rows; r += chunk) {
      for (int64_t c = 0; c < cols; c += chunk) {
        operand::NdArray block = operand::filled({std::min(chunk, rows - r), std::min(chunk, cols - c)}, 0);
        for (size_t i = 0; i < block.data.size(); ++i)
          block.data[i] = base + static_cast<double>(r * cols + c + i) / 7;
        files += std::string(files.empty() ? "" : ",") + "\"" + upload(block) + "\"";
      }
    }
    return "input(shape=(" + std::to_string(rows) + "," + std::to_string(cols) + "), chunk=(" +
           std::to_string(chunk) + "," + std::to_string(chunk) + "), files=(" + files + "))";
  }

  testing::TestProject project_;
  std::unique_ptr<Database> db_;
  operand::InputChunks uploaded_;
  int64_t now_ = kStart;
  int next_host_ = 0;
};

TEST_F(GraphSubmit, SumOfTwoRandomTensorsMatchesTheDirectComputationWithHostsVanishing) {
  const std::string expression =
      "a = rand(seed=1, shape=(60,60), chunk=(20,20)); b = rand(seed=2, shape=(60,60), chunk=(20,20));"
      " result = (a + b).sum()";
  int64_t g = submit("sum_ab", expression);
  auto operands = fetch_operands_of_graph(*db_, g);
  ASSERT_GT(operands.size(), 9u);
  std::set<int> priorities;
  for (const auto& o : operands) {
    EXPECT_EQ(fetch_workunit(*db_, o.workunitid)->priority, o.priority)
        << "the scheduler sends by workunit priority";
    priorities.insert(o.priority);
    if (o.depth == 0) {
      EXPECT_NE(o.preferred_host, 0) << o.name << ": sources are placed";
    }
  }
  EXPECT_GT(priorities.size(), 1u);
  EXPECT_EQ(drive(g), GraphState::Done);
  expect_matches_direct(g, expression);
  auto progress = graph_progress(*db_, g);
  ASSERT_TRUE(progress.ok());
  EXPECT_EQ(progress->finished, progress->total);
  EXPECT_EQ(progress->staged_bytes, 0) << "a finished graph holds no intermediate data";
  EXPECT_GT(query_int(*db_,
                      "SELECT COUNT(*) FROM result r JOIN workunit w ON w.id = r.workunitid "
                      "WHERE w.graph_id = ? AND r.outcome = ?",
                      g, Outcome::NoReply),
            0)
      << "some jobs went to the vanished host and were sent again";
  CheckReport report = check_project(*db_, project_.config(), now_, /*require_settled=*/true);
  for (const auto& v : report.violations) ADD_FAILURE() << v;
}

TEST_F(GraphSubmit, ChainOfMatmulsOverAHundredChunksMatches) {
  const std::string expression =
      "a = rand(seed=3, shape=(40,40), chunk=(10,10)); b = rand(seed=4, shape=(40,40), chunk=(10,10));"
      " c = rand(seed=5, shape=(40,40), chunk=(10,10)); result = a @ b @ c";
  int64_t g = submit("matmuls", expression);
  EXPECT_GE(fetch_operands_of_graph(*db_, g).size(), 100u);
  EXPECT_EQ(drive(g), GraphState::Done);
  expect_matches_direct(g, expression);
}

TEST_F(GraphSubmit, UploadedTensorsAreFilesStagedAsTheyAreAndTheResultMatches) {
  // x: 30x20 in 10x10 chunks (6 uploads); y: 20x20 of one value, so its four chunks are
  // one file. Broadcasting, comparisons, max/min reductions and the
  // uploaded tensor itself as part of the result.
  operand::NdArray same = operand::filled({10, 10}, 0.25);
  const std::string twice = upload(same);
  const std::string expression =
      "x = " + input_tensor(30, 20, 10, -1) + "\ny = input(shape=(20,20), chunk=(10,10), files=(\"" + twice +
      "\",\"" + twice + "\",\"" + twice + "\",\"" + twice +
      "\"))\nr = rand(seed=7, shape=(20,), chunk=(10,))\n"
      "result = (maximum(x, r) > 0.5) * x + (x @ y).max(axis=0) - minimum(r, y).min() + x";
  int64_t g = submit("uploads", expression);
  ASSERT_GT(g, 0);
  int uploads = 0;
  for (const auto& o : fetch_operands_of_graph(*db_, g)) {
    if (o.workunitid != 0) continue;
    ++uploads;
    EXPECT_EQ(o.state, OperandState::Finished) << o.name;
    EXPECT_EQ(o.output_md5, o.output_file.substr(3)) << o.name;
    EXPECT_TRUE(uploaded_.count(o.output_file)) << o.name;
  }
  EXPECT_EQ(uploads, 10) << "one operand per chunk, none with a workunit";
  EXPECT_EQ(drive(g), GraphState::Done);
  expect_matches_direct(g, expression);
  for (const auto& [name, array] : uploaded_) {
    EXPECT_TRUE(std::filesystem::exists(path_in(project_.config().download_dir, name)))
        << name << ": the sandbox's file outlives the graph";
  }
  EXPECT_GT(query_int(*db_, "SELECT COUNT(*) FROM workunit WHERE graph_id = ? AND xml_doc LIKE ?", g,
                      "%" + twice + "%<no_delete/>%"),
            0)
      << "consumers name the upload itself, marked no_delete";
  CheckReport report = check_project(*db_, project_.config(), now_, /*require_settled=*/true);
  for (const auto& v : report.violations) ADD_FAILURE() << v;
}

TEST_F(GraphSubmit, SubmissionRefusesMissingCorruptOrMisshapenUploadsAndWritesNothing) {
  const std::string good = upload(operand::filled({2, 2}, 1));
  const std::string misshapen = upload(operand::filled({2, 3}, 1));
  // A file whose content does not match the md5 in its name.
  const std::string forged = "jf_" + std::string(32, 'a');
  ASSERT_TRUE(write_text_file(*fanout_path_create(project_.config().download_dir, forged,
                                                  project_.config().uldl_dir_fanout),
                              operand::encode_npy(operand::filled({2, 2}, 5)))
                  .ok());
  const std::string missing = "jf_" + std::string(32, 'b');
  auto attempt = [&](const std::string& file) {
    JobSpec job;
    job.appid = project_.appid();
    job.output_template_file = project_.output_template();
    return submit_expression(*db_, project_.config(), "bad_" + file.substr(3, 4),
                             "x = input(shape=(2,2), files=(\"" + file + "\"))\nresult = x * 2", job, {}, 60,
                             now_);
  };
  for (const auto& [file, message] :
       std::vector<std::pair<std::string, std::string>>{{missing, "is not in download/"},
                                                        {forged, "its content has md5"},
                                                        {misshapen, "has shape (2,3)"}}) {
    auto refused = attempt(file);
    ASSERT_FALSE(refused.ok()) << file;
    EXPECT_NE(refused.error().find(message), std::string::npos) << refused.error();
  }
  EXPECT_EQ(query_int(*db_, "SELECT COUNT(*) FROM graph"), 0);
  EXPECT_TRUE(attempt(good).ok());
}

TEST_F(GraphSubmit, AnUploadLostBeforeItIsNeededFailsTheGraph) {
  const std::string expression = "x = " + input_tensor(20, 20, 10, 3) + "\nresult = (x * 2).sum(axis=1)";
  int64_t g = submit("lost_upload", expression);
  ASSERT_GT(g, 0);
  const std::string lost = uploaded_.begin()->first;
  ASSERT_TRUE(std::filesystem::remove(path_in(project_.config().download_dir, lost)));
  EXPECT_EQ(drive(g), GraphState::Failed);
  for (const auto& o : fetch_operands_of_graph(*db_, g)) {
    if (o.output_file == lost && o.workunitid == 0) {
      EXPECT_EQ(o.state, OperandState::Fatal) << o.name;
    }
  }
  EXPECT_GT(query_int(*db_, "SELECT COUNT(*) FROM operand WHERE graph_id = ? AND state = ?", g,
                      OperandState::Cancelled),
            0);
  CheckReport report = check_project(*db_, project_.config(), now_, /*require_settled=*/true);
  for (const auto& v : report.violations) ADD_FAILURE() << v;
}

}  // namespace
}  // namespace tharsis::graph_submit_test
