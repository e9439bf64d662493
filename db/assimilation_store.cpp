// Implementation of db/assimilation_store.h.
#include "db/assimilation_store.h"

namespace tharsis {

bool record_assimilation(Database& db, int64_t wu_id, int64_t now, int64_t canonical_resultid, int error_mask) {
  return db.exec("INSERT IGNORE INTO assimilation (workunitid, time, canonical_resultid, error_mask) "
                 "VALUES (?,?,?,?)",
                 wu_id, now, canonical_resultid, error_mask) > 0;
}

}  // namespace tharsis
