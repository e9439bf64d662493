// Reclustering page model (see recluster_view.h).
#include "lib/web/recluster_view.h"

#include <algorithm>

#include "lib/recluster/model.h"

namespace tharsis {

std::vector<MakespanPoint> makespan_curve(const ClusterParams& params, FailureModel model, double rate,
                                          int64_t max_k) {
  std::vector<MakespanPoint> curve;
  if (params.n <= 0) return curve;
  const int64_t last = std::min(std::max<int64_t>(params.n, 2), max_k);
  for (int64_t k = 1; k <= last; ++k) {
    const double kk = static_cast<double>(k);
    const double m = model == FailureModel::Job ? expected_makespan_jfm(params, kk, rate)
                                                : expected_makespan_tfm(params, kk, rate);
    curve.push_back({kk, m});
  }
  return curve;
}

ReclusterApp recluster_app_view(const ReclusterHistory& history, const ReclusterContext& context) {
  ReclusterApp app;
  app.app_name = history.app_name;
  app.policy = context.policy;
  app.series = history.series;
  if (!app.series.empty()) app.current_k = app.series.back().k;
  const bool job_model = history.model == "JFM";
  app.model = job_model ? "JFM" : "TFM";
  app.tasks_left = context.tasks_waiting > 0 ? context.tasks_waiting : history.window_tasks;
  app.hosts = std::max<int64_t>(1, context.active_hosts);
  app.task_time = context.task_time;
  app.job_overhead = context.job_overhead;
  ClusterParams params;
  params.n = app.tasks_left;
  params.r = app.hosts;
  params.phi = context.task_time;  // C folded into t: the curve needs only their sum
  params.D = context.job_overhead;
  const double rate = app.series.empty() ? 0 : (job_model ? app.series.back().beta : app.series.back().alpha);
  app.makespan_curve = makespan_curve(params, job_model ? FailureModel::Job : FailureModel::Task, rate);
  return app;
}

}  // namespace tharsis
