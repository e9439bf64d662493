// The changes a rule of the back-end law asks for, as plain data: a result (or workunit)
// row before and after the rule. The rules (daemons/*/*_rules.h) return these; a daemon's shell writes
// `after` in its transaction, and may guard the UPDATE on `before`'s state columns so a
// row changed meanwhile by another process is not overwritten blindly.
#pragma once

#include <cstdint>

#include "db/rows.h"

namespace tharsis {

struct ResultUpdate {
  ResultRow before;  // as loaded
  ResultRow after;   // as it should be written (same id)
};

// Credit granted (or, negative, taken back) to a host and its owner; 0 = none.
struct CreditChange {
  int64_t host_id = 0;
  int64_t user_id = 0;
  double credit = 0;
};

struct WorkunitUpdate {
  WorkunitRow before;  // as loaded
  WorkunitRow after;   // as it should be written (same id)
};

}  // namespace tharsis
