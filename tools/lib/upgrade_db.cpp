// Implementation of tools/lib/upgrade_db.h.
#include "tools/lib/upgrade_db.h"

#include <map>

#include "db/schema_migrations.h"
#include "tools/lib/daemon_control.h"

namespace tharsis {
namespace {

std::string running_daemons(const ProjectConfig& config) {
  std::string names;
  for (const auto& status : daemon_statuses(config)) {
    if (status.pid == 0) continue;
    names +=
        (names.empty() ? "" : ", ") + status.command.instance + " (pid " + std::to_string(status.pid) + ")";
  }
  return names;
}

// Tables whose row count went down between `before` and `after`, as text.
std::string lost_rows(const std::vector<std::pair<std::string, int64_t>>& before,
                      const std::vector<std::pair<std::string, int64_t>>& after) {
  std::map<std::string, int64_t> now(after.begin(), after.end());
  std::string lost;
  for (const auto& [table, count] : before) {
    auto it = now.find(table);
    int64_t left = it == now.end() ? -1 : it->second;
    if (left >= count) continue;
    lost += (lost.empty() ? "" : ", ") + table + " " + std::to_string(count) + " -> " +
            (left < 0 ? std::string("missing") : std::to_string(left));
  }
  return lost;
}

}  // namespace

Result<UpgradeOutcome> upgrade_project_database(const ProjectConfig& config, Database& db,
                                                const UpgradeOptions& options, int64_t now,
                                                std::ostream& out) {
  UpgradeOutcome outcome;
  if (!options.dry_run) {
    if (std::string running = running_daemons(config); !running.empty()) {
      return make_error("daemons still running: " + running + "; stop them first (stop --project_dir " +
                        config.project_dir + ")");
    }
  }
  auto planned = plan_schema_upgrade(db);
  if (!planned.ok()) return make_error(planned.error());
  const UpgradePlan& plan = *planned;
  outcome.from_version = plan.from_version;
  outcome.to_version = plan.to_version;
  out << "database '" << db.config().name << "': schema version " << plan.from_version << ", this build's is "
      << plan.to_version << "\n";
  if (plan.migrations.empty()) {
    out << "nothing to do\n";
    return outcome;
  }
  if (options.dry_run) {
    for (const auto& m : plan.migrations) {
      out << "version " << m.version << ": " << m.summary << "\n";
      if (m.statements.empty()) out << "  (already in place)\n";
      for (const auto& s : m.statements) out << "  " << s << "\n";
      outcome.statements += static_cast<int>(m.statements.size());
    }
    out << "dry run: nothing changed\n";
    return outcome;
  }
  auto before = table_row_counts(db);
  auto upgraded =
      upgrade_schema(db, now, [&](const std::string& line) { out << line << "\n"
                                                                 << std::flush; });
  if (!upgraded.ok()) return make_error(upgraded.error());
  const UpgradePlan& done = *upgraded;
  for (const auto& m : done.migrations) outcome.statements += static_cast<int>(m.statements.size());
  auto after = table_row_counts(db);
  if (std::string lost = lost_rows(before, after); !lost.empty()) {
    return make_error("rows missing after the upgrade: " + lost + " (were daemons or tools writing?)");
  }
  int64_t rows = 0;
  for (const auto& [table, count] : before) rows += count;
  out << "upgraded to version " << done.to_version << " (" << outcome.statements << " statements); "
      << before.size() << " tables, " << rows << " rows, none lost\n";
  return outcome;
}

}  // namespace tharsis
