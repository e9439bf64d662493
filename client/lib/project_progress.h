// What a run of hosts shows of the project it computes for, besides its own counters: a
// source the runner asks for the project's progress (tools/lib/project_watch.h reads it
// from the project's database; the volunteer client itself has none). The source
// formats its own part of the progress and summary lines, so the client needs no notion
// of the server's tables or states.
#pragma once

#include <optional>
#include <string>

namespace tharsis {

struct ProjectReading {
  std::string progress;  // its part of the per-second progress line
  std::string summary;   // its part of the final summary line
  bool settled = false;  // every workunit finished and cleaned up (--until_settled)
};

class ProjectProgressSource {
 public:
  virtual ~ProjectProgressSource() = default;
  // The project at wall time `now`; nullopt while it cannot be read (the source waits
  // that out itself and must not hold up the hosts). `detailed`: also the costlier
  // figures the lines show (results by state); false for a quick settled check. Throws
  // on an error waiting would not cure; the runner then stops with exit code 1.
  virtual std::optional<ProjectReading> read(double now, bool detailed) = 0;
};

}  // namespace tharsis
