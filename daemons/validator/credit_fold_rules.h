// Which pending credit rows a fold adds to the totals now (db/credit_store.h), as a pure
// function of the rows it locked. A row is added when its host and its user (each, if it
// names one) are locked by the fold, or no longer exist (then that part of the credit goes
// nowhere, as an UPDATE of a missing row did); a row whose host or user another
// transaction holds waits for a later fold, whole, so no credit is ever added twice or in
// part.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "db/credit_store.h"

namespace tharsis {

struct CreditFold {
  std::vector<int64_t> folded;         // pending row ids to delete, ascending
  std::map<int64_t, double> to_hosts;  // host id -> credit to add (existing hosts only)
  std::map<int64_t, double> to_users;  // user id -> credit to add (existing users only)
};

// `hosts` / `users`: what lock_credit_holders found of the ids the rows name. A holder whose
// summed credit is not a finite number gets nothing added (no total could hold it); its
// rows are still folded, so they cannot block later credit.
CreditFold plan_credit_fold(const std::vector<PendingCredit>& pending, const CreditHolderRows& hosts,
                            const CreditHolderRows& users);

}  // namespace tharsis
