// Running one task: a slot directory holding the task's files under the names the app
// opens (inputs and app files as symbolic links to the client's copies, as BOINC's
// open_name), and a child process started there with the main program; then polling it
// without blocking, and judging how its run ended (the restart rule is a pure function).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "lib/result.h"

namespace tharsis {

struct SlotLink {
  std::string target;     // absolute path of the client's copy
  std::string open_name;  // name inside the slot
};

struct TaskLaunch {
  std::string slot_dir;    // created fresh (an old one of that name is removed)
  std::string executable;  // absolute path
  std::vector<std::string> args;
  std::vector<SlotLink> links;
  // "NAME=value" entries the process gets on top of the client's environment (an entry
  // replaces a client variable of the same name).
  std::vector<std::string> env;
};

// Sets up the slot and starts the process (its stdout and stderr go to slot/stderr.txt);
// returns its pid.
Result<pid_t> start_task_process(const TaskLaunch& launch);

struct ProcessExit {
  bool signalled = false;
  int exit_code = 0;  // when !signalled
  int signal = 0;     // when signalled
  double cpu_seconds = 0;
};

// The process's end if it has ended (reaps it), nullopt while it runs. A pid that is not
// our child any more counts as killed (signal 0).
std::optional<ProcessExit> poll_task_process(pid_t pid);

// Kills a task process and reaps it.
void kill_task_process(pid_t pid);

enum class RunVerdict { Success, Restart, Failed };

// A run that exited 0 succeeded; a non-zero exit is the app's own error (no restart);
// a crash or kill (signal) is restarted while restarts_so_far < max_restarts, then fails.
RunVerdict judge_run(const ProcessExit& exit, int restarts_so_far, int max_restarts);

// The last `max_bytes` of slot/stderr.txt (empty if none).
std::string read_stderr_tail(const std::string& slot_dir, size_t max_bytes = 4096);

}  // namespace tharsis
