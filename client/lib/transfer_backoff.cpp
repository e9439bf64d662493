// Implementation of client/lib/transfer_backoff.h.
#include "client/lib/transfer_backoff.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tharsis {

double transfer_retry_delay(const TransferRetryPolicy& policy, int failures, double random01) {
  // 2^60 × any sane first_delay is far past any cap; the exponent is bounded so it stays finite.
  double ceiling =
      std::min(policy.max_delay, policy.first_delay * std::ldexp(1.0, std::clamp(failures - 1, 0, 60)));
  return ceiling * (0.5 + 0.5 * std::clamp(random01, 0.0, 1.0));
}

double transfer_report_margin(const TransferRetryPolicy& policy, double delay_bound) {
  if (delay_bound <= 0) return policy.min_margin;
  double margin = std::clamp(policy.margin_fraction * delay_bound, policy.min_margin, policy.max_margin);
  return std::min(margin, policy.max_margin_fraction * delay_bound);
}

double transfer_give_up_time(const TransferRetryPolicy& policy, double report_deadline,
                             double received_time) {
  if (report_deadline <= 0) return std::numeric_limits<double>::infinity();
  double bound = received_time > 0 ? report_deadline - received_time : 0;
  return report_deadline - transfer_report_margin(policy, bound);
}

TransferRetry next_transfer_attempt(const TransferRetryPolicy& policy, int failures, double now,
                                    double give_up_at, double random01) {
  if (now >= give_up_at) return {true, 0};
  return {false, std::min(now + transfer_retry_delay(policy, failures, random01), give_up_at)};
}

}  // namespace tharsis
