// Implementation of client/lib/host_client.h.
#include "client/lib/host_client.h"

#include <signal.h>

#include <filesystem>
#include <random>
#include <sstream>

#include "client/lib/client_errors.h"
#include "client/lib/file_transfer.h"
#include "client/lib/task_process.h"
#include "client/lib/task_runner.h"
#include "lib/crypto/md5.h"
#include "lib/log.h"
#include "lib/protocol/client_side.h"
#include "lib/text_file.h"

namespace tharsis {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> split_words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

std::string random_hex(size_t digits) {
  std::random_device random;
  std::string out;
  while (out.size() < digits) {
    char buffer[9];
    std::snprintf(buffer, sizeof buffer, "%08x", random());
    out += buffer;
  }
  return out.substr(0, digits);
}

// Garbage the validator must catch: same length as the real output, different bytes.
std::string garbage_like(const std::string& real, std::mt19937_64& random) {
  std::string out = real.empty() ? std::string(16, ' ') : real;
  for (auto& c : out) c = static_cast<char>('a' + random() % 26);
  return out;
}

}  // namespace

void ClientCounters::add(const ClientCounters& o) {
  rpcs += o.rpcs;
  rpc_failures += o.rpc_failures;
  results_received += o.results_received;
  results_reported += o.results_reported;
  succeeded += o.succeeded;
  app_errors += o.app_errors;
  crashes += o.crashes;
  gave_up_after_crashes += o.gave_up_after_crashes;
  aborted += o.aborted;
  transfer_errors += o.transfer_errors;
  downloads += o.downloads;
  uploads += o.uploads;
  garbage_outputs += o.garbage_outputs;
}

HostClient::HostClient(HostClientOptions options)
    : options_(std::move(options)), transfer_random_(std::random_device{}()) {}

HostClient::~HostClient() = default;

std::string HostClient::file_path(const std::string& name) const {
  return options_.data_dir + "/projects/" + name;
}

Status HostClient::load() {
  std::error_code ec;
  fs::create_directories(options_.data_dir + "/projects", ec);
  fs::create_directories(options_.data_dir + "/slots", ec);
  if (ec) return make_error("cannot make data dir " + options_.data_dir + ": " + ec.message());
  auto loaded = load_client_state(options_.data_dir);
  if (!loaded.ok()) return make_error(loaded.error());
  state_ = std::move(*loaded);
  for (auto& r : state_.results) {
    // Its process belonged to the previous client; it runs again, in a fresh slot.
    if (r.state == TaskState::Running) {
      r.state = TaskState::Ready;
      r.pid = 0;
    }
  }
  return Status::success();
}

Status HostClient::attach(const std::string& project_url, const std::string& authenticator,
                          const std::string& scheduler_url) {
  if (!state_.project_url.empty() && state_.project_url != project_url) {
    return make_error("attached to " + state_.project_url + " already; cannot attach to " + project_url +
                      " with the same data dir");
  }
  if (authenticator.empty()) return make_error("attach: expected an account key (authenticator), found none");
  state_.project_url = project_url;
  state_.authenticator = authenticator;
  if (state_.host_cpid.empty()) state_.host_cpid = random_hex(32);
  if (!scheduler_url.empty()) {
    set_schedulers(state_, {scheduler_url});
  } else if (state_.scheduler_url.empty()) {
    HttpReply page = http_.get(project_url);
    if (!page.ok())
      return make_error("attach: cannot read the master page " + project_url + ": " + page.describe());
    auto urls = find_scheduler_urls(page.body);
    if (!urls.ok()) return make_error(project_url + ": " + urls.error());
    set_schedulers(state_, std::move(*urls));
  }
  dirty_ = true;
  save();
  return Status::success();
}

void HostClient::set_behaviour(const HostFaults& faults, uint64_t seed, double start_time,
                               FaultInjection inject, double task_seconds) {
  behaviour_ = std::make_unique<HostBehaviour>(faults, seed);
  behaviour_start_ = start_time;
  behaviour_seed_ = seed;
  transfer_random_.seed(seed ^ 0x7472616e73666572ULL);  // reproducible, yet not the fault draws
  inject_ = inject;
  task_seconds_ = task_seconds;
}

bool HostClient::client_injects() const { return behaviour_ && inject_ == FaultInjection::Client; }

bool HostClient::step(double now) {
  if (vanished_) return false;
  if (behaviour_ && behaviour_->vanished(now - behaviour_start_)) {
    // The volunteer uninstalled: nothing more is computed or reported.
    for (auto& r : state_.results) {
      if (r.state == TaskState::Running) kill_task_process(r.pid);
    }
    vanished_ = true;
    log_info(options_.data_dir, ": host vanishes");
    return true;
  }
  bool did = reap_tasks(now);
  did |= download_inputs(now);
  did |= start_tasks(now);
  did |= upload_outputs(now);
  did |= scheduler_rpc(now);
  if (dirty_) save();
  return did;
}

void HostClient::shutdown() {
  for (auto& r : state_.results) {
    if (r.state == TaskState::Running) {
      kill_task_process(r.pid);
      r.state = TaskState::Ready;
      r.pid = 0;
      dirty_ = true;
    }
  }
  if (!vanished_) save();
}

void HostClient::finish(ClientResult& r, int report_state, int exit_status, const std::string& why) {
  r.state = TaskState::Done;
  r.report_state = report_state;
  r.exit_status = exit_status;
  r.pid = 0;
  if (!why.empty()) r.stderr_text += why + "\n";
  dirty_ = true;
}

HostClient::Plan& HostClient::plan_for(const ClientResult& r) {
  auto it = plans_.find(r.name);
  if (it != plans_.end()) return it->second;
  Plan plan;
  if (client_injects()) {
    int failed_tasks = 0;
    JobFate fate = behaviour_->run_job(1, failed_tasks);
    // A job failure crashes every run, so the result ends as a client error after the
    // restart limit; a task failure crashes one run, which the restart recovers.
    plan.crashes_left = fate == JobFate::JobFailure ? options_.max_restarts + 1 : failed_tasks;
    plan.garbage = fate == JobFate::Garbage;
  }
  return plans_.emplace(r.name, plan).first->second;
}

bool HostClient::reap_tasks(double now) {
  bool did = false;
  for (auto& r : state_.results) {
    if (r.state != TaskState::Running) continue;
    auto exit = poll_task_process(r.pid);
    if (!exit) continue;
    did = dirty_ = true;
    std::string slot = options_.data_dir + "/slots/" + r.name + "_" + std::to_string(r.runs);
    r.cpu_time += exit->cpu_seconds;
    r.elapsed += now - r.run_started;
    r.pid = 0;
    switch (judge_run(*exit, r.restarts, options_.max_restarts)) {
      case RunVerdict::Success:
        collect_outputs(r, now);
        break;
      case RunVerdict::Restart:
        ++r.restarts;
        ++counters_.crashes;
        r.stderr_text += "run " + std::to_string(r.runs) + " killed by signal " +
                         std::to_string(exit->signal) + "; restarting\n";
        r.state = TaskState::Ready;
        break;
      case RunVerdict::Failed:
        r.stderr_text += read_stderr_tail(slot);
        if (exit->signalled) {
          ++counters_.crashes;
          ++counters_.gave_up_after_crashes;
          finish(r, kReportComputeError, kErrTooManyCrashes,
                 "killed by signal " + std::to_string(exit->signal) + " after " + std::to_string(r.restarts) +
                     " restarts; giving up");
        } else {
          ++counters_.app_errors;
          finish(r, kReportComputeError, exit->exit_code,
                 "app exited with status " + std::to_string(exit->exit_code));
        }
        break;
    }
    std::error_code ec;
    fs::remove_all(slot, ec);
  }
  return did;
}

void HostClient::collect_outputs(ClientResult& r, double now) {
  std::string slot = options_.data_dir + "/slots/" + r.name + "_" + std::to_string(r.runs);
  Plan& plan = plan_for(r);
  for (const auto& ref : r.file_refs) {
    ClientFile* f = state_.file(ref.file_name);
    std::string produced = slot + "/" + (ref.open_name.empty() ? ref.file_name : ref.open_name);
    if (!f || std::rename(produced.c_str(), file_path(ref.file_name).c_str()) != 0) {
      ++counters_.app_errors;
      finish(r, kReportComputeError, kErrMissingOutput, "the app did not write output " + ref.open_name);
      return;
    }
    auto content = read_text_file(file_path(f->name));
    if (!content.ok()) {
      finish(r, kReportComputeError, kErrMissingOutput, content.error());
      return;
    }
    if (plan.garbage) {
      std::mt19937_64 random(std::hash<std::string>{}(r.name));
      *content = garbage_like(*content, random);
      (void)write_text_file(file_path(f->name), *content);
    }
    f->nbytes = static_cast<double>(content->size());
    f->md5_cksum = md5_hex(*content);
    f->status = ClientFile::Status::Present;
  }
  if (plan.garbage) ++counters_.garbage_outputs;
  r.state = TaskState::Uploading;
  if (client_injects() && behaviour_->faults().slowness > 1) {
    // A slow host takes `slowness` times the estimated runtime before its upload.
    const ClientWorkunit* wu = state_.workunit(r.wu_name);
    double nominal = wu ? wu->rsc_fpops_est / std::max(1.0, options_.host.flops) : 0;
    r.hold_until = now + behaviour_->compute_seconds(std::max(nominal, r.elapsed)) - r.elapsed;
  }
}

void HostClient::note_transfer_failure(ClientFile& f, const TransferResult& attempt, const char* what,
                                       double give_up_at, double now) {
  ++f.failures;
  f.error = attempt.message;
  if (attempt.outcome == TransferOutcome::GiveUp) {
    f.status = ClientFile::Status::Failed;
    log_warning(options_.data_dir, ": ", what, " of ", f.name, " refused for good: ", attempt.message);
    return;
  }
  double random01 = std::uniform_real_distribution<double>(0, 1)(transfer_random_);
  TransferRetry retry = next_transfer_attempt(options_.transfer, f.failures, now, give_up_at, random01);
  // Past this result's give-up time the sweep fails the result; the file keeps backing off
  // for any other result that needs it (a shared input).
  f.next_attempt = retry.give_up ? now + transfer_retry_delay(options_.transfer, f.failures, random01)
                                 : retry.next_attempt;
  log_warning(options_.data_dir, ": ", what, " of ", f.name, " failed (", f.failures,
              " so far): ", attempt.message, "; next try in ", f.next_attempt - now, " s");
}

HostClient::TransferSweep HostClient::transfer_files(const std::vector<ClientFileRef>& refs,
                                                     TransferDirection direction, double give_up_at,
                                                     double now, bool& did) {
  const bool download = direction == TransferDirection::Download;
  const ClientFile::Status done = download ? ClientFile::Status::Present : ClientFile::Status::Uploaded;
  TransferSweep sweep;
  for (const auto& ref : refs) {
    ClientFile* f = state_.file(ref.file_name);
    if (!f) {
      if (!download) continue;
      sweep.failure = "no file_info for " + ref.file_name;
      break;
    }
    if (f->status == done) continue;
    sweep.all_done = false;
    if (f->status == ClientFile::Status::Failed) {
      sweep.failure = f->error;
      break;
    }
    if (now >= f->next_attempt) {
      did = dirty_ = true;
      TransferResult attempt = download ? download_file(http_, *f, file_path(f->name), state_.code_sign_key)
                                        : upload_file(http_, *f, file_path(f->name));
      if (attempt.outcome == TransferOutcome::Done) {
        f->status = done;
        f->error.clear();
        ++(download ? counters_.downloads : counters_.uploads);
        continue;
      }
      if (!download) f->upload_started = true;  // the next attempt asks the server how much it has
      note_transfer_failure(*f, attempt, download ? "download" : "upload", give_up_at, now);
      if (f->status == ClientFile::Status::Failed) {
        sweep.failure = f->error;
        break;
      }
    }
    if (f->failures > 0 && now >= give_up_at) {
      // Too close to the report deadline to go on: report the error while it still counts.
      sweep.failure = f->name + ": " + std::to_string(f->failures) +
                      " failed attempts, giving up near the report deadline; last: " + f->error;
      break;
    }
  }
  return sweep;
}

double HostClient::give_up_time(const ClientResult& r) const {
  return transfer_give_up_time(options_.transfer, static_cast<double>(r.report_deadline), r.received_time);
}

bool HostClient::download_inputs(double now) {
  bool did = false;
  for (auto& r : state_.results) {
    if (r.state != TaskState::Downloading) continue;
    const ClientWorkunit* wu = state_.workunit(r.wu_name);
    const ClientAppVersionRecord* version = wu ? state_.app_version(wu->app_name, r.version_num) : nullptr;
    if (!wu || !version) {
      ++counters_.transfer_errors;
      finish(r, kReportComputeError, kErrDownloadFailed,
             "the scheduler sent no workunit or app version for it");
      did = true;
      continue;
    }
    std::vector<ClientFileRef> needed = version->file_refs;
    needed.insert(needed.end(), wu->file_refs.begin(), wu->file_refs.end());
    TransferSweep sweep = transfer_files(needed, TransferDirection::Download, give_up_time(r), now, did);
    if (!sweep.failure.empty()) {
      ++counters_.transfer_errors;
      finish(r, kReportDownloading, kErrDownloadFailed, "download failed: " + sweep.failure);
      did = true;
    } else if (sweep.all_done) {
      r.state = TaskState::Ready;
      did = dirty_ = true;
    }
  }
  return did;
}

bool HostClient::start_tasks(double now) {
  int running = 0;
  for (const auto& r : state_.results) running += r.state == TaskState::Running;
  bool did = false;
  for (auto& r : state_.results) {
    if (running >= std::max(1, options_.host.ncpus)) break;
    if (r.state != TaskState::Ready) continue;
    did = dirty_ = true;
    const ClientWorkunit* wu = state_.workunit(r.wu_name);
    const ClientAppVersionRecord* version = wu ? state_.app_version(wu->app_name, r.version_num) : nullptr;
    TaskLaunch launch;
    launch.slot_dir = options_.data_dir + "/slots/" + r.name + "_" + std::to_string(r.runs + 1);
    if (version) {
      for (const auto& ref : version->file_refs) {
        std::string path = fs::absolute(file_path(ref.file_name)).string();
        if (ref.main_program) launch.executable = path;
        launch.links.push_back({path, ref.open_name.empty() ? ref.file_name : ref.open_name});
      }
      launch.args = split_words(version->cmdline);
    }
    if (wu) {
      for (const auto& ref : wu->file_refs) {
        launch.links.push_back({fs::absolute(file_path(ref.file_name)).string(),
                                ref.open_name.empty() ? ref.file_name : ref.open_name});
      }
      for (auto& word : split_words(wu->command_line)) launch.args.push_back(word);
    }
    if (behaviour_ && inject_ == FaultInjection::App) {
      launch.env =
          task_app_environment(behaviour_->faults(), run_fault_seed(behaviour_seed_, r.name, r.runs + 1),
                               behaviour_->compute_seconds(task_seconds_));
    }
    if (launch.executable.empty()) {
      ++counters_.app_errors;
      finish(r, kReportComputeError, kErrCannotStart, "the app version has no main program");
      continue;
    }
    auto pid = start_task_process(launch);
    if (!pid.ok()) {
      ++counters_.app_errors;
      finish(r, kReportComputeError, kErrCannotStart, pid.error());
      continue;
    }
    ++r.runs;
    r.pid = *pid;
    r.run_started = now;
    r.state = TaskState::Running;
    ++running;
    Plan& plan = plan_for(r);
    if (plan.crashes_left > 0) {
      // Injected crash: the process dies as if it had segfaulted or been OOM-killed.
      --plan.crashes_left;
      kill(*pid, SIGKILL);
    }
  }
  return did;
}

bool HostClient::upload_outputs(double now) {
  bool did = false;
  for (auto& r : state_.results) {
    if (r.state != TaskState::Uploading || now < r.hold_until) continue;
    TransferSweep sweep = transfer_files(r.file_refs, TransferDirection::Upload, give_up_time(r), now, did);
    if (!sweep.failure.empty()) {
      ++counters_.transfer_errors;
      finish(r, kReportUploading, kErrUploadFailed, "upload failed: " + sweep.failure);
      did = true;
    } else if (sweep.all_done) {
      ++counters_.succeeded;
      finish(r, kReportUploaded, 0, "");
      did = true;
    }
  }
  return did;
}

bool HostClient::scheduler_rpc(double now) {
  if (state_.scheduler_url.empty() || !wants_scheduler_rpc(state_, options_.host, options_.policy, now)) {
    return false;
  }
  double work = work_request_seconds(state_, options_.host, options_.policy);
  std::string body = render_scheduler_request(build_scheduler_request(state_, options_.host, work, now));
  ++counters_.rpcs;
  dirty_ = true;
  HttpReply reply = http_.post(state_.scheduler_url, body);
  if (!reply.ok()) {
    ++counters_.rpc_failures;
    log_warning(options_.data_dir, ": scheduler RPC failed: ", reply.describe());
    note_failed_rpc(state_, options_.policy, now);
    return true;
  }
  auto parsed = parse_scheduler_reply(reply.body);
  if (!parsed.ok()) {
    ++counters_.rpc_failures;
    log_warning(options_.data_dir, ": unreadable scheduler reply: ", parsed.error());
    note_failed_rpc(state_, options_.policy, now);
    return true;
  }
  ReplyEffects effects = apply_scheduler_reply(state_, *parsed, options_.policy, now);
  counters_.results_received += effects.new_results;
  counters_.results_reported += effects.acked;
  counters_.aborted += effects.aborted;
  for (int pid : effects.pids_to_kill) kill_task_process(pid);
  for (const auto& name : effects.files_to_delete) {
    std::error_code ec;
    fs::remove(file_path(name), ec);
  }
  for (const auto& message : effects.messages) log_debug(options_.data_dir, ": scheduler says: ", message);
  return true;
}

void HostClient::save() {
  Status saved = save_client_state(options_.data_dir, state_);
  if (!saved.ok()) log_error(options_.data_dir, ": cannot save client state: ", saved.error());
  dirty_ = false;
}

}  // namespace tharsis
