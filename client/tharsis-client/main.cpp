// tharsis-client: a BOINC-protocol volunteer client (scheduler RPC, downloads with md5 and
// code signatures, tasks in child processes with restarts, uploads with the upload
// certificate, reports), or, with --host, a simulation of many faulty volunteer hosts in
// one process.
//   tharsis-client --data_dir D --project_url URL --authenticator KEY        (one host)
//   tharsis-client --data_dir D --project_url URL --authenticator KEY
//       --host "ncpus=2" --host "job_failure=0.3" --host "garbage=1" ...    (simulation)
//       --host "inject=app,task_failure=0.05,job_failure=0.02,task_seconds=0.5" (task_app)
// State lives in D/client_state.xml (D/host<i>/ per simulated host); a restarted client
// carries on. Exit: 0 stopped/done, 1 runtime error, 2 bad options.
#include <boost/program_options.hpp>
#include <chrono>
#include <iostream>
#include <thread>

#include "client/lib/client_runner.h"
#include "client/lib/host_client.h"
#include "client/lib/simulated_host.h"
#include "lib/log.h"
#include "tools/lib/tool_main.h"

namespace po = boost::program_options;
using namespace tharsis;

int main(int argc, char** argv) {
  set_log_program("tharsis-client");
  po::options_description options(
      "tharsis-client --data_dir D [--project_url URL --authenticator KEY] [options]");
  std::string data_dir, project_url, authenticator, scheduler_url, project_dir, log_level;
  HostClientOptions base;
  base.host.ncpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  RunOptions run;
  std::vector<std::string> host_specs;
  options.add_options()("data_dir", po::value(&data_dir)->required(),
                        "client data directory (state file, files, slots)")(
      "project_url", po::value(&project_url), "project master URL (attach; remembered in the state)")(
      "authenticator", po::value(&authenticator), "account key (attach)")(
      "scheduler_url", po::value(&scheduler_url), "scheduler URL (default: read from the master page)")(
      "ncpus", po::value(&base.host.ncpus), "tasks run at once (default: CPUs)")(
      "flops", po::value(&base.host.flops)->default_value(1e9), "FLOPS per CPU declared to the scheduler")(
      "max_restarts", po::value(&base.max_restarts)->default_value(3), "crashes survived per task")(
      "buffer_tasks", po::value(&base.policy.buffer_tasks_per_cpu)->default_value(2),
      "unfinished results kept per CPU (1: fetch a job only when idle)")(
      "max_request_delay", po::value(&base.policy.max_request_delay), "cap on the server's request_delay, s")(
      "max_backoff", po::value(&base.policy.max_backoff)->default_value(600), "longest RPC back-off, s")(
      "transfer_backoff", po::value(&base.transfer.first_delay)->default_value(1),
      "first transfer retry delay, s (doubling, randomised)")(
      "transfer_backoff_max", po::value(&base.transfer.max_delay)->default_value(600),
      "longest transfer retry delay, s (transfers are retried until the report deadline is near)")(
      "host", po::value(&host_specs),
      "simulate a host: key=value,... (repeat). Keys: auth, ncpus, "
      "task_failure, job_failure, garbage (rates 0..1), vanish_after (s), "
      "slowness (>= 1), seed; inject=client|app (default client: the "
      "client kills task processes and garbles outputs; app: it passes the "
      "rates and a per-run seed to the app's environment, for per-task "
      "apps such as task_app); task_seconds (inject=app: simulated compute "
      "time per task the app sleeps). See client/lib/simulated_host.h")(
      "summary", "progress line per second and a final summary line on stderr")(
      "until_settled", "exit when every workunit of --project_dir is finished and cleaned up")(
      "max_seconds", po::value(&run.max_seconds)->default_value(0),
      "exit after this many seconds (0: never)")("log_level", po::value(&log_level)->default_value("info"),
                                                 "debug, info, warning, error");
  // --project_dir (from parse_tool_options), when given, names the project whose database
  // the summary and --until_settled read (read-only; a client never needs it otherwise).
  po::variables_map vm;
  if (auto exit_code = parse_tool_options("tharsis-client", options, argc, argv, vm)) return *exit_code;
  if (!vm["project_dir"].defaulted()) project_dir = vm["project_dir"].as<std::string>();
  LogLevel level;
  if (!parse_log_level(log_level, level)) {
    std::cerr << "tharsis-client: --log_level: expected debug, info, warning or error, found '" << log_level
              << "'\n";
    return 2;
  }
  set_log_level(level);
  if (base.policy.buffer_tasks_per_cpu < 1 || base.policy.buffer_tasks_per_cpu > 1000) {
    std::cerr << "tharsis-client: --buffer_tasks: expected 1..1000, found " << base.policy.buffer_tasks_per_cpu
              << "\n";
    return 2;
  }
  if (!(base.transfer.first_delay > 0) || !(base.transfer.max_delay >= base.transfer.first_delay)) {
    std::cerr
        << "tharsis-client: --transfer_backoff and --transfer_backoff_max: expected 0 < first <= max, found "
        << base.transfer.first_delay << " and " << base.transfer.max_delay << "\n";
    return 2;
  }
  run.summary = vm.count("summary") > 0;
  run.until_settled = vm.count("until_settled") > 0;
  if (!project_dir.empty()) {
    auto config = load_project_config(project_dir + "/config.xml");
    if (!config.ok()) {
      std::cerr << "tharsis-client: " << config.error() << "\n";
      return 2;
    }
    run.watched_project = *config;
  } else if (run.until_settled) {
    std::cerr << "tharsis-client: --until_settled needs --project_dir\n";
    return 2;
  }

  std::vector<SimulatedHostSpec> specs;
  for (const auto& text : host_specs) {
    auto spec = parse_simulated_host(text);
    if (!spec.ok()) {
      std::cerr << "tharsis-client: " << spec.error() << "\n";
      return 2;
    }
    specs.push_back(*spec);
  }
  bool simulate = !specs.empty();
  if (!simulate) specs.push_back(SimulatedHostSpec{authenticator, base.host.ncpus, {}, 0});

  double start = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::vector<std::unique_ptr<HostClient>> hosts;
  for (size_t i = 0; i < specs.size(); ++i) {
    HostClientOptions o = base;
    o.data_dir = simulate ? data_dir + "/host" + std::to_string(i) : data_dir;
    o.host.ncpus = specs[i].ncpus;
    o.host.domain_name = simulate ? "simhost" + std::to_string(i) : "localhost";
    auto host = std::make_unique<HostClient>(o);
    if (Status loaded = host->load(); !loaded.ok()) {
      std::cerr << "tharsis-client: " << loaded.error() << "\n";
      return 1;
    }
    std::string url = project_url.empty() ? host->state().project_url : project_url;
    std::string key = !specs[i].authenticator.empty() ? specs[i].authenticator
                      : !authenticator.empty()        ? authenticator
                                                      : host->state().authenticator;
    if (url.empty() || key.empty()) {
      std::cerr << "tharsis-client: " << o.data_dir
                << " is not attached to a project: give --project_url and --authenticator\n";
      return 2;
    }
    if (Status attached = host->attach(url, key, scheduler_url); !attached.ok()) {
      std::cerr << "tharsis-client: " << attached.error() << "\n";
      return 1;
    }
    if (simulate) {
      host->set_behaviour(specs[i].faults, specs[i].seed ? specs[i].seed : 1000 + i, start, specs[i].inject,
                          specs[i].task_seconds);
    }
    hosts.push_back(std::move(host));
  }
  return run_hosts(hosts, run);
}
