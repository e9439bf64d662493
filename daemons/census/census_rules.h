// The census daemon's timing rules, pure: when the next snapshot is due. Counting results
// costs time that grows with the table (about 0.3 s at 1M results here), so the daemon
// never spends more than a tenth of its time counting: a snapshot that took longer than a
// tenth of the configured interval stretches the interval to ten times its duration.
#pragma once

#include <cstdint>

namespace tharsis {

// Counting takes at most this fraction of the daemon's wall time.
inline constexpr double kCensusBusyFraction = 0.1;

// Seconds until the next snapshot after one that took `duration_seconds`, given the
// project's <census_interval> (>= 1): the larger of the two rules above.
int64_t census_interval_after(int64_t configured_seconds, double duration_seconds);

}  // namespace tharsis
