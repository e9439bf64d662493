// ftsim: reproduces the seed's fault-tolerant clustering study with the discrete-event
// simulator of lib/recluster: (a) runtime vs cluster size under JFM and TFM, (b) optimal
// k vs task failure rate, (c) NOOP vs DC vs SR vs DR across task failure rates. Writes CSV
// and SVG files into --out and prints the table of (c).
#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "lib/recluster/study.h"
#include "lib/recluster/svg_plot.h"

namespace po = boost::program_options;
using namespace tharsis;

namespace {

std::vector<double> parse_list(const std::string& text, const char* option) {
  std::vector<double> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      size_t used = 0;
      out.push_back(std::stod(item, &used));
      if (used != item.size()) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw std::runtime_error(std::string("--") + option + " expects comma-separated numbers, found '" +
                               item + "'");
    }
  }
  return out;
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// (a): one CSV and one plot per failure model; model curves dashed, simulated means solid.
void runtime_vs_k(const StudyConfig& config, FailureModel model, const std::vector<double>& rates,
                  int64_t kmax, const std::filesystem::path& out) {
  std::vector<int64_t> ks;
  for (int64_t k = 1; k <= kmax; ++k) ks.push_back(k);
  const auto rows = study_runtime_vs_k(config, model, rates, ks);
  const std::string name = model == FailureModel::Task ? "tfm" : "jfm";
  const std::string rate_name = model == FailureModel::Task ? "alpha" : "beta";

  std::string csv = rate_name + ",k,model_makespan_s,sim_mean_makespan_s,sim_std_error_s,sim_runs\n";
  Plot plot;
  plot.title = "Expected runtime vs cluster size (" + std::string(failure_model_name(model)) + ")";
  plot.x_label = "cluster size k";
  plot.y_label = "makespan [s]";
  plot.log_y = true;
  for (size_t i = 0; i < rates.size(); ++i) {
    const double rate = rates[i];
    const int color = static_cast<int>(i);
    PlotSeries model_curve{rate_name + "=" + num(rate) + " model", {}, {}, true, false, color};
    PlotSeries sim_curve{rate_name + "=" + num(rate) + " sim", {}, {}, false, false, color};
    for (const auto& row : rows) {
      if (row.rate != rate) continue;
      csv += num(row.rate) + "," + std::to_string(row.k) + "," + num(row.model_makespan) + "," +
             num(row.sim.mean) + "," + num(row.sim.std_error) + "," + std::to_string(row.sim.runs) + "\n";
      model_curve.x.push_back(static_cast<double>(row.k));
      model_curve.y.push_back(row.model_makespan);
      sim_curve.x.push_back(static_cast<double>(row.k));
      sim_curve.y.push_back(row.sim.mean);
    }
    plot.series.push_back(model_curve);
    plot.series.push_back(sim_curve);
  }
  write_file(out / ("runtime_vs_k_" + name + ".csv"), csv);
  write_file(out / ("runtime_vs_k_" + name + ".svg"), render_svg(plot));
}

// (b)
void optimal_k(const StudyConfig& config, const std::filesystem::path& out) {
  const std::vector<double> alphas = {0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015,
                                      0.02,  0.03,  0.04,  0.05,  0.07,   0.1};
  const auto rows = study_optimal_k(config, alphas, 40);
  std::string csv = "alpha,k_closed_form,k_model_scan,k_seed_printed,k_chosen,k_sim_best\n";
  Plot plot;
  plot.title = "Optimal cluster size vs task failure rate (TFM)";
  plot.x_label = "task failure rate alpha";
  plot.y_label = "optimal k";
  plot.log_x = true;
  PlotSeries closed{"closed form k*", {}, {}, false, false};
  PlotSeries scan{"model scan", {}, {}, true, true};
  PlotSeries sim{"simulated best k (NOOP)", {}, {}, false, true};
  PlotSeries printed{"seed's printed root (slip)", {}, {}, true, false};
  for (const auto& row : rows) {
    csv += num(row.alpha) + "," + num(row.k_closed_form) + "," + num(row.k_scan) + "," +
           num(row.k_seed_printed) + "," + std::to_string(row.k_chosen) + "," +
           std::to_string(row.k_sim_best) + "\n";
    closed.x.push_back(row.alpha);
    closed.y.push_back(row.k_closed_form);
    scan.x.push_back(row.alpha);
    scan.y.push_back(row.k_scan);
    sim.x.push_back(row.alpha);
    sim.y.push_back(static_cast<double>(row.k_sim_best));
    printed.x.push_back(row.alpha);
    printed.y.push_back(row.k_seed_printed);
  }
  plot.series = {closed, scan, sim, printed};
  write_file(out / "optimal_k_vs_alpha.csv", csv);
  write_file(out / "optimal_k_vs_alpha.svg", render_svg(plot));
}

// (c): CSV, plot and the summary table on stdout.
void policies(const StudyConfig& config, const std::vector<double>& alphas,
              const std::filesystem::path& out) {
  const auto rows = study_policies(config, alphas);
  std::string csv = "alpha";
  for (auto p : kAllPolicies) {
    const std::string n(policy_name(p));
    csv += "," + n + "_mean_s," + n + "_std_error_s," + n + "_finished";
  }
  csv += "\n";
  Plot plot;
  plot.title = "Makespan of the reclustering policies (TFM)";
  plot.x_label = "task failure rate alpha";
  plot.y_label = "makespan [s]";
  plot.log_y = true;
  std::vector<PlotSeries> series;
  for (auto p : kAllPolicies) series.push_back({std::string(policy_name(p)), {}, {}, false, true});

  const auto& pr = config.params;
  const int64_t k_fixed = config.fixed_k > 0 ? config.fixed_k : failure_blind_k(pr);
  std::printf("(c) makespan [s], mean of %d seeded runs (seed %llu..)\n", config.reps,
              static_cast<unsigned long long>(config.seed));
  std::printf(
      "    n=%lld r=%lld phi=%g C=%g D=%g jitter=%g; NOOP and SR fixed k=%lld "
      "(failure-blind n/r);\n    DC/DR: model k from estimator (window %lld jobs, "
      "prior alpha=%g worth %g tasks)\n",
      static_cast<long long>(pr.n), static_cast<long long>(pr.r), pr.phi, pr.C, pr.D, config.jitter,
      static_cast<long long>(k_fixed), static_cast<long long>(config.estimator.window_jobs),
      config.estimator.alpha_prior_mean, config.estimator.alpha_prior_tasks);
  std::printf("%8s %12s %10s %10s %10s %9s\n", "alpha", "NOOP", "DC", "SR", "DR", "NOOP/DR");
  for (const auto& row : rows) {
    csv += num(row.rate);
    for (size_t i = 0; i < kAllPolicies.size(); ++i) {
      const auto& s = row.by_policy[i];
      csv += "," + num(s.mean) + "," + num(s.std_error) + "," + std::to_string(s.finished);
      series[i].x.push_back(row.rate);
      series[i].y.push_back(s.mean);
    }
    csv += "\n";
    std::printf("%8g %12.1f %10.1f %10.1f %10.1f %9.2f%s\n", row.rate, row.by_policy[0].mean,
                row.by_policy[1].mean, row.by_policy[2].mean, row.by_policy[3].mean,
                row.by_policy[0].mean / row.by_policy[3].mean,
                row.by_policy[0].finished < row.by_policy[0].runs ? "  (NOOP runs cut off)" : "");
  }
  plot.series = series;
  write_file(out / "policies.csv", csv);
  write_file(out / "policies.svg", render_svg(plot));
}

}  // namespace

int main(int argc, char** argv) {
  StudyConfig config;
  std::string out_dir, parts, alphas_text, jfm_rates_text, tfm_rates_text;
  int64_t kmax = 100;
  po::options_description opts(
      "ftsim: fault-tolerant clustering study (docs/reclustering.md).\n"
      "Writes runtime_vs_k_{jfm,tfm}.{csv,svg}, optimal_k_vs_alpha.{csv,svg} and\n"
      "policies.{csv,svg} into --out; prints the policy table to stdout.\nOptions");
  opts.add_options()("help,h", "show this help")("out", po::value(&out_dir)->default_value("ftsim_out"),
                                                 "output directory")(
      "parts", po::value(&parts)->default_value("abc"),
      "which studies: a = runtime vs k, b = optimal k vs alpha, c = policies")(
      "n", po::value(&config.params.n)->default_value(1000), "tasks")(
      "r", po::value(&config.params.r)->default_value(20), "resources")(
      "phi", po::value(&config.params.phi)->default_value(5.0), "mean task time [s]")(
      "C", po::value(&config.params.C)->default_value(0.0), "per-task overhead [s]")(
      "D", po::value(&config.params.D)->default_value(5.0), "per-job overhead [s]")(
      "reps", po::value(&config.reps)->default_value(10), "simulations per point")(
      "seed", po::value(&config.seed)->default_value(1), "first RNG seed")(
      "jitter", po::value(&config.jitter)->default_value(0.1), "job time x U[1-jitter, 1+jitter]")(
      "fixed-k", po::value(&config.fixed_k)->default_value(0),
      "NOOP/SR cluster size (0 = round(n/r), the failure-blind choice)")(
      "alphas", po::value(&alphas_text)->default_value("0,0.001,0.002,0.005,0.01,0.02,0.03,0.05,0.1"),
      "task failure rates for (c)")("jfm-rates",
                                    po::value(&jfm_rates_text)->default_value("0.05,0.1,0.2,0.3"),
                                    "job failure rates for (a)")(
      "tfm-rates", po::value(&tfm_rates_text)->default_value("0.001,0.005,0.01,0.02,0.03"),
      "task failure rates for (a)")("kmax", po::value(&kmax)->default_value(100), "largest k in (a)")(
      "window", po::value(&config.estimator.window_jobs)->default_value(200), "estimator window [jobs]")(
      "prior-alpha", po::value(&config.estimator.alpha_prior_mean)->default_value(0.0),
      "estimator prior mean of alpha")("prior-tasks",
                                       po::value(&config.estimator.alpha_prior_tasks)->default_value(10.0),
                                       "estimator prior weight [tasks]");
  try {
    po::variables_map vm;
    po::store(po::parse_command_line(argc, argv, opts), vm);
    if (vm.count("help")) {
      std::cout << opts << "\n";
      return 0;
    }
    po::notify(vm);
    if (config.params.n < 1 || config.params.r < 1 || config.reps < 1 || kmax < 1) {
      throw std::runtime_error("--n, --r, --reps and --kmax must be >= 1");
    }
    const std::filesystem::path out(out_dir);
    std::filesystem::create_directories(out);
    if (parts.find('a') != std::string::npos) {
      runtime_vs_k(config, FailureModel::Job, parse_list(jfm_rates_text, "jfm-rates"), kmax, out);
      runtime_vs_k(config, FailureModel::Task, parse_list(tfm_rates_text, "tfm-rates"), kmax, out);
    }
    if (parts.find('b') != std::string::npos) optimal_k(config, out);
    if (parts.find('c') != std::string::npos) {
      policies(config, parse_list(alphas_text, "alphas"), out);
    }
    std::cerr << "ftsim: wrote results to " << out.string() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "ftsim: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
