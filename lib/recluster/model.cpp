// Runtime model of fault-tolerant task clustering; see model.h for the contract.
#include "lib/recluster/model.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace tharsis {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Shared body of both seed equations: γ is the job success probability.
double makespan_with_success(const ClusterParams& params, double k, double gamma) {
  if (k <= 0.0) throw std::invalid_argument("cluster size k must be positive");
  if (gamma <= 0.0) return kInf;
  const double n = static_cast<double>(params.n);
  const double r = static_cast<double>(params.r);
  if (n / k >= r) return n * params.job_time(k) / (r * k * gamma);
  return params.job_time(k) / gamma;
}

// log P(outcomes | TFM with rate alpha). A job of k tasks succeeds with (1-α)^k.
double task_model_log_lik(const std::vector<JobOutcome>& outcomes, double alpha) {
  const double log_q = std::log1p(-alpha);  // log(1-α)
  double sum = 0.0;
  for (const auto& o : outcomes) {
    const double log_success = static_cast<double>(o.k) * log_q;
    if (o.success) {
      sum += log_success;
    } else {
      const double p_fail = -std::expm1(log_success);
      if (p_fail <= 0.0) return -kInf;
      sum += std::log(p_fail);
    }
  }
  return sum;
}

// Bernoulli log-likelihood at its MLE, with 0·log 0 = 0.
double job_model_log_lik(int64_t successes, int64_t failures, double beta) {
  double sum = 0.0;
  if (successes > 0) sum += static_cast<double>(successes) * std::log1p(-beta);
  if (failures > 0) sum += static_cast<double>(failures) * std::log(beta);
  return sum;
}

// Golden-section search for the maximum of a unimodal function on [lo, hi]. The TFM
// log-likelihood is concave in log(1-α), hence unimodal in α.
double argmax_unimodal(const std::function<double(double)>& f, double lo, double hi) {
  const double ratio = (std::sqrt(5.0) - 1.0) / 2.0;
  double a = lo, b = hi;
  double x1 = b - ratio * (b - a), x2 = a + ratio * (b - a);
  double f1 = f(x1), f2 = f(x2);
  for (int i = 0; i < 200 && b - a > 1e-15; ++i) {
    if (f1 < f2) {
      a = x1;
      x1 = x2;
      f1 = f2;
      x2 = a + ratio * (b - a);
      f2 = f(x2);
    } else {
      b = x2;
      x2 = x1;
      f2 = f1;
      x1 = b - ratio * (b - a);
      f1 = f(x1);
    }
  }
  return (a + b) / 2.0;
}

// Rounds a real optimum to the integer neighbour with the smaller M, within [1, n].
int64_t round_by_model(double k_real, int64_t n, const std::function<double(double)>& m) {
  const int64_t upper = std::max<int64_t>(n, 1);
  if (!std::isfinite(k_real) || k_real >= static_cast<double>(upper)) return upper;
  const int64_t lo = std::clamp<int64_t>(static_cast<int64_t>(std::floor(k_real)), 1, upper);
  const int64_t hi = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(k_real)), 1, upper);
  if (lo == hi) return lo;
  return m(static_cast<double>(hi)) < m(static_cast<double>(lo)) ? hi : lo;
}

}  // namespace

std::string_view failure_model_name(FailureModel model) {
  return model == FailureModel::Task ? "TFM" : "JFM";
}

double expected_makespan_jfm(const ClusterParams& params, double k, double beta) {
  return makespan_with_success(params, k, 1.0 - beta);
}

double expected_makespan_tfm(const ClusterParams& params, double k, double alpha) {
  if (alpha >= 1.0) return kInf;
  // exp(k·log1p(-α)) keeps precision for small α and large k.
  return makespan_with_success(params, k, std::exp(k * std::log1p(-alpha)));
}

double optimal_k_jfm(const ClusterParams& params) {
  return static_cast<double>(params.n) / static_cast<double>(params.r);
}

double tfm_stationary_k(double t, double D, double alpha) {
  if (t <= 0.0) throw std::invalid_argument("per-task time φ̄+C must be positive");
  if (alpha <= 0.0) return kInf;
  if (alpha >= 1.0) return 0.0;
  const double log_q = std::log1p(-alpha);  // ln(1-α) < 0, so the discriminant exceeds D²
  return (-D + std::sqrt(D * D - 4.0 * t * D / log_q)) / (2.0 * t);
}

double optimal_k_tfm_closed_form(const ClusterParams& params, double alpha) {
  return std::min(tfm_stationary_k(params.phi + params.C, params.D, alpha), optimal_k_jfm(params));
}

double optimal_k_by_scan(const std::function<double(double)>& m, double kmax, double step) {
  if (step <= 0.0) throw std::invalid_argument("scan step must be positive");
  double best_k = 1.0;
  double best_m = m(1.0);
  const auto count = static_cast<int64_t>(std::floor((kmax - 1.0) / step + 1e-9));
  for (int64_t i = 1; i <= count; ++i) {
    const double k = 1.0 + static_cast<double>(i) * step;
    const double value = m(k);
    if (value < best_m) {
      best_m = value;
      best_k = k;
    }
  }
  return best_k;
}

std::string_view policy_name(ReclusterPolicy policy) {
  switch (policy) {
    case ReclusterPolicy::Noop:
      return "NOOP";
    case ReclusterPolicy::DC:
      return "DC";
    case ReclusterPolicy::SR:
      return "SR";
    case ReclusterPolicy::DR:
      return "DR";
  }
  return "?";
}

bool parse_policy(std::string_view text, ReclusterPolicy& out) {
  std::string lower(text);
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "noop")
    out = ReclusterPolicy::Noop;
  else if (lower == "dc")
    out = ReclusterPolicy::DC;
  else if (lower == "sr")
    out = ReclusterPolicy::SR;
  else if (lower == "dr")
    out = ReclusterPolicy::DR;
  else
    return false;
  return true;
}

int64_t choose_cluster_size(ReclusterPolicy policy, const ClusterParams& params,
                            const FailureEstimates& estimates) {
  const int64_t upper = std::max<int64_t>(params.n, 1);
  if (policy == ReclusterPolicy::Noop || policy == ReclusterPolicy::SR) {
    return std::clamp<int64_t>(estimates.fixed_k, 1, upper);
  }
  if (params.n <= 0) return 1;
  if (estimates.model == FailureModel::Job) {
    return round_by_model(optimal_k_jfm(params), params.n,
                          [&](double k) { return expected_makespan_jfm(params, k, estimates.beta); });
  }
  return round_by_model(optimal_k_tfm_closed_form(params, estimates.alpha), params.n,
                        [&](double k) { return expected_makespan_tfm(params, k, estimates.alpha); });
}

ModelClassification classify_failure_model(const std::vector<JobOutcome>& outcomes,
                                           const ClusterParams& params, double min_log_ratio) {
  ModelClassification c;
  if (outcomes.empty()) return c;
  int64_t successes = 0, failures = 0;
  int64_t k_min = outcomes.front().k, k_max = outcomes.front().k;
  for (const auto& o : outcomes) {
    if (o.k < 1) throw std::invalid_argument("job outcome with cluster size < 1");
    (o.success ? successes : failures) += 1;
    k_min = std::min(k_min, o.k);
    k_max = std::max(k_max, o.k);
  }
  const double total = static_cast<double>(successes + failures);
  c.beta_hat = static_cast<double>(failures) / total;
  c.log_lik_job = job_model_log_lik(successes, failures, c.beta_hat);
  if (failures == 0) {
    c.alpha_hat = 0.0;
  } else if (successes == 0) {
    c.alpha_hat = 1.0;
  } else {
    c.alpha_hat =
        argmax_unimodal([&](double a) { return task_model_log_lik(outcomes, a); }, 0.0, 1.0 - 1e-12);
  }
  c.log_lik_task = (failures == 0 || successes == 0) ? 0.0 : task_model_log_lik(outcomes, c.alpha_hat);

  // With one size only, both models fit the outcomes equally well: no evidence.
  if (k_min == k_max) return c;
  const double evidence = c.log_lik_task - c.log_lik_job;
  c.exponential_in_k = evidence >= min_log_ratio;

  const auto k_of = [](double k) { return static_cast<int64_t>(std::llround(k)); };
  c.k_star_depends_on_rate =
      params.n > 0 && params.r > 0 && c.alpha_hat > 0.0 &&
      k_of(optimal_k_tfm_closed_form(params, c.alpha_hat)) != k_of(optimal_k_jfm(params));

  if (c.exponential_in_k) {
    c.verdict = c.k_star_depends_on_rate ? ModelVerdict::Task : ModelVerdict::Job;
  } else if (evidence <= -min_log_ratio) {
    c.verdict = ModelVerdict::Job;
  }
  return c;
}

}  // namespace tharsis
