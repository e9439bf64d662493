// Implementation of sched/lib/fastcgi_group_server.h.
#include "sched/lib/fastcgi_group_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <vector>

#include "lib/log.h"
#include "sched/lib/fastcgi_pool.h"
#include "sched/lib/fastcgi_records.h"

namespace tharsis {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kWriteSeconds = 30;  // for Apache to take an answer
constexpr std::chrono::microseconds kFreshBodyWait{2000};

struct Connection {
  int fd = -1;
  FastCgiRequestReader reader;
  Clock::time_point accepted, last_bytes;
  Connection(int fd_, size_t max_body)
      : fd(fd_), reader(max_body), accepted(Clock::now()), last_bytes(accepted) {}
  Clock::time_point deadline() const {
    return std::min(last_bytes + std::chrono::seconds(kBodyIdleSeconds),
                    accepted + std::chrono::seconds(kRequestSeconds));
  }
};
using Held = std::unique_ptr<Connection>;

// Reads what the connection has now. False: it is done with (closed by the web server,
// failed, or malformed); the caller closes it.
bool read_available(Connection& c) {
  char buffer[64 << 10];
  for (;;) {
    ssize_t n = ::read(c.fd, buffer, sizeof buffer);
    if (n > 0) {
      c.last_bytes = Clock::now();
      if (c.reader.feed(std::string_view(buffer, static_cast<size_t>(n))) !=
          FastCgiRequestReader::State::kReading)
        break;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    return false;  // end of input before the request was whole, or an error
  }
  if (c.reader.state() == FastCgiRequestReader::State::kFailed) {
    log_error("fastcgi: dropping a connection: ", c.reader.error());
    return false;
  }
  return true;
}

// Writes all of `bytes` to the non-blocking socket, waiting for room up to kWriteSeconds.
bool write_all(int fd, const std::string& bytes) {
  const auto deadline = Clock::now() + std::chrono::seconds(kWriteSeconds);
  size_t sent = 0;
  while (sent < bytes.size()) {
    ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return false;
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, static_cast<int>(left));
      continue;
    }
    return false;
  }
  return true;
}

HttpRequest http_request_of(const Connection& c, size_t max_body) {
  const auto& params = c.reader.params();
  RequestHead head = read_request_head([&](const char* name) {
    auto it = params.find(name);
    return it == params.end() ? std::string() : it->second;
  });
  const std::string& body = c.reader.body();
  size_t at = 0;
  BodyReader reader(
      [&](char* buffer, size_t n) {
        size_t k = std::min(n, body.size() - at);
        std::copy_n(body.data() + at, k, buffer);
        at += k;
        return k;
      },
      head.bad_content_length ? std::nullopt : head.content_length);
  return read_http_request(head, reader, max_body);
}

// The worker's connections: those being read (in the epoll set) and those whole.
class ConnectionSet {
 public:
  ConnectionSet(int listen_fd, size_t max_body)
      : listen_fd_(listen_fd), max_body_(max_body), epoll_fd_(::epoll_create1(EPOLL_CLOEXEC)) {}
  ~ConnectionSet() {
    for (auto& [fd, c] : reading_) ::close(fd);
    for (auto& c : whole_) ::close(c->fd);
    if (epoll_fd_ >= 0) ::close(epoll_fd_);
  }
  ConnectionSet(const ConnectionSet&) = delete;
  ConnectionSet& operator=(const ConnectionSet&) = delete;
  bool ok() const { return epoll_fd_ >= 0; }
  bool idle() const { return reading_.empty() && whole_.empty(); }
  bool has_whole() const { return !whole_.empty(); }

  // Waits for bytes or connections (not at all when requests are whole already, at most
  // until the first held connection's deadline), then takes every connection waiting at
  // the socket and every byte that has arrived.
  void wait_and_read() {
    watch_listener();
    int timeout_ms = -1;
    if (!whole_.empty()) {
      timeout_ms = 0;
    } else if (!reading_.empty()) {
      auto first = Clock::time_point::max();
      for (auto& [fd, c] : reading_) first = std::min(first, c->deadline());
      auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(first - Clock::now()).count();
      timeout_ms = static_cast<int>(std::clamp<long long>(ms + 1, 0, 60'000));
    }
    take_arrivals(timeout_ms);
    drop_expired();
  }

  // Waits up to `budget` for the bodies of connections accepted in the last moment, whose
  // records Apache is still writing, so that a group takes the requests that came together
  // (as a worker reading one body after another did); a slow client costs it no more.
  void let_fresh_arrive(std::chrono::microseconds budget) {
    const auto until = Clock::now() + budget;
    for (;;) {
      const auto now = Clock::now();
      bool fresh = std::any_of(reading_.begin(), reading_.end(),
                               [&](const auto& held) { return now - held.second->accepted < budget; });
      if (!fresh || now >= until) return;
      take_arrivals(1);
    }
  }

  // Up to `most` whole requests, oldest first.
  std::vector<Held> take_whole(size_t most) {
    std::vector<Held> out;
    while (!whole_.empty() && out.size() < most) {
      out.push_back(std::move(whole_.front()));
      whole_.pop_front();
    }
    return out;
  }

 private:
  // The listening socket is in the set while the worker can hold more. When it holds
  // nothing it is put back at the end of the waiters (EPOLLEXCLUSIVE wakes one idle
  // worker per connection, the one that waited longest), so idle workers take turns.
  void watch_listener() {
    bool want = reading_.size() + whole_.size() < kMaxHeldConnections;
    bool rearm = want && idle();
    if (listening_ && (!want || rearm)) {
      ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, listen_fd_, nullptr);
      listening_ = false;
    }
    if (want && !listening_) {
      epoll_event event{};
      event.events = EPOLLIN | EPOLLEXCLUSIVE;
      event.data.fd = listen_fd_;
      listening_ = ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &event) == 0;
    }
  }

  // Waits up to `timeout_ms` for bytes or connections, reads what arrived on the held
  // connections, then accepts every connection waiting at the socket.
  void take_arrivals(int timeout_ms) {
    epoll_event events[64];
    int n = ::epoll_wait(epoll_fd_, events, 64, timeout_ms);
    for (int i = 0; i < n; ++i) {
      auto it = reading_.find(events[i].data.fd);  // (the listening socket's is not there)
      if (it != reading_.end()) advance(it);
    }
    accept_waiting();
  }

  void accept_waiting() {
    while (reading_.size() + whole_.size() < kMaxHeldConnections && !pool_worker_stopping()) {
      int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR) continue;
        return;  // none waiting (EAGAIN), or a neighbour took it
      }
      auto held = std::make_unique<Connection>(fd, max_body_);
      epoll_event event{};
      event.events = EPOLLIN;
      event.data.fd = fd;
      if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &event) != 0) {
        ::close(fd);
        continue;
      }
      advance(reading_.emplace(fd, std::move(held)).first);
    }
  }

  void advance(std::map<int, Held>::iterator it) {
    Connection& c = *it->second;
    bool open = read_available(c);
    if (open && c.reader.state() == FastCgiRequestReader::State::kReading) return;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c.fd, nullptr);
    if (open) {
      whole_.push_back(std::move(it->second));
    } else {
      ::close(c.fd);
    }
    reading_.erase(it);
  }

  void drop_expired() {
    const auto now = Clock::now();
    for (auto it = reading_.begin(); it != reading_.end();) {
      if (it->second->deadline() > now) {
        ++it;
        continue;
      }
      log_error("fastcgi: dropping a request whose body did not arrive in time (",
                it->second->reader.body_bytes_sent(), " bytes received)");
      ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, it->first, nullptr);
      ::close(it->first);
      it = reading_.erase(it);
    }
  }

  int listen_fd_;
  size_t max_body_;
  int epoll_fd_;
  bool listening_ = false;
  std::map<int, Held> reading_;  // by descriptor
  std::deque<Held> whole_;
};

}  // namespace

int serve_fastcgi_groups_on(int listen_fd, const GroupHandler& handler, size_t max_body, size_t max_group,
                            const BetweenRequests& between_requests) {
  // Every worker of the pool shares the socket and so the flag.
  int flags = ::fcntl(listen_fd, F_GETFL);
  if (flags < 0 || ::fcntl(listen_fd, F_SETFL, flags | O_NONBLOCK) < 0) return 1;
  ConnectionSet connections(listen_fd, max_body);
  if (!connections.ok()) return 1;
  max_group = std::max<size_t>(max_group, 1);
  while (!pool_worker_stopping()) {
    if (between_requests && !connections.has_whole()) between_requests();
    if (pool_worker_stopping()) break;
    connections.wait_and_read();
    if (!connections.has_whole()) continue;
    connections.let_fresh_arrive(kFreshBodyWait);
    pool_worker_request_started();
    std::vector<Held> group = connections.take_whole(max_group);
    std::vector<HttpRequest> requests;
    for (const auto& c : group) requests.push_back(http_request_of(*c, max_body));
    std::vector<HttpResponse> responses = handler(requests);
    for (size_t i = 0; i < group.size(); ++i) {
      const HttpResponse& response =
          i < responses.size() ? responses[i] : HttpResponse{500, "text/plain", ""};
      write_all(group[i]->fd,
                fastcgi_response_records(group[i]->reader.request_id(), render_http_response(response)));
      ::close(group[i]->fd);
    }
    pool_worker_request_finished();
  }
  return 0;
}

}  // namespace tharsis
