// Implementation of daemons/validator/lib/credit_fold.h.
#include "daemons/validator/lib/credit_fold.h"

#include <set>

#include "daemons/validator/credit_fold_rules.h"
#include "db/credit_store.h"

namespace tharsis {
namespace {

// One transaction: returns {rows folded, rows read}.
std::pair<int, int> fold_once(Database& db, int limit) {
  return db.transaction([&](Database& d) {
    std::vector<PendingCredit> pending = lock_pending_credit(d, limit);
    std::set<int64_t> host_ids, user_ids;
    for (const auto& row : pending) {
      if (row.host_id) host_ids.insert(row.host_id);
      if (row.user_id) user_ids.insert(row.user_id);
    }
    // Passing over held rows, the fold never waits for a host or user row: no lock order
    // of anyone else's can deadlock it.
    CreditHolderRows hosts = lock_credit_holders(d, CreditHolder::Host, host_ids);
    CreditHolderRows users = lock_credit_holders(d, CreditHolder::User, user_ids);
    CreditFold fold = plan_credit_fold(pending, hosts, users);
    add_to_credit_totals(d, CreditHolder::Host, fold.to_hosts);
    add_to_credit_totals(d, CreditHolder::User, fold.to_users);
    delete_pending_credit(d, fold.folded);
    return std::pair<int, int>(static_cast<int>(fold.folded.size()), static_cast<int>(pending.size()));
  });
}

}  // namespace

int fold_pending_credit(Database& db, int limit) {
  int total = 0;
  for (;;) {
    auto [folded, read] = fold_once(db, limit);
    total += folded;
    if (read < limit || folded == 0) return total;
  }
}

}  // namespace tharsis
