// sched_load: load generator for the scheduler RPC (bench/scheduler_rpc.sh drives it).
// Each loop is a thread with its own account (one authenticator per loop), its own
// keep-alive HTTP connection and, in report_get mode, its own host: it attaches once,
// then each RPC reports the results it holds (success, output file listed) and asks for
// exactly one more (--jobs K: K more, reporting the K it holds), with an (empty) <other_results> as real
// clients send. In new_host mode each RPC is a fresh host's first contact (new host_cpid, no work asked).
// Replies are parsed with the client's protocol code and checked: a missing ack, a missing result or an error
// message counts as an error. Each reported output is the 7 bytes "answer\n" with their real size and md5;
// with
// --upload the loop also uploads it (BOINC's upload protocol, to the URL and with the
// certificate the reply gave) before reporting, so the validator can read and compare
// the outputs: all hosts agree. With --warmup W, RPCs in the first W seconds are made but
// not counted (the figures are over the time after them). With --rate R (report_get) the
// loops together offer R RPC/s, each starting its RPCs on a fixed schedule instead of
// right after the last one, and each latency counts from the RPC's scheduled start: a
// loop that falls behind (the server is slower than R) shows it as latency, never as a
// quietly lower rate — percentiles at a rate below capacity, not at saturation.
// Prints one line: rpcs, seconds, rpc_per_s, p50_ms, p99_ms, max_ms, errors, and with
// --upload uploads, upload_p50_ms, upload_p99_ms.
//   sched_load --url URL[,URL...] --mode new_host|report_get --authenticators A[,B...] --seconds S
//              [--upload] [--warmup W] [--jobs K] [--rate R]
#include <curl/curl.h>
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "lib/crypto/md5.h"
#include "lib/protocol/client_side.h"
#include "lib/protocol/upload_protocol.h"
#include "tools/lib/tool_main.h"

namespace po = boost::program_options;
using namespace tharsis;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  std::string mode, platform = "x86_64-pc-linux-gnu";
  std::vector<std::string> urls;  // loop i uses urls[i % size]: hosts spread over schedulers
  std::vector<std::string> authenticators;
  double seconds = 10, warmup = 0;
  int jobs = 1;     // results asked for per report_get RPC (each a 1 s job at 1 GFLOPS)
  double rate = 0;  // report_get: RPC/s offered by all loops together; 0: each loop as fast as it can
  bool upload = false;
};

// The output every result reports: what the validator reads back when it was uploaded.
const std::string kOutput = "answer\n";

struct LoopStats {
  Clock::time_point counted_from;  // RPCs and uploads before it are not counted
  std::vector<double> latencies_ms, upload_ms;
  int64_t errors = 0;
  std::string first_error;
};

size_t collect(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

// One loop's HTTP connection (libcurl keeps it alive between RPCs, as a client would not,
// so the figures measure the scheduler rather than TCP setup).
class Connection {
 public:
  explicit Connection(const std::string& url) : curl_(curl_easy_init()) {
    curl_easy_setopt(curl_, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl_, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(curl_, CURLOPT_TIMEOUT, 30L);
    headers_ = curl_slist_append(nullptr, "Expect:");  // no 100-continue round trip
    headers_ = curl_slist_append(headers_, "Content-Type: text/xml");
    curl_easy_setopt(curl_, CURLOPT_HTTPHEADER, headers_);
  }
  ~Connection() {
    curl_slist_free_all(headers_);
    curl_easy_cleanup(curl_);
  }
  // The reply body, or an error text starting with "HTTP".
  bool post(const std::string& body, std::string& reply) {
    reply.clear();
    curl_easy_setopt(curl_, CURLOPT_WRITEDATA, &reply);
    curl_easy_setopt(curl_, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(curl_, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    CURLcode code = curl_easy_perform(curl_);
    long status = 0;
    curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &status);
    if (code != CURLE_OK || status != 200) {
      reply = "HTTP " + std::to_string(status) + ": " + curl_easy_strerror(code);
      return false;
    }
    return true;
  }

 private:
  CURL* curl_;
  curl_slist* headers_ = nullptr;
};

SchedulerRequest base_request(const Options& o, const std::string& authenticator, const std::string& cpid) {
  SchedulerRequest r;
  r.authenticator = authenticator;
  r.core_client = ClientVersion{7, 20, 2};
  r.platform_name = o.platform;
  r.host.domain_name = "bench-" + cpid;
  r.host.host_cpid = cpid;
  r.host.p_ncpus = 1;  // with 1 GFLOPS and 1 s asked, one 1e9-flop job fills the request
  r.host.p_fpops = 1e9;
  r.host.m_nbytes = 8e9;
  r.host.d_total = 2e11;
  r.host.d_free = 1e11;
  r.host.os_name = "Linux";
  return r;
}

ReportedResult success(const std::string& name) {
  ReportedResult r;
  r.name = name;
  r.state = 5;  // files uploaded
  r.final_cpu_time = r.final_elapsed_time = 1;
  static const std::string md5 = md5_hex(kOutput);
  r.output_files.push_back(ReportedFile{name + "_0", static_cast<double>(kOutput.size()), 0, md5});
  return r;
}

std::string messages_of(const SchedulerReply& reply) {
  std::string text;
  for (const auto& m : reply.messages) text += (text.empty() ? "" : "; ") + m.text;
  return text.empty() ? "(no message)" : text;
}

// Runs one RPC; returns the parsed reply or records an error. Its latency counts from
// `scheduled` when given (a paced loop's planned start), else from the send.
std::optional<SchedulerReply> call(Connection& connection, const SchedulerRequest& request, LoopStats& stats,
                                   std::optional<Clock::time_point> scheduled = std::nullopt) {
  std::string body = render_scheduler_request(request), text;
  auto start = scheduled.value_or(Clock::now());
  bool ok = connection.post(body, text);
  if (start >= stats.counted_from)
    stats.latencies_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  auto fail = [&](const std::string& why) -> std::optional<SchedulerReply> {
    if (stats.errors++ == 0) stats.first_error = why;
    return std::nullopt;
  };
  if (!ok) return fail(text);
  auto reply = parse_scheduler_reply(text);
  if (!reply.ok()) return fail("unparsable reply: " + reply.error());
  return *reply;
}

// Uploads kOutput as each output file of the reply's results (the file_info naming an
// upload URL and certificate), as a client does once the result is computed. One
// connection per upload URL, kept alive. Returns false (an error recorded) if one failed.
bool upload_outputs(const SchedulerReply& reply, std::vector<std::unique_ptr<Connection>>& connections,
                    std::vector<std::string>& urls, LoopStats& stats) {
  static const std::string md5 = md5_hex(kOutput);
  for (const auto& result : reply.results) {
    for (const auto& ref : result.file_refs) {
      auto info = std::find_if(reply.file_infos.begin(), reply.file_infos.end(),
                               [&](const ReplyFileInfo& f) { return f.name == ref.file_name; });
      if (info == reply.file_infos.end() || info->upload_urls.empty()) continue;
      const std::string& url = info->upload_urls.front();
      auto known = std::find(urls.begin(), urls.end(), url);
      if (known == urls.end()) {
        urls.push_back(url);
        connections.push_back(std::make_unique<Connection>(url));
        known = urls.end() - 1;
      }
      Connection& connection = *connections[static_cast<size_t>(known - urls.begin())];
      std::string body =
          render_file_upload_header(ClientVersion{7, 20, 2}, info->name, info->xml_signature,
                                    info->max_nbytes, static_cast<double>(kOutput.size()), md5, 0) +
          kOutput;
      std::string text;
      auto start = Clock::now();
      bool ok = connection.post(body, text);
      if (start >= stats.counted_from)
        stats.upload_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
      std::string why = !ok ? text : "";
      if (ok && parse_data_server_reply(text).status != UploadStatus::Success)
        why = "upload of " + info->name + " refused: " + parse_data_server_reply(text).message;
      if (!why.empty()) {
        if (stats.errors++ == 0) stats.first_error = why;
        return false;
      }
    }
  }
  return true;
}

void run_loop(const Options& o, int index, Clock::time_point end, LoopStats& stats) {
  Connection connection(o.urls[static_cast<size_t>(index) % o.urls.size()]);
  std::vector<std::unique_ptr<Connection>> upload_connections;
  std::vector<std::string> upload_urls;
  const std::string& authenticator = o.authenticators[static_cast<size_t>(index)];
  std::string host_cpid = "bench-host-" + std::to_string(index) + "-" + std::to_string(::getpid());
  if (o.mode == "new_host") {
    for (int64_t i = 0; Clock::now() < end; ++i) {
      SchedulerRequest r = base_request(o, authenticator, host_cpid + "-" + std::to_string(i));
      auto reply = call(connection, r, stats);
      if (reply && reply->hostid <= 0 && stats.errors++ == 0)
        stats.first_error = "no host id: " + messages_of(*reply);
    }
    return;
  }
  // report_get: attach (not timed), then report one + get one until the time is up.
  SchedulerRequest r = base_request(o, authenticator, host_cpid);
  r.work_req_seconds = o.jobs;
  r.have_other_results = true;  // as BOINC's client and ours: <other_results> lists what is held, unreported
  LoopStats attach;
  auto first = call(connection, r, attach);
  if (!first || first->hostid <= 0 || first->results.empty()) {
    stats.errors++;
    stats.first_error = "attach failed: " + (first ? messages_of(*first) : attach.first_error);
    return;
  }
  r.hostid = first->hostid;
  r.code_sign_key = first->code_sign_key;  // a real client keeps the key and sends it back
  std::vector<std::string> held;
  for (const auto& result : first->results) held.push_back(result.name);
  if (o.upload && !upload_outputs(*first, upload_connections, upload_urls, stats)) held.clear();
  // Paced: loop i's RPCs are due every loops/rate seconds, the loops staggered over one interval.
  const auto interval = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(o.rate > 0 ? static_cast<double>(o.authenticators.size()) / o.rate : 0));
  auto due = Clock::now() + interval * index / static_cast<int64_t>(o.authenticators.size());
  while (Clock::now() < end) {
    std::optional<Clock::time_point> scheduled;
    if (o.rate > 0) {
      if (due >= end) break;
      std::this_thread::sleep_until(due);
      scheduled = due;
      due += interval;
    }
    r.rpc_seqno++;
    r.results.clear();
    for (const auto& name : held) r.results.push_back(success(name));
    auto reply = call(connection, r, stats, scheduled);
    if (!reply) continue;
    std::string why;
    if (reply->result_acks.size() != held.size()) why = "reported results not acknowledged";
    if (reply->results.empty()) why = "no new result sent";
    if (!why.empty() && stats.errors++ == 0) stats.first_error = why + ": " + messages_of(*reply);
    held.clear();
    for (const auto& result : reply->results) held.push_back(result.name);
    // A result whose output could not be uploaded is not reported (it stays in progress).
    if (o.upload && !upload_outputs(*reply, upload_connections, upload_urls, stats)) held.clear();
  }
}

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t i = static_cast<size_t>(p * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(i, sorted.size() - 1)];
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::string authenticators, urls;
  po::options_description options(
      "sched_load --url URL --mode new_host|report_get --authenticators A[,B...]");
  options.add_options()("url", po::value(&urls)->required(),
                        "scheduler URL, or several comma-separated (loop i uses the (i mod n)-th)")(
      "mode", po::value(&o.mode)->required(), "new_host or report_get")(
      "authenticators", po::value(&authenticators)->required(),
      "one account key per concurrent loop, comma-separated")(
      "seconds", po::value(&o.seconds)->default_value(10), "how long to run, warm-up included")(
      "warmup", po::value(&o.warmup)->default_value(0), "seconds at the start not counted")(
      "upload", po::bool_switch(&o.upload), "upload each result's output before reporting it")(
      "jobs", po::value(&o.jobs)->default_value(1),
      "report_get: results asked for (and then reported) per RPC")(
      "rate", po::value(&o.rate)->default_value(0),
      "report_get: RPC/s offered by all loops together, each RPC started on schedule (0: as fast as "
      "they can)")("platform", po::value(&o.platform), "platform name sent");
  po::variables_map vm;  // (the shared parser also offers --project_dir; unused here)
  if (auto exit_code = parse_tool_options("sched_load", options, argc, argv, vm)) return *exit_code;
  if (o.mode != "new_host" && o.mode != "report_get") {
    std::cerr << "sched_load: --mode must be new_host or report_get, found '" << o.mode << "'\n";
    return 2;
  }
  for (auto [text, out] : {std::pair{&authenticators, &o.authenticators}, std::pair{&urls, &o.urls}}) {
    std::stringstream list(*text);
    for (std::string item; std::getline(list, item, ',');) {
      if (!item.empty()) out->push_back(item);
    }
  }
  if (o.urls.empty()) {
    std::cerr << "sched_load: --url names no scheduler\n";
    return 2;
  }
  if (o.jobs < 1 || o.jobs > 100) {
    std::cerr << "sched_load: --jobs must be 1 to 100\n";
    return 2;
  }
  if (!(o.rate >= 0) || o.rate > 1e6) {
    std::cerr << "sched_load: --rate must be 0 to 1000000 RPC/s\n";
    return 2;
  }
  if (!(o.warmup >= 0) || !(o.warmup < o.seconds)) {
    std::cerr << "sched_load: --warmup must be at least 0 and below --seconds\n";
    return 2;
  }
  if (o.authenticators.empty()) {
    std::cerr << "sched_load: --authenticators names no account\n";
    return 2;
  }
  curl_global_init(CURL_GLOBAL_DEFAULT);
  std::vector<LoopStats> stats(o.authenticators.size());
  std::vector<std::thread> loops;
  auto start = Clock::now();
  auto end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
  auto counted_from =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.warmup));
  for (auto& s : stats) s.counted_from = counted_from;
  for (size_t i = 0; i < o.authenticators.size(); ++i) {
    loops.emplace_back(run_loop, std::cref(o), static_cast<int>(i), end, std::ref(stats[i]));
  }
  for (auto& t : loops) t.join();
  double elapsed = std::chrono::duration<double>(Clock::now() - counted_from).count();
  curl_global_cleanup();

  std::vector<double> all, uploads;
  int64_t errors = 0;
  for (const auto& s : stats) {
    all.insert(all.end(), s.latencies_ms.begin(), s.latencies_ms.end());
    uploads.insert(uploads.end(), s.upload_ms.begin(), s.upload_ms.end());
    errors += s.errors;
    if (!s.first_error.empty()) std::cerr << "sched_load: first error: " << s.first_error << "\n";
  }
  std::sort(all.begin(), all.end());
  std::sort(uploads.begin(), uploads.end());
  std::printf("rpcs=%zu seconds=%.2f rpc_per_s=%.1f p50_ms=%.2f p99_ms=%.2f max_ms=%.2f errors=%lld",
              all.size(), elapsed, static_cast<double>(all.size()) / elapsed, percentile(all, 0.50),
              percentile(all, 0.99), all.empty() ? 0.0 : all.back(), static_cast<long long>(errors));
  if (o.upload)
    std::printf(" uploads=%zu upload_p50_ms=%.2f upload_p99_ms=%.2f", uploads.size(),
                percentile(uploads, 0.50), percentile(uploads, 0.99));
  std::printf("\n");
  return errors == 0 ? 0 : 1;
}
