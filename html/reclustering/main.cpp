// reclustering: the reclustering page (docs/reclustering.md) as a CGI program: per app the policy, the
// current cluster size k, α and β over time, and the model's M(k) curve. The curve's task
// time t and job overhead D come from <cluster_task_time_prior> and
// <cluster_job_overhead_prior> in config.xml (default 5 s each, the seed's example); r counts
// hosts with a scheduler RPC in the last <cluster_active_host_minutes> (default 10).
// Reads the DB read-only (lib/web/status_cgi.h).
#include <string>

#include "lib/web/recluster_render.h"
#include "lib/web/recluster_view.h"
#include "lib/web/status_cgi.h"

using namespace tharsis;

namespace {

constexpr int kSamplesShown = 500;

CgiResponse handle(const StatusRequest& request) {
  auto db = Database::open(request.db);
  ReclusterContext context;
  context.policy = std::string(policy_name(request.config.recluster_policy));
  context.task_time = request.config.cluster_task_time_prior;
  context.job_overhead = request.config.cluster_job_overhead_prior;
  context.active_hosts =
      count_active_hosts(*db, request.context.now - 60LL * request.config.cluster_active_host_minutes);
  std::vector<ReclusterApp> apps;
  for (const auto& history : fetch_recluster_histories(*db, kSamplesShown)) {
    context.tasks_waiting = count_waiting_tasks(*db, history.appid);
    apps.push_back(recluster_app_view(history, context));
  }
  CgiResponse response;
  response.body = render_recluster_html(apps, request.context);
  return response;
}

}  // namespace

int main() { return status_cgi_main("reclustering", handle); }
