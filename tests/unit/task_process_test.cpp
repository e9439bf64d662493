// A task process runs in its slot with the client's environment plus the launch's own
// entries (which replace client variables of the same name).
#include "client/lib/task_process.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "lib/text_file.h"

namespace tharsis {
namespace {

TEST(TaskProcess, LaunchEnvironmentIsAddedToTheClientsAndOverridesSameNames) {
  const std::string base =
      std::filesystem::temp_directory_path().string() + "/tharsis-task-process-" + std::to_string(::getpid());
  setenv("THARSIS_TEST_KEPT", "kept", 1);
  setenv("THARSIS_TEST_REPLACED", "client", 1);
  TaskLaunch launch;
  launch.slot_dir = base + "/slot";
  launch.executable = "/bin/sh";
  launch.args = {"-c", "echo \"$THARSIS_TEST_KEPT $THARSIS_TEST_REPLACED $THARSIS_TEST_ADDED\""};
  launch.env = {"THARSIS_TEST_REPLACED=launch", "THARSIS_TEST_ADDED=a=b"};
  auto pid = start_task_process(launch);
  ASSERT_TRUE(pid.ok()) << pid.error();
  std::optional<ProcessExit> exit;
  while (!(exit = poll_task_process(*pid))) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_FALSE(exit->signalled);
  EXPECT_EQ(exit->exit_code, 0);
  auto printed = read_text_file(launch.slot_dir + "/stderr.txt");
  ASSERT_TRUE(printed.ok()) << printed.error();
  EXPECT_EQ(*printed, "kept launch a=b\n");
  unsetenv("THARSIS_TEST_KEPT");
  unsetenv("THARSIS_TEST_REPLACED");
  std::filesystem::remove_all(base);
}

}  // namespace
}  // namespace tharsis
