// Implementation of sched/lib/fastcgi_pool.h.
#include "sched/lib/fastcgi_pool.h"

#include <fcgiapp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "lib/daemon/pid_file.h"
#include "lib/log.h"

namespace tharsis {
namespace {

using Clock = std::chrono::steady_clock;

volatile sig_atomic_t g_pool_stop = 0;    // the parent: stop the pool
volatile sig_atomic_t g_worker_stop = 0;  // a worker: stop after the request in hand
std::atomic<int> g_in_flight{0};          // a worker: requests in hand (its threads')
static_assert(std::atomic<int>::is_always_lock_free, "read in a signal handler");
volatile sig_atomic_t g_is_pool_worker = 0;  // this process is a pool worker
PoolSlot g_slot;                             // a worker: its slot (set before it serves)

void on_pool_signal(int) { g_pool_stop = 1; }

void on_worker_signal(int) {
  g_worker_stop = 1;
  if (g_in_flight.load() == 0) _exit(0);  // idle in accept(): nothing to finish
}

void set_handler(int signal_number, void (*handler)(int)) {
  struct sigaction action {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  sigaction(signal_number, &action, nullptr);
}

// Whether something accepts connections on the socket at `path` right now.
bool socket_answers(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof(address.sun_path) - 1);
  bool answers = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  ::close(fd);
  return answers;
}

struct Worker {
  pid_t pid = 0;  // 0: not running
  Clock::time_point started, restart_at;
  double delay = 0;  // the last restart delay
};

pid_t start_worker(int listen_fd, pid_t parent, PoolSlot slot, const std::function<int(int)>& worker) {
  pid_t pid = ::fork();
  if (pid != 0) return pid;  // the parent (or -1)
  g_is_pool_worker = 1;
  g_slot = slot;
  set_handler(SIGTERM, on_worker_signal);
  set_handler(SIGINT, SIG_IGN);  // a terminal's ^C reaches the parent, which stops us
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != parent) _exit(0);  // the parent died before the line above
  _exit(worker(listen_fd));
}

void stop_workers(std::vector<Worker>& workers, double grace_seconds) {
  for (auto& w : workers) {
    if (w.pid > 0) ::kill(w.pid, SIGTERM);
  }
  auto give_up = Clock::now() +
                 std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(grace_seconds));
  auto running = [&] {
    return std::any_of(workers.begin(), workers.end(), [](const Worker& w) { return w.pid > 0; });
  };
  while (running()) {
    for (auto& w : workers) {
      if (w.pid > 0 && ::waitpid(w.pid, nullptr, WNOHANG) == w.pid) w.pid = 0;
    }
    if (!running()) break;
    if (Clock::now() >= give_up) {
      for (auto& w : workers) {
        if (w.pid > 0) {
          log_error("fastcgi pool: worker ", w.pid, " still busy after ", grace_seconds, " s: killed");
          ::kill(w.pid, SIGKILL);
          ::waitpid(w.pid, nullptr, 0);
          w.pid = 0;
        }
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace

Result<std::optional<FastCgiPoolOptions>> fastcgi_pool_from_args(int argc, char** argv) {
  using Out = Result<std::optional<FastCgiPoolOptions>>;
  if (argc <= 1) return Out(std::optional<FastCgiPoolOptions>());
  if (std::getenv("GATEWAY_INTERFACE")) return Out(std::optional<FastCgiPoolOptions>());
  FastCgiPoolOptions options;
  bool processes_given = false;
  for (int i = 1; i < argc; ++i) {
    std::string name = argv[i];
    if (i + 1 >= argc) return Out(Error{"option " + name + " needs a value"});
    std::string value = argv[++i];
    if (name == "--fastcgi_socket") {
      if (value.empty() || value.size() >= sizeof(sockaddr_un::sun_path)) {
        return Out(Error{"--fastcgi_socket: a socket path of 1 to " +
                         std::to_string(sizeof(sockaddr_un::sun_path) - 1) + " bytes"});
      }
      options.socket_path = value;
    } else if (name == "--processes") {
      char* end = nullptr;
      long n = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || n < 1 || n > kMaxPoolProcesses) {
        return Out(Error{"--processes: a number from 1 to " + std::to_string(kMaxPoolProcesses) +
                         ", found '" + value + "'"});
      }
      options.processes = static_cast<int>(n);
      processes_given = true;
    } else {
      return Out(Error{"unknown option " + name + " (options: --fastcgi_socket PATH --processes N)"});
    }
  }
  if (options.socket_path.empty()) {
    return Out(Error{processes_given ? "--processes needs --fastcgi_socket"
                                     : "options: --fastcgi_socket PATH --processes N"});
  }
  return Out(std::optional<FastCgiPoolOptions>(options));
}

double worker_restart_delay(double ran_seconds, double previous_delay) {
  constexpr double kLongLife = 10, kFirst = 0.5, kMost = 30;
  if (ran_seconds >= kLongLife) return 0;
  return std::min(kMost, std::max(kFirst, previous_delay * 2));
}

bool pool_worker_stopping() { return g_is_pool_worker && g_worker_stop; }
std::optional<PoolSlot> pool_worker_slot() {
  if (!g_is_pool_worker) return std::nullopt;
  return g_slot;
}
void pool_worker_request_started() { ++g_in_flight; }
void pool_worker_request_finished() {
  // The last request in hand of a worker told to stop: its threads still waiting in
  // accept() have nothing to finish.
  if (--g_in_flight == 0 && g_worker_stop) _exit(0);
}

int run_fastcgi_pool(const FastCgiPoolOptions& options, const std::function<int(int listen_fd)>& worker) {
  std::unique_ptr<PidFile> pid_file;
  if (!options.pid_file.empty()) {
    auto acquired = PidFile::acquire(options.pid_file);
    if (!acquired.ok()) {
      log_error("fastcgi pool: ", acquired.error());
      return 3;  // as a daemon whose shard runs already
    }
    pid_file = std::move(*acquired);
  }
  // We hold the pid file's lock, so a socket left at the path is a dead pool's, unless a
  // different program answers on it: never take over a live socket.
  struct stat st {};
  if (::lstat(options.socket_path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      log_error("fastcgi pool: ", options.socket_path, " exists and is not a socket");
      return 1;
    }
    if (socket_answers(options.socket_path)) {
      log_error("fastcgi pool: something already serves ", options.socket_path);
      return 1;
    }
    ::unlink(options.socket_path.c_str());
  }
  FCGX_Init();
  int listen_fd = FCGX_OpenSocket(options.socket_path.c_str(), 128);
  if (listen_fd < 0) {
    log_error("fastcgi pool: cannot listen on ", options.socket_path, ": ", std::strerror(errno));
    return 1;
  }
  ::chmod(options.socket_path.c_str(), 0666);
  set_handler(SIGTERM, on_pool_signal);
  set_handler(SIGINT, on_pool_signal);
  set_handler(SIGPIPE, SIG_IGN);
  log_info("fastcgi pool: ", options.processes, " workers on ", options.socket_path);

  const pid_t parent = ::getpid();
  std::vector<Worker> workers(static_cast<size_t>(options.processes));
  auto next_trigger_check = Clock::now();
  while (!g_pool_stop) {
    auto now = Clock::now();
    for (size_t slot = 0; slot < workers.size(); ++slot) {
      Worker& w = workers[slot];
      int status = 0;
      if (w.pid > 0 && ::waitpid(w.pid, &status, WNOHANG) == w.pid) {
        double ran = std::chrono::duration<double>(now - w.started).count();
        w.delay = worker_restart_delay(ran, w.delay);
        w.restart_at =
            now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(w.delay));
        log_error("fastcgi pool: worker ", w.pid, " ended (",
                  WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                      : "exit " + std::to_string(WEXITSTATUS(status)),
                  ") after ", ran, " s; restarting in ", w.delay, " s");
        w.pid = 0;
      }
      if (w.pid == 0 && now >= w.restart_at) {
        w.pid = start_worker(listen_fd, parent, PoolSlot{static_cast<int>(slot), options.processes}, worker);
        w.started = now;
        if (w.pid < 0) {
          log_error("fastcgi pool: fork failed: ", std::strerror(errno));
          w.pid = 0;
          w.delay = worker_restart_delay(0, w.delay);
          w.restart_at =
              now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(w.delay));
        }
      }
    }
    if (!options.stop_trigger.empty() && now >= next_trigger_check) {
      if (::access(options.stop_trigger.c_str(), F_OK) == 0) break;
      next_trigger_check = now + std::chrono::seconds(1);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  log_info("fastcgi pool: stopping");
  stop_workers(workers, options.stop_grace_seconds);
  ::close(listen_fd);
  ::unlink(options.socket_path.c_str());
  return 0;
}

}  // namespace tharsis
