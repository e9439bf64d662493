// The daemon skeleton's pure parts: shared options, the pid file lock, stop triggers and
// the reconnect back-off.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "lib/daemon/daemon_options.h"
#include "lib/daemon/pid_file.h"
#include "lib/daemon/stop_signal.h"

namespace tharsis {
namespace {

Result<DaemonOptions> parse(std::vector<const char*> args) {
  args.insert(args.begin(), "transitioner");
  return parse_daemon_options("transitioner", static_cast<int>(args.size()), args.data());
}

TEST(DaemonOptions, ParsesSharedOptions) {
  auto o = parse({"--one_pass", "--sleep", "0.5", "--mod", "3", "--mod_id", "2", "--batch", "50", "--project_dir", "/p"});
  ASSERT_TRUE(o.ok()) << o.error();
  EXPECT_TRUE(o->one_pass);
  EXPECT_DOUBLE_EQ(o->sleep_seconds, 0.5);
  EXPECT_EQ(o->shard.n, 3);
  EXPECT_EQ(o->shard.id, 2);
  EXPECT_EQ(o->batch, 50);
  EXPECT_EQ(o->project_dir, "/p");
}

TEST(DaemonOptions, RejectsBadShardsWithClearMessages) {
  auto id_too_big = parse({"--mod", "2", "--mod_id", "2"});
  ASSERT_FALSE(id_too_big.ok());
  EXPECT_NE(id_too_big.error().find("--mod_id expected 0..1, found 2"), std::string::npos) << id_too_big.error();
  EXPECT_FALSE(parse({"--mod", "0"}).ok());
  EXPECT_FALSE(parse({"--mod_id", "-1"}).ok());
  EXPECT_FALSE(parse({"--sleep", "-3"}).ok());
  EXPECT_FALSE(parse({"--log_level", "loud"}).ok());
  EXPECT_FALSE(parse({"--no_such_option"}).ok());
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
}

TEST(StopSignal, TriggerFileAndBackoff) {
  std::string dir = "/tmp/tharsis-trigger-" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  EXPECT_FALSE(stop_trigger_present(dir));
  std::ofstream(dir + "/stop_daemons").close();
  EXPECT_TRUE(stop_trigger_present(dir));
  std::filesystem::remove_all(dir);
  EXPECT_DOUBLE_EQ(reconnect_backoff_seconds(1), 1);
  EXPECT_DOUBLE_EQ(reconnect_backoff_seconds(3), 4);
  EXPECT_DOUBLE_EQ(reconnect_backoff_seconds(20), 30);
}

}  // namespace
}  // namespace tharsis
