// Implementation of db/schema_loader.h.
#include "db/schema_loader.h"

#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>

#include "db/database.h"
#include "db/schema_migrations.h"
#include "db/sql.h"
#include "lib/text_file.h"

namespace tharsis {
namespace {

// Database names are identifiers and cannot be bound as parameters; allow only a safe set.
void require_safe_name(const std::string& name) {
  bool ok = !name.empty() && name.size() <= 64;
  for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!ok)
    throw DbError("database name must be 1-64 letters, digits or '_', found '" + name + "'", 0,
                  "create_database");
}

// Account names and passwords are literals in CREATE USER; allow only a safe set.
bool safe_word(const std::string& text, size_t min, size_t max, bool underscore) {
  bool ok = text.size() >= min && text.size() <= max;
  for (char c : text) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || (underscore && c == '_'));
  return ok;
}

}  // namespace

std::string schema_path() {
  if (const char* env = std::getenv("THARSIS_SCHEMA")) return env;
  std::string source = std::string(THARSIS_SOURCE_DIR) + "/db/schema.sql";
  if (std::filesystem::exists(source)) return source;
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = 0;
    return (std::filesystem::path(self).parent_path() / "schema.sql").string();
  }
  return "schema.sql";
}

void create_database(const DbConfig& admin, const std::string& name) {
  require_safe_name(name);
  auto text = read_text_file(schema_path());
  if (!text.ok()) throw DbError("cannot read schema: " + text.error(), 0, "create_database");
  DbConfig server = admin;
  server.name = "";
  execute_trusted_script(*Database::open(server),
                         "CREATE DATABASE IF NOT EXISTS `" + name + "` CHARACTER SET utf8mb4;");
  DbConfig project = admin;
  project.name = name;
  auto db = Database::open(project);
  const int64_t now = std::time(nullptr);
  try {
    if (current_schema_version(*db) == 0) {
      load_fresh_schema(*db, *text, now);
    } else {
      auto upgraded = upgrade_schema(*db, now);
      if (!upgraded.ok()) throw DbError(upgraded.error(), 0, "create_database");
    }
  } catch (const DbError&) {
    throw;
  } catch (const std::exception& e) {
    throw DbError(e.what(), 0, "create_database");
  }
}

void create_read_only_user(const DbConfig& admin, const std::string& name, const std::string& user,
                           const std::string& password) {
  require_safe_name(name);
  if (!safe_word(user, 1, 80, true)) {
    throw DbError("read-only user name must be 1-80 letters, digits or '_', found '" + user + "'", 0,
                  "create_read_only_user");
  }
  if (!safe_word(password, 8, 64, false)) {
    throw DbError("read-only user password must be 8-64 letters or digits", 0, "create_read_only_user");
  }
  DbConfig server = admin;
  server.name = "";
  auto db = Database::open(server);
  std::string script;
  // 'localhost' is the socket account; '%' serves TCP clients (a web server on another host).
  for (const char* host : {"localhost", "%"}) {
    const std::string account = "'" + user + "'@'" + host + "'";
    // REPLICA MONITOR: the pages read on a replica say how far behind it is (SHOW SLAVE STATUS).
    script += "CREATE OR REPLACE USER " + account + " IDENTIFIED BY '" + password + "';\nGRANT SELECT ON `" +
              name + "`.* TO " + account + ";\nGRANT REPLICA MONITOR ON *.* TO " + account + ";\n";
  }
  execute_trusted_script(*db, script);
}

void drop_database(const DbConfig& admin, const std::string& name) {
  require_safe_name(name);
  DbConfig server = admin;
  server.name = "";
  auto db = Database::open(server);
  execute_trusted_script(*db, "DROP DATABASE IF EXISTS `" + name + "`;");
}

}  // namespace tharsis
