// Implementation of db/assimilation_store.h.
#include "db/assimilation_store.h"

#include <string>

#include "db/multi_row_insert.h"
#include "db/sql.h"

namespace tharsis {

bool record_assimilation(Database& db, int64_t wu_id, int64_t now, int64_t canonical_resultid,
                         int error_mask) {
  return exec(db,
              "INSERT IGNORE INTO assimilation (workunitid, time, canonical_resultid, error_mask) "
              "VALUES (?,?,?,?)",
              wu_id, now, canonical_resultid, error_mask) > 0;
}

int64_t record_assimilations(Database& db, const std::vector<AssimilationRecord>& records) {
  static const std::string kHead =
      "INSERT IGNORE INTO assimilation (workunitid, time, canonical_resultid, error_mask) VALUES ";
  return insert_rows(
      db, kHead, 4, records,
      [](sql::PreparedStatement& st, int& index, const AssimilationRecord& a) {
        st.setInt64(index++, a.wu_id);
        st.setInt64(index++, a.time);
        st.setInt64(index++, a.canonical_resultid);
        st.setInt(index++, a.error_mask);
      },
      [](const AssimilationRecord&) { return size_t{0}; });
}

std::map<int64_t, int64_t> count_assimilations_by_workunit(Database& db) {
  auto rows = query(db, "SELECT workunitid, COUNT(*) FROM assimilation GROUP BY workunitid");
  std::map<int64_t, int64_t> counts;
  while (rows->next()) counts[rows->getInt64(1)] = rows->getInt64(2);
  return counts;
}

int64_t count_results_of_workunit(Database& db, int64_t wu_id) {
  return query_int(db, "SELECT COUNT(*) FROM result WHERE workunitid = ?", wu_id);
}

}  // namespace tharsis
