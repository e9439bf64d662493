// A FastCGI pool worker's request loop for whole-body requests (the scheduler's), where no
// client can hold the worker. Apache's mod_proxy_fcgi connects to the pool as soon as a
// request's headers are in and then streams the body as the client sends it, so a worker
// that read one request at a time would wait as long as its slowest client chose: a few
// connections that send their bodies a byte at a time would stop the whole pool. This loop
// instead holds every connection it has accepted (up to kMaxHeldConnections), reads each
// as its bytes arrive (sched/lib/fastcgi_records.h), and serves the requests that are whole;
// one that stops sending for kBodyIdleSeconds, or is not whole after kRequestSeconds, is
// closed unanswered (Apache then answers its client with an error).
// Groups: it serves together every request that is whole when it takes one (up to
// `max_group`): at low load a group is one request; under load it grows with the queue.
#pragma once

#include <cstddef>

#include "sched/lib/cgi_server.h"

namespace tharsis {

inline constexpr size_t kMaxHeldConnections = 64;  // per worker; more wait in the socket's backlog
inline constexpr int kBodyIdleSeconds = 30;
inline constexpr int kRequestSeconds = 300;

// Serves on the pool's listening socket (made non-blocking) until the pool stops the
// worker; `between_requests` runs whenever no whole request waits. Returns the exit code.
int serve_fastcgi_groups_on(int listen_fd, const GroupHandler& handler, size_t max_body, size_t max_group,
                            const BetweenRequests& between_requests = {});

}  // namespace tharsis
