// Implementation of tools/lib/daemon_control.h.
#include "tools/lib/daemon_control.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>
#include <vector>

#include "lib/log.h"
#include "lib/text_file.h"

namespace tharsis {
namespace {

bool process_alive(pid_t pid) {
  if (pid <= 0) return false;
  if (kill(pid, 0) != 0 && errno == ESRCH) return false;
  // A zombie child of ours (we started it and it died) counts as gone.
  int status = 0;
  if (waitpid(pid, &status, WNOHANG) == pid) return false;
  // So does anyone's zombie: a daemon that died, re-parented to an init that has not
  // reaped it yet (or never does, as in some containers).
  // Without /proc, kill's answer stands.
  auto stat = read_text_file("/proc/" + std::to_string(pid) + "/stat");
  if (!stat.ok()) return true;
  const size_t command_end = stat->rfind(')');  // the state follows the command's ") "
  return command_end == std::string::npos || command_end + 2 >= stat->size() ||
         (*stat)[command_end + 2] != 'Z';
}

void sleep_seconds(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

}  // namespace

Result<DaemonCommand> parse_daemon_command(const std::string& cmd) {
  std::istringstream in(cmd);
  DaemonCommand command;
  std::string word;
  while (in >> word) {
    if (command.program.empty())
      command.program = word;
    else
      command.args.push_back(word);
  }
  if (command.program.empty()) return make_error("<daemon><cmd>: expected a program name, found nothing");
  if (command.program.find('/') != std::string::npos || command.program[0] == '.') {
    return make_error("<daemon><cmd>: expected a program name in bin/, found '" + command.program + "'");
  }
  // The daemon names its pid file <program>_<mod_id> only when sharded (--mod > 1).
  command.instance = command.program;
  std::string mod = "1", mod_id;
  for (size_t i = 0; i + 1 < command.args.size(); ++i) {
    if (command.args[i] == "--mod") mod = command.args[i + 1];
    if (command.args[i] == "--mod_id") mod_id = command.args[i + 1];
  }
  if (mod != "1" && !mod_id.empty()) command.instance += "_" + mod_id;
  return command;
}

std::string daemon_pid_file(const ProjectConfig& config, const DaemonCommand& command) {
  return config.pid_dir + "/" + command.instance + ".pid";
}

std::string daemon_log_file(const ProjectConfig& config, const DaemonCommand& command) {
  return config.log_dir + "/" + command.instance + ".log";
}

std::string last_log_line(const std::string& path) {
  constexpr std::streamoff kTail = 4096;  // a log of months is not read whole
  constexpr size_t kMostChars = 400;
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  in.seekg(std::max<std::streamoff>(0, size - kTail));
  std::string tail((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.pop_back();
  const size_t start = tail.rfind('\n');
  std::string line = start == std::string::npos ? tail : tail.substr(start + 1);
  if (line.size() > kMostChars) line = line.substr(line.size() - kMostChars);
  return line;
}

pid_t running_pid(const std::string& pid_file) {
  std::ifstream in(pid_file);
  long pid = 0;
  if (!(in >> pid) || pid <= 0) return 0;
  return process_alive(static_cast<pid_t>(pid)) ? static_cast<pid_t>(pid) : 0;
}

std::string stop_trigger_path(const ProjectConfig& config) { return config.project_dir + "/stop_daemons"; }

std::vector<DaemonStatus> daemon_statuses(const ProjectConfig& config) {
  std::vector<DaemonStatus> statuses;
  for (const auto& daemon : config.daemons) {
    auto command = parse_daemon_command(daemon.cmd);
    if (!command.ok()) continue;
    DaemonStatus status{*command, daemon.disabled, running_pid(daemon_pid_file(config, *command))};
    statuses.push_back(std::move(status));
  }
  return statuses;
}

namespace {

// Launches one daemon detached (double fork: re-parented to init, it never becomes our
// zombie and outlives this short-lived tool); returns its pid, or 0 when the fork failed.
pid_t launch_daemon(const ProjectConfig& config, const DaemonConfig& daemon, const std::string& program,
                    const std::vector<std::string>& args, const std::string& log_file) {
  std::vector<std::string> argv_storage{program};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  int pid_pipe[2];
  if (pipe2(pid_pipe, O_CLOEXEC) != 0) return 0;
  pid_t child = fork();
  if (child < 0) {
    ::close(pid_pipe[0]);
    ::close(pid_pipe[1]);
    return 0;
  }
  if (child == 0) {
    setsid();
    pid_t daemon_pid = fork();
    if (daemon_pid != 0) {  // tells start the daemon's pid (or -1)
      (void)!::write(pid_pipe[1], &daemon_pid, sizeof daemon_pid);
      _exit(0);
    }
    if (chdir(config.project_dir.c_str()) != 0) _exit(126);
    int null_fd = open("/dev/null", O_RDONLY);
    int log_fd = open(log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (null_fd < 0 || log_fd < 0) _exit(126);
    dup2(null_fd, STDIN_FILENO);
    dup2(log_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    // A daemon that never ran says why in its log.
    auto fail = [&](const char* what, int code) {
      const int error = errno;
      const std::string line =
          std::string("start: ") + what + " " + program + ": " + std::strerror(error) + "\n";
      (void)!::write(STDERR_FILENO, line.data(), line.size());
      _exit(code);
    };
    // An increment, as `nice -n`: a start run at a niceness of its own (by cron, by an
    // unprivileged admin) keeps the order, and never asks to lower it, which only root may.
    errno = 0;
    if (daemon.nice > 0 && ::nice(daemon.nice) == -1 && errno != 0) fail("cannot renice", 126);
    std::vector<char*> argv;
    for (auto& a : argv_storage) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(program.c_str(), argv.data());
    fail("cannot run", 127);
  }
  ::close(pid_pipe[1]);
  pid_t daemon_pid = 0;
  if (::read(pid_pipe[0], &daemon_pid, sizeof daemon_pid) != static_cast<ssize_t>(sizeof daemon_pid))
    daemon_pid = 0;
  ::close(pid_pipe[0]);
  int status = 0;
  waitpid(child, &status, 0);
  return daemon_pid > 0 ? daemon_pid : 0;
}

struct Launched {
  std::string instance, pid_file, log_file;
  pid_t pid;
};

// Watches `launched` until each has written its pid file or exited, for at most
// kStartWatchSeconds; sorts them into `outcome`, in launch order.
void watch_launched(const std::vector<Launched>& launched, StartOutcome& outcome) {
  enum class Seen { Pending, Running, Exited };
  std::vector<Seen> seen(launched.size(), Seen::Pending);
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(kStartWatchSeconds);
  for (bool pending = true; pending;) {
    pending = false;
    for (size_t i = 0; i < launched.size(); ++i) {
      if (seen[i] != Seen::Pending) continue;
      if (!process_alive(launched[i].pid)) {
        seen[i] = Seen::Exited;
      } else if (running_pid(launched[i].pid_file) == launched[i].pid) {
        seen[i] = Seen::Running;
      } else {
        pending = true;
      }
    }
    if (pending && std::chrono::steady_clock::now() >= until) break;  // running, slow to start
    if (pending) sleep_seconds(0.02);
  }
  for (size_t i = 0; i < launched.size(); ++i) {
    const Launched& l = launched[i];
    if (seen[i] == Seen::Exited) {
      outcome.failed.push_back({l.instance, l.log_file, last_log_line(l.log_file)});
    } else {
      outcome.started.push_back(l.instance);
    }
  }
}

}  // namespace

Result<StartOutcome> start_daemons(const ProjectConfig& config) {
  if (unlink(stop_trigger_path(config).c_str()) != 0 && errno != ENOENT) {
    return make_error("start: cannot remove " + stop_trigger_path(config) + ": " + std::strerror(errno));
  }
  std::vector<Launched> launched;
  for (const auto& daemon : config.daemons) {
    if (daemon.disabled) continue;
    auto command = parse_daemon_command(daemon.cmd);
    if (!command.ok()) return make_error(command.error());
    const std::string pid_file = daemon_pid_file(config, *command);
    if (running_pid(pid_file) != 0) continue;
    std::string program = config.project_dir + "/bin/" + command->program;
    if (access(program.c_str(), X_OK) != 0) {
      return make_error("start: expected an executable " + program + ", found none");
    }
    std::string log_file = daemon_log_file(config, *command);
    pid_t pid = launch_daemon(config, daemon, program, command->args, log_file);
    if (pid == 0)
      return make_error("start: cannot launch " + command->instance + ": " + std::strerror(errno));
    launched.push_back({command->instance, pid_file, log_file, pid});
    log_info("launched ", command->instance, " (log ", log_file, ")");
  }
  StartOutcome outcome;
  watch_launched(launched, outcome);
  return outcome;
}

Result<std::vector<std::string>> stop_daemons(const ProjectConfig& config, double grace_seconds) {
  {
    std::ofstream trigger(stop_trigger_path(config));
    if (!trigger) return make_error("stop: cannot create " + stop_trigger_path(config));
  }
  auto all_stopped = [&] {
    for (const auto& status : daemon_statuses(config)) {
      if (running_pid(daemon_pid_file(config, status.command)) != 0) return false;
    }
    return true;
  };
  auto wait_until_stopped = [&](double seconds) {
    for (double waited = 0; waited < seconds; waited += 0.05) {
      if (all_stopped()) return true;
      sleep_seconds(0.05);
    }
    return all_stopped();
  };
  std::vector<std::string> signalled;
  if (wait_until_stopped(grace_seconds)) return signalled;
  for (int signal_number : {SIGTERM, SIGKILL}) {
    for (const auto& status : daemon_statuses(config)) {
      pid_t pid = running_pid(daemon_pid_file(config, status.command));
      if (pid == 0) continue;
      kill(pid, signal_number);
      if (signal_number == SIGTERM) signalled.push_back(status.command.instance);
      log_warning("stop: ", status.command.instance, " (pid ", pid, ") ignored the stop trigger; sent ",
                  signal_number == SIGTERM ? "SIGTERM" : "SIGKILL");
    }
    if (wait_until_stopped(grace_seconds)) return signalled;
  }
  return make_error("stop: daemons still running after SIGKILL");
}

}  // namespace tharsis
