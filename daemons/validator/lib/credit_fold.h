// The validator's second, short transaction: pending credit (db/credit_store.h) added to
// the totals of hosts and users. It locks up to `limit` pending rows and then the host and
// user rows they name, passing over every row another transaction holds instead of
// waiting for it (a scheduler RPC holds its host's row until it commits), adds what
// credit_fold_rules.h settles now and deletes those pending rows, all in one transaction:
// a fold killed at any instant adds nothing, and the next one adds each row once.
#pragma once

#include "db/database.h"

namespace tharsis {

inline constexpr int kCreditFoldRows = 4096;

// Folds pending credit in transactions of up to `limit` rows until a transaction finds
// nothing more to fold now; returns the rows folded. Rows whose host or user stayed held
// are left for a later call.
int fold_pending_credit(Database& db, int limit = kCreditFoldRows);

}  // namespace tharsis
