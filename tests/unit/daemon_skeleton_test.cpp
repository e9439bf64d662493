// The daemon skeleton's pure parts: shared options, the pid file lock, stop triggers and
// the reconnect back-off.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "lib/daemon/daemon_loop.h"
#include "lib/daemon/daemon_options.h"
#include "lib/daemon/pid_file.h"
#include "lib/stop_signal.h"

namespace tharsis::daemon_skeleton_test {
namespace {

Result<DaemonOptions> parse(std::vector<const char*> args) {
  args.insert(args.begin(), "transitioner");
  return parse_daemon_options("transitioner", static_cast<int>(args.size()), args.data());
}

TEST(DaemonOptions, ParsesSharedOptions) {
  auto o = parse({"--one_pass", "--sleep", "0.5", "--mod", "3", "--mod_id", "2", "--batch", "50",
                  "--project_dir", "/p"});
  ASSERT_TRUE(o.ok()) << o.error();
  EXPECT_TRUE(o->one_pass);
  EXPECT_DOUBLE_EQ(o->sleep_seconds, 0.5);
  EXPECT_EQ(o->shard.n, 3);
  EXPECT_EQ(o->shard.id, 2);
  EXPECT_EQ(o->batch, 50);
  EXPECT_EQ(o->units_per_commit, 50);  // the default
  EXPECT_EQ(parse({"--units_per_commit", "1"})->units_per_commit, 1);
  EXPECT_EQ(o->project_dir, "/p");
}

TEST(DaemonOptions, RejectsBadShardsWithClearMessages) {
  auto id_too_big = parse({"--mod", "2", "--mod_id", "2"});
  ASSERT_FALSE(id_too_big.ok());
  EXPECT_NE(id_too_big.error().find("--mod_id expected 0..1, found 2"), std::string::npos)
      << id_too_big.error();
  EXPECT_FALSE(parse({"--mod", "0"}).ok());
  EXPECT_FALSE(parse({"--mod_id", "-1"}).ok());
  EXPECT_FALSE(parse({"--sleep", "-3"}).ok());
  EXPECT_FALSE(parse({"--log_level", "loud"}).ok());
  EXPECT_FALSE(parse({"--no_such_option"}).ok());
  EXPECT_FALSE(parse({"--batch", "0"}).ok());
  EXPECT_FALSE(parse({"--units_per_commit", "0"}).ok());
  EXPECT_FALSE(parse({"--units_per_commit", "1001"}).ok());
  auto no_shards = parse({"--mod", "0"});
  EXPECT_NE(no_shards.error().find("--mod expected a number >= 1, found 0"), std::string::npos)
      << no_shards.error();
  auto negative_id = parse({"--mod", "4", "--mod_id", "-1"});
  EXPECT_NE(negative_id.error().find("--mod_id expected 0..3, found -1"), std::string::npos)
      << negative_id.error();
}

TEST(DaemonOptions, ThreadsFromOneToSixteenWithAClearMessageOtherwise) {
  EXPECT_EQ(parse({})->threads, 1);
  EXPECT_EQ(parse({"--threads", "4"})->threads, 4);
  EXPECT_EQ(parse({"--threads", "16"})->threads, 16);
  auto none = parse({"--threads", "0"});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().find("--threads expected 1..16, found 0"), std::string::npos) << none.error();
  auto too_many = parse({"--threads", "17"});
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.error().find("--threads expected 1..16, found 17"), std::string::npos)
      << too_many.error();
}

TEST(DaemonOptions, DefaultsAreBoincLike) {
  auto o = parse({});
  ASSERT_TRUE(o.ok()) << o.error();
  EXPECT_EQ(o->project_dir, ".");
  EXPECT_FALSE(o->one_pass);
  EXPECT_DOUBLE_EQ(o->sleep_seconds, 5);
  EXPECT_EQ(o->shard.n, 1);
  EXPECT_EQ(o->shard.id, 0);
  EXPECT_FALSE(o->help);
}

TEST(DaemonOptions, HelpListsTheSharedOptions) {
  auto o = parse({"--help"});
  ASSERT_TRUE(o.ok()) << o.error();
  EXPECT_TRUE(o->help);
  for (const char* name : {"--project_dir", "--one_pass", "--sleep", "--mod", "--mod_id", "--batch",
                           "--units_per_commit", "--log_level", "--db_node"}) {
    EXPECT_NE(o->help_text.find(name), std::string::npos) << name;
  }
}

TEST(DaemonOptions, DbNodePicksANodeOfTheCluster) {
  EXPECT_EQ(parse({})->db_node, 0);  // not given: THARSIS_DB_NODE or node 1
  auto o = parse({"--db_node", "3"});
  ASSERT_TRUE(o.ok()) << o.error();
  EXPECT_EQ(o->db_node, 3);
  auto zero = parse({"--db_node", "0"});
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.error().find("--db_node expected a node number >= 1, found 0"), std::string::npos)
      << zero.error();
  EXPECT_FALSE(parse({"--db_node", "x"}).ok());
}

TEST(DaemonOptions, PassesDaemonSpecificOptionsThrough) {
  const char* args[] = {"validator", "--credit_scale", "2"};
  auto o = parse_daemon_options("validator", 3, args, {"credit_scale"});
  ASSERT_TRUE(o.ok()) << o.error();
  EXPECT_EQ(o->extra, (std::vector<std::string>{"credit_scale", "2"}));
}

TEST(PidFile, SecondInstanceIsRefusedAndFileRemovedOnExit) {
  std::string path = "/tmp/tharsis-pid-" + std::to_string(getpid()) + ".pid";
  {
    auto first = PidFile::acquire(path);
    ASSERT_TRUE(first.ok()) << first.error();
    auto second = PidFile::acquire(path);
    ASSERT_FALSE(second.ok());
    EXPECT_NE(second.error().find(std::to_string(getpid())), std::string::npos) << second.error();
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(PidFile, StaleFileFromAKilledDaemonIsTakenOver) {
  std::string path = "/tmp/tharsis-stale-" + std::to_string(getpid()) + ".pid";
  std::ofstream(path) << "999999\n";  // no process holds its lock
  auto taken = PidFile::acquire(path);
  ASSERT_TRUE(taken.ok()) << taken.error();
  std::ifstream in(path);
  long pid = 0;
  in >> pid;
  EXPECT_EQ(pid, getpid());
  EXPECT_EQ((*taken)->replaced_stale_pid(), 999999);
}

TEST(PidFile, NewFileReportsNoStalePid) {
  std::string path = "/tmp/tharsis-new-" + std::to_string(getpid()) + ".pid";
  std::filesystem::remove(path);
  auto taken = PidFile::acquire(path);
  ASSERT_TRUE(taken.ok()) << taken.error();
  EXPECT_EQ((*taken)->replaced_stale_pid(), 0);
}

TEST(PidFile, HolderDoesNotRemoveAFileThatIsNoLongerItsOwn) {
  std::string path = "/tmp/tharsis-replaced-" + std::to_string(getpid()) + ".pid";
  {
    auto first = PidFile::acquire(path);
    ASSERT_TRUE(first.ok()) << first.error();
    // An admin removed the file by hand and another instance started meanwhile.
    std::filesystem::remove(path);
    auto second = PidFile::acquire(path);
    ASSERT_TRUE(second.ok()) << second.error();
    second->reset();
    std::ofstream(path) << "424242\n";
  }  // `first` goes: the file at `path` is not the one it wrote
  EXPECT_TRUE(std::filesystem::exists(path));
  std::filesystem::remove(path);
}

TEST(PidFile, ForkedChildLeavesTheParentsFileInPlace) {
  std::string path = "/tmp/tharsis-fork-" + std::to_string(getpid()) + ".pid";
  auto held = PidFile::acquire(path);
  ASSERT_TRUE(held.ok()) << held.error();
  pid_t child = fork();
  if (child == 0) {
    held->reset();  // runs ~PidFile in the child
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(std::filesystem::exists(path));
  // And the lock is still the parent's: a new instance is refused.
  EXPECT_FALSE(PidFile::acquire(path).ok());
}

TEST(StopSignal, TriggerFileAndBackoff) {
  std::string dir = "/tmp/tharsis-trigger-" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  EXPECT_FALSE(stop_trigger_present(dir));
  std::ofstream(dir + "/stop_daemons").close();
  EXPECT_TRUE(stop_trigger_present(dir));
  std::filesystem::remove_all(dir);
}

TEST(StopSignal, ReconnectBackoffDoublesFromOneSecondUpToThirty) {
  std::vector<double> waits;
  for (int attempt = 1; attempt <= 8; ++attempt) waits.push_back(reconnect_backoff_seconds(attempt));
  EXPECT_EQ(waits, (std::vector<double>{1, 2, 4, 8, 16, 30, 30, 30}));
  EXPECT_DOUBLE_EQ(reconnect_backoff_seconds(1000), 30);
}

TEST(StopSignal, InterruptibleSleepSleepsWhenNoStopIsSignalled) {
  reset_stop_signal();
  auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(interruptible_sleep(0.1));
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(100));
}

// run_daemon in a forked child (it installs signal handlers and may exit early), its
// output discarded; returns the exit code.
int run_toy(std::vector<const char*> args) {
  args.insert(args.begin(), "toy");
  pid_t child = fork();
  if (child == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    int code =
        run_daemon("toy", static_cast<int>(args.size()), args.data(),
                   [](const ProjectConfig&, const DaemonOptions&) -> Result<std::unique_ptr<DaemonWork>> {
                     return make_error("the factory must not be reached");
                   });
    _exit(code);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(RunDaemon, HelpExitsZeroWithoutAProject) {
  EXPECT_EQ(run_toy({"--help", "--project_dir", "/nonexistent"}), kDaemonExitOk);
}

TEST(RunDaemon, BadOptionsExitWithUsageCode) {
  EXPECT_EQ(run_toy({"--mod", "2", "--mod_id", "5"}), kDaemonExitUsage);
  EXPECT_EQ(run_toy({"--sleep", "soon"}), kDaemonExitUsage);
}

TEST(RunDaemon, MissingConfigXmlExitsWithUsageCode) {
  EXPECT_EQ(run_toy({"--project_dir", "/nonexistent/tharsis-project"}), kDaemonExitUsage);
}

TEST(DaemonPidPath, ShardSuffixOnlyWhenSharded) {
  ProjectConfig config;
  config.pid_dir = "/p/pid";
  EXPECT_EQ(daemon_pid_path(config, "validator", Shard{}), "/p/pid/validator.pid");
  EXPECT_EQ(daemon_pid_path(config, "validator", Shard{3, 2}), "/p/pid/validator_2.pid");
}

}  // namespace
}  // namespace tharsis::daemon_skeleton_test
