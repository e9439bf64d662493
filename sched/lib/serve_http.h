// How a web program of the project (the scheduler, the upload handler) serves requests,
// chosen by how it was started:
//  - by Apache as a CGI (one request) or under mod_fcgid (a FastCGI loop), with no
//    arguments, as BOINC's programs are;
//  - from the command line or by `start` as a project daemon (<daemon><cmd>scheduler
//    --fastcgi_socket run/scheduler.sock --processes 8</cmd></daemon>) as a pool of FastCGI
//    workers on that socket for Apache's mod_proxy_fcgi (sched/lib/fastcgi_pool.h): its pid
//    file is pid/<program>.pid and it stops with the other daemons (the stop trigger).
// Bad pool options are reported on stderr with exit code 2, never served as a request.
#pragma once

#include <string>

#include "lib/config/project_config.h"
#include "sched/lib/cgi_server.h"

namespace tharsis {

// `config` is null when the project's configuration could not be read: then the program
// can still answer as a CGI (with the handler's error), but refuses to run as a pool.
// `between_requests` runs in a pool worker only (fastcgi_pool.h; see serve_fastcgi_on).
// A pool reads whole-body requests without letting a slow client hold a worker
// (fastcgi_group_server.h); a streaming handler's pool worker (the upload handler's) serves
// up to kStreamingRequestsPerWorker requests at once, one per thread, so `handler` must be
// thread-safe (without `between_requests`; with it, one at a time).
inline constexpr int kStreamingRequestsPerWorker = 32;
int serve_http(int argc, char** argv, const ProjectConfig* config, const std::string& program,
               const StreamingHandler& handler, const BetweenRequests& between_requests = {});
int serve_http(int argc, char** argv, const ProjectConfig* config, const std::string& program,
               const RequestHandler& handler, size_t max_body, const BetweenRequests& between_requests = {});

// The same, a pool worker serving the requests that wait at its socket together through
// `group` (serve_fastcgi_groups_on, up to `max_group` at once); as CGI or under mod_fcgid,
// one at a time through `handler`.
int serve_http(int argc, char** argv, const ProjectConfig* config, const std::string& program,
               const RequestHandler& handler, const GroupHandler& group, size_t max_body, size_t max_group,
               const BetweenRequests& between_requests = {});

}  // namespace tharsis
