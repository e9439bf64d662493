// Versioned schema migrations: how a project's database made by an older Tharsis reaches
// the schema this build uses (db/schema.sql) in place, without losing a row.
//
// The version lives in table schema_version (one row, id 1); schema_migration records each
// migration applied (version, summary, time, statements run). Version 1 is the schema
// every project made before versioning has (no schema_version table; a fixture copy is
// tests/fixtures/schema_v1.sql); each later version is one Migration below, a list of steps.
// Each step checks information_schema first and runs its statement only when the database
// lacks what it adds, so a migration interrupted half-way, or run twice, finishes without
// error or change. No step drops a table; a column is dropped only after an earlier step of
// the same migration copied what it held (copy_while_column_exists, which runs while the
// column is there, so that a run killed between the two copies again: the copy must be
// idempotent, e.g. INSERT .. ON DUPLICATE KEY UPDATE).
//
// A new database gets db/schema.sql (which is always the latest schema) and the latest
// version at once (schema_loader.h). So schema.sql and the migrations must agree: the
// test SchemaUpgrade.MigratedV1EqualsFreshSchema compares a migrated version-1 database
// with a fresh one (tables, columns, indexes, character sets).
//
// Adding a migration (a new table, column or index in schema.sql):
//   1. change db/schema.sql (the new definition, as a new project gets it);
//   2. append a Migration to kMigrations in db/schema_migrations.cpp with the next version
//      number and its steps: create_table("t") (copies t's CREATE TABLE from schema.sql),
//      add_column("t", "c", "<definition as in schema.sql>"),
//      add_index("t", "k", "(col1, col2)");
//   3. run the SchemaUpgrade tests.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "db/database.h"
#include "lib/result.h"

namespace tharsis {

// One idempotent change: `pending` reads information_schema and returns the DDL statement
// to run now, or "" when the database already has what the step adds.
struct MigrationStep {
  std::string description;  // e.g. "result: add index res_wu_host (workunitid, hostid)"
  std::function<std::string(Database&)> pending;
  std::string table = "";      // the table it creates or changes
  bool creates_table = false;  // create_table: today's definition, later additions included
};

struct Migration {
  int version = 0;  // the version the database has once this migration is applied
  std::string summary;
  std::vector<MigrationStep> steps;
};

// The migrations from version 2 to the latest, in order.
const std::vector<Migration>& schema_migrations();

// The version this build expects (the last migration's).
int latest_schema_version();

// The database's version: the schema_version row; 1 when there is none but the project's
// tables are there (made before versioning); 0 for a database without a workunit table.
int current_schema_version(Database& db);

// Steps to create a table as db/schema.sql defines it, to add a column or an index, and
// to convert a table and its text columns to utf8mb4 (lossless from latin1 and utf8mb3).
MigrationStep create_table(const std::string& table);
MigrationStep add_column(const std::string& table, const std::string& column, const std::string& definition);
MigrationStep add_index(const std::string& table, const std::string& index, const std::string& columns);
MigrationStep convert_to_utf8mb4(const std::string& table);
// Index `index` of `table` as `columns` (e.g. "(a, b DESC, c)"): added when missing, dropped
// and added again in one ALTER when its columns differ (names and order; not DESC).
MigrationStep redefine_index(const std::string& table, const std::string& index, const std::string& columns);
// `statement` (trusted text, e.g. an INSERT .. SELECT moving the column's values to another
// table) while `table`.`column` exists; then drop_column drops it.
MigrationStep copy_while_column_exists(const std::string& table, const std::string& column,
                                       const std::string& statement);
MigrationStep drop_column(const std::string& table, const std::string& column);

struct UpgradePlan {
  int from_version = 0;
  int to_version = 0;
  struct Pending {
    int version = 0;
    std::string summary;
    std::vector<std::string> statements;  // what would run now (the steps still needed)
  };
  std::vector<Pending> migrations;  // each migration above from_version, in order
};

// What upgrade_schema would do, reading only (a dry run). A database of version 0 (no
// project tables) or newer than this build is an error; database failures throw DbError.
Result<UpgradePlan> plan_schema_upgrade(Database& db);

// Applies every migration above the database's version in order: creates schema_version
// and schema_migration if missing, then for each migration runs the steps still needed
// and records it (schema_migration row, schema_version row) in one transaction.
// Returns the plan it carried out; fails and throws like plan_schema_upgrade.
// `progress` (optional) hears one line per migration and statement before it runs.
Result<UpgradePlan> upgrade_schema(Database& db, int64_t now,
                                   const std::function<void(const std::string&)>& progress = {});

// Loads db/schema.sql into an empty database and records the latest version.
void load_fresh_schema(Database& db, const std::string& schema_text, int64_t now);

// Empty when the database's version is the latest, else the message a program that
// refuses to run prints: the versions found and expected, and "run upgrade_db".
std::string schema_version_problem(Database& db, const std::string& project_dir);

// Rows in each base table of the database (for the upgrade's before/after report and tests).
std::vector<std::pair<std::string, int64_t>> table_row_counts(Database& db);

}  // namespace tharsis
