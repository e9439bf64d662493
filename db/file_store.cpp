// Implementation of db/file_store.h.
#include "db/file_store.h"

namespace tharsis {

void record_workunit_inputs(Database& db, int64_t wu_id, const std::vector<std::string>& file_names) {
  for (const auto& name : file_names) {
    db.exec("INSERT IGNORE INTO workunit_input (workunitid, file_name) VALUES (?, ?)", wu_id, name);
  }
}

std::set<std::string> live_file_references(Database& db, const std::vector<std::string>& file_names,
                                           int64_t except_wu_id) {
  std::set<std::string> live;
  for (const auto& name : file_names) {
    int64_t users = db.query_int(
        "SELECT COUNT(*) FROM workunit_input i JOIN workunit w ON w.id = i.workunitid "
        "WHERE i.file_name = ? AND i.workunitid <> ? AND w.file_delete_state = 0",
        name, except_wu_id);
    if (users > 0) live.insert(name);
  }
  return live;
}

}  // namespace tharsis
