// Granted credit on its way to host and user totals (table credit_pending, db/schema.sql).
// The validator records what it grants inside its batch's transaction with one INSERT and
// no lock on any host or user row; a fold (daemons/validator/lib/credit_fold.h) later
// moves the rows into host.total_credit and user.total_credit in a short transaction of
// its own, passing over the rows another transaction holds (a scheduler RPC holds its
// host's row from its first statement to its commit), so neither waits for the other.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "db/database.h"
#include "db/row_changes.h"

namespace tharsis {

struct PendingCredit {
  int64_t id = 0;
  int64_t host_id = 0;  // 0: no host
  int64_t user_id = 0;  // 0: no user
  double credit = 0;
};

// The tables whose total_credit a fold adds to.
enum class CreditHolder { Host, User };

// Records `changes` as pending credit, summed per (host, user) pair: one INSERT whatever
// their number (none when empty). A change whose credit is not a finite number, or a pair
// whose sum is not, is left out: no total could hold it.
void record_pending_credit(Database& db, const std::vector<CreditChange>& changes);

// Up to `limit` pending rows, oldest first, locked for this transaction; rows another
// transaction holds (one still inserting them, another fold) are passed over, not waited for.
std::vector<PendingCredit> lock_pending_credit(Database& db, int limit);

// Of the holder rows `ids`: those this transaction locked now (FOR UPDATE SKIP LOCKED: a
// row another transaction holds is passed over, not waited for), and those that exist.
struct CreditHolderRows {
  std::set<int64_t> locked;
  std::set<int64_t> existing;
};
CreditHolderRows lock_credit_holders(Database& db, CreditHolder holder, const std::set<int64_t>& ids);

// Adds each id's credit to its row's total_credit, in one statement (ascending id order).
// The rows must be locked by this transaction (lock_credit_holders); every value finite.
void add_to_credit_totals(Database& db, CreditHolder holder, const std::map<int64_t, double>& credit);

// Deletes the pending rows `ids` (locked by this transaction).
void delete_pending_credit(Database& db, const std::vector<int64_t>& ids);

// Pending rows in all (committed ones; for tests and the admin).
int64_t count_pending_credit(Database& db);

}  // namespace tharsis
