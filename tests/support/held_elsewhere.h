// Locks held by another connection while a test's body runs: `hold` runs in an open
// transaction on a connection of its own (from `open`), `body` runs while it is open, and
// the transaction then commits what `hold` wrote (also when `body` throws), or rolls it back
// with `roll_back`.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <thread>

#include "db/database.h"
#include "db/sql.h"

namespace tharsis::testing {

inline void while_held_elsewhere(const std::function<std::unique_ptr<Database>()>& open,
                                 const std::function<void(Database&)>& hold,
                                 const std::function<void()>& body, bool roll_back = false) {
  struct RolledBack {};
  std::promise<void> held, done;
  std::thread holder([&] {
    auto other = open();
    try {
      other->transaction([&](Database& d) {
        hold(d);
        held.set_value();
        done.get_future().wait();
        if (roll_back) throw RolledBack{};
      });
    } catch (const RolledBack&) {
    }
  });
  held.get_future().wait();
  try {
    body();
  } catch (...) {
    done.set_value();
    holder.join();
    throw;
  }
  done.set_value();
  holder.join();
}

// Waits until another connection to db's database has been in one statement for 200 ms —
// in these tests, waiting for a row lock (INNODB_TRX does not list a locking read that
// waits inside the optimizer) — or `finished` is true, for up to 20 s; true if such a
// statement was seen.
inline bool statement_waits_or(Database& db, const std::atomic<bool>& finished) {
  for (int i = 0; i < 2000 && !finished; ++i) {
    if (query_int(db,
                  "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND ID <> "
                  "CONNECTION_ID() AND COMMAND IN ('Query', 'Execute') AND TIME_MS > 200") > 0)
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

}  // namespace tharsis::testing
