// The transitioner's shell: for each due workunit of its shard, inside a transaction
// shared by up to --units_per_commit workunits (batch_commit.h), lock the workunit and its
// results, ask plan_transition (the pure rules) what to change, and write exactly that —
// guarded on the loaded state, so a re-run after a crash or a race changes nothing twice;
// a workunit whose rows changed meanwhile is skipped alone. New results get their output
// template expanded.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "db/locked_workunits.h"
#include "lib/daemon/daemon_loop.h"

namespace tharsis {

class TransitionerPass final : public DaemonWork {
 public:
  explicit TransitionerPass(const ProjectConfig& config) : config_(config) {}
  int do_pass(Database& db, const DaemonContext& context, int64_t now) override;
  // One workunit in its own transaction; returns whether anything was written.
  bool transition_one(Database& db, int64_t wu_id, int64_t now);
  // These workunits, up to `per_commit` per transaction; returns how many were written.
  int transition_batch(Database& db, const std::vector<int64_t>& wu_ids, int64_t now, int per_commit);

 private:
  bool transition_in_transaction(Database& d, int64_t wu_id, int64_t now);
  const std::string& output_template(const std::string& file);
  const ProjectConfig& config_;
  std::map<std::string, std::string> templates_;
  LockedWorkunits locked_;  // the open batch's rows
};

}  // namespace tharsis
