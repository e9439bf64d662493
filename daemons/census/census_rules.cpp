// Implementation of daemons/census/census_rules.h.
#include "daemons/census/census_rules.h"

#include <algorithm>
#include <cmath>

namespace tharsis {

int64_t census_interval_after(int64_t configured_seconds, double duration_seconds) {
  const double stretched = std::ceil(std::max(0.0, duration_seconds) / kCensusBusyFraction);
  return std::max<int64_t>({configured_seconds, static_cast<int64_t>(stretched), 1});
}

}  // namespace tharsis
