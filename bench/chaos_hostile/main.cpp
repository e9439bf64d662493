// chaos_hostile: the hostile half of bench/chaos.sh — sends COUNT requests a careless or
// malicious client could send, each of a kind drawn with the seed, and judges each answer:
//   duplicate   a result some host already reported is reported again, by that host
//               (its hostid and authenticator, as a client re-sending after a lost reply):
//               must be acked and change nothing;
//   foreign     a result of another host (in progress if there is one) is reported by our
//               own (valid) account: must be ignored (ack or error, the row unchanged);
//   wrong_auth  the same with a made-up authenticator: must get an error reply;
//   malformed   truncated, random, deeply nested, entity-bomb or mistyped XML: must get a
//               well-formed scheduler_reply (an error message), never a 5xx;
//   oversized   a scheduler request or an upload over the size limits: must get an error;
//   traversal   uploads and size queries with path-traversing or absolute file names,
//               and a forged upload certificate: must get status -1, and no file may
//               appear outside upload/.
//   output_swap an output already uploaded in full (of a result in progress, or reported
//               and perhaps validated) uploaded again under its name with other bytes and
//               a valid certificate: must be refused, the stored file unchanged;
//   bad_utf8    our own host's requests with invalid UTF-8 (and a NUL) in its description
//               and in the stderr of the result it reports: must be answered normally
//               (the report acked and taken), never "server error" — a host must not be
//               locked out by text it cannot change.
// A report we forge carries the marker cpu_time 4242.5: finding it in the result row later
// means the server took it. Requests needing a result from the DB are skipped while the DB
// is down or has none to pick (counted). Prints one line of counts; exits 1 if any answer
// was wrong (a 5xx, no answer, an unparsable reply, a forged report taken, an escaped
// file), else 0.
//   chaos_hostile --project_dir DIR --authenticator KEY [--count N] [--seed S] [--kinds K,...]
#include <curl/curl.h>
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "db/database.h"
#include "db/hostile_probe_queries.h"
#include "lib/crypto/boinc_key.h"
#include "lib/crypto/boinc_signature.h"
#include "lib/crypto/md5.h"
#include "lib/protocol/client_side.h"
#include "lib/protocol/upload_protocol.h"
#include "lib/work/fanout.h"
#include "tools/lib/tool_main.h"

namespace po = boost::program_options;
using namespace tharsis;

namespace {

constexpr double kMarkerCpuTime = 4242.5;
// The host_cpid of the hosts this program makes (left out when it picks other hosts' results).
const std::string kOwnHostCpid = "chaos-hostile";

struct HttpAnswer {
  long status = 0;  // 0: no HTTP answer at all
  std::string body;
  std::string error;
};

size_t collect(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

HttpAnswer post(const std::string& url, const std::string& body) {
  HttpAnswer answer;
  CURL* curl = curl_easy_init();
  curl_slist* headers = curl_slist_append(nullptr, "Expect:");
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer.body);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 60L);
  CURLcode code = curl_easy_perform(curl);
  if (code == CURLE_OK) {
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &answer.status);
  } else {
    answer.error = curl_easy_strerror(code);
  }
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  return answer;
}

// How an answer was judged.
enum class Verdict { ErrorReply, AckedIgnored, OtherReply, Skipped, Bad };

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::ErrorReply:
      return "error_reply";
    case Verdict::AckedIgnored:
      return "acked_ignored";
    case Verdict::OtherReply:
      return "other_reply";
    case Verdict::Skipped:
      return "skipped";
    case Verdict::Bad:
      return "bad";
  }
  return "?";
}

struct Judged {
  Verdict verdict;
  std::string why;  // for Bad
};

Judged bad(const std::string& why) { return {Verdict::Bad, why}; }

// A scheduler answer must be HTTP 200 with a parsable <scheduler_reply>.
std::variant<SchedulerReply, Judged> scheduler_reply_of(const HttpAnswer& answer) {
  if (answer.status == 0) return bad("no answer: " + answer.error);
  if (answer.status != 200) return bad("HTTP " + std::to_string(answer.status));
  auto reply = parse_scheduler_reply(answer.body);
  if (!reply.ok()) return bad("unparsable reply: " + reply.error());
  return *reply;
}

bool acked(const SchedulerReply& reply, const std::string& name) {
  for (const auto& a : reply.result_acks) {
    if (a == name) return true;
  }
  return false;
}

// A result row as far as a forged report could change it.
using ResultFacts = ResultReportFacts;

class Hostile {
 public:
  Hostile(const ProjectConfig& config, std::string authenticator, uint64_t seed)
      : config_(config), authenticator_(std::move(authenticator)), random_(seed) {
    scheduler_url_ = config.cgi_url + "cgi";
  }

  Judged send(const std::string& kind) {
    if (kind == "duplicate") return duplicate();
    if (kind == "foreign") return foreign(authenticator_);
    if (kind == "wrong_auth") return foreign(random_hex(32));
    if (kind == "malformed") return malformed();
    if (kind == "oversized") return oversized();
    if (kind == "output_swap") return output_swap();
    if (kind == "bad_utf8") return bad_utf8();
    return traversal();
  }

 private:
  std::string random_hex(size_t n) {
    static const char digits[] = "0123456789abcdef";
    std::string s;
    for (size_t i = 0; i < n; ++i) s += digits[pick(16)];
    return s;
  }
  size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(random_); }

  // The DB, or nullptr while it is down (the request kind is then skipped).
  Database* db() {
    try {
      if (!db_) db_ = Database::open(config_.db);
      db_->ping();
      return db_.get();
    } catch (const std::exception&) {
      db_.reset();
      return nullptr;
    }
  }

  std::optional<ResultFacts> facts(const std::string& name) {
    Database* d = db();
    if (!d) return std::nullopt;
    try {
      return fetch_result_report_facts(*d, name);
    } catch (const std::exception&) {
      db_.reset();
      return std::nullopt;
    }
  }

  SchedulerRequest request(const std::string& authenticator) {
    SchedulerRequest r;
    r.authenticator = authenticator;
    r.core_client = ClientVersion{7, 20, 2};
    r.platform_name = "x86_64-pc-linux-gnu";
    r.host.host_cpid = kOwnHostCpid;
    r.host.domain_name = "chaos-hostile";
    r.host.p_ncpus = 1;
    r.host.p_fpops = 1e9;
    r.host.os_name = "Linux";
    return r;  // work_req_seconds 0: we never take work away from the real hosts
  }

  static ReportedResult forged_report(const std::string& name) {
    ReportedResult r;
    r.name = name;
    r.state = 5;  // uploaded
    r.final_cpu_time = r.final_elapsed_time = kMarkerCpuTime;
    r.stderr_out = "chaos_hostile forged report";
    return r;
  }

  // A forged report must leave the row as it was (the real host may report meanwhile,
  // but never with our marker).
  std::optional<std::string> forged_taken(const ResultFacts& before) {
    auto after = facts(before.name);
    if (!after) return std::nullopt;  // DB down again: cannot tell, and nothing to blame
    if (after->cpu_time == kMarkerCpuTime) return "forged report of " + before.name + " was taken";
    if (after->hostid != before.hostid)
      return "result " + before.name + " moved to host " + std::to_string(after->hostid);
    return std::nullopt;
  }

  Judged duplicate() {
    Database* d = db();
    if (!d) return {Verdict::Skipped, ""};
    SchedulerRequest r = request("");
    ResultFacts before;
    try {
      std::vector<std::pair<ResultFacts, SchedulerRequest>> candidates;
      for (auto& reported : fetch_reported_results_of_hosts(*d, kOwnHostCpid, 50)) {
        SchedulerRequest c = request(reported.authenticator);
        c.hostid = reported.result.hostid;
        c.host.host_cpid = reported.host_cpid;
        c.rpc_seqno = reported.rpc_seqno;
        c.host.domain_name = reported.domain_name;
        candidates.push_back({reported.result, c});
      }
      if (candidates.empty()) return {Verdict::Skipped, ""};
      auto& chosen = candidates[pick(candidates.size())];
      before = chosen.first;
      r = chosen.second;
    } catch (const std::exception&) {
      db_.reset();
      return {Verdict::Skipped, ""};
    }
    r.results.push_back(forged_report(before.name));
    auto reply = scheduler_reply_of(post(scheduler_url_, render_scheduler_request(r)));
    if (auto* j = std::get_if<Judged>(&reply)) return *j;
    auto& sr = std::get<SchedulerReply>(reply);
    if (auto why = forged_taken(before)) return bad(*why);
    if (auto after = facts(before.name); after && after->received_time != before.received_time) {
      return bad("duplicate report changed received_time of " + before.name);
    }
    if (acked(sr, before.name)) return {Verdict::AckedIgnored, ""};
    // Without an ack the reply must say why (the DB went away during the request).
    return sr.messages.empty() ? bad("duplicate of " + before.name + " neither acked nor refused")
                               : Judged{Verdict::ErrorReply, ""};
  }

  Judged foreign(const std::string& authenticator) {
    Database* d = db();
    if (!d) return {Verdict::Skipped, ""};
    ResultFacts before;
    try {
      std::vector<ResultFacts> candidates = fetch_sent_results_of_hosts(*d, kOwnHostCpid, 50);
      if (candidates.empty()) return {Verdict::Skipped, ""};
      before = candidates[pick(candidates.size())];
    } catch (const std::exception&) {
      db_.reset();
      return {Verdict::Skipped, ""};
    }
    bool valid_account = authenticator == authenticator_;
    SchedulerRequest r = request(authenticator);
    if (!valid_account) r.hostid = before.hostid;  // posing as the host the result went to
    r.results.push_back(forged_report(before.name));
    auto reply = scheduler_reply_of(post(scheduler_url_, render_scheduler_request(r)));
    if (auto* j = std::get_if<Judged>(&reply)) return *j;
    auto& sr = std::get<SchedulerReply>(reply);
    if (auto why = forged_taken(before)) return bad(*why);
    if (!valid_account) {
      if (acked(sr, before.name) || sr.messages.empty()) return bad("made-up authenticator was not refused");
      return {Verdict::ErrorReply, ""};
    }
    if (acked(sr, before.name)) return {Verdict::AckedIgnored, ""};
    return sr.messages.empty() ? bad("foreign report neither acked nor refused")
                               : Judged{Verdict::ErrorReply, ""};
  }

  Judged malformed() {
    SchedulerRequest valid = request(authenticator_);
    valid.results.push_back(forged_report("chaos_no_such_result_" + random_hex(8)));
    std::string text = render_scheduler_request(valid);
    std::string body;
    switch (pick(9)) {
      case 0:
        body = "";
        break;
      case 1: {
        body.resize(1 + pick(4096));
        for (auto& c : body) c = static_cast<char>(pick(256));
        break;
      }
      case 2:
        body = text.substr(0, 1 + pick(text.size() - 1));
        break;   // cut anywhere
      case 3: {  // deep nesting: a recursive parser would run out of stack
        std::string open, close;
        for (int i = 0; i < 200000; ++i) open += "<a>";
        for (int i = 0; i < 200000; ++i) close += "</a>";
        body = "<scheduler_request>" + open + close + "</scheduler_request>";
        break;
      }
      case 4:  // entity expansion ("billion laughs")
        body =
            "<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b "
            "\"&a;&a;&a;&a;&a;&a;&a;&a;\">"
            "<!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;\"><!ENTITY d \"&c;&c;&c;&c;&c;&c;&c;&c;\">]>"
            "<scheduler_request><authenticator>&d;</authenticator></scheduler_request>";
        break;
      case 5:
        body = "<scheduler_request><authenticator>" + authenticator_ +
               "</authenticator><hostid>abc</hostid><rpc_seqno>99999999999999999999</rpc_seqno>"
               "<work_req_seconds>-1e308</work_req_seconds></scheduler_request>";
        break;
      case 6:
        body = "<scheduler_request><authenticator>" + authenticator_ +
               "</authenticator><result><state>5</state></result></scheduler_request>";
        break;
      case 7:
        body = text;
        body.insert(pick(body.size()), std::string("\0\xff\xfe<&", 5));
        break;
      default:
        body = "<data_server_request><get_file_size>x</get_file_size></data_server_request>";
        break;
    }
    auto reply = scheduler_reply_of(post(scheduler_url_, body));
    if (auto* j = std::get_if<Judged>(&reply)) return *j;
    return std::get<SchedulerReply>(reply).messages.empty() ? Judged{Verdict::OtherReply, ""}
                                                            : Judged{Verdict::ErrorReply, ""};
  }

  // An upload handler answer must be HTTP 200 with an error status.
  Judged upload_refused(const HttpAnswer& answer, const std::string& what) {
    if (answer.status == 0) return bad(what + ": no answer: " + answer.error);
    if (answer.status != 200) return bad(what + ": HTTP " + std::to_string(answer.status));
    DataServerReply reply = parse_data_server_reply(answer.body);
    if (reply.status == UploadStatus::Success) return bad(what + ": accepted");
    return {Verdict::ErrorReply, ""};
  }

  Judged upload_answered(const HttpAnswer& answer, const std::string& what) {
    if (answer.status == 0) return bad(what + ": no answer: " + answer.error);
    if (answer.status != 200) return bad(what + ": HTTP " + std::to_string(answer.status));
    DataServerReply reply = parse_data_server_reply(answer.body);
    if (reply.status != UploadStatus::Success) return {Verdict::ErrorReply, ""};
    if (reply.file_size.value_or(-1) != 0) return bad(what + ": a file nobody uploaded has a size");
    return {Verdict::OtherReply, ""};
  }

  Judged oversized() {
    if (pick(2) == 0) {
      SchedulerRequest r = request(authenticator_);
      ReportedResult big = forged_report("chaos_no_such_result_" + random_hex(8));
      big.stderr_out.assign(static_cast<size_t>(config_.max_request_size) + 1024, 'x');
      r.results.push_back(big);
      auto reply = scheduler_reply_of(post(scheduler_url_, render_scheduler_request(r)));
      if (auto* j = std::get_if<Judged>(&reply)) return *j;
      auto& sr = std::get<SchedulerReply>(reply);
      return sr.messages.empty() ? bad("oversized request got no error") : Judged{Verdict::ErrorReply, ""};
    }
    std::string name = "chaos_big_" + random_hex(8);
    size_t n = static_cast<size_t>(config_.max_upload_size) + 1;
    std::string body =
        render_file_upload_header(ClientVersion{7, 20, 2}, name, random_hex(256), static_cast<double>(n),
                                  static_cast<double>(n), random_hex(32), 0);
    body.append(std::min<size_t>(n, 8u << 20), 'x');  // the claim is what must be refused
    return upload_refused(post(config_.upload_url, body), "oversized upload");
  }

  // The project's upload key: the attacker here holds a valid certificate for any name
  // (a stronger attacker than a volunteer, who has those of its own results only).
  const RsaKey* upload_key() {
    if (!upload_key_) {
      auto key = load_boinc_private_key(config_.key_dir + "/upload_private");
      if (!key.ok()) return nullptr;
      upload_key_ = std::make_unique<RsaKey>(std::move(*key));
    }
    return upload_key_.get();
  }

  static std::optional<std::pair<int64_t, std::string>> size_and_md5(const std::string& path) {
    std::error_code ec;
    auto size = std::filesystem::file_size(path, ec);
    if (ec) return std::nullopt;
    auto md5 = md5_file_hex(path);
    if (!md5.ok()) return std::nullopt;
    return std::pair<int64_t, std::string>{static_cast<int64_t>(size), *md5};
  }

  Judged output_swap() {
    Database* d = db();
    const RsaKey* key = upload_key();
    if (!d || !key) return {Verdict::Skipped, ""};
    std::vector<std::string> names;
    try {
      // Results whose first output is on the server: reported successes (files not yet
      // deleted) and results still in progress.
      for (const auto& result : fetch_results_with_outputs_on_server(*d, 200)) names.push_back(result + "_0");
    } catch (const std::exception&) {
      db_.reset();
      return {Verdict::Skipped, ""};
    }
    std::vector<std::pair<std::string, std::string>> stored;  // name, path of a complete file
    for (const auto& name : names) {
      std::string path = fanout_path(config_.upload_dir, name, config_.uldl_dir_fanout);
      std::error_code ec;
      if (std::filesystem::is_regular_file(path, ec)) stored.push_back({name, path});
    }
    if (stored.empty()) return {Verdict::Skipped, ""};
    const auto& [name, path] = stored[pick(stored.size())];
    auto before = size_and_md5(path);
    if (!before) return {Verdict::Skipped, ""};  // deleted meanwhile
    std::string forged = "chaos_hostile forged output " + random_hex(static_cast<size_t>(1 + pick(40)));
    double max_nbytes = static_cast<double>(config_.max_upload_size);
    auto signature = sign_block_boinc(*key, upload_certificate_text(name, max_nbytes));
    if (!signature.ok()) return bad("cannot sign a certificate: " + signature.error());
    std::string body = render_file_upload_header(ClientVersion{7, 20, 2}, name, *signature, max_nbytes,
                                                 static_cast<double>(forged.size()), md5_hex(forged), 0) +
                       forged;
    Judged judged = upload_refused(post(config_.upload_url, body), "output swap of " + name);
    auto after = size_and_md5(path);
    if (after && *after != *before) return bad("output " + name + " was replaced by a forged upload");
    return judged;
  }

  // Our own host, whose description and stderr carry bytes that are not UTF-8. It takes
  // one result now and then (so it has something to report) and reports it as a client
  // error, which the transitioner replaces: the real hosts lose nothing.
  Judged bad_utf8() {
    static const std::string kBadBytes("\xff\xfe\xc3\x28\xed\xa0\x80\xf0\x28\x8c\x28", 11);
    SchedulerRequest r = request(authenticator_);
    r.host.host_cpid = "chaos-hostile-utf8";
    r.host.domain_name = "utf8-" + kBadBytes;
    r.host.os_name = "Linux " + kBadBytes;
    r.host.p_model = "cpu " + kBadBytes;
    r.hostid = utf8_hostid_;
    // Never lower than the last one, also across chaos_hostile processes (a lower one is a
    // copied client state, which gets a new host record).
    r.rpc_seqno = static_cast<int>(time(nullptr) - 1700000000);
    std::string reported_name = utf8_pending_;
    if (!reported_name.empty()) {
      ReportedResult report;
      report.name = reported_name;
      report.state = 3;  // compute error
      report.exit_status = 1;
      report.stderr_out = "stderr " + kBadBytes + std::string("\0", 1) + " after a NUL " + kBadBytes;
      r.results.push_back(report);
    }
    bool ask = pick(3) == 0;
    if (ask) r.work_req_seconds = 1;
    auto server_error = [](const SchedulerReply& reply) {
      return std::any_of(reply.messages.begin(), reply.messages.end(), [](const ReplyMessage& m) {
        return m.text.find("Server error") != std::string::npos;
      });
    };
    // A rolled-back RPC says "Server error". Once is what a database restart also gives;
    // the same request failing again with the database up is the lock-out.
    std::variant<SchedulerReply, Judged> reply;
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (attempt > 0) {
        if (!db()) return {Verdict::Skipped, ""};
        sleep(1);
      }
      reply = scheduler_reply_of(post(scheduler_url_, render_scheduler_request(r)));
      if (auto* j = std::get_if<Judged>(&reply)) return *j;
      if (!server_error(std::get<SchedulerReply>(reply))) break;
    }
    auto& sr = std::get<SchedulerReply>(reply);
    if (server_error(sr)) {
      if (!db()) return {Verdict::Skipped, ""};
      return bad("request with non-UTF-8 text refused twice: '" + sr.messages.front().text + "'");
    }
    if (sr.hostid > 0) utf8_hostid_ = sr.hostid;
    if (!reported_name.empty() && acked(sr, reported_name)) utf8_pending_.clear();
    if (utf8_pending_.empty() && !sr.results.empty()) utf8_pending_ = sr.results.front().name;
    if (!reported_name.empty() && !acked(sr, reported_name)) {
      return bad("report of " + reported_name + " with non-UTF-8 stderr was not acknowledged");
    }
    return sr.messages.empty() ? Judged{Verdict::OtherReply, ""} : Judged{Verdict::ErrorReply, ""};
  }

  Judged traversal() {
    std::string tag = "chaos_escape_" + random_hex(8);
    const std::vector<std::string> names = {"../" + tag,
                                            "../../" + tag,
                                            "/tmp/" + tag,
                                            "..",
                                            "a/../../" + tag,
                                            "..\\" + tag,
                                            "%2e%2e%2f" + tag,
                                            "." + tag,
                                            std::string(300, 'n'),
                                            tag + "\n../x",
                                            tag /* a safe name, forged certificate */};
    const std::string& name = names[pick(names.size())];
    ClientVersion client{7, 20, 2};
    bool size_query = pick(3) == 0;
    std::string body =
        size_query ? render_get_file_size_request(client, name)
                   : render_file_upload_header(client, name, random_hex(256), 1000, 10, random_hex(32), 0) +
                         "0123456789";
    HttpAnswer answer = post(config_.upload_url, body);
    // A size query for a safe name is a fair question (the answer is 0 bytes).
    Judged judged = size_query && name == tag ? upload_answered(answer, "size query of '" + name + "'")
                                              : upload_refused(answer, "upload of '" + name + "'");
    namespace fs = std::filesystem;
    for (const auto& dir : {fs::path(config_.project_dir), fs::path(config_.project_dir).parent_path(),
                            fs::path("/tmp"), fs::path(config_.upload_dir)}) {
      std::error_code ec;
      if (fs::exists(dir / tag, ec)) return bad("file " + (dir / tag).string() + " escaped the upload check");
    }
    for (const auto& entry : fs::recursive_directory_iterator(
             config_.upload_dir, fs::directory_options::skip_permission_denied)) {
      if (entry.path().filename() == tag) return bad("forged upload stored as " + entry.path().string());
    }
    return judged;
  }

  const ProjectConfig& config_;
  std::string authenticator_;
  std::mt19937_64 random_;
  std::string scheduler_url_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<RsaKey> upload_key_;
  int64_t utf8_hostid_ = 0;   // the bad_utf8 host, once the server named it
  std::string utf8_pending_;  // a result it holds, to report next time
};

}  // namespace

int main(int argc, char** argv) {
  std::string authenticator;
  int count = 10;
  uint64_t seed = 1;
  std::string only;
  po::options_description options(
      "chaos_hostile --project_dir DIR --authenticator KEY [--count N] [--seed S]");
  options.add_options()("authenticator", po::value(&authenticator)->required(),
                        "our own (valid) account key")("count", po::value(&count)->default_value(10),
                                                       "requests to send")(
      "seed", po::value(&seed)->default_value(1), "seed of the kinds and contents")(
      "kinds", po::value(&only), "send only these kinds (comma-separated)");
  po::variables_map vm;
  if (auto exit_code = parse_tool_options("chaos_hostile", options, argc, argv, vm)) return *exit_code;
  auto config = load_tool_config("chaos_hostile", vm);
  if (!config) return 2;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  const std::vector<std::string> kinds = {"duplicate", "foreign",   "wrong_auth",  "malformed",
                                          "oversized", "traversal", "output_swap", "bad_utf8"};
  std::mt19937_64 random(seed);
  // Oversized bodies are costly (megabytes each): a third as often as the other kinds.
  std::vector<double> weights = {3, 3, 3, 3, 1, 3, 3, 3};
  if (!only.empty()) {
    for (size_t i = 0; i < kinds.size(); ++i) {
      weights[i] = ("," + only + ",").find("," + kinds[i] + ",") == std::string::npos ? 0 : 1;
    }
    if (std::count(weights.begin(), weights.end(), 0.0) == static_cast<long>(kinds.size())) {
      std::cerr
          << "chaos_hostile: --kinds names none of duplicate, foreign, wrong_auth, malformed, oversized, "
             "traversal, output_swap, bad_utf8\n";
      return 2;
    }
  }
  std::discrete_distribution<size_t> pick_kind(weights.begin(), weights.end());
  Hostile hostile(*config, authenticator, seed * 7919 + 1);
  std::map<std::string, int> by_kind, by_verdict;
  int bad_count = 0;
  for (int i = 0; i < count; ++i) {
    std::string kind = kinds[pick_kind(random)];
    Judged judged = hostile.send(kind);
    by_kind[kind]++;
    by_verdict[verdict_name(judged.verdict)]++;
    if (judged.verdict == Verdict::Bad) {
      ++bad_count;
      std::cerr << "chaos_hostile: BAD " << kind << ": " << judged.why << "\n";
    }
  }
  curl_global_cleanup();
  std::cout << "sent=" << count;
  for (const auto& [k, n] : by_kind) std::cout << " " << k << "=" << n;
  for (const char* v : {"error_reply", "acked_ignored", "other_reply", "skipped", "bad"}) {
    std::cout << " " << v << "=" << by_verdict[v];
  }
  std::cout << "\n";
  return bad_count == 0 ? 0 : 1;
}
