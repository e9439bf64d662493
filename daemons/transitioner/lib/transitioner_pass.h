// The transitioner's shell: for each due workunit of its shard, one transaction that
// locks the workunit and its results, asks plan_transition (the pure rules) what to
// change, and writes exactly that — guarded on the loaded state, so a re-run after a
// crash or a race changes nothing twice. New results get their output template expanded.
#pragma once

#include <map>
#include <string>

#include "lib/daemon/daemon_loop.h"

namespace tharsis {

class TransitionerPass final : public DaemonWork {
 public:
  explicit TransitionerPass(const ProjectConfig& config) : config_(config) {}
  int do_pass(Database& db, const DaemonContext& context, int64_t now) override;
  // One workunit; returns whether anything was written.
  bool transition_one(Database& db, int64_t wu_id, int64_t now);

 private:
  const std::string& output_template(const std::string& file);
  const ProjectConfig& config_;
  std::map<std::string, std::string> templates_;
};

}  // namespace tharsis
