// Implementation of client/lib/client_program.h.
#include "client/lib/client_program.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <thread>

#include "client/lib/host_client.h"
#include "client/lib/simulated_host.h"
#include "lib/config/tool_options.h"
#include "lib/log.h"

namespace tharsis {

namespace po = boost::program_options;

int run_client_program(const std::string& program, int argc, char** argv, const ClientProgramHooks& hooks) {
  set_log_program(program);
  po::options_description options(program +
                                  " --data_dir D [--project_url URL --authenticator KEY] [options]");
  std::string data_dir, project_url, authenticator, scheduler_url, log_level;
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
      "max_seconds", po::value(&run.max_seconds)->default_value(0),
      "exit after this many seconds (0: never)")("log_level", po::value(&log_level)->default_value("info"),
                                                 "debug, info, warning, error");
  if (hooks.add_options) hooks.add_options(options);
  po::variables_map vm;
  if (auto exit_code = parse_program_options(program, options, argc, argv, vm)) return *exit_code;
  LogLevel level;
  if (!parse_log_level(log_level, level)) {
    std::cerr << program << ": --log_level: expected debug, info, warning or error, found '" << log_level
              << "'\n";
    return 2;
  }
  set_log_level(level);
  if (base.policy.buffer_tasks_per_cpu < 1 || base.policy.buffer_tasks_per_cpu > 1000) {
    std::cerr << program << ": --buffer_tasks: expected 1..1000, found " << base.policy.buffer_tasks_per_cpu
              << "\n";
    return 2;
  }
  if (!(base.transfer.first_delay > 0) || !(base.transfer.max_delay >= base.transfer.first_delay)) {
    std::cerr << program
              << ": --transfer_backoff and --transfer_backoff_max: expected 0 < first <= max, found "
              << base.transfer.first_delay << " and " << base.transfer.max_delay << "\n";
    return 2;
  }
  run.summary = vm.count("summary") > 0;
  if (hooks.configure) {
    if (auto exit_code = hooks.configure(vm, run)) return *exit_code;
  }

  std::vector<SimulatedHostSpec> specs;
  for (const auto& text : host_specs) {
    auto spec = parse_simulated_host(text);
    if (!spec.ok()) {
      std::cerr << program << ": " << spec.error() << "\n";
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
      std::cerr << program << ": " << loaded.error() << "\n";
      return 1;
    }
    std::string url = project_url.empty() ? host->state().project_url : project_url;
    std::string key = !specs[i].authenticator.empty() ? specs[i].authenticator
                      : !authenticator.empty()        ? authenticator
                                                      : host->state().authenticator;
    if (url.empty() || key.empty()) {
      std::cerr << program << ": " << o.data_dir
                << " is not attached to a project: give --project_url and --authenticator\n";
      return 2;
    }
    if (Status attached = host->attach(url, key, scheduler_url); !attached.ok()) {
      std::cerr << program << ": " << attached.error() << "\n";
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

}  // namespace tharsis
