// Child processes for integration tests: start a built program (found beside the test
// binary), signal it, reap it. Output goes to a log file for post-mortems.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace tharsis::testing {

// Directory holding the built programs (the test binary's own directory).
std::string built_programs_dir();

class ChildProcess {
 public:
  ChildProcess(const std::string& program, const std::vector<std::string>& args, const std::string& log_file);
  ~ChildProcess();  // SIGKILLs and reaps if still running
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  bool running();  // false once it has exited (reaps it)
  void signal(int signal_number);
  // Waits up to `seconds` for exit; returns the exit code, or -1 (killed by a signal or
  // still running after the wait).
  int wait(double seconds);

 private:
  pid_t pid_ = -1;
  int status_ = 0;
  bool reaped_ = false;
};

}  // namespace tharsis::testing
