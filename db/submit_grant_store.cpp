// Implementation of db/submit_grant_store.h.
#include "db/submit_grant_store.h"

#include "db/sql.h"

namespace tharsis {

std::optional<SubmitGrant> fetch_submit_grant(Database& db, int64_t user_id, bool for_update) {
  auto rows =
      query(db,
            std::string("SELECT user_id, submit_all, quota, logical_start_time, create_apps, manage_all, "
                        "max_jobs_in_progress FROM user_submit WHERE user_id = ?") +
                (for_update ? " FOR UPDATE" : ""),
            user_id);
  if (!rows->next()) return std::nullopt;
  SubmitGrant g;
  g.user_id = rows->getInt64("user_id");
  g.submit_all = rows->getInt("submit_all") != 0;
  g.quota = rows->getDouble("quota");
  g.logical_start_time = rows->getDouble("logical_start_time");
  g.create_apps = rows->getInt("create_apps") != 0;
  g.manage_all = rows->getInt("manage_all") != 0;
  g.max_jobs_in_progress = rows->getInt("max_jobs_in_progress");
  return g;
}

bool has_app_grant(Database& db, int64_t user_id, int64_t app_id) {
  return query_int(db, "SELECT COUNT(*) FROM user_submit_app WHERE user_id = ? AND app_id = ?", user_id,
                   app_id) > 0;
}

std::vector<int64_t> fetch_granted_apps(Database& db, int64_t user_id) {
  auto rows = query(db, "SELECT app_id FROM user_submit_app WHERE user_id = ? ORDER BY app_id", user_id);
  std::vector<int64_t> out;
  while (rows->next()) out.push_back(rows->getInt64(1));
  return out;
}

void put_submit_grant(Database& db, const SubmitGrant& g) {
  exec(db,
       "REPLACE INTO user_submit (user_id, submit_all, quota, logical_start_time, create_apps, manage_all, "
       "max_jobs_in_progress) VALUES (?,?,?,?,?,?,?)",
       g.user_id, g.submit_all, g.quota, g.logical_start_time, g.create_apps, g.manage_all,
       g.max_jobs_in_progress);
}

void add_app_grant(Database& db, int64_t user_id, int64_t app_id) {
  exec(db, "INSERT IGNORE INTO user_submit_app (user_id, app_id, manage) VALUES (?,?,0)", user_id, app_id);
}

void remove_app_grant(Database& db, int64_t user_id, int64_t app_id) {
  exec(db, "DELETE FROM user_submit_app WHERE user_id = ? AND app_id = ?", user_id, app_id);
}

int64_t find_user_id_by_email(Database& db, const std::string& email) {
  return query_int(db, "SELECT id FROM user WHERE email_addr = ? ORDER BY id LIMIT 1", email);
}

bool user_exists(Database& db, int64_t user_id) {
  return query_int(db, "SELECT COUNT(*) FROM user WHERE id = ?", user_id) > 0;
}

void remove_submit_grants(Database& db, int64_t user_id) {
  exec(db, "DELETE FROM user_submit_app WHERE user_id = ?", user_id);
  exec(db, "DELETE FROM user_submit WHERE user_id = ?", user_id);
}

}  // namespace tharsis
