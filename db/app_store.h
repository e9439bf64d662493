// SQL for app, platform and app_version.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "db/database.h"

namespace tharsis {

struct AppRow {
  int64_t id = 0;
  std::string name;
  std::string user_friendly_name;
  std::string comparator = "bitwise";  // validator comparator: bitwise | numeric | trivial
};

struct PlatformRow {
  int64_t id = 0;
  std::string name;
  std::string user_friendly_name;
};

struct AppVersionRow {
  int64_t id = 0;
  int64_t appid = 0;
  int version_num = 0;
  int64_t platformid = 0;
  std::string plan_class;
  std::string xml_doc;  // signed file_infos + <app_version> description
};

int64_t insert_app(Database& db, const AppRow& app);
std::optional<AppRow> fetch_app(Database& db, int64_t id);
std::optional<AppRow> fetch_app_by_name(Database& db, const std::string& name);

int64_t insert_platform(Database& db, const PlatformRow& platform);
std::optional<PlatformRow> fetch_platform_by_name(Database& db, const std::string& name);

int64_t insert_app_version(Database& db, const AppVersionRow& version);
// The newest non-deprecated version of `appid` for platform `platform_name`.
std::optional<AppVersionRow> fetch_latest_app_version(Database& db, int64_t appid,
                                                      const std::string& platform_name);

// Every app with its non-deprecated versions (and their platforms' names), newest first
// within an app: one query for the scheduler's per-process cache (sched/lib/app_version_cache.h).
struct CurrentAppVersion {
  AppVersionRow version;
  std::string platform_name;
};
struct AppWithVersions {
  AppRow app;
  std::vector<CurrentAppVersion> versions;
};
std::vector<AppWithVersions> fetch_apps_with_current_versions(Database& db);

}  // namespace tharsis
