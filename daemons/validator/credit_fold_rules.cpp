// Implementation of daemons/validator/credit_fold_rules.h.
#include "daemons/validator/credit_fold_rules.h"

#include <algorithm>
#include <cmath>

namespace tharsis {
namespace {

// Whether the fold may settle `id`'s part of a row now: none named, locked, or gone.
bool settled(int64_t id, const CreditHolderRows& rows) {
  return id == 0 || rows.locked.count(id) || !rows.existing.count(id);
}

void drop_unrepresentable(std::map<int64_t, double>& totals) {
  std::erase_if(totals, [](const auto& entry) { return !std::isfinite(entry.second); });
}

}  // namespace

CreditFold plan_credit_fold(const std::vector<PendingCredit>& pending, const CreditHolderRows& hosts,
                            const CreditHolderRows& users) {
  CreditFold fold;
  for (const auto& row : pending) {
    if (!settled(row.host_id, hosts) || !settled(row.user_id, users)) continue;
    fold.folded.push_back(row.id);
    if (hosts.locked.count(row.host_id)) fold.to_hosts[row.host_id] += row.credit;
    if (users.locked.count(row.user_id)) fold.to_users[row.user_id] += row.credit;
  }
  std::sort(fold.folded.begin(), fold.folded.end());
  drop_unrepresentable(fold.to_hosts);
  drop_unrepresentable(fold.to_users);
  return fold;
}

}  // namespace tharsis
