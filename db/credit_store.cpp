// Implementation of db/credit_store.h.
#include "db/credit_store.h"

#include <cmath>
#include <string>
#include <utility>

#include "db/id_list.h"
#include "db/sql.h"

namespace tharsis {
namespace {

const char* table_of(CreditHolder holder) { return holder == CreditHolder::Host ? "host" : "user"; }

std::vector<int64_t> as_vector(const std::set<int64_t>& ids) { return {ids.begin(), ids.end()}; }

std::set<int64_t> read_ids(Database& db, const std::string& sql_text, const std::set<int64_t>& ids) {
  std::set<int64_t> out;
  auto rows = query(db, sql_text, id_list_json(as_vector(ids)));
  while (rows->next()) out.insert(rows->getInt64(1));
  return out;
}

}  // namespace

void record_pending_credit(Database& db, const std::vector<CreditChange>& changes) {
  std::map<std::pair<int64_t, int64_t>, double> sums;
  for (const auto& c : changes) {
    if (std::isfinite(c.credit) && (c.host_id || c.user_id)) sums[{c.host_id, c.user_id}] += c.credit;
  }
  std::string json = "[";
  for (const auto& [pair, credit] : sums) {
    if (!std::isfinite(credit)) continue;
    json += (json.size() > 1 ? ",[" : "[") + std::to_string(pair.first) + "," + std::to_string(pair.second) +
            "," + json_double(credit) + "]";
  }
  if (json.size() == 1) return;
  exec(db,
       "INSERT INTO credit_pending (host_id, user_id, credit) SELECT c.host_id, c.user_id, c.credit FROM "
       "JSON_TABLE(?, '$[*]' COLUMNS (host_id BIGINT PATH '$[0]', user_id BIGINT PATH '$[1]', credit DOUBLE "
       "PATH '$[2]')) c",
       json + "]");
}

std::vector<PendingCredit> lock_pending_credit(Database& db, int limit) {
  std::vector<PendingCredit> out;
  auto rows = query(db,
                    "SELECT id, host_id, user_id, credit FROM credit_pending ORDER BY id LIMIT ? FOR UPDATE "
                    "SKIP LOCKED",
                    limit);
  while (rows->next()) {
    out.push_back(
        {rows->getInt64(1), rows->getInt64(2), rows->getInt64(3), static_cast<double>(rows->getDouble(4))});
  }
  return out;
}

CreditHolderRows lock_credit_holders(Database& db, CreditHolder holder, const std::set<int64_t>& ids) {
  CreditHolderRows out;
  if (ids.empty()) return out;
  const std::string join = " t FROM " + kIdListTable + " STRAIGHT_JOIN " + table_of(holder) +
                           " t FORCE INDEX (PRIMARY) ON t.id = wanted.wanted_id";
  out.locked = read_ids(db, "SELECT t.id" + join + " FOR UPDATE SKIP LOCKED", ids);
  // A row held elsewhere is not among the locked; a plain read tells it from one that is gone.
  out.existing = out.locked.size() == ids.size() ? out.locked : read_ids(db, "SELECT t.id" + join, ids);
  return out;
}

void add_to_credit_totals(Database& db, CreditHolder holder, const std::map<int64_t, double>& credit) {
  if (credit.empty()) return;
  std::string json = "[";
  for (const auto& [id, amount] : credit) {
    json += (json.size() > 1 ? ",[" : "[") + std::to_string(id) + "," + json_double(amount) + "]";
  }
  exec(db,
       "UPDATE JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$[0]', credit DOUBLE PATH '$[1]')) c "
       "STRAIGHT_JOIN " +
           std::string(table_of(holder)) +
           " t FORCE INDEX (PRIMARY) ON t.id = c.id SET t.total_credit = t.total_credit + c.credit",
       json + "]");
}

void delete_pending_credit(Database& db, const std::vector<int64_t>& ids) {
  if (ids.empty()) return;
  exec(db,
       "DELETE p FROM " + kIdListTable +
           " STRAIGHT_JOIN credit_pending p FORCE INDEX (PRIMARY) ON p.id = wanted.wanted_id",
       id_list_json(ids));
}

int64_t count_pending_credit(Database& db) { return query_int(db, "SELECT COUNT(*) FROM credit_pending"); }

}  // namespace tharsis
