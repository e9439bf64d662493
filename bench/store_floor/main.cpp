// store_floor: the floor under the assimilator's file work on this machine, for
// bench/daemon_throughput.sh (as sched_floor is the scheduler's). For each output file
// named on stdin (one path per line) it does the least any store of the results store's
// layout (daemons/assimilator/lib/results_store.h) must do, with bare system calls and
// nothing else: read the file and hash it (the check against its report), make the
// workunit's directory, hard-link the file into it, and write a MANIFEST line through a
// temp file + rename — with the calls the store makes (names relative to the store's open
// directory, the link from the open file). No database, no XML, no checks of names.
//   store_floor --store DIR [--threads T] < paths
// The files are dealt round-robin to T threads (default 1). Prints one line:
//   <files/s> <CPU us per file>   (wall time from the first file to the last; CPU of the
//                                  whole process, user + system)
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "lib/crypto/md5.h"

namespace {

double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// One file stored, its names made relative to the store's directory `at` and the link
// made from the open file (as the results store does); false (and a message) when a step
// fails.
bool store_one(int at, const std::string& path) {
  const std::string name = path.substr(path.rfind('/') + 1);
  const int in = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return std::perror(path.c_str()), false;
  char buffer[64 * 1024];
  const ssize_t got = ::read(in, buffer, sizeof buffer);
  if (got < 0) return std::perror(path.c_str()), ::close(in), false;
  const std::string md5 = tharsis::md5_hex(std::string_view(buffer, static_cast<size_t>(got)));
  const std::string dir = name + ".d";
  if (::mkdirat(at, dir.c_str(), 0777) != 0) return std::perror(dir.c_str()), ::close(in), false;
  const bool linked = ::linkat(in, "", at, (dir + "/" + name).c_str(), AT_EMPTY_PATH) == 0;
  ::close(in);
  if (!linked) return std::perror(name.c_str()), false;
  const std::string line = name + " " + std::to_string(got) + " " + md5 + "\n";
  const std::string tmp = dir + "/MANIFEST.tmp";
  const int out = ::openat(at, tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) return std::perror(tmp.c_str()), false;
  const bool written = ::write(out, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  ::close(out);
  if (!written || ::renameat(at, tmp.c_str(), at, (dir + "/MANIFEST").c_str()) != 0)
    return std::perror(tmp.c_str()), false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string store;
  int threads = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--store") == 0) store = argv[i + 1];
    if (std::strcmp(argv[i], "--threads") == 0) threads = std::atoi(argv[i + 1]);
  }
  if (store.empty() || threads < 1 || threads > 64) {
    std::cerr << "usage: store_floor --store DIR [--threads 1..64] < paths\n";
    return 2;
  }
  std::vector<std::string> paths;
  for (std::string line; std::getline(std::cin, line);) {
    if (!line.empty()) paths.push_back(line);
  }
  if (paths.empty() || (::mkdir(store.c_str(), 0777) != 0 && errno != EEXIST)) {
    std::cerr << "store_floor: no paths given, or cannot make " << store << "\n";
    return 2;
  }
  const int at = ::open(store.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (at < 0) return std::perror(store.c_str()), 2;
  const double cpu0 = cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  std::vector<char> ok(static_cast<size_t>(threads), 1);
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (size_t i = static_cast<size_t>(t); i < paths.size(); i += static_cast<size_t>(threads)) {
        if (!store_one(at, paths[i])) ok[static_cast<size_t>(t)] = 0;
      }
    });
  }
  for (auto& worker : workers) worker.join();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cpu = cpu_seconds() - cpu0;
  for (char fine : ok) {
    if (!fine) return 1;
  }
  std::printf("%.0f %.0f\n", static_cast<double>(paths.size()) / wall,
              cpu * 1e6 / static_cast<double>(paths.size()));
  return 0;
}
