// sched_floor: the floor under a scheduler RPC on this machine, for bench/scheduler_rpc.sh.
// Installed beside the scheduler (cgi-bin/floor as CGI, cgi-bin/floor.fcgi under
// mod_fcgid: the same Apache config and process limits), it takes a request the way the
// scheduler does (sched/lib/cgi_server.h: the same stdin / FastCGI reading and the same
// body limit, config.xml's default <max_request_size>) and answers a fixed reply shaped
// and sized like a report+get reply (one ack, one result with its workunit, app version
// and three file_infos: about 3 KB), rendered once per process. Nothing else: no
// parsing, no database, unless the query string asks for round trips:
//   ?sql=N   also N primary-key reads of the user row (fetch_user, id 1) in one
//            transaction (START TRANSACTION + N + COMMIT: N + 2 statements), 1 <= N <= 100,
//            over a connection opened once per process (per request as CGI), the database
//            named by the project's config.xml (the parent of the program's directory, or
//            $THARSIS_PROJECT_DIR), as the scheduler finds it.
// So a figure of the bench separates the HTTP floor (Apache, mod_fcgid or CGI, process
// start) from the floor of HTTP plus an RPC's round trips.
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "db/database.h"
#include "db/user_store.h"
#include "lib/config/project_config.h"
#include "lib/log.h"
#include "lib/protocol/scheduler_reply.h"
#include "sched/lib/cgi_server.h"

using namespace tharsis;

namespace {

constexpr int kMaxStatements = 100;

std::string project_dir() {
  if (const char* env = std::getenv("THARSIS_PROJECT_DIR")) return env;
  return std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path().string();
}

// A signature as BOINC's hex text: lines of 64 hex digits and a closing ".", the length
// of a 1024-bit key's (the bench project's).
std::string hex_signature() {
  std::string line(64, '0');
  for (size_t i = 0; i < line.size(); ++i) line[i] = "0123456789abcdef"[(i * 7 + 3) % 16];
  return line + "\n" + line + "\n" + line + "\n" + line + "\n.\n";
}

// What the scheduler answers a report of one result and a request for one more on the
// bench's project (names and URLs as long as the bench's; the bench prints both sizes).
ReplyFileRef file_ref(const std::string& name, const std::string& open_name) {
  ReplyFileRef ref;
  ref.file_name = name;
  ref.open_name = open_name;
  return ref;
}

SchedulerReply fixed_reply() {
  const std::string url = "http://127.0.0.1:30000/bench", platform = "x86_64-pc-linux-gnu";
  const std::string app_file = "bench_100_" + platform + "_bench_app";
  SchedulerReply r;
  r.master_url = url + "/";
  r.project_name = "bench";
  r.request_delay = 0;
  r.user.emplace();
  r.user->userid = 1;
  r.user->name = "loop1";
  r.user->create_time = 1795698190;
  r.hostid = 2;
  r.include_host_fields = true;
  r.host_create_time = 1795698191;
  r.result_acks = {"w_0000282_0"};
  r.apps.resize(1);
  r.apps[0].name = r.apps[0].user_friendly_name = "bench";
  r.file_infos.resize(3);
  ReplyFileInfo& app = r.file_infos[0];
  app.name = app_file;
  app.download_urls = {url + "/download/369/" + app_file};
  app.md5_cksum = "33e4fd94e2560e008e2c3b431d0e3419";
  app.nbytes = 17;
  app.executable = true;
  app.file_signature = hex_signature();
  ReplyFileInfo& input = r.file_infos[1];
  input.name = "in";
  input.download_urls = {url + "/download/3e9/in"};
  input.md5_cksum = "c1d517f14e33548dbfcf731cfa17c04c";
  input.nbytes = 11;
  ReplyFileInfo& output = r.file_infos[2];
  output.name = "w_0000283_0_0";
  output.upload_urls = {url + "_cgi/file_upload_handler"};
  output.max_nbytes = 134217728;
  output.xml_signature = hex_signature();
  r.app_versions.resize(1);
  r.app_versions[0].app_name = "bench";
  r.app_versions[0].version_num = 100;
  r.app_versions[0].platform = platform;
  r.app_versions[0].file_refs = {file_ref(app_file, "")};
  r.app_versions[0].file_refs[0].main_program = true;
  r.workunits.resize(1);
  ReplyWorkunit& workunit = r.workunits[0];
  workunit.name = "w_0000283";
  workunit.app_name = "bench";
  workunit.version_num = 100;
  workunit.rsc_fpops_est = 1e9;
  workunit.rsc_fpops_bound = 1e12;
  workunit.rsc_memory_bound = workunit.rsc_disk_bound = 1e8;
  workunit.file_refs = {file_ref("in", "in")};
  r.results.resize(1);
  ReplyResult& result = r.results[0];
  result.name = "w_0000283_0";
  result.wu_name = "w_0000283";
  result.report_deadline = 1795784645;
  result.platform = platform;
  result.version_num = 100;
  result.file_refs = {file_ref("w_0000283_0_0", "out")};
  result.file_refs[0].copy_file = true;
  return r;
}

// N of "sql=N" (1..kMaxStatements); 0 for an empty query; nullopt for anything else.
std::optional<int> statements_asked(const std::string& query) {
  if (query.empty()) return 0;
  if (query.rfind("sql=", 0) != 0 || query.size() > 7) return std::nullopt;
  int n = 0;
  for (char c : query.substr(4)) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  if (n < 1 || n > kMaxStatements) return std::nullopt;
  return n;
}

HttpResponse refusal(int status, const std::string& why) {
  return HttpResponse{status, "text/plain", why + "\n"};
}

}  // namespace

int main() {
  set_log_program("sched_floor");
  const std::string reply = render_scheduler_reply(fixed_reply());
  std::optional<ProjectConfig> config;  // read at the first request asking for round trips
  std::unique_ptr<Database> db;
  return serve_cgi_or_fastcgi(
      [&](const HttpRequest& request) {
        if (request.body_too_large) return refusal(413, "request too large");
        if (request.method != "POST") return refusal(405, "POST only");
        std::optional<int> statements = statements_asked(request.query_string);
        if (!statements) return refusal(400, "query must be empty or sql=N, 1 <= N <= 100");
        if (*statements > 0) {
          try {
            if (!config) {
              auto loaded = load_project_config(project_dir() + "/config.xml");
              if (!loaded.ok()) return refusal(500, "config.xml: " + loaded.error());
              config = *loaded;
            }
            if (!db) db = Database::open(config->db);
            db->transaction([&](Database& d) {
              for (int i = 0; i < *statements; ++i) fetch_user(d, 1);
            });
          } catch (const std::exception& e) {
            db.reset();
            log_error("round trips failed: ", e.what());
            return refusal(500, "database error");
          }
        }
        return HttpResponse{200, "text/xml", reply};
      },
      static_cast<size_t>(ProjectConfig{}.max_request_size));
}
