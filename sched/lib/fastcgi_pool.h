// A pool of FastCGI worker processes on one Unix socket, started up front, for a web
// server that connects to it (Apache's mod_proxy_fcgi: ProxyPass "/<project>_cgi/fcgi"
// "unix:<socket>|fcgi://localhost/") instead of mod_fcgid starting the program itself.
// Why: mod_fcgid starts a class's processes only on demand, and a request that finds every
// existing process busy first sleeps a whole second before it asks for another, so each
// burst beyond the processes that happen to exist costs someone a second. All the pool's
// workers exist from the start; a burst waits in the socket's backlog and is served in
// order, as fast as a worker frees up.
// The parent only supervises: it restarts a worker that exits (after a growing delay when
// workers keep dying young, so a broken configuration does not spin), and stops on
// SIGTERM/SIGINT or when the project's stop trigger file appears (`stop`, as the daemons).
// A worker stopped while it serves a request finishes that request first.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "lib/result.h"

namespace tharsis {

struct FastCgiPoolOptions {
  std::string socket_path;         // created (mode 0666: the directory's permissions decide who connects)
  int processes = 4;               // workers, 1..kMaxPoolProcesses
  std::string pid_file;            // held under a lock for the pool's life: a second pool refuses to start
  std::string stop_trigger;        // the pool stops when this file exists ("" for none)
  double stop_grace_seconds = 10;  // workers still busy this long after the stop are killed
};

inline constexpr int kMaxPoolProcesses = 256;

// Pool options from a program's command line (--fastcgi_socket PATH [--processes N]),
// nullopt when it has none (serve as CGI or under mod_fcgid), an error for bad ones. Never
// taken from a process started as a CGI (GATEWAY_INTERFACE set): Apache passes a query
// string without '=' to a CGI as its arguments. `pid_file` and `stop_trigger` are filled
// by the caller (from the project's config).
Result<std::optional<FastCgiPoolOptions>> fastcgi_pool_from_args(int argc, char** argv);

// Seconds to wait before restarting a worker that exited after running `ran_seconds`:
// none after a long life, else double the previous wait (from 0.5 s, at most 30 s).
double worker_restart_delay(double ran_seconds, double previous_delay);

// Runs the pool until it is told to stop; each worker is a forked child running
// `worker(listen_fd)`, whose return value is its exit code. Returns the process's exit
// code, as the daemons': 0 a clean stop, 1 the socket could not be set up, 3 another pool
// of the program holds the pid file.
int run_fastcgi_pool(const FastCgiPoolOptions& options, const std::function<int(int listen_fd)>& worker);

// True once a pool worker has been told to stop: its request loop ends after the request
// in hand (between requests the worker exits at once).
bool pool_worker_stopping();
// A worker's place in its pool: slot `index` of `count` (0 <= index < count), kept by the
// worker that replaces it, so work split by slot (the scheduler's candidate cache) is never
// left without a worker.
struct PoolSlot {
  int index = 0;
  int count = 1;
};
// This process's slot when it is a pool worker, else nullopt (a CGI, a mod_fcgid process).
std::optional<PoolSlot> pool_worker_slot();
// Brackets one request in a pool worker (no effect outside a pool); a worker may have
// several in hand, one per thread. A worker told to stop exits when it has none.
void pool_worker_request_started();
void pool_worker_request_finished();

}  // namespace tharsis
