// Implementation of client/lib/task_process.h.
#include "client/lib/task_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "lib/text_file.h"

extern char** environ;

namespace tharsis {

namespace fs = std::filesystem;

namespace {

// The client's environment with `extra` ("NAME=value") added, replacing same-named entries.
std::vector<std::string> merged_environment(const std::vector<std::string>& extra) {
  auto name_of = [](const std::string& entry) { return entry.substr(0, entry.find('=')); };
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    std::string entry(*e);
    bool replaced = false;
    for (const auto& x : extra) replaced |= name_of(x) == name_of(entry);
    if (!replaced) out.push_back(std::move(entry));
  }
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

std::vector<char*> pointers_to(std::vector<std::string>& texts) {
  std::vector<char*> out;
  for (auto& t : texts) out.push_back(t.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

Result<pid_t> start_task_process(const TaskLaunch& launch) {
  std::error_code ec;
  fs::remove_all(launch.slot_dir, ec);
  fs::create_directories(launch.slot_dir, ec);
  if (ec) return make_error("cannot make slot " + launch.slot_dir + ": " + ec.message());
  for (const auto& link : launch.links) {
    fs::create_symlink(link.target, launch.slot_dir + "/" + link.open_name, ec);
    if (ec)
      return make_error("slot " + launch.slot_dir + ": cannot link " + link.open_name + ": " + ec.message());
  }
  std::string log = launch.slot_dir + "/stderr.txt";
  // Everything the child needs is prepared before fork: after it, only async-signal-safe calls.
  std::vector<std::string> argv_text{launch.executable};
  argv_text.insert(argv_text.end(), launch.args.begin(), launch.args.end());
  std::vector<char*> argv = pointers_to(argv_text);
  std::vector<std::string> env_text = merged_environment(launch.env);
  std::vector<char*> envp = pointers_to(env_text);
  pid_t pid = fork();
  if (pid < 0) return make_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    if (chdir(launch.slot_dir.c_str()) != 0) _exit(126);
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, 0);
    setpgid(0, 0);  // its own process group: a terminal's Ctrl-C reaches the client, not the task
    execve(launch.executable.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  return pid;
}

std::optional<ProcessExit> poll_task_process(pid_t pid) {
  int status = 0;
  struct rusage usage {};
  pid_t done = wait4(pid, &status, WNOHANG, &usage);
  if (done == 0) return std::nullopt;
  ProcessExit exit;
  if (done < 0) {
    exit.signalled = true;  // not our child (e.g. a client restarted since): treat as lost
    return exit;
  }
  exit.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                     static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  if (WIFSIGNALED(status)) {
    exit.signalled = true;
    exit.signal = WTERMSIG(status);
  } else {
    exit.exit_code = WEXITSTATUS(status);
  }
  return exit;
}

void kill_task_process(pid_t pid) {
  if (pid <= 0) return;
  if (kill(pid, SIGKILL) == 0) {
    int status = 0;
    waitpid(pid, &status, 0);
  }
}

RunVerdict judge_run(const ProcessExit& exit, int restarts_so_far, int max_restarts) {
  if (!exit.signalled) return exit.exit_code == 0 ? RunVerdict::Success : RunVerdict::Failed;
  return restarts_so_far < max_restarts ? RunVerdict::Restart : RunVerdict::Failed;
}

std::string read_stderr_tail(const std::string& slot_dir, size_t max_bytes) {
  auto text = read_text_file(slot_dir + "/stderr.txt");
  if (!text.ok()) return "";
  if (text->size() > max_bytes) return text->substr(text->size() - max_bytes);
  return *text;
}

}  // namespace tharsis
