// The transitioner's shell: due workunits of its shard in transactions of up to
// --units_per_commit workunits (batch_commit.h, commit_workunit_sets): the batch's
// workunits and results locked in two statements, plan_transition (the pure rules) asked
// per workunit, and the batch's writes made as a set — new results in multi-row INSERTs,
// result and workunit updates in one statement each, every row guarded on the state it
// was planned on, so a re-run after a crash or a race changes nothing twice. A batch
// whose rows changed meanwhile is written again unit by unit and only the stale workunit
// is skipped. New results get their output template expanded.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "db/locked_workunits.h"
#include "db/planned_writes.h"
#include "lib/daemon/daemon_loop.h"

namespace tharsis {

class TransitionerPass final : public DaemonWork {
 public:
  explicit TransitionerPass(const ProjectConfig& config) : config_(config) {}
  int do_pass(Database& db, const DaemonContext& context, int64_t now) override;
  // These workunits, up to `per_commit` per transaction; returns how many were written.
  int transition_batch(Database& db, const std::vector<int64_t>& wu_ids, int64_t now, int per_commit);

 private:
  // Plans one workunit of the open batch into `writes`; false when it is not due (any more).
  bool plan_in_transaction(Database& d, int64_t wu_id, int64_t now, PlannedWrites& writes);
  const std::string& output_template(const std::string& file);
  const ProjectConfig& config_;
  std::map<std::string, std::string> templates_;
  // The open batch's rows; its rules decide on states alone, so the results' file lists
  // are not read.
  LockedWorkunits locked_{ResultText::None};
};

}  // namespace tharsis
