// Implementation of db/upload_store.h.
#include "db/upload_store.h"

#include "db/sql.h"

namespace tharsis {

std::optional<UploadTargetRow> fetch_upload_target(Database& db, const std::string& result_name) {
  auto rows =
      query(db,
            "SELECT r.server_state, r.outcome, r.xml_doc_in, w.canonical_resultid, w.error_mask, "
            "w.assimilate_state "
            "FROM result r FORCE INDEX (res_name) JOIN workunit w ON w.id = r.workunitid WHERE r.name = ?",
            result_name);
  if (!rows->next()) return std::nullopt;
  UploadTargetRow row;
  row.server_state = static_cast<ServerState>(rows->getInt("server_state"));
  row.outcome = static_cast<Outcome>(rows->getInt("outcome"));
  row.xml_doc_in = rows->getString("xml_doc_in");
  row.wu_canonical_resultid = rows->getInt64("canonical_resultid");
  row.wu_error_mask = rows->getInt("error_mask");
  row.wu_assimilate_state = static_cast<AssimilateState>(rows->getInt("assimilate_state"));
  return row;
}

}  // namespace tharsis
