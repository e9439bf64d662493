// The seed's reclustering study as tables; see study.h.
#include "lib/recluster/study.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tharsis {

namespace {

SimConfig base_config(const StudyConfig& config) {
  SimConfig sim;
  sim.params = config.params;
  sim.jitter = config.jitter;
  sim.estimator = config.estimator;
  sim.seed = config.seed;
  sim.fixed_k = config.fixed_k;
  return sim;
}

}  // namespace

SimStats repeat_simulation(SimConfig base, int reps) {
  SimStats stats;
  double sum = 0.0, sum_sq = 0.0;
  const uint64_t first_seed = base.seed;
  for (int i = 0; i < reps; ++i) {
    base.seed = first_seed + static_cast<uint64_t>(i);
    const SimResult r = simulate(base);
    sum += r.makespan;
    sum_sq += r.makespan * r.makespan;
    stats.finished += r.finished ? 1 : 0;
    ++stats.runs;
  }
  if (reps > 0) {
    stats.mean = sum / reps;
    if (reps > 1) {
      const double var = std::max(0.0, (sum_sq - sum * sum / reps) / (reps - 1));
      stats.std_error = std::sqrt(var / reps);
    }
  }
  return stats;
}

std::vector<RuntimeVsKRow> study_runtime_vs_k(const StudyConfig& config, FailureModel model,
                                              const std::vector<double>& rates,
                                              const std::vector<int64_t>& ks) {
  std::vector<RuntimeVsKRow> rows;
  for (double rate : rates) {
    for (int64_t k : ks) {
      RuntimeVsKRow row;
      row.rate = rate;
      row.k = k;
      const auto kd = static_cast<double>(k);
      row.model_makespan = model == FailureModel::Task ? expected_makespan_tfm(config.params, kd, rate)
                                                       : expected_makespan_jfm(config.params, kd, rate);
      SimConfig sim = base_config(config);
      sim.model = model;
      sim.rate = rate;
      sim.policy = ReclusterPolicy::Noop;
      sim.fixed_k = k;
      row.sim = repeat_simulation(sim, config.reps);
      rows.push_back(row);
    }
  }
  return rows;
}

std::vector<OptimalKRow> study_optimal_k(const StudyConfig& config, const std::vector<double>& alphas,
                                         int64_t k_sim_max) {
  std::vector<OptimalKRow> rows;
  const auto& p = config.params;
  for (double alpha : alphas) {
    OptimalKRow row;
    row.alpha = alpha;
    row.k_closed_form = optimal_k_tfm_closed_form(p, alpha);
    row.k_scan = optimal_k_by_scan([&](double k) { return expected_makespan_tfm(p, k, alpha); },
                                   static_cast<double>(p.n), 0.01);
    const double t = p.phi + p.C;
    row.k_seed_printed = (-p.D + std::sqrt(p.D * p.D - 4.0 * p.D / std::log1p(-alpha))) / (2.0 * t);
    FailureEstimates est;
    est.alpha = alpha;
    row.k_chosen = choose_cluster_size(ReclusterPolicy::DR, p, est);
    double best = std::numeric_limits<double>::infinity();
    for (int64_t k = 1; k <= k_sim_max; ++k) {
      SimConfig sim = base_config(config);
      sim.rate = alpha;
      sim.policy = ReclusterPolicy::Noop;
      sim.fixed_k = k;
      const double mean = repeat_simulation(sim, config.reps).mean;
      if (mean < best) {
        best = mean;
        row.k_sim_best = k;
      }
    }
    rows.push_back(row);
  }
  return rows;
}

std::vector<PolicyRow> study_policies(const StudyConfig& config, const std::vector<double>& rates,
                                      FailureModel model) {
  std::vector<PolicyRow> rows;
  for (double rate : rates) {
    PolicyRow row;
    row.rate = rate;
    for (size_t i = 0; i < kAllPolicies.size(); ++i) {
      SimConfig sim = base_config(config);
      sim.model = model;
      sim.rate = rate;
      sim.policy = kAllPolicies[i];
      row.by_policy[i] = repeat_simulation(sim, config.reps);
    }
    rows.push_back(row);
  }
  return rows;
}

}  // namespace tharsis
