// Locks held by another connection while a test's body runs: `hold` runs in an open
// transaction on a connection of its own (from `open`), `body` runs while it is open, and
// the transaction then ends without a change (also when `body` throws).
#pragma once

#include <functional>
#include <future>
#include <memory>
#include <thread>

#include "db/database.h"

namespace tharsis::testing {

inline void while_held_elsewhere(const std::function<std::unique_ptr<Database>()>& open,
                                 const std::function<void(Database&)>& hold,
                                 const std::function<void()>& body) {
  std::promise<void> held, done;
  std::thread holder([&] {
    auto other = open();
    other->transaction([&](Database& d) {
      hold(d);
      held.set_value();
      done.get_future().wait();
    });
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

}  // namespace tharsis::testing
