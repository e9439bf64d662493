// Implementation of db/app_store.h.
#include "db/app_store.h"

#include <string>
#include <utility>

#include "db/sql.h"

namespace tharsis {
namespace {

AppRow read_app(sql::ResultSet& r) {
  return AppRow{r.getInt64("id"), r.getString("name"), r.getString("user_friendly_name"),
                r.getString("comparator")};
}

AppVersionRow read_version(sql::ResultSet& r) {
  return AppVersionRow{r.getInt64("id"),         r.getInt64("appid"),       r.getInt("version_num"),
                       r.getInt64("platformid"), r.getString("plan_class"), r.getString("xml_doc")};
}

}  // namespace

int64_t insert_app(Database& db, const AppRow& app) {
  exec(db, "INSERT INTO app (name, user_friendly_name, comparator) VALUES (?,?,?)", app.name,
       app.user_friendly_name, app.comparator);
  return last_insert_id(db);
}

std::optional<AppRow> fetch_app(Database& db, int64_t id) {
  auto rows = query(db, "SELECT id, name, user_friendly_name, comparator FROM app WHERE id = ?", id);
  if (!rows->next()) return std::nullopt;
  return read_app(*rows);
}

std::optional<AppRow> fetch_app_by_name(Database& db, const std::string& name) {
  auto rows = query(db, "SELECT id, name, user_friendly_name, comparator FROM app WHERE name = ?", name);
  if (!rows->next()) return std::nullopt;
  return read_app(*rows);
}

int64_t insert_platform(Database& db, const PlatformRow& platform) {
  exec(db, "INSERT INTO platform (name, user_friendly_name) VALUES (?,?)", platform.name,
       platform.user_friendly_name);
  return last_insert_id(db);
}

std::optional<PlatformRow> fetch_platform_by_name(Database& db, const std::string& name) {
  auto rows = query(db, "SELECT id, name, user_friendly_name FROM platform WHERE name = ?", name);
  if (!rows->next()) return std::nullopt;
  return PlatformRow{rows->getInt64("id"), rows->getString("name"), rows->getString("user_friendly_name")};
}

int64_t insert_app_version(Database& db, const AppVersionRow& v) {
  exec(db, "INSERT INTO app_version (appid, version_num, platformid, plan_class, xml_doc) VALUES (?,?,?,?,?)",
       v.appid, v.version_num, v.platformid, v.plan_class, v.xml_doc);
  return last_insert_id(db);
}

std::optional<AppVersionRow> fetch_latest_app_version(Database& db, int64_t appid,
                                                      const std::string& platform_name) {
  auto rows =
      query(db,
            "SELECT v.id, v.appid, v.version_num, v.platformid, v.plan_class, v.xml_doc FROM app_version v "
            "JOIN platform p ON p.id = v.platformid WHERE v.appid = ? AND p.name = ? AND v.deprecated = 0 "
            "ORDER BY v.version_num DESC LIMIT 1",
            appid, platform_name);
  if (!rows->next()) return std::nullopt;
  return read_version(*rows);
}

std::vector<AppWithVersions> fetch_apps_with_current_versions(Database& db) {
  auto rows = query(db,
                    "SELECT a.id, a.name, a.user_friendly_name, a.comparator, v.id, v.version_num, "
                    "v.platformid, v.plan_class, "
                    "v.xml_doc, p.name FROM app a "
                    "LEFT JOIN (app_version v JOIN platform p ON p.id = v.platformid) ON v.appid = a.id AND "
                    "v.deprecated = 0 "
                    "ORDER BY a.id, v.version_num DESC, v.id DESC");
  std::vector<AppWithVersions> out;
  while (rows->next()) {
    int64_t appid = rows->getInt64(1);
    if (out.empty() || out.back().app.id != appid) {
      out.push_back({AppRow{appid, rows->getString(2), rows->getString(3), rows->getString(4)}, {}});
    }
    if (rows->isNull(5)) continue;  // an app with no current version
    out.back().versions.push_back({AppVersionRow{rows->getInt64(5), appid, rows->getInt(6), rows->getInt64(7),
                                                 rows->getString(8), rows->getString(9)},
                                   rows->getString(10)});
  }
  return out;
}

}  // namespace tharsis
