// Implementation of sched/lib/app_version_cache.h.
#include "sched/lib/app_version_cache.h"

#include <algorithm>

#include "lib/log.h"

namespace tharsis {

void AppVersionCache::load(Database& db, int64_t now) {
  apps_.clear();
  missing_.clear();
  for (auto& entry : fetch_apps_with_current_versions(db)) {
    auto app = std::make_shared<App>();
    app->row = std::move(entry.app);
    for (auto& current : entry.versions) {  // newest first
      if (app->by_platform.count(current.platform_name)) continue;
      auto description = read_stored_description(current.version.xml_doc, "app_version");
      if (!description.ok()) {
        log_error("app version ", current.version.id, ": unusable stored description (", description.error(),
                  "); not sent");
        continue;
      }
      app->by_platform.emplace(
          current.platform_name,
          Version{std::move(current.version), current.platform_name, std::move(*description)});
    }
    apps_.emplace(app->row.id, std::move(app));
  }
  loaded_at_ = now;
  ++loads_;
}

void AppVersionCache::reload_if_due(Database& db, int64_t now) {
  // A clock that went back also reloads.
  if (!loaded_at_ || now >= *loaded_at_ + kReloadSeconds || now < *loaded_at_) load(db, now);
}

std::vector<int64_t> AppVersionCache::apps_not_runnable(Database& db,
                                                        const std::vector<std::string>& platforms,
                                                        int64_t now) {
  reload_if_due(db, now);
  std::vector<int64_t> out(missing_.begin(), missing_.end());
  for (const auto& [id, app] : apps_) {
    bool runnable = std::any_of(platforms.begin(), platforms.end(),
                                [&](const std::string& p) { return app->by_platform.count(p) > 0; });
    if (!runnable) out.push_back(id);
  }
  return out;
}

AppVersionCache::Choice AppVersionCache::choose(Database& db, int64_t appid,
                                                const std::vector<std::string>& platforms, int64_t now) {
  reload_if_due(db, now);
  auto it = apps_.find(appid);
  if (it == apps_.end() && !missing_.count(appid)) {
    load(db, now);
    it = apps_.find(appid);
    if (it == apps_.end()) missing_.insert(appid);
  }
  Choice choice;
  if (it == apps_.end()) return choice;
  choice.app = it->second;
  for (const auto& platform : platforms) {
    auto v = choice.app->by_platform.find(platform);
    if (v != choice.app->by_platform.end()) {
      choice.version = &v->second;
      break;
    }
  }
  return choice;
}

}  // namespace tharsis
