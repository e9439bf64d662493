// Apps, platforms and app versions (BOINC's xadd / update_versions in one place):
// add an app with its validator comparator, add a platform, and publish an app version:
// its files are copied into download/ (hashed fan-out), each signed with the project's
// code-signing key (keys/code_sign_private; BOINC's signature format), and described in
// the app_version's xml_doc as <file_info>s plus an <app_version> with file_refs, the
// first file being the main program.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "db/database.h"
#include "lib/config/project_config.h"
#include "lib/result.h"

namespace tharsis {

// Adds the app if missing (comparator: bitwise | numeric | trivial); returns its id.
Result<int64_t> ensure_app(Database& db, const std::string& name, const std::string& comparator);
// Adds the platform if missing; returns its id.
Result<int64_t> ensure_platform(Database& db, const std::string& name);

struct AppVersionFiles {
  std::string app;
  std::string platform;            // e.g. "x86_64-pc-linux-gnu"
  int version_num = 100;           // BOINC's convention: 1.00 -> 100
  std::vector<std::string> files;  // local paths; the first is the main program
};

// Publishes the version; its files are named <app>_<version>_<platform>_<basename>.
Result<int64_t> publish_app_version(Database& db, const ProjectConfig& config,
                                    const AppVersionFiles& version);

}  // namespace tharsis
