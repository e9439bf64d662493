// Implementation of client/lib/simulated_host.h.
#include "client/lib/simulated_host.h"

#include "client/lib/task_runner.h"
#include "lib/protocol/xml_text.h"

namespace tharsis {
namespace {

Status set_rate(std::string_view key, std::string_view value, double low, double high, double& out) {
  auto number = parse_xml_double(value);
  // parse_xml_double reads "nan"/"inf" as 0; a rate must be a plain number.
  if (!number || *number < low || *number > high || value.find_first_of("ni") != std::string_view::npos) {
    return make_error("--host: " + std::string(key) + " expected a number in " + format_double(low) + ".." +
                      format_double(high) + ", found '" + std::string(value) + "'");
  }
  out = *number;
  return Status::success();
}

}  // namespace

Result<SimulatedHostSpec> parse_simulated_host(std::string_view spec) {
  SimulatedHostSpec host;
  while (!spec.empty()) {
    auto comma = spec.find(',');
    std::string_view item = spec.substr(0, comma);
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
    if (item.empty()) continue;
    auto eq = item.find('=');
    if (eq == std::string_view::npos) {
      return make_error("--host: expected key=value, found '" + std::string(item) + "'");
    }
    std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    double number = 0;
    Status ok;
    if (key == "auth") {
      host.authenticator = std::string(value);
    } else if (key == "ncpus") {
      ok = set_rate(key, value, 1, 256, number);
      host.ncpus = static_cast<int>(number);
    } else if (key == "task_failure") {
      ok = set_rate(key, value, 0, 1, host.faults.task_failure_rate);
    } else if (key == "job_failure") {
      ok = set_rate(key, value, 0, 1, host.faults.job_failure_rate);
    } else if (key == "garbage") {
      ok = set_rate(key, value, 0, 1, host.faults.garbage_rate);
    } else if (key == "vanish_after") {
      ok = set_rate(key, value, 0, 1e9, host.faults.vanish_after_seconds);
    } else if (key == "slowness") {
      ok = set_rate(key, value, 1, 1e6, host.faults.slowness);
    } else if (key == "seed") {
      ok = set_rate(key, value, 0, 1e18, number);
      host.seed = static_cast<uint64_t>(number);
    } else if (key == "inject") {
      if (value != "client" && value != "app") {
        return make_error("--host: inject expected client or app, found '" + std::string(value) + "'");
      }
      host.inject = value == "app" ? FaultInjection::App : FaultInjection::Client;
    } else if (key == "task_seconds") {
      ok = set_rate(key, value, 0, kMaxTaskSeconds, host.task_seconds);
    } else {
      return make_error(
          "--host: unknown key '" + std::string(key) +
          "' (expected auth, ncpus, task_failure, job_failure, garbage, vanish_after, slowness, "
          "seed, inject, task_seconds)");
    }
    if (!ok.ok()) return make_error(ok.error());
  }
  if (host.task_seconds > 0 && host.inject != FaultInjection::App) {
    // The client cannot make an app sleep; only a per-task app reads the time.
    return make_error("--host: task_seconds needs inject=app");
  }
  return host;
}

}  // namespace tharsis
