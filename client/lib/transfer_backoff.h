// When the client retries a failed file transfer and when it gives up (pure functions,
// time and randomness injected; client/lib/host_client.h does the waiting).
//
// Like BOINC's client, a transfer that fails transiently (server down, connection reset,
// a short or corrupt body, the handler's transient error) is retried with an exponential,
// randomised, capped back-off for as long as the result can still be reported in time; a
// permanent refusal (upload handler <status>-1</status>, HTTP 404, a bad code signature)
// ends it at once (that is decided by client/lib/file_transfer.h, not here).
//   - Wait after the n-th failure: uniform in [d/2, d], d = min(max_delay, first_delay ×
//     2^(n-1)). Randomised so that hosts failed by one outage do not return in step; below
//     the cap never shorter than the wait before (the next range starts where this ends).
//     BOINC waits uniform(60 s, min(e^n s, 4 h)); we start sooner (tests, simulations).
//   - Give-up time of a result: its report deadline less a margin left to report it (the
//     scheduler RPC after the upload, itself possibly backed off): 10% of the delay bound,
//     at least 2 minutes and at most 1 hour, but never more than a quarter of the delay
//     bound (short simulated deadlines of seconds keep three quarters of their time to
//     retry). BOINC instead gives up after 2 weeks (now 90 days) without progress and
//     reports late; a result given up here is reported as a client error in time, so the
//     server re-sends the work before the workunit's deadline passes.
//   - A result without a known deadline (0) never gives up on its transfers; the
//     scheduler's aborts still end it.
#pragma once

namespace tharsis {

struct TransferRetryPolicy {
  double first_delay = 1;  // seconds: the first retry comes after 0.5..1 × this
  double max_delay = 600;  // seconds: cap on one wait
  double margin_fraction = 0.1;
  double min_margin = 120, max_margin = 3600;  // seconds
  double max_margin_fraction = 0.25;           // of the delay bound, whatever min_margin says
};

// Seconds to wait after the `failures`-th failed attempt (1, 2, ...); `random01` in [0, 1).
double transfer_retry_delay(const TransferRetryPolicy& policy, int failures, double random01);

// Seconds before the report deadline at which the result's transfers give up.
// `delay_bound` <= 0 (unknown): min_margin.
double transfer_report_margin(const TransferRetryPolicy& policy, double delay_bound);

// The wall time after which a result received at `received_time` (0: unknown) with
// `report_deadline` (0: none, never give up) stops retrying its transfers.
double transfer_give_up_time(const TransferRetryPolicy& policy, double report_deadline, double received_time);

struct TransferRetry {
  bool give_up = false;
  double next_attempt = 0;  // when not giving up
};

// After a failed attempt at `now` (`failures` counts it): give up once `now` has reached
// `give_up_at`; otherwise retry after transfer_retry_delay, but no later than
// `give_up_at`, so the last try comes just when the margin starts.
TransferRetry next_transfer_attempt(const TransferRetryPolicy& policy, int failures, double now,
                                    double give_up_at, double random01);

}  // namespace tharsis
