// Implementation of db/schema_migrations.h.
#include "db/schema_migrations.h"

#include <cctype>
#include <set>
#include <stdexcept>

#include "db/mariadb_errors.h"
#include "db/schema_loader.h"
#include "db/sql.h"
#include "lib/text_file.h"

namespace tharsis {
namespace {

// The tables of version 1 (tests/fixtures/schema_v1.sql).
const std::vector<std::string> kVersion1Tables = {
    "platform",     "app",           "app_version",  "user",          "host",
    "workunit",     "result",        "graph",        "operand",       "operand_dependency",
    "cluster_task", "cluster_job",   "failure_stat", "assimilation",  "daemon_heartbeat",
    "census_run",   "census_result", "census_queue", "workunit_input"};

std::vector<Migration> build_migrations() {
  std::vector<Migration> all;
  all.push_back({2,
                 "schema versioning: tables schema_version and schema_migration",
                 {create_table("schema_version"), create_table("schema_migration")}});
  Migration utf8{3, "every table DEFAULT CHARSET=utf8mb4 (four-byte characters from clients kept)", {}};
  for (const auto& table : kVersion1Tables) utf8.steps.push_back(convert_to_utf8mb4(table));
  all.push_back(std::move(utf8));
  all.push_back({4,
                 "result: index res_wu_host (the scheduler's never-twice-to-one-host check)",
                 {add_index("result", "res_wu_host", "(workunitid, hostid)")}});
  all.push_back({5,
                 "file_delete_retry: the file deleter's back-off for files it cannot delete",
                 {create_table("file_delete_retry")}});
  all.push_back({6,
                 "remote job submission: tables batch, user_submit, user_submit_app; workunit index wu_batch",
                 {create_table("batch"), create_table("user_submit"), create_table("user_submit_app"),
                  add_index("workunit", "wu_batch", "(batch)")}});
  all.push_back({7,
                 "remote submission files: tables job_file, batch_file_assoc; batch.files_deleted and index "
                 "batch_cleanup",
                 {create_table("job_file"), create_table("batch_file_assoc"),
                  add_column("batch", "files_deleted", "TINYINT NOT NULL DEFAULT 0"),
                  add_index("batch", "batch_cleanup", "(files_deleted, state, expire_time)")}});
  all.push_back({8,
                 "owners of operand graphs and clustered tasks: graph.user_id (index graph_user), "
                 "cluster_task.user_id",
                 {add_column("graph", "user_id", "INT NOT NULL DEFAULT 0"),
                  add_index("graph", "graph_user", "(user_id)"),
                  add_column("cluster_task", "user_id", "INT NOT NULL DEFAULT 0")}});
  all.push_back({9,
                 "result.stderr_out moved to table result_stderr (the daemons' result reads stay narrow)",
                 {create_table("result_stderr"),
                  copy_while_column_exists("result", "stderr_out",
                                           "INSERT INTO result_stderr (resultid, stderr_out) SELECT id, "
                                           "stderr_out FROM result WHERE stderr_out <> '' ON DUPLICATE KEY "
                                           "UPDATE stderr_out = VALUES(stderr_out)"),
                  drop_column("result", "stderr_out")}});
  all.push_back({10,
                 "result: workunitid in index res_send (a scheduler process reads its part of the queue "
                 "from the index); operand: index operand_reserved (preferred_until)",
                 {redefine_index("result", "res_send", "(server_state, priority DESC, id, workunitid)"),
                  add_index("operand", "operand_reserved", "(preferred_until)")}});
  all.push_back({11,
                 "credit_pending: granted credit on its way to host and user totals (the validator no "
                 "longer waits for a scheduler RPC's host row)",
                 {create_table("credit_pending")}});
  all.push_back({12,
                 "download_claim: a workunit taking a file in download/ and the file deleter unlinking it "
                 "meet on one row (a staged input could vanish under a workunit that had just reused it)",
                 {create_table("download_claim")}});
  // Next: {13, "...", {create_table("..."), add_index("workunit", "...", "(...)")}},
  return all;
}

// Identifiers come from this file or information_schema; still, only these characters.
const std::string& checked_identifier(const std::string& name) {
  bool ok = !name.empty() && name.size() <= 64;
  for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!ok) throw std::runtime_error("schema migration: bad identifier '" + name + "'");
  return name;
}

bool column_exists(Database& db, const std::string& table, const std::string& column) {
  return query_int(db,
                   "SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND "
                   "TABLE_NAME = ? AND COLUMN_NAME = ?",
                   table, column) > 0;
}

bool table_exists(Database& db, const std::string& table) {
  return query_int(db,
                   "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND "
                   "TABLE_NAME = ?",
                   table) > 0;
}

// `table`'s CREATE TABLE statement in db/schema.sql, from its first line to the line that
// ends with ';'.
std::string create_statement_in_schema(const std::string& table) {
  auto text = read_text_file(schema_path());
  if (!text.ok()) throw std::runtime_error("cannot read schema: " + text.error());
  const std::string head = "CREATE TABLE IF NOT EXISTS " + table + " (";
  size_t start = text->find("\n" + head);
  if (start == std::string::npos) throw std::runtime_error("db/schema.sql has no table " + table);
  ++start;
  size_t end = text->find(";\n", start);
  if (end == std::string::npos) end = text->size();
  return text->substr(start, end - start);
}

// One query when the table is there (the scheduler checks on every new connection).
int64_t version_row(Database& db) {
  try {
    return query_int(db, "SELECT version FROM schema_version WHERE id = 1");
  } catch (const DbError& e) {
    if (e.code() != mariadb_error::kNoSuchTable) throw;
    return 0;
  }
}

// `created`: the tables an earlier pending step creates. create_table copies today's
// definition from schema.sql, so a later step that adds to such a table will find its
// change in place when the upgrade runs: the dry run leaves it out too.
UpgradePlan::Pending pending_of(Database& db, const Migration& m, std::set<std::string>& created) {
  UpgradePlan::Pending p{m.version, m.summary, {}};
  for (const auto& step : m.steps) {
    if (created.count(step.table)) continue;
    std::string statement = step.pending(db);
    if (statement.empty()) continue;
    p.statements.push_back(statement);
    if (step.creates_table) created.insert(step.table);
  }
  return p;
}

// The database's version when this build can upgrade it; an error naming what it found
// otherwise (an expected refusal, which upgrade_db reports as such).
Result<int> checked_version(Database& db) {
  int version = current_schema_version(db);
  if (version == 0) {
    return make_error("database '" + db.config().name +
                      "' has no Tharsis tables; make_project creates a project's database");
  }
  if (version > latest_schema_version()) {
    return make_error("database '" + db.config().name + "' has schema version " + std::to_string(version) +
                      ", newer than this build's " + std::to_string(latest_schema_version()) +
                      "; use the Tharsis that upgraded it");
  }
  return version;
}

}  // namespace

const std::vector<Migration>& schema_migrations() {
  static const std::vector<Migration> all = build_migrations();
  return all;
}

int latest_schema_version() { return schema_migrations().back().version; }

int current_schema_version(Database& db) {
  if (int64_t v = version_row(db); v > 0) return static_cast<int>(v);
  return table_exists(db, "workunit") ? 1 : 0;
}

MigrationStep create_table(const std::string& table) {
  checked_identifier(table);
  return {"create table " + table,
          [table](Database& db) {
            return table_exists(db, table) ? std::string() : create_statement_in_schema(table);
          },
          table, true};
}

MigrationStep add_column(const std::string& table, const std::string& column, const std::string& definition) {
  checked_identifier(table);
  checked_identifier(column);
  return {table + ": add column " + column,
          [=](Database& db) {
            return column_exists(db, table, column)
                       ? std::string()
                       : "ALTER TABLE `" + table + "` ADD COLUMN `" + column + "` " + definition;
          },
          table};
}

MigrationStep copy_while_column_exists(const std::string& table, const std::string& column,
                                       const std::string& statement) {
  checked_identifier(table);
  checked_identifier(column);
  return {table + ": copy " + column + " before it goes",
          [=](Database& db) { return column_exists(db, table, column) ? statement : std::string(); }, table};
}

MigrationStep drop_column(const std::string& table, const std::string& column) {
  checked_identifier(table);
  checked_identifier(column);
  return {table + ": drop column " + column,
          [=](Database& db) {
            return column_exists(db, table, column)
                       ? "ALTER TABLE `" + table + "` DROP COLUMN `" + column + "`"
                       : std::string();
          },
          table};
}

MigrationStep add_index(const std::string& table, const std::string& index, const std::string& columns) {
  checked_identifier(table);
  checked_identifier(index);
  return {table + ": add index " + index + " " + columns,
          [=](Database& db) {
            bool has = query_int(db,
                                 "SELECT COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = "
                                 "DATABASE() AND TABLE_NAME = ? AND INDEX_NAME = ?",
                                 table, index) > 0;
            return has ? std::string() : "ALTER TABLE `" + table + "` ADD KEY `" + index + "` " + columns;
          },
          table};
}

MigrationStep redefine_index(const std::string& table, const std::string& index, const std::string& columns) {
  checked_identifier(table);
  checked_identifier(index);
  // The column names of `columns`: each item's first word ("priority DESC" -> "priority").
  std::string wanted;
  for (size_t at = columns.find_first_not_of("( "); at < columns.size();) {
    size_t end = columns.find_first_of(" ,)", at);
    wanted += (wanted.empty() ? "" : ",") + columns.substr(at, end - at);
    at = columns.find(',', end);
    if (at != std::string::npos) at = columns.find_first_not_of(" ", at + 1);
  }
  return {table + ": index " + index + " becomes " + columns,
          [=](Database& db) {
            auto rows = query(db,
                              "SELECT COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = "
                              "DATABASE() AND TABLE_NAME = ? AND INDEX_NAME = ? ORDER BY SEQ_IN_INDEX",
                              table, index);
            std::string has;
            while (rows->next()) has += (has.empty() ? "" : ",") + std::string(rows->getString(1));
            if (has == wanted) return std::string();
            // One statement: the index is never missing, and a kill leaves the old or the new.
            return "ALTER TABLE `" + table + "` " + (has.empty() ? "" : "DROP KEY `" + index + "`, ") +
                   "ADD KEY `" + index + "` " + columns;
          },
          table};
}

MigrationStep convert_to_utf8mb4(const std::string& table) {
  checked_identifier(table);
  return {
      table + ": convert to utf8mb4",
      [table](Database& db) {
        int64_t other = query_int(
            db,
            "SELECT (SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND "
            "TABLE_NAME = ? AND TABLE_COLLATION NOT LIKE 'utf8mb4%') + (SELECT COUNT(*) FROM "
            "information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND "
            "CHARACTER_SET_NAME IS NOT NULL AND CHARACTER_SET_NAME <> 'utf8mb4')",
            table, table);
        if (other == 0) return std::string();
        // CONVERT TO would widen a TEXT column to hold as many four-byte characters (MEDIUMTEXT
        // -> LONGTEXT); keep each TEXT column's type, as a new database has it.
        std::string statement = "ALTER TABLE `" + table + "` CONVERT TO CHARACTER SET utf8mb4";
        auto texts = query(
            db,
            "SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA "
            "= "
            "DATABASE() AND TABLE_NAME = ? AND DATA_TYPE IN ('tinytext', 'text', 'mediumtext', 'longtext') "
            "ORDER BY ORDINAL_POSITION",
            table);
        while (texts->next()) {
          statement += ", MODIFY `" + checked_identifier(texts->getString(1)) + "` " +
                       std::string(texts->getString(2)) +
                       (std::string(texts->getString(3)) == "YES" ? " NULL" : " NOT NULL");
        }
        return statement;
      },
      table};
}

Result<UpgradePlan> plan_schema_upgrade(Database& db) {
  auto version = checked_version(db);
  if (!version.ok()) return make_error(version.error());
  UpgradePlan plan;
  plan.from_version = *version;
  plan.to_version = latest_schema_version();
  std::set<std::string> created;
  for (const auto& m : schema_migrations()) {
    if (m.version > plan.from_version) plan.migrations.push_back(pending_of(db, m, created));
  }
  return plan;
}

Result<UpgradePlan> upgrade_schema(Database& db, int64_t now,
                                   const std::function<void(const std::string&)>& progress) {
  auto version = checked_version(db);
  if (!version.ok()) return make_error(version.error());
  UpgradePlan plan;
  plan.from_version = *version;
  plan.to_version = latest_schema_version();
  for (const auto& m : schema_migrations()) {
    if (m.version <= plan.from_version) continue;
    if (progress) progress("version " + std::to_string(m.version) + ": " + m.summary);
    UpgradePlan::Pending done{m.version, m.summary, {}};
    // DDL commits by itself in MariaDB: each step is checked again just before it runs, so
    // a run killed half-way resumes where it stopped.
    for (const auto& step : m.steps) {
      std::string statement = step.pending(db);
      if (statement.empty()) continue;
      if (progress) progress("  " + statement);
      execute_trusted_script(db, statement);
      done.statements.push_back(statement);
    }
    db.transaction([&](Database& d) {
      exec(d,
           "INSERT INTO schema_migration (version, summary, applied_time, steps) VALUES (?, ?, ?, ?) "
           "ON DUPLICATE KEY UPDATE version = version",
           m.version, m.summary, now, static_cast<int64_t>(done.statements.size()));
      exec(d,
           "INSERT INTO schema_version (id, version, updated_time) VALUES (1, ?, ?) "
           "ON DUPLICATE KEY UPDATE updated_time = IF(version < VALUES(version), VALUES(updated_time), "
           "updated_time), version = GREATEST(version, VALUES(version))",
           m.version, now);
    });
    plan.migrations.push_back(std::move(done));
  }
  return plan;
}

void load_fresh_schema(Database& db, const std::string& schema_text, int64_t now) {
  execute_trusted_script(db, schema_text);
  int latest = latest_schema_version();
  db.transaction([&](Database& d) {
    exec(d, "INSERT IGNORE INTO schema_migration (version, summary, applied_time, steps) VALUES (?, ?, ?, 0)",
         latest, "new database at version " + std::to_string(latest) + " (db/schema.sql)", now);
    exec(d, "INSERT IGNORE INTO schema_version (id, version, updated_time) VALUES (1, ?, ?)", latest, now);
  });
}

std::string schema_version_problem(Database& db, const std::string& project_dir) {
  int version = current_schema_version(db);
  int latest = latest_schema_version();
  if (version >= latest) return "";
  if (version == 0) {
    return "database '" + db.config().name +
           "' has no Tharsis tables; make_project creates a project's database";
  }
  return "database '" + db.config().name + "' has schema version " + std::to_string(version) +
         ", this build needs version " + std::to_string(latest) +
         ": stop the daemons and run `upgrade_db --project_dir " + project_dir +
         "` (add --dry_run to see what it does first)";
}

std::vector<std::pair<std::string, int64_t>> table_row_counts(Database& db) {
  std::vector<std::string> tables;
  auto rows = query(
      db,
      "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = "
      "'BASE "
      "TABLE' ORDER BY TABLE_NAME");
  while (rows->next()) tables.push_back(rows->getString(1));
  std::vector<std::pair<std::string, int64_t>> counts;
  for (const auto& table : tables) {
    counts.emplace_back(table, query_int(db, "SELECT COUNT(*) FROM `" + checked_identifier(table) + "`"));
  }
  return counts;
}

}  // namespace tharsis
