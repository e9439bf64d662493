// upgrade_db: brings a project's database made by an older Tharsis to the schema this
// build uses, in place, with its daemons stopped (db/schema_migrations.h). Library part
// of tools/upgrade_db, so tests run it.
//
// It refuses while a daemon of the project runs (its pid file names a live process): a
// daemon of the old build would keep writing the old way. It counts the rows of every
// table before and after and fails loudly if any table has fewer (migrations add tables,
// columns and indexes, convert character sets, and drop a column only after copying what
// it held: no table is ever dropped).
// A dry run reads only: it prints the statements an upgrade would run now.
#pragma once

#include <cstdint>
#include <ostream>

#include "db/database.h"
#include "lib/config/project_config.h"
#include "lib/result.h"

namespace tharsis {

struct UpgradeOptions {
  bool dry_run = false;
};

struct UpgradeOutcome {
  int from_version = 0;
  int to_version = 0;
  int statements = 0;  // run (or, in a dry run, that would run)
};

// Upgrades (or plans, in a dry run) `db`, the database of the project `config`,
// printing what it does to `out`. Errors: a daemon running, a database with no Tharsis
// tables or newer than this build, a table losing rows. A statement failing throws
// DbError (the tool's boundary, run_db_tool, reports it).
Result<UpgradeOutcome> upgrade_project_database(const ProjectConfig& config, Database& db,
                                                const UpgradeOptions& options, int64_t now,
                                                std::ostream& out);

}  // namespace tharsis
