// tools/check's engine: walks every workunit with its results and reports
//  - the instant invariants of the state law (tools/lib/invariants.h);
//  - "assimilated exactly once": assimilate_state DONE exactly when one assimilation
//    record exists;
//  - file rules: no input deleted while a result may still need it (UNSENT/IN_PROGRESS
//    results), no canonical output deleted before assimilation, and nothing left behind
//    (files of rows whose file_delete_state is DONE still on disk);
//  - operand graph invariants (tools/lib/graph_invariants.h);
//  - the reclustering rules (tools/lib/cluster_checks.h): every cluster task in exactly
//    one place, counted;
//  - assimilated outputs: each file in results/<wu>/MANIFEST has the size and md5 the
//    canonical result reported (and, with hash_stored_outputs or settled, the stored file
//    itself is hashed and compared too);
//  - with `require_settled`, the "eventually" properties too: every workunit has a
//    canonical result or an error, transition_time = never, every result OVER — and no
//    file in upload/ (a partial upload included) that belongs to no live result.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "db/database.h"
#include "lib/config/project_config.h"
#include "tools/lib/cluster_checks.h"

namespace tharsis {

struct CheckReport {
  int64_t workunits = 0;
  int64_t results = 0;
  std::vector<std::string> violations;  // one line each, naming the rule and the ids
  ClusterCounts cluster;
};

struct CheckOptions {
  bool settled = false;              // the "eventually" properties too (tools/check --settled)
  bool hash_stored_outputs = false;  // hash assimilated files (always when settled)
};

CheckReport check_project(Database& db, const ProjectConfig& config, int64_t now,
                          const CheckOptions& options);
CheckReport check_project(Database& db, const ProjectConfig& config, int64_t now, bool require_settled);

}  // namespace tharsis
