// Runtime model of fault-tolerant task clustering (docs/reclustering.md):
// the expected makespan M(k) of n independent tasks clustered k per job on r resources
// under the job failure model (JFM, rate β) and the task failure model (TFM, rate α),
// the optimal cluster size k*, and the choice of k that a reclustering policy makes.
// Pure functions; no state, no clock.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace tharsis {

// One level of independent tasks waiting to be clustered.
struct ClusterParams {
  int64_t n = 0;     // tasks left to run
  int64_t r = 1;     // resources (hosts) running jobs in parallel
  double phi = 0.0;  // mean task run time φ̄ (seconds)
  double C = 0.0;    // per-task overhead inside a job (seconds)
  double D = 0.0;    // per-job overhead: dispatch, staging, start-up (seconds)

  // Run time of one job of k tasks: kφ̄ + D + Ck.
  double job_time(double k) const { return k * (phi + C) + D; }
};

enum class FailureModel { Task, Job };
std::string_view failure_model_name(FailureModel model);

// Expected makespan under JFM (each job fails with probability beta, all its tasks lost),
// seed equation (jfm). k is real-valued so the curve can be drawn and minimised:
//   n/k >= r :  n(kφ̄+D+Ck) / (r k (1-β))
//   n/k <  r :  (kφ̄+D+Ck) / (1-β)
// Both branches agree at k = n/r, so M is continuous. Returns +inf for beta >= 1.
double expected_makespan_jfm(const ClusterParams& params, double k, double beta);

// Expected makespan under TFM (each task fails independently with probability alpha, a job
// succeeds only if all its k tasks do: γ = (1-α)^k), seed equation (tfm).
double expected_makespan_tfm(const ClusterParams& params, double k, double alpha);

// JFM optimum: k* = n/r, whatever β (seed equation (optimal)).
double optimal_k_jfm(const ClusterParams& params);

// Stationary point of the first TFM branch n(kt+D)/(r k (1-α)^k), t = φ̄+C: dM/dk = 0
// gives t k² + D k + D/ln(1-α) = 0, whose positive root is
//   k = (−D + √(D² − 4tD/ln(1−α))) / (2t).
// (The seed prints it without the t under the root, which is right only for t = 1.)
// Requires 0 < alpha < 1 and t > 0; returns +inf for alpha <= 0 (M then decreases in k).
double tfm_stationary_k(double t, double D, double alpha);

// TFM optimum over the whole piecewise M: the stationary point if it lies in the first
// branch, else n/r (the second branch grows with k, the first decreases up to the root).
double optimal_k_tfm_closed_form(const ClusterParams& params, double alpha);

// Numerical minimisation of m(k) over k = 1, 1+step, 1+2·step, ... ≤ kmax; returns the
// first k with the smallest value. step = 1 scans integers.
double optimal_k_by_scan(const std::function<double(double)>& m, double kmax, double step = 1.0);

enum class ReclusterPolicy { Noop, DC, SR, DR };
std::string_view policy_name(ReclusterPolicy policy);
// Parses "noop", "dc", "sr", "dr" (any case); false on anything else.
bool parse_policy(std::string_view text, ReclusterPolicy& out);

// What a policy knows when it picks k.
struct FailureEstimates {
  FailureModel model = FailureModel::Task;  // which model the environment follows
  double alpha = 0.0;                       // estimated task failure rate
  double beta = 0.0;                        // estimated job failure rate
  int64_t fixed_k = 1;                      // the failure-blind size NOOP and SR keep
};

// The cluster size a policy uses for the n tasks of `params`, an integer in [1, max(n,1)].
// NOOP and SR keep fixed_k (they do not look at failure rates). DC and DR take the model's
// optimum for the estimated rate (TFM: optimal_k_tfm_closed_form(α); JFM: n/r) and round
// it to whichever of floor/ceil gives the smaller M.
int64_t choose_cluster_size(ReclusterPolicy policy, const ClusterParams& params,
                            const FailureEstimates& estimates);

// One finished job as the classifier sees it: its size and whether it succeeded.
struct JobOutcome {
  int64_t k = 1;
  bool success = true;
};

// Which failure model explains observed job outcomes (seed, "how to tell which model a
// faulty environment belongs to"). The seed gives two criteria:
//  1. Does runtime grow exponentially with k (TFM) or linearly (JFM)? Runtime per task is
//     job_time/(k·P(success)), so this is whether P(success) falls like (1-α)^k or stays
//     flat in k. Tested as a likelihood comparison of the job outcomes under the two
//     one-parameter models, each fitted by maximum likelihood:
//       TFM: P(success | k) = (1-α)^k      JFM: P(success | k) = 1-β
//     Same number of parameters, so the log-likelihood difference is the evidence (a
//     likelihood-ratio / AIC comparison). The verdict needs |ΔLL| ≥ min_log_ratio;
//     outcomes with a single k carry no evidence either way.
//  2. Does the optimal k depend on the failure rate? Under the fitted TFM, k*(α̂) is
//     compared with the rate-free JFM optimum n/r; if they round to the same size the
//     choice of model does not matter and JFM (the simpler rule k = n/r) is reported.
// Task is reported only if both criteria point to it.
enum class ModelVerdict { Task, Job, Undecided };
struct ModelClassification {
  ModelVerdict verdict = ModelVerdict::Undecided;
  double alpha_hat = 0.0;               // MLE of α under TFM
  double beta_hat = 0.0;                // MLE of β under JFM
  double log_lik_task = 0.0;            // log-likelihood of the outcomes under TFM(α̂)
  double log_lik_job = 0.0;             // ... under JFM(β̂)
  bool exponential_in_k = false;        // criterion 1 favours TFM
  bool k_star_depends_on_rate = false;  // criterion 2: round(k*(α̂)) != round(n/r)
};
ModelClassification classify_failure_model(const std::vector<JobOutcome>& outcomes,
                                           const ClusterParams& params, double min_log_ratio = 3.0);

}  // namespace tharsis
