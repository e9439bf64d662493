// tools/start and tools/stop against real processes: a stand-in daemon (a shell script in
// bin/) that writes its pid file and exits when the stop trigger appears, or ignores it.
#include "tools/lib/daemon_control.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <thread>

namespace tharsis {
namespace {

namespace fs = std::filesystem;

class DaemonControlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/tharsis-dctl-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    config_.project_dir = dir_;
    config_.pid_dir = dir_ + "/pid";
    config_.log_dir = dir_ + "/log";
    for (auto sub : {"bin", "pid", "log"}) fs::create_directories(dir_ + "/" + sub);
  }
  void TearDown() override {
    for (const auto& status : daemon_statuses(config_)) {
      if (status.pid) kill(status.pid, SIGKILL);
    }
    fs::remove_all(dir_);
  }
  // A daemon that records its pid (named like the real ones) and polls the trigger file;
  // `obeys` false makes it ignore the trigger, so stop must signal it.
  void write_fake_daemon(const std::string& name, bool obeys) {
    std::string path = dir_ + "/bin/" + name;
    std::ofstream out(path);
    out << "#!/bin/bash\n"
        << "inst=" << name << "\n"
        << "while [ $# -gt 0 ]; do [ \"$1\" = --mod_id ] && inst=" << name << "_$2; shift; done\n"
        << "echo $$ > pid/$inst.pid\n"
        << "trap 'rm -f pid/$inst.pid; exit 0' TERM\n"
        << "while true; do\n"
        << (obeys ? "  [ -e stop_daemons ] && { rm -f pid/$inst.pid; exit 0; }\n" : "")
        << "  sleep 0.05\ndone\n";
    out.close();
    chmod(path.c_str(), 0755);
  }
  bool wait_for(const std::function<bool()>& condition) {
    for (int i = 0; i < 100; ++i) {
      if (condition()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  int running_count() {
    int n = 0;
    for (const auto& status : daemon_statuses(config_)) n += status.pid != 0;
    return n;
  }

  std::string dir_;
  ProjectConfig config_;
};

TEST(DaemonCommand, ParsesProgramArgumentsAndShardInstance) {
  auto command = parse_daemon_command("validator  --sleep 2 --mod 2 --mod_id 1");
  ASSERT_TRUE(command.ok()) << command.error();
  EXPECT_EQ(command->program, "validator");
  EXPECT_EQ(command->args.size(), 6u);
  EXPECT_EQ(command->instance, "validator_1");
}

TEST(DaemonCommand, RejectsPathsAndEmptyCommands) {
  EXPECT_FALSE(parse_daemon_command("").ok());
  EXPECT_FALSE(parse_daemon_command("../evil --x").ok());
  EXPECT_FALSE(parse_daemon_command("/bin/sh").ok());
}

TEST_F(DaemonControlTest, StartLaunchesEnabledDaemonsOnceAndStopUsesTheTrigger) {
  write_fake_daemon("transitioner", true);
  write_fake_daemon("validator", true);
  config_.daemons = {{"transitioner --sleep 1", false},
                     {"validator --mod 2 --mod_id 0", false},
                     {"validator --mod 2 --mod_id 1", false},
                     {"validator --mod 2 --mod_id 9", true}};
  auto started = start_daemons(config_);
  ASSERT_TRUE(started.ok()) << started.error();
  EXPECT_EQ(started->started.size(), 3u);
  EXPECT_TRUE(started->failed.empty());
  ASSERT_TRUE(wait_for([&] { return running_count() == 3; }));

  // A second start (the cron case) finds them all running and starts nothing.
  auto again = start_daemons(config_);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->started.empty());
  EXPECT_TRUE(again->failed.empty());

  auto signalled = stop_daemons(config_, 5);
  ASSERT_TRUE(signalled.ok()) << signalled.error();
  EXPECT_TRUE(signalled->empty());
  EXPECT_EQ(running_count(), 0);
  EXPECT_TRUE(fs::exists(stop_trigger_path(config_)));
}

// A daemon's <nice> is its scheduling niceness from its start (read back from /proc).
TEST_F(DaemonControlTest, StartGivesEachDaemonItsNiceness) {
  write_fake_daemon("transitioner", true);
  write_fake_daemon("validator", true);
  config_.daemons = {{"transitioner", false, 7}, {"validator", false, 0}};
  ASSERT_TRUE(start_daemons(config_).ok());
  ASSERT_TRUE(wait_for([&] { return running_count() == 2; }));
  auto niceness = [](pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    // Fields after the command's closing parenthesis: state is field 3, nice field 19.
    std::istringstream fields(text.substr(text.rfind(')') + 2));
    std::string field;
    for (int i = 3; i <= 19 && fields >> field; ++i) {
    }
    return std::stoi(field);
  };
  const int own = niceness(getpid());
  for (const auto& status : daemon_statuses(config_)) {
    ASSERT_NE(status.pid, 0);
    int expected = status.command.program == "transitioner" ? std::min(own + 7, kMaxDaemonNice) : own;
    EXPECT_EQ(niceness(status.pid), expected) << status.command.program;
  }
}

// A daemon whose program cannot be run (here its interpreter is missing) is reported
// failed, with the reason start's child left in its log; one that exits at once by itself
// (bad options) is reported with its own last words; the others start.
TEST_F(DaemonControlTest, StartReportsTheDaemonsThatExitAtOnceWithTheirLogsLastLine) {
  const std::string path = dir_ + "/bin/validator";
  {
    std::ofstream out(path);
    out << "#!/nonexistent/interpreter\n";
  }
  chmod(path.c_str(), 0755);
  {
    std::ofstream out(dir_ + "/bin/assimilator");
    out << "#!/bin/bash\necho 'assimilator: --sleep: not a number' >&2\nexit 2\n";
  }
  chmod((dir_ + "/bin/assimilator").c_str(), 0755);
  write_fake_daemon("transitioner", true);
  config_.daemons = {
      {"validator", false, 0}, {"assimilator --sleep x", false, 0}, {"transitioner", false, 0}};
  auto outcome = start_daemons(config_);
  ASSERT_TRUE(outcome.ok()) << outcome.error();
  EXPECT_EQ(outcome->started, std::vector<std::string>{"transitioner"});
  ASSERT_EQ(outcome->failed.size(), 2u);
  std::map<std::string, std::string> why;
  for (const auto& f : outcome->failed) why[f.instance] = f.last_log_line;
  EXPECT_EQ(why["validator"], "start: cannot run " + path + ": No such file or directory");
  EXPECT_EQ(why["assimilator"], "assimilator: --sleep: not a number");
  EXPECT_EQ(running_count(), 1);
}

// What start and status quote from a daemon's log: its last non-empty line, read from the
// end of the file only, and cut to its last 400 characters.
TEST_F(DaemonControlTest, LastLogLineIsReadFromTheTailOfALongLog) {
  const std::string path = dir_ + "/log/long.log";
  {
    std::ofstream out(path);
    for (int i = 0; i < 20000; ++i) out << "line " << i << " of a daemon's months\n";
    out << "the last words\n\n\n";
  }
  EXPECT_EQ(last_log_line(path), "the last words");
  {
    std::ofstream out(path, std::ios::app);
    out << std::string(1000, 'x') << "END";
  }
  EXPECT_EQ(last_log_line(path), std::string(397, 'x') + "END");
  EXPECT_EQ(last_log_line(dir_ + "/log/none.log"), "");
  EXPECT_EQ(daemon_log_file(config_, *parse_daemon_command("validator --mod 2 --mod_id 1")),
            dir_ + "/log/validator_1.log");
}

TEST_F(DaemonControlTest, CronStartRestartsADaemonThatDied) {
  write_fake_daemon("assimilator", true);
  config_.daemons = {{"assimilator", false}};
  ASSERT_TRUE(start_daemons(config_).ok());
  ASSERT_TRUE(wait_for([&] { return running_count() == 1; }));
  pid_t first = daemon_statuses(config_)[0].pid;
  kill(first, SIGKILL);  // dies without removing its pid file
  ASSERT_TRUE(wait_for([&] { return running_count() == 0; }));

  auto restarted = start_daemons(config_);
  ASSERT_TRUE(restarted.ok());
  ASSERT_EQ(restarted->started.size(), 1u);
  ASSERT_TRUE(wait_for([&] { return running_count() == 1; }));
  EXPECT_NE(daemon_statuses(config_)[0].pid, first);
}

TEST_F(DaemonControlTest, StopSignalsADaemonThatIgnoresTheTrigger) {
  write_fake_daemon("file_deleter", false);
  config_.daemons = {{"file_deleter", false}};
  ASSERT_TRUE(start_daemons(config_).ok());
  ASSERT_TRUE(wait_for([&] { return running_count() == 1; }));
  auto signalled = stop_daemons(config_, 0.3);
  ASSERT_TRUE(signalled.ok()) << signalled.error();
  ASSERT_EQ(signalled->size(), 1u);
  EXPECT_EQ((*signalled)[0], "file_deleter");
  EXPECT_EQ(running_count(), 0);
}

TEST_F(DaemonControlTest, StartReportsAMissingProgram) {
  config_.daemons = {{"no_such_daemon", false}};
  auto started = start_daemons(config_);
  ASSERT_FALSE(started.ok());
  EXPECT_NE(started.error().find("bin/no_such_daemon"), std::string::npos);
}

}  // namespace
}  // namespace tharsis
