// A remote submitter's whole round over real HTTP with the daemons and simulated
// volunteers running, from the sandbox to the archive. The submitter has an account with a
// grant, the project's URL and tharsis-submit — no config.xml, no database access: it
// uploads 20 input files to its sandbox (job_file.php), submits a batch of 1,000 jobs
// mixing inline inputs and those sandbox files through <master_url>submit_rpc_handler.php,
// aborts five jobs, watches the batch until the assimilator has it completed, downloads
// every output as one zip (get_output.php) and retires the batch. Then the project's side:
// the file deleter removes the batch's results and, once their time is past, the sandbox
// files; db_purge archives the workunits and then the batch, and reads the archive back.
#include <gtest/gtest.h>
#include <sys/time.h>

#include <filesystem>
#include <pugixml.hpp>

#include "client/lib/example_kernel.h"
#include "db/batch_store.h"
#include "db/sql.h"
#include "db/submit_grant_store.h"
#include "db/user_store.h"
#include "lib/crypto/md5.h"
#include "lib/text_file.h"
#include "lib/work/fanout.h"
#include "tests/support/child_process.h"
#include "tests/support/live_project.h"
#include "tests/support/time_scale.h"

namespace tharsis::remote_submit_lifecycle_test {
namespace {

namespace fs = std::filesystem;
using testing::LiveProject;

std::string input_text(const std::string& seed) { return "seed " + seed + "\niterations 50\nterms 2000\n"; }
std::string output_of(const std::string& input) { return run_example_job(*parse_example_input(input)); }

TEST(RemoteSubmitLifecycle, ThousandJobsFromTheSandboxToTheArchive) {
  LiveProject live;
  const ProjectConfig& c = live.config();
  std::string key = live.add_volunteer("scientist");
  int64_t user_id = fetch_user_by_authenticator(live.db(), key)->id;
  put_submit_grant(live.db(), SubmitGrant{user_id, true});
  std::string master = live.url(c.name + "/");
  auto call = [&](const std::string& xml) {
    auto result = testing::http_post(master + "submit_rpc_handler.php", testing::submit_form(xml));
    auto doc = std::make_unique<pugi::xml_document>();
    EXPECT_TRUE(doc->load_string(result.body.c_str())) << result.body;
    EXPECT_FALSE(doc->document_element().child("error")) << result.body.substr(0, 400);
    return doc;
  };
  testing::TempDir data("tharsis-remote-submit");
  auto submit_tool = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"--url", master, "--authenticator", key});
    testing::ChildProcess tool("tharsis-submit", args, c.log_dir + "/tharsis-submit.log");
    return tool.wait(120);
  };

  // The sandbox: 20 files uploaded ahead.
  const int kSandboxFiles = 20;
  std::vector<std::string> uploads{"upload"}, sandbox_names;
  for (int i = 0; i < kSandboxFiles; ++i) {
    std::string path = data.path() + "/input_" + std::to_string(i) + ".txt";
    ASSERT_TRUE(write_text_file(path, input_text("sb" + std::to_string(i))).ok());
    uploads.push_back(path);
    sandbox_names.push_back("jf_" + md5_hex(input_text("sb" + std::to_string(i))));
  }
  ASSERT_EQ(submit_tool(uploads), 0) << "see log/tharsis-submit.log";
  EXPECT_EQ(query_int(live.db(), "SELECT COUNT(*) FROM job_file WHERE user_id = ?", user_id), kSandboxFiles);

  // 1,000 jobs: even ones inline, odd ones a sandbox file.
  const int kJobs = 1000;
  std::map<std::string, std::string> expected;  // job -> output
  std::string jobs;
  for (int i = 0; i < kJobs; ++i) {
    std::string name = "rs" + std::to_string(i);
    jobs += "<job><name>" + name + "</name>";
    if (i % 2 == 0) {
      jobs += "<input_file><mode>inline</mode><source>" + input_text(name) + "</source></input_file>";
      expected[name] = output_of(input_text(name));
    } else {
      int f = i % kSandboxFiles;
      jobs += "<input_file><mode>sandbox</mode><source>" + sandbox_names[f] + "</source></input_file>";
      expected[name] = output_of(input_text("sb" + std::to_string(f)));
    }
    jobs += "</job>\n";
  }
  auto submitted =
      call("<submit_batch><authenticator>" + key +
           "</authenticator><batch><app_name>example</app_name>"
           "<batch_name>round</batch_name><job_params><rsc_fpops_est>1e8</rsc_fpops_est></job_params>" +
           jobs + "</batch></submit_batch>");
  int64_t batch_id = submitted->document_element().child("batch_id").text().as_llong();
  ASSERT_GT(batch_id, 0);
  const std::string id = std::to_string(batch_id);
  std::vector<std::string> aborts{"abort_jobs"};
  for (int i = 0; i < 5; ++i) aborts.push_back("rs" + std::to_string(i * 200 + 3));
  ASSERT_EQ(submit_tool(aborts), 0);

  live.start_daemons();
  std::vector<std::string> args = live.simulation_args("rsvol", {"ncpus=8", "ncpus=8", "ncpus=8", "ncpus=8"},
                                                       static_cast<int>(testing::scaled_seconds(420)));
  args.insert(args.end(), {"--until_settled"});
  auto client = live.start_client("simulation", data.path(), args);
  // About a minute on an idle machine (every output is one upload CGI); generous under load.
  ASSERT_EQ(client->wait(testing::scaled_seconds(440)), 0)
      << "the simulation did not settle; see log/simulation.log";
  EXPECT_TRUE(live.stop_daemons());

  // Watched as BOINC's clients watch it: the counts the assimilator kept.
  std::string ref = "<authenticator>" + key + "</authenticator><batch_id>" + id + "</batch_id>";
  auto query = call("<query_batch>" + ref + "<get_job_details>1</get_job_details></query_batch>");
  pugi::xml_node batch = query->document_element();
  EXPECT_EQ(batch.child("state").text().as_int(), static_cast<int>(BatchState::Completed));
  EXPECT_EQ(batch.child("njobs").text().as_int(), kJobs);
  EXPECT_EQ(batch.child("nerror_jobs").text().as_int(), 5);
  EXPECT_EQ(batch.child("njobs_done").text().as_int(), kJobs - 5);
  EXPECT_DOUBLE_EQ(batch.child("fraction_done").text().as_double(), 1.0);
  int done = 0;
  for (pugi::xml_node job : batch.children("job")) done += std::string(job.child_value("status")) == "done";
  EXPECT_EQ(done, kJobs - 5);

  // Every output, in one zip (entries stored, so each output's bytes are in it).
  ASSERT_EQ(submit_tool({"outputs", id, data.path() + "/outputs.zip"}), 0);
  auto zip = read_text_file(data.path() + "/outputs.zip");
  ASSERT_TRUE(zip.ok());
  const std::string& z = *zip;
  ASSERT_GT(z.size(), 22u);
  size_t end = z.size() - 22;
  int entries = static_cast<unsigned char>(z[end + 10]) | static_cast<unsigned char>(z[end + 11]) << 8;
  EXPECT_EQ(entries, kJobs - 5);
  int found = 0;
  for (const auto& [name, output] : expected)
    found += z.find(name + "/") != std::string::npos && z.find(output) != std::string::npos;
  EXPECT_EQ(found, kJobs - 5);

  ASSERT_EQ(submit_tool({"retire", id}), 0);
  EXPECT_EQ(fetch_batch(live.db(), batch_id)->state, BatchState::Retired);

  // The file deleter removes the retired batch's results ...
  auto one_pass = [&](const std::string& program, std::vector<std::string> more) {
    std::vector<std::string> all{"--project_dir", c.project_dir};
    all.insert(all.end(), more.begin(), more.end());
    testing::ChildProcess p(program, all, c.log_dir + "/" + program + "_once.log");
    return p.wait(120);
  };
  ASSERT_EQ(one_pass("file_deleter", {"--one_pass"}), 0);
  EXPECT_EQ(query_int(live.db(), "SELECT files_deleted FROM batch WHERE id = ?", batch_id), 1);
  EXPECT_FALSE(fs::exists(c.project_dir + "/results/rs10"));
  EXPECT_FALSE(fs::exists(c.project_dir + "/results/rs11"));
  // ... and, 30 days on (the rows' time and the files' age moved back), the sandbox.
  std::string sandbox_file = fanout_path(c.download_dir, sandbox_names[0], c.uldl_dir_fanout);
  EXPECT_TRUE(fs::exists(sandbox_file)) << "held by the sandbox past its jobs";
  exec(live.db(), "UPDATE job_file SET delete_time = UNIX_TIMESTAMP() - 1");
  timeval old[2] = {{time(nullptr) - 7200, 0}, {time(nullptr) - 7200, 0}};
  for (const auto& name : sandbox_names)
    utimes(fanout_path(c.download_dir, name, c.uldl_dir_fanout).c_str(), old);
  ASSERT_EQ(one_pass("file_deleter", {"--one_pass"}), 0);
  EXPECT_EQ(query_int(live.db(), "SELECT COUNT(*) FROM job_file"), 0);
  EXPECT_FALSE(fs::exists(sandbox_file));

  // db_purge archives the workunits, then the batch, and reads the batch back.
  ASSERT_EQ(one_pass("db_purge", {"--min_age_days", "0"}), 0);
  EXPECT_EQ(query_int(live.db(), "SELECT COUNT(*) FROM workunit WHERE batch = ?", batch_id), 0);
  EXPECT_FALSE(fetch_batch(live.db(), batch_id));
  std::string batch_archive;
  for (auto& day : fs::directory_iterator(c.project_dir + "/archives")) {
    for (auto& file : fs::directory_iterator(day.path())) {
      if (file.path().filename().string().rfind("batch_", 0) == 0) batch_archive = file.path().string();
    }
  }
  ASSERT_FALSE(batch_archive.empty());
  ASSERT_EQ(one_pass("db_purge", {"--read", batch_archive}), 0);
  auto printed = read_text_file(c.log_dir + "/db_purge_once.log");
  ASSERT_TRUE(printed.ok());
  EXPECT_NE(printed->find("batch\t" + id + "\tround\t" + std::to_string(user_id) + "\t"), std::string::npos)
      << *printed;
}

}  // namespace
}  // namespace tharsis::remote_submit_lifecycle_test
