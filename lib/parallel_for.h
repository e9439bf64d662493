// Runs independent pieces of work on a few threads: for work that mostly waits on the
// file system (creating thousands of small files, each a few syscalls that wait on the
// journal), where the waits overlap and the CPU is not the limit.
#pragma once

#include <cstddef>
#include <functional>

#include "lib/result.h"

namespace tharsis {

// Threads for creating many small files: on this project's ext4 one small file is 0.2–0.6 ms
// of waiting; 100,000 inline inputs took 25.6 s on one thread, about 10 s on eight
// (docs/benchmarks.md, remote submission).
constexpr size_t kFileWriterThreads = 8;

// Calls body(i) once for each i in [0, n), on up to `threads` threads (the caller's
// among them; 1 runs everything in order on the caller's). body must be safe to run
// concurrently for different i. Returns the failure of the lowest i that failed, after
// every call has returned (so no call is left running); an exception thrown by body is
// turned into a failure with its message.
Status parallel_for_each(size_t n, size_t threads, const std::function<Status(size_t)>& body);

}  // namespace tharsis
