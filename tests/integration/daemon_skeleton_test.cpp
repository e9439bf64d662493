// The daemon skeleton (lib/daemon/) on a real project and a real MariaDB, driven by a toy
// daemon run in a forked child through run_daemon itself: --one_pass drains the due rows
// and exits 0, SIGTERM and the stop trigger stop it cleanly after the unit in hand, the
// heartbeat row appears and advances, --mod 2 instances split the rows without overlap,
// as do the workers of one instance with --threads, and a lost database, or a commit the
// cluster refused, is waited out with back-off. The toy
// "processes" a due workunit by setting its transition_time to never, in one transaction, and lists the ids
// it did.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "db/heartbeat_store.h"
#include "db/sql.h"
#include "db/states.h"
#include "db/workunit_store.h"
#include "lib/daemon/daemon_loop.h"
#include "lib/text_file.h"
#include "tests/support/test_project.h"
#include "tools/lib/make_project.h"

namespace tharsis::daemon_skeleton_test {
namespace {

using Clock = std::chrono::steady_clock;

// The toy daemon's work: each due workunit of its shard is one unit. It appends
// "begin <id>" before the unit's transaction body and "done <id>" after it committed.
class ToyWork final : public DaemonWork {
 public:
  ToyWork(std::string journal, int unit_millis) : journal_(std::move(journal)), unit_millis_(unit_millis) {}

  int do_pass(Database& db, const DaemonContext& context, int64_t now) override {
    int done = 0;
    for (int64_t due_id : fetch_due_workunit_ids(db, now, context.shard, context.batch)) {
      if (context.stop_requested()) break;
      bool did = db.transaction([&](Database& d) {
        auto wu = fetch_workunit(d, due_id, /*for_update=*/true);
        if (!wu || wu->transition_time > now) return false;
        note("begin", due_id);
        if (unit_millis_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(unit_millis_));
        WorkunitRow after = *wu;
        after.transition_time = kTransitionNever;
        return update_workunit_guarded(d, *wu, after);
      });
      if (did) {
        note("done", due_id);
        note(("shard" + std::to_string(context.shard.id)).c_str(), due_id);
        ++done;
      }
    }
    return done;
  }

 private:
  void note(const char* what, int64_t id) {
    std::ofstream(journal_, std::ios::app) << what << " " << id << "\n";
  }
  std::string journal_;
  int unit_millis_;
};

// run_daemon("toy", ...) in a forked child, its stderr in `log`.
class ToyDaemon {
 public:
  ToyDaemon(const std::string& journal, const std::vector<std::string>& args, const std::string& log,
            int unit_millis = 0) {
    std::vector<std::string> storage{"toy"};
    storage.insert(storage.end(), args.begin(), args.end());
    pid_ = fork();
    if (pid_ == 0) {
      int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      std::vector<const char*> argv;
      for (const auto& a : storage) argv.push_back(a.c_str());
      int code = 1;
      try {
        code = run_daemon(
            "toy", static_cast<int>(argv.size()), argv.data(),
            [&](const ProjectConfig&, const DaemonOptions&) -> Result<std::unique_ptr<DaemonWork>> {
              return std::unique_ptr<DaemonWork>(new ToyWork(journal, unit_millis));
            });
      } catch (...) {
      }
      std::fflush(nullptr);
      _exit(code);  // no destructors or atexit handlers of the test process in the child
    }
  }
  ~ToyDaemon() {
    if (running()) {
      kill(pid_, SIGKILL);
      wait(10);
    }
  }
  pid_t pid() const { return pid_; }
  bool running() {
    if (!reaped_ && waitpid(pid_, &status_, WNOHANG) == pid_) reaped_ = true;
    return !reaped_;
  }
  void signal(int number) {
    if (running()) kill(pid_, number);
  }
  // Exit code, or -1 if still running after `seconds` or killed by a signal.
  int wait(double seconds) {
    auto until = Clock::now() + std::chrono::duration<double>(seconds);
    while (running()) {
      if (Clock::now() > until) return -1;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
  }

 private:
  pid_t pid_ = -1;
  int status_ = 0;
  bool reaped_ = false;
};

// A file's text, or "" when it cannot be read.
std::string text_of(const std::string& path) {
  auto text = read_text_file(path);
  return text.ok() ? *text : std::string();
}

// True once `pid` has written its pid into `path`: the file exists a moment before its
// creator holds the lock, so its mere existence does not say who won.
bool holds_pid_file(const std::string& path, pid_t pid) { return std::atol(text_of(path).c_str()) == pid; }

template <class Predicate>
bool eventually(double seconds, Predicate predicate) {
  auto until = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < until) {
    if (predicate()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return predicate();
}

// Lines "<what> <id>" of a journal, as the set of ids and the count of lines.
std::multiset<int64_t> journal_ids(const std::string& journal, const std::string& what) {
  std::multiset<int64_t> ids;
  std::ifstream in(journal);
  std::string word;
  int64_t id = 0;
  while (in >> word >> id) {
    if (word == what) ids.insert(id);
  }
  return ids;
}

std::vector<int64_t> insert_due_workunits(Database& db, int64_t appid, int n, int64_t now) {
  std::vector<int64_t> ids;
  for (int i = 0; i < n; ++i) {
    WorkunitRow wu;
    wu.appid = appid;
    wu.name = "toy_" + std::to_string(now) + "_" + std::to_string(i);
    wu.create_time = now;
    wu.transition_time = now - 10;
    ids.push_back(insert_workunit(db, wu));
  }
  return ids;
}

std::optional<HeartbeatRow> heartbeat_of(Database& db, const std::string& name, int mod_id = 0) {
  for (const auto& beat : fetch_heartbeats(db)) {
    if (beat.name == name && beat.shard.id == mod_id) return beat;
  }
  return std::nullopt;
}

class DaemonSkeleton : public ::testing::Test {
 protected:
  void SetUp() override { db_ = project_.open(); }

  const std::string& dir() const { return project_.config().project_dir; }
  std::string journal(int mod_id = 0) const { return dir() + "/toy_" + std::to_string(mod_id) + ".journal"; }
  std::string log() const { return project_.config().log_dir + "/toy.log"; }
  std::vector<std::string> args(std::vector<std::string> extra) const {
    std::vector<std::string> a{"--project_dir", dir(), "--sleep", "0.05"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  int64_t due_now() {
    return query_int(*db_, "SELECT COUNT(*) FROM workunit WHERE transition_time < ?", kTransitionNever);
  }

  testing::TestProject project_;
  std::unique_ptr<Database> db_;
};

TEST_F(DaemonSkeleton, Daemon_OnePassProcessesEveryDueRowThenExitsZero) {
  auto ids = insert_due_workunits(*db_, project_.appid(), 25, std::time(nullptr));
  ToyDaemon toy(journal(), args({"--one_pass", "--batch", "7"}), log());
  ASSERT_EQ(toy.wait(30), kDaemonExitOk) << text_of(log());
  auto done = journal_ids(journal(), "done");
  EXPECT_EQ(done, std::multiset<int64_t>(ids.begin(), ids.end())) << "each row exactly once";
  EXPECT_EQ(due_now(), 0);
  EXPECT_FALSE(std::filesystem::exists(project_.config().pid_dir + "/toy.pid"));
  auto beat = heartbeat_of(*db_, "toy");
  ASSERT_TRUE(beat.has_value()) << "no heartbeat row";
  EXPECT_EQ(beat->units_done, 25) << "the last heartbeat carries the final count";
}

TEST_F(DaemonSkeleton, Daemon_SigtermStopsAfterTheUnitInHandAndRemovesThePidFile) {
  insert_due_workunits(*db_, project_.appid(), 20, std::time(nullptr));
  ToyDaemon toy(journal(), args({}), log(), /*unit_millis=*/150);
  std::string pid_file = project_.config().pid_dir + "/toy.pid";
  ASSERT_TRUE(eventually(10, [&] { return !journal_ids(journal(), "begin").empty(); }));
  EXPECT_EQ(std::atol(text_of(pid_file).c_str()), toy.pid());
  toy.signal(SIGTERM);
  EXPECT_EQ(toy.wait(10), kDaemonExitOk) << text_of(log());
  EXPECT_FALSE(std::filesystem::exists(pid_file));
  // Every unit begun was finished and committed; the rest were left for the next run.
  auto begun = journal_ids(journal(), "begin");
  auto done = journal_ids(journal(), "done");
  EXPECT_EQ(begun, done);
  EXPECT_LT(done.size(), 20u) << "the stop waited for the whole backlog";
  EXPECT_EQ(due_now(), 20 - static_cast<int64_t>(done.size()));
}

TEST_F(DaemonSkeleton, Daemon_StopTriggerFileStopsItAndKeepsItFromStarting) {
  ToyDaemon toy(journal(), args({}), log());
  std::string pid_file = project_.config().pid_dir + "/toy.pid";
  ASSERT_TRUE(eventually(10, [&] { return holds_pid_file(pid_file, toy.pid()); }));
  std::ofstream(dir() + "/stop_daemons").close();
  EXPECT_EQ(toy.wait(5), kDaemonExitOk);
  EXPECT_FALSE(std::filesystem::exists(pid_file));
  // While the trigger is there, a new start does no work and exits at once.
  insert_due_workunits(*db_, project_.appid(), 3, std::time(nullptr));
  ToyDaemon again(journal(), args({}), log());
  EXPECT_EQ(again.wait(5), kDaemonExitOk);
  EXPECT_EQ(due_now(), 3);
}

TEST_F(DaemonSkeleton, Daemon_SecondInstanceOfTheSameShardIsRefused) {
  ToyDaemon first(journal(), args({"--mod", "2", "--mod_id", "1"}), log());
  std::string pid_file = project_.config().pid_dir + "/toy_1.pid";
  ASSERT_TRUE(eventually(10, [&] { return holds_pid_file(pid_file, first.pid()); }));
  ToyDaemon second(journal(), args({"--mod", "2", "--mod_id", "1"}), log());
  EXPECT_EQ(second.wait(10), kDaemonExitRunning);
  EXPECT_TRUE(first.running());
  auto text = text_of(log());
  EXPECT_NE(text.find("another instance (pid " + std::to_string(first.pid()) + ")"), std::string::npos)
      << text;
  // Another shard of the same daemon is a different instance and starts.
  ToyDaemon other_shard(journal(), args({"--mod", "2", "--mod_id", "0"}), log());
  EXPECT_TRUE(eventually(
      10, [&] { return holds_pid_file(project_.config().pid_dir + "/toy_0.pid", other_shard.pid()); }));
  first.signal(SIGTERM);
  other_shard.signal(SIGTERM);
  EXPECT_EQ(first.wait(10), kDaemonExitOk);
  EXPECT_EQ(other_shard.wait(10), kDaemonExitOk);
}

TEST_F(DaemonSkeleton, Daemon_HeartbeatRowAppearsAndAdvances) {
  ToyDaemon toy(journal(), args({}), log());
  std::optional<HeartbeatRow> first;
  ASSERT_TRUE(eventually(10, [&] { return (first = heartbeat_of(*db_, "toy")).has_value(); }));
  EXPECT_EQ(first->pid, toy.pid());
  EXPECT_FALSE(first->hostname.empty());
  EXPECT_EQ(first->shard.n, 1);
  EXPECT_GT(first->last_beat, 0);
  EXPECT_TRUE(eventually(3 * kHeartbeatIntervalSeconds + 2, [&] {
    auto now = heartbeat_of(*db_, "toy");
    return now && now->last_beat > first->last_beat;
  })) << "the heartbeat did not advance while the daemon idled";
  toy.signal(SIGTERM);
  EXPECT_EQ(toy.wait(10), kDaemonExitOk);
}

TEST_F(DaemonSkeleton, Daemon_TwoShardsProcessDisjointSetsThatCoverEveryRow) {
  auto ids = insert_due_workunits(*db_, project_.appid(), 41, std::time(nullptr));
  ToyDaemon shard0(journal(0), args({"--mod", "2", "--mod_id", "0", "--one_pass", "--batch", "5"}), log());
  ToyDaemon shard1(journal(1), args({"--mod", "2", "--mod_id", "1", "--one_pass", "--batch", "5"}), log());
  ASSERT_EQ(shard0.wait(30), kDaemonExitOk);
  ASSERT_EQ(shard1.wait(30), kDaemonExitOk);
  auto done0 = journal_ids(journal(0), "done");
  auto done1 = journal_ids(journal(1), "done");
  for (int64_t id : done0) EXPECT_EQ(id % 2, 0) << "shard 0 did workunit " << id;
  for (int64_t id : done1) EXPECT_EQ(id % 2, 1) << "shard 1 did workunit " << id;
  std::multiset<int64_t> all(done0);
  all.insert(done1.begin(), done1.end());
  EXPECT_EQ(all, std::multiset<int64_t>(ids.begin(), ids.end())) << "every row once, by one shard";
  EXPECT_FALSE(done0.empty());
  EXPECT_FALSE(done1.empty());
}

TEST_F(DaemonSkeleton, Daemon_ThreadsSplitTheirShardAndDoEveryRowOnce) {
  auto ids = insert_due_workunits(*db_, project_.appid(), 61, std::time(nullptr));
  // Shard 1 of 2, on three workers: worker t owns id % 6 == 1 + 2t.
  ToyDaemon toy(journal(),
                args({"--mod", "2", "--mod_id", "1", "--threads", "3", "--one_pass", "--batch", "4"}), log());
  ASSERT_EQ(toy.wait(30), kDaemonExitOk) << text_of(log());
  auto done = journal_ids(journal(), "done");
  std::multiset<int64_t> expected;
  for (int64_t id : ids) {
    if (id % 2 == 1) expected.insert(id);
  }
  EXPECT_EQ(done, expected) << "every row of the shard once, none of the other shard's";
  size_t by_workers = 0;
  for (int worker_shard : {1, 3, 5}) {
    auto mine = journal_ids(journal(), "shard" + std::to_string(worker_shard));
    for (int64_t id : mine) EXPECT_EQ(id % 6, worker_shard) << "worker of shard " << worker_shard;
    EXPECT_FALSE(mine.empty()) << "worker of shard " << worker_shard << " did nothing";
    by_workers += mine.size();
  }
  EXPECT_EQ(by_workers, done.size());
  auto beat = heartbeat_of(*db_, "toy", 1);
  ASSERT_TRUE(beat);
  EXPECT_EQ(beat->shard.n, 2) << "one heartbeat row for the process's shard";
  EXPECT_EQ(beat->units_done, static_cast<int64_t>(done.size())) << "the workers' units together";
  EXPECT_FALSE(heartbeat_of(*db_, "toy", 3)) << "no row of a worker's own";
}

// What every daemon of the Galera pipeline test met when a node rejoined under load: its
// heartbeat's write refused with 1180 ("Not connected to Primary Component": not
// replicated, rolled back). A daemon waits that out like a lost connection, instead of
// exiting and leaving its shard undone; here a trigger refuses the heartbeat the same way
// until the test lifts it.
TEST_F(DaemonSkeleton, Daemon_WaitsOutACommitTheClusterRefusedAndGoesOn) {
  exec(*db_, "CREATE TABLE heartbeat_fault (on_off INT)");
  exec(*db_, "INSERT INTO heartbeat_fault VALUES (1)");
  exec(*db_,
       "CREATE TRIGGER heartbeat_refused BEFORE INSERT ON daemon_heartbeat FOR EACH ROW "
       "IF EXISTS (SELECT 1 FROM heartbeat_fault) THEN SIGNAL SQLSTATE 'HY000' SET MYSQL_ERRNO = 1180, "
       "MESSAGE_TEXT = 'Error while appending streaming replication fragment(provider status: Not "
       "connected to Primary Component)'; END IF");
  auto ids = insert_due_workunits(*db_, project_.appid(), 9, std::time(nullptr));
  ToyDaemon toy(journal(), args({"--batch", "3"}), log());
  ASSERT_TRUE(eventually(20, [&] { return text_of(log()).find("MariaDB error 1180") != std::string::npos; }))
      << text_of(log());
  EXPECT_TRUE(toy.running()) << "exited on a refused commit:\n" << text_of(log());
  exec(*db_, "DELETE FROM heartbeat_fault");
  EXPECT_TRUE(eventually(30, [&] { return due_now() == 0 && heartbeat_of(*db_, "toy").has_value(); }))
      << text_of(log());
  toy.signal(SIGTERM);
  EXPECT_EQ(toy.wait(10), kDaemonExitOk) << text_of(log());
  auto done = journal_ids(journal(), "done");
  EXPECT_EQ(done, std::multiset<int64_t>(ids.begin(), ids.end())) << "each row exactly once";
}

TEST(DaemonSkeletonDeadDatabase, Daemon_WaitsOutALostDatabaseWithBackoffAndStopsPromptlyDuringIt) {
  // mariadb-install-db has been seen to fail now and then when several servers are set up
  // at the same instant under ctest -j2 (cause not yet known; see the report): try again.
  std::optional<testing::DedicatedServer> dedicated;
  for (int attempt = 0; attempt < 3 && !dedicated; ++attempt) {
    try {
      dedicated.emplace();
    } catch (const std::runtime_error& e) {
      std::cerr << "dedicated server, attempt " << attempt + 1 << ": " << e.what() << "\n";
    }
  }
  ASSERT_TRUE(dedicated.has_value()) << "no dedicated MariaDB could be started";
  testing::DedicatedServer& server = *dedicated;
  testing::TempDir dir("tharsis-toy-deaddb");
  auto made = make_project(testing::dedicated_project_options(server, dir.path(), "toy"));
  ASSERT_TRUE(made.ok()) << made.error();
  std::string journal = made->project_dir + "/toy.journal";
  std::string log = made->log_dir + "/toy.log";
  ToyDaemon toy(journal, {"--project_dir", made->project_dir, "--sleep", "0.05"}, log);
  auto db = Database::open(made->db);
  ASSERT_TRUE(eventually(10, [&] { return heartbeat_of(*db, "toy").has_value(); }));
  db.reset();

  server.halt();
  // Attempts 1, 2, 3 wait 1 s, 2 s, 4 s: three lines within ~4 s, and the daemon lives.
  ASSERT_TRUE(eventually(8, [&] { return text_of(log).find("retrying in 4 s") != std::string::npos; }))
      << text_of(log);
  EXPECT_TRUE(toy.running()) << "the daemon exited when the database went away";
  auto text = text_of(log);
  EXPECT_NE(text.find("database unreachable"), std::string::npos) << text;
  EXPECT_NE(text.find("retrying in 1 s"), std::string::npos) << text;
  EXPECT_NE(text.find("retrying in 2 s"), std::string::npos) << text;

  server.start();
  db = Database::open(made->db);
  WorkunitRow wu;
  wu.name = "after_restart";
  wu.transition_time = std::time(nullptr) - 1;
  int64_t id = insert_workunit(*db, wu);
  // Up to 40 s: the daemon may be inside a back-off wait of up to 30 s when the server returns.
  EXPECT_TRUE(eventually(40, [&] { return journal_ids(journal, "done").count(id) == 1; }))
      << "no work done after the database came back\n"
      << text_of(log);
  // Logged after the pass that did it (and its heartbeat): the journal line comes first.
  EXPECT_TRUE(eventually(10, [&] {
    return text_of(log).find("database reachable again") != std::string::npos;
  })) << text_of(log);
  db.reset();

  // A SIGTERM in the middle of a back-off wait ends the daemon at once, not after it.
  server.halt();
  ASSERT_TRUE(eventually(10, [&] {
    auto t = text_of(log);
    return t.rfind("database unreachable") != std::string::npos &&
           t.rfind("database unreachable") > t.rfind("database reachable again");
  }));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto signalled = Clock::now();
  toy.signal(SIGTERM);
  EXPECT_EQ(toy.wait(10), kDaemonExitOk);
  EXPECT_LT(Clock::now() - signalled, std::chrono::milliseconds(900)) << "SIGTERM waited out the back-off";
  EXPECT_FALSE(std::filesystem::exists(made->pid_dir + "/toy.pid"));
}

}  // namespace
}  // namespace tharsis::daemon_skeleton_test
