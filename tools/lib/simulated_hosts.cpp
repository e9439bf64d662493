// Implementation of tools/lib/simulated_hosts.h.
#include "tools/lib/simulated_hosts.h"

#include <algorithm>
#include <cmath>

#include "client/lib/task_runner.h"
#include "db/host_store.h"
#include "db/result_store.h"
#include "db/send_store.h"
#include "db/user_store.h"
#include "db/workunit_store.h"
#include "lib/log.h"
#include "lib/text_file.h"
#include "lib/work/fanout.h"
#include "lib/work/file_refs.h"
#include "lib/work/output_check.h"

namespace tharsis {

SimulatedHosts::SimulatedHosts(Database& db, const ProjectConfig& project, SimulatedHostsConfig config,
                               int64_t now)
    : db_(db), project_(project), config_(config) {
  UserRow user;
  user.create_time = now;
  user.name = "simulated volunteer";
  user.authenticator = "simulated-" + std::to_string(config.seed) + "-" + std::to_string(now) + "-" +
                       std::to_string(reinterpret_cast<uintptr_t>(this));
  user_id_ = insert_user(db_, user);
  for (int i = 0; i < config.hosts; ++i) {
    HostRow row;
    row.create_time = now;
    row.userid = user_id_;
    row.domain_name = "simhost" + std::to_string(i);
    row.host_cpid = user.authenticator + "-" + std::to_string(i);
    row.platform_name = "x86_64-pc-linux-gnu";
    row.p_ncpus = 1;
    row.rpc_time = now;
    hosts_.emplace_back(insert_host(db_, row), HostBehaviour(config.faults, config.seed * 1000003 + i));
  }
}

bool SimulatedHosts::take_job(Host& host, int64_t result_id, int64_t now, double clock) {
  const bool sent = db_.transaction([&](Database& d) {
    return mark_result_sent(d, result_id, host.id, user_id_, now, config_.delay_bound, 0);
  });
  if (!sent) return false;
  auto result = fetch_result(db_, result_id);
  auto wu = result ? fetch_workunit(db_, result->workunitid) : std::nullopt;
  auto inputs = wu ? file_infos_in(wu->xml_doc) : Result<std::vector<StoredFile>>(make_error("no workunit"));
  Result<std::string> list = make_error("no input file");
  if (inputs.ok() && !inputs->empty()) {
    list = read_text_file(fanout_path(project_.download_dir, inputs->front().name, project_.uldl_dir_fanout));
  }
  auto run = list.ok() ? run_task_job(*list, host.behaviour) : Result<TaskJobRun>(make_error(list.error()));
  host.result_id = result_id;
  host.crashed = !run.ok() || run->crashed;
  host.report = run.ok() ? run->report : "";
  if (!run.ok()) log_warning("simulated host ", host.id, ": result ", result_id, ": ", run.error());
  const size_t k = list.ok() ? static_cast<size_t>(std::count(list->begin(), list->end(), '\n')) - 1 : 0;
  host.elapsed = static_cast<double>(k) * config_.task_seconds * host.behaviour.faults().slowness;
  host.due = clock + host.elapsed;
  tasks_run_ += run.ok() && !run->crashed ? static_cast<int64_t>(k) : 0;
  tasks_failed_ += run.ok() && !run->crashed ? run->failed_tasks : 0;
  return true;
}

bool SimulatedHosts::report(Host& host, int64_t now) {
  auto result = fetch_result(db_, host.result_id);
  ResultReport rp;
  rp.elapsed_time = host.elapsed;
  rp.cpu_time = host.elapsed;
  if (host.crashed || !result) {
    rp.outcome = Outcome::ClientError;
    rp.client_state = ClientState::ComputeError;
    rp.exit_status = 1;
    rp.stderr_out = "task_app: injected job failure";
  } else {
    auto files = file_infos_in(result->xml_doc_in);
    if (files.ok()) {
      for (const auto& f : *files) {
        auto path = fanout_path_create(project_.upload_dir, f.name, project_.uldl_dir_fanout);
        if (path.ok()) (void)write_text_file(*path, host.report);
      }
    }
    // As a client does: each output's size and md5, which the back end checks.
    auto described = describe_uploaded_outputs(project_, result->xml_doc_in);
    if (described.ok()) rp.xml_doc_out = *described;
    rp.claimed_credit = 1;
  }
  const bool reported =
      db_.transaction([&](Database& d) { return mark_result_reported(d, host.result_id, host.id, now, rp); });
  jobs_reported_ += reported ? 1 : 0;
  jobs_crashed_ += reported && host.crashed ? 1 : 0;
  host.result_id = 0;
  return reported;
}

int SimulatedHosts::step(double clock) {
  const auto now = static_cast<int64_t>(std::floor(clock));
  int worked = 0;
  int idle = 0;
  for (auto& host : hosts_) {
    if (host.result_id != 0 && host.due <= clock) worked += report(host, now) ? 1 : 0;
    idle += host.result_id == 0 ? 1 : 0;
  }
  if (idle == 0) return worked;
  auto candidates = fetch_send_candidates(db_, idle);
  size_t next = 0;
  for (auto& host : hosts_) {
    if (host.result_id != 0) continue;
    touch_host_rpc(db_, host.id, now);
    while (next < candidates.size() && !take_job(host, candidates[next].result_id, now, clock)) ++next;
    if (next < candidates.size()) {
      ++next;
      ++worked;
    }
  }
  return worked;
}

double SimulatedHosts::next_due() const {
  double due = std::numeric_limits<double>::infinity();
  for (const auto& host : hosts_) {
    if (host.result_id != 0) due = std::min(due, host.due);
  }
  return due;
}

int SimulatedHosts::busy() const {
  int n = 0;
  for (const auto& host : hosts_) n += host.result_id != 0 ? 1 : 0;
  return n;
}

}  // namespace tharsis
