// The apps and app versions the scheduler sends, read in one query and kept across the
// requests of a FastCGI process (a CGI run keeps it for its one request): per app, its row
// and the newest non-deprecated version for each platform whose stored description is
// usable (an unusable one is logged and passed over), parsed once.
// Reload rule: the whole cache is read again when it is older than kReloadSeconds (new
// versions and deprecations reach the scheduler within that time), and at once when a
// request names an app the cache has never seen (a new app's work is sent from its first
// request on); an app still unknown after that reload is not read for again before the
// next timed reload, so results of a vanished app cannot make every request re-read.
// Times are the request's `now` (tests move the clock instead of sleeping).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "db/app_store.h"
#include "db/database.h"
#include "sched/lib/stored_descriptions.h"

namespace tharsis {

class AppVersionCache {
 public:
  static constexpr int64_t kReloadSeconds = 10;

  struct Version {
    AppVersionRow row;
    std::string platform;
    StoredDescription description;
  };
  struct App {
    AppRow row;
    std::map<std::string, Version> by_platform;  // newest current version per platform name
  };
  struct Choice {
    std::shared_ptr<const App> app;    // null: no such app
    const Version* version = nullptr;  // in *app; null: no version for any of the platforms
  };

  // App `appid` and its newest version for the first of `platforms` that has one (a choice
  // stays valid across reloads: it holds its app).
  Choice choose(Database& db, int64_t appid, const std::vector<std::string>& platforms, int64_t now);

  // The apps known (or known to be gone) that have no version for any of `platforms`: the
  // send query passes over their results. An app the cache has not seen is not among
  // them, so its first results still reach choose(), which reloads for it.
  std::vector<int64_t> apps_not_runnable(Database& db, const std::vector<std::string>& platforms,
                                         int64_t now);

  int64_t loads() const { return loads_; }  // how many times the tables were read (tests)

 private:
  void load(Database& db, int64_t now);
  void reload_if_due(Database& db, int64_t now);

  std::map<int64_t, std::shared_ptr<const App>> apps_;
  std::set<int64_t> missing_;  // apps asked for and unknown since the last load
  std::optional<int64_t> loaded_at_;
  int64_t loads_ = 0;
};

}  // namespace tharsis
