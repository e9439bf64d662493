// The clustering paper's study, as data: (a) expected runtime vs cluster size under JFM
// and TFM, model and simulation; (b) optimal k vs task failure rate; (c) NOOP vs DC vs SR
// vs DR makespan across task failure rates. Each point is the mean of several seeded
// simulations. tools/ftsim writes these tables as CSV and SVG.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "lib/recluster/simulator.h"

namespace tharsis {

struct StudyConfig {
  ClusterParams params{1000, 20, 5.0, 0.0, 5.0};  // the paper's example
  int reps = 10;                                  // simulations per point; rep i uses seed + i
  uint64_t seed = 1;
  double jitter = 0.1;  // job run time × U[0.9, 1.1]
  EstimatorConfig estimator;
  int64_t fixed_k = 0;  // NOOP/SR size; 0 = failure-blind round(n/r)
};

struct SimStats {
  double mean = 0.0;       // mean makespan over the runs (finished or not)
  double std_error = 0.0;  // standard error of that mean
  int runs = 0;
  int finished = 0;
};

// Runs `base` reps times with seeds base.seed, base.seed+1, ...
SimStats repeat_simulation(SimConfig base, int reps);

// (a) M(k) from the model and the mean simulated makespan of NOOP with fixed size k (the
// model assumes whole-job retries at a fixed k, which is NOOP).
struct RuntimeVsKRow {
  double rate = 0.0;
  int64_t k = 1;
  double model_makespan = 0.0;
  SimStats sim;
};
std::vector<RuntimeVsKRow> study_runtime_vs_k(const StudyConfig& config, FailureModel model,
                                              const std::vector<double>& rates,
                                              const std::vector<int64_t>& ks);

// (b) k* against α: the corrected closed form, a numerical scan of the model (step 0.01),
// the root as the paper prints it (without t under the square root — a slip kept for
// comparison), the integer size DC/DR would choose, and the k in 1..k_sim_max with the smallest
// simulated NOOP makespan.
struct OptimalKRow {
  double alpha = 0.0;
  double k_closed_form = 0.0;
  double k_scan = 0.0;
  double k_seed_printed = 0.0;
  int64_t k_chosen = 0;
  int64_t k_sim_best = 0;
};
std::vector<OptimalKRow> study_optimal_k(const StudyConfig& config, const std::vector<double>& alphas,
                                         int64_t k_sim_max);

// (c) Mean makespan of each policy (indexed by ReclusterPolicy) at each failure rate.
constexpr std::array<ReclusterPolicy, 4> kAllPolicies = {ReclusterPolicy::Noop, ReclusterPolicy::DC,
                                                         ReclusterPolicy::SR, ReclusterPolicy::DR};
struct PolicyRow {
  double rate = 0.0;
  std::array<SimStats, 4> by_policy;  // in kAllPolicies order
};
std::vector<PolicyRow> study_policies(const StudyConfig& config, const std::vector<double>& rates,
                                      FailureModel model = FailureModel::Task);

}  // namespace tharsis
