// A remote submitter's whole round over real HTTP with the daemons and simulated
// volunteers running: a batch of 300 jobs mixing inline inputs and files staged in
// download/ is submitted through <master_url>submit_rpc_handler.php by an account with a
// grant (no config.xml, no database access), five jobs are aborted, the volunteers finish
// the rest, the assimilator keeps the batch's counts current until query_batch shows it
// completed, every output is the right one, and the batch is retired.
#include <gtest/gtest.h>

#include <cctype>
#include <pugixml.hpp>

#include "client/lib/example_kernel.h"
#include "daemons/assimilator/lib/results_store.h"
#include "db/batch_store.h"
#include "db/submit_grant_store.h"
#include "db/user_store.h"
#include "lib/crypto/md5.h"
#include "lib/fanout.h"
#include "lib/text_file.h"
#include "tests/support/child_process.h"
#include "tests/support/live_project.h"

namespace tharsis {
namespace {

using testing::LiveProject;

std::string form(const std::string& xml) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string body = "request=";
  for (unsigned char c : xml) {
    if (std::isalnum(c)) {
      body += static_cast<char>(c);
    } else {
      body += '%';
      body += kHex[c >> 4];
      body += kHex[c & 15];
    }
  }
  return body;
}

std::string input_text(const std::string& job) { return "seed " + job + "\niterations 50\nterms 2000\n"; }

TEST(RemoteSubmitLifecycle, ThreeHundredJobsSubmittedWatchedAbortedFinishedRetired) {
  LiveProject live;
  std::string key = live.add_volunteer("scientist");
  int64_t user_id = fetch_user_by_authenticator(live.db(), key)->id;
  put_submit_grant(live.db(), SubmitGrant{user_id, true});
  std::string url = live.url(live.config().name + "/submit_rpc_handler.php");
  auto call = [&](const std::string& xml) {
    auto result = testing::http_post(url, form(xml));
    auto doc = std::make_unique<pugi::xml_document>();
    EXPECT_TRUE(doc->load_string(result.body.c_str())) << result.body;
    EXPECT_FALSE(doc->document_element().child("error")) << result.body.substr(0, 400);
    return doc;
  };

  const int kJobs = 300;
  std::string jobs;
  for (int i = 0; i < kJobs; ++i) {
    std::string name = "rs" + std::to_string(i);
    jobs += "<job><name>" + name + "</name>";
    if (i % 2 == 0) {
      jobs += "<input_file><mode>inline</mode><source>" + input_text(name) + "</source></input_file>";
    } else {  // staged by the project beforehand (BOINC's local_staged)
      auto path = fanout_path_create(live.config().download_dir, name + ".in", live.config().uldl_dir_fanout);
      ASSERT_TRUE(path.ok());
      ASSERT_TRUE(write_text_file(*path, input_text(name)).ok());
      jobs += "<input_file><mode>local_staged</mode><source>" + name + ".in</source></input_file>";
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

  std::string aborts;
  for (int i = 0; i < 5; ++i) aborts += "<job_name>rs" + std::to_string(i * 50 + 3) + "</job_name>";
  call("<abort_jobs><authenticator>" + key + "</authenticator>" + aborts + "</abort_jobs>");

  live.start_daemons();
  testing::TempDir data("tharsis-remote-submit");
  std::vector<std::string> args = live.simulation_args("rsvol", {"ncpus=4", "ncpus=4", "ncpus=4"}, 200);
  args.insert(args.end(), {"--until_settled"});
  auto client = live.start_client("simulation", data.path(), args);
  EXPECT_EQ(client->wait(220), 0) << "the simulation did not settle; see log/simulation.log";
  EXPECT_TRUE(live.stop_daemons());

  std::string ref =
      "<authenticator>" + key + "</authenticator><batch_id>" + std::to_string(batch_id) + "</batch_id>";
  auto query = call("<query_batch>" + ref + "<get_job_details>1</get_job_details></query_batch>");
  pugi::xml_node batch = query->document_element();
  EXPECT_EQ(batch.child("state").text().as_int(), static_cast<int>(BatchState::Completed));
  EXPECT_EQ(batch.child("njobs").text().as_int(), kJobs);
  EXPECT_EQ(batch.child("nerror_jobs").text().as_int(), 5);
  EXPECT_EQ(batch.child("njobs_done").text().as_int(), kJobs - 5);
  EXPECT_DOUBLE_EQ(batch.child("fraction_done").text().as_double(), 1.0);
  EXPECT_GT(batch.child("completion_time").text().as_llong(), 0);
  int done = 0, errors = 0;
  for (pugi::xml_node job : batch.children("job")) {
    std::string name = job.child_value("name"), status = job.child_value("status");
    if (status == "error") {
      ++errors;
      continue;
    }
    ASSERT_EQ(status, "done") << name;
    ++done;
    auto manifest = read_manifest(live.config().project_dir + "/results", name);
    ASSERT_TRUE(manifest.ok()) << name;
    auto expected = run_example_job(*parse_example_input(input_text(name)));
    EXPECT_EQ(manifest->front().md5, md5_hex(expected)) << name << ": wrong output";
  }
  EXPECT_EQ(done, kJobs - 5);
  EXPECT_EQ(errors, 5);
  // The counts came from the assimilator, not a recount: they match the workunits.
  EXPECT_EQ(live.db().query_int("SELECT COUNT(*) FROM workunit WHERE batch = ? AND canonical_resultid <> 0 "
                                "AND error_mask = 0",
                                batch_id),
            kJobs - 5);

  auto completed = call("<query_completed_job><authenticator>" + key +
                        "</authenticator><job_name>rs10</job_name></query_completed_job>");
  EXPECT_GT(
      completed->document_element().child("completed_job").child("canonical_resultid").text().as_llong(), 0);

  // Outputs as BOINC's get_output.php serves them, authenticated by md5(authenticator + ...).
  auto canonical = live.db().query_int("SELECT canonical_resultid FROM workunit WHERE name = 'rs10'");
  auto result_name = [&] {
    auto rows = live.db().query("SELECT name FROM result WHERE id = ?", canonical);
    return rows->next() ? std::string(rows->getString(1)) : std::string();
  }();
  std::string base = live.url(live.config().name + "/get_output.php");
  auto one = testing::http_get(base + "?cmd=result_file&result_name=" + result_name +
                               "&file_num=0&auth_str=" + md5_hex(key + result_name));
  EXPECT_EQ(one.status, 200) << one.body;
  EXPECT_EQ(one.body, run_example_job(*parse_example_input(input_text("rs10"))));
  auto forged = testing::http_get(base + "?cmd=result_file&result_name=" + result_name +
                                  "&file_num=0&auth_str=" + md5_hex("other" + result_name));
  EXPECT_EQ(forged.status, 403);
  EXPECT_EQ(forged.body.rfind("ERROR: ", 0), 0u);
  auto zip = testing::http_get(base + "?cmd=batch_files&batch_id=" + std::to_string(batch_id) +
                               "&auth_str=" + md5_hex(key + std::to_string(batch_id)));
  EXPECT_EQ(zip.status, 200);
  ASSERT_GT(zip.body.size(), 22u);
  EXPECT_EQ(zip.body.substr(0, 4), std::string("PK\x03\x04", 4));
  // The end record counts one entry per finished job's output.
  const std::string& z = zip.body;
  size_t end = z.size() - 22;
  int entries = static_cast<unsigned char>(z[end + 10]) | static_cast<unsigned char>(z[end + 11]) << 8;
  EXPECT_EQ(entries, kJobs - 5);
  EXPECT_NE(z.find("rs10/"), std::string::npos);

  // The same archive through tharsis-submit.
  {
    testing::ChildProcess downloader("tharsis-submit",
                                 {"--url", live.url(live.config().name + "/"), "--authenticator", key, "outputs",
                                  std::to_string(batch_id), data.path() + "/outputs.zip"},
                                 live.config().log_dir + "/tharsis-submit.log");
    EXPECT_EQ(downloader.wait(60), 0);
    auto saved = read_text_file(data.path() + "/outputs.zip");
    ASSERT_TRUE(saved.ok());
    EXPECT_EQ(*saved, z);
  }

  call("<retire_batch>" + ref + "</retire_batch>");
  EXPECT_EQ(fetch_batch(live.db(), batch_id)->state, BatchState::Retired);
}

}  // namespace
}  // namespace tharsis
