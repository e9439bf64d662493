// Implementation of sched/lib/serve_http.h.
#include "sched/lib/serve_http.h"

#include <iostream>

#include "sched/lib/fastcgi_group_server.h"
#include "sched/lib/fastcgi_pool.h"
#include "tools/lib/daemon_control.h"

namespace tharsis {
namespace {

// The pool's options from the command line and the project's config; nullopt with the
// exit code when the program is not to run as a pool (or cannot).
std::optional<FastCgiPoolOptions> pool_options(int argc, char** argv, const ProjectConfig* config,
                                               const std::string& program, int& exit_code) {
  exit_code = -1;
  auto parsed = fastcgi_pool_from_args(argc, argv);
  if (!parsed.ok()) {
    std::cerr << program << ": " << parsed.error() << "\n";
    exit_code = 2;
    return std::nullopt;
  }
  if (!*parsed) return std::nullopt;
  if (!config) {
    std::cerr << program << ": cannot run as a FastCGI pool: the project's config.xml was not read\n";
    exit_code = 1;
    return std::nullopt;
  }
  FastCgiPoolOptions options = **parsed;
  DaemonCommand self{program, {}, program};
  options.pid_file = daemon_pid_file(*config, self);
  options.stop_trigger = stop_trigger_path(*config);
  return options;
}

}  // namespace

int serve_http(int argc, char** argv, const ProjectConfig* config, const std::string& program,
               const StreamingHandler& handler, const BetweenRequests& between_requests) {
  int exit_code = -1;
  auto pool = pool_options(argc, argv, config, program, exit_code);
  if (exit_code >= 0) return exit_code;
  if (!pool) return serve_cgi_or_fastcgi_streaming(handler);
  return run_fastcgi_pool(*pool, [&](int listen_fd) {
    if (between_requests) return serve_fastcgi_on(listen_fd, handler, 0, between_requests);
    return serve_fastcgi_threads_on(listen_fd, handler, kStreamingRequestsPerWorker);
  });
}

int serve_http(int argc, char** argv, const ProjectConfig* config, const std::string& program,
               const RequestHandler& handler, size_t max_body, const BetweenRequests& between_requests) {
  // A pool serves whole bodies one at a time, but through the loop no slow client can hold.
  auto one_by_one = [&](const std::vector<HttpRequest>& requests) {
    std::vector<HttpResponse> responses;
    for (const auto& request : requests) responses.push_back(handler(request));
    return responses;
  };
  return serve_http(argc, argv, config, program, handler, one_by_one, max_body, 1, between_requests);
}

int serve_http(int argc, char** argv, const ProjectConfig* config, const std::string& program,
               const RequestHandler& handler, const GroupHandler& group, size_t max_body, size_t max_group,
               const BetweenRequests& between_requests) {
  int exit_code = -1;
  auto pool = pool_options(argc, argv, config, program, exit_code);
  if (exit_code >= 0) return exit_code;
  if (!pool) return serve_cgi_or_fastcgi(handler, max_body);
  return run_fastcgi_pool(*pool, [&](int listen_fd) {
    return serve_fastcgi_groups_on(listen_fd, group, max_body, max_group, between_requests);
  });
}

}  // namespace tharsis
