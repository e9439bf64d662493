// Implementation of lib/parallel_for.h.
#include "lib/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tharsis {

Status parallel_for_each(size_t n, size_t threads, const std::function<Status(size_t)>& body) {
  std::atomic<size_t> next{0};
  std::mutex mutex;
  size_t failed_at = std::numeric_limits<size_t>::max();
  std::string failure;
  auto record = [&](size_t i, const std::string& message) {
    std::lock_guard<std::mutex> lock(mutex);
    if (i < failed_at) {
      failed_at = i;
      failure = message;
    }
  };
  auto work = [&] {
    for (size_t i = next++; i < n; i = next++) {
      try {
        if (Status done = body(i); !done.ok()) record(i, done.error());
      } catch (const std::exception& e) {
        record(i, e.what());
      }
    }
  };
  std::vector<std::thread> pool;
  const size_t count = std::min(std::max<size_t>(threads, 1), n);
  for (size_t t = 1; t < count; ++t) pool.emplace_back(work);
  work();
  for (auto& thread : pool) thread.join();
  if (failed_at != std::numeric_limits<size_t>::max()) return make_error(failure);
  return Status::success();
}

}  // namespace tharsis
