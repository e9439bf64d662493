// scheduler: BOINC's scheduler RPC as a CGI or FastCGI program (one binary; installed as
// cgi-bin/cgi and cgi-bin/fcgi). The project is the parent of the program's directory
// (BOINC's layout: <project>/cgi-bin/cgi), or $THARSIS_PROJECT_DIR. Started with
// --fastcgi_socket PATH --processes N it is instead a pool of FastCGI workers on that
// socket for Apache's mod_proxy_fcgi (sched/lib/serve_http.h).
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "db/database.h"
#include "db/schema_migrations.h"
#include "lib/config/project_config.h"
#include "lib/crypto/boinc_key.h"
#include "lib/crypto/openssl_setup.h"
#include "lib/log.h"
#include "lib/protocol/scheduler_reply.h"
#include "lib/text_file.h"
#include "sched/lib/candidate_cache.h"
#include "sched/lib/cgi_server.h"
#include "sched/lib/fastcgi_pool.h"
#include "sched/lib/rpc/group_plan.h"
#include "sched/lib/rpc/grouped_rpc.h"
#include "sched/lib/rpc/scheduler_rpc.h"
#include "sched/lib/serve_http.h"

using namespace tharsis;

namespace {

std::string project_dir() {
  if (const char* env = std::getenv("THARSIS_PROJECT_DIR")) return env;
  return std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path().string();
}

HttpResponse xml(const SchedulerReply& reply) {
  return HttpResponse{200, "text/xml", render_scheduler_reply(reply)};
}

}  // namespace

int main(int argc, char** argv) {
  set_log_program("scheduler");
  set_up_openssl_for_short_runs();  // a CGI run signs or checks once: OpenSSL's start is its cost
  std::string dir = project_dir();
  auto config = load_project_config(dir + "/config.xml");
  auto upload_key = config.ok() ? load_boinc_private_key(config->key_dir + "/upload_private")
                                : Result<RsaKey>(Error{config.error()});
  auto code_sign_text = config.ok() ? read_text_file(config->key_dir + "/code_sign_public")
                                    : Result<std::string>(std::string());
  std::string code_sign = code_sign_text.ok() ? *code_sign_text : std::string();
  if (!config.ok() || !upload_key.ok()) {
    std::string why = !config.ok() ? config.error() : upload_key.error();
    log_error("cannot start: ", why);
    return serve_http(
        argc, argv, nullptr, "scheduler",
        [&](const HttpRequest&) {
          return xml(make_error_reply("Tharsis", "Project is misconfigured", 3600));
        },
        1 << 20);
  }
  AppVersionCache app_versions;  // a FastCGI process's, across its requests
  QueueHeadMemory queue_head;    // likewise
  SchedulerContext context{*config, *upload_key, code_sign, ProtocolLimits{}, &app_versions, &queue_head};
  context.limits.max_request_bytes = static_cast<size_t>(config->max_request_size);
  // A pool worker takes candidates from its part of the queue, kept in memory; a CGI run or
  // a mod_fcgid process (which knows nothing of its neighbours) reads and locks them.
  std::optional<CandidateCache> candidates;
  std::unique_ptr<Database> db;
  bool schema_checked = false;  // for db's connection
  std::string project = config->long_name.empty() ? config->name : config->long_name;
  // Between requests, a pool worker reads its part of the queue ahead, in a transaction of
  // its own, once its connection has passed the schema check (candidate_cache.h).
  auto read_ahead = [&] {
    CandidateCache* cache = context.candidate_cache;
    const int64_t now = std::time(nullptr);
    if (!cache || !db || !schema_checked || !cache->read_ahead_due(now)) return;
    try {
      db->transaction([&](Database& d) { refill_candidate_cache(d, *cache, now); });
    } catch (const std::exception& e) {
      db.reset();  // the next request reconnects, as after a failed request
      log_error("reading the queue ahead failed: ", e.what());
    }
  };
  auto serve_one = [&](const HttpRequest& request) {
    if (request.body_too_large) {
      return xml(make_error_reply(project, "Request too large", 3600));
    }
    if (request.method != "POST") {
      return xml(make_error_reply(project, "Scheduler requests must be POSTed", 3600));
    }
    if (!context.candidate_cache) {
      if (auto slot = pool_worker_slot()) {
        context.candidate_cache = &candidates.emplace(QueuePart{slot->count, slot->index});
      }
    }
    try {
      if (!db) {
        // Every statement of an RPC runs in its one transaction: no START TRANSACTION.
        DbConfig db_config = config->db;
        db_config.implicit_begin = true;
        db = Database::open(db_config);
        schema_checked = false;
      }
      // This build's queries may need what an older schema lacks: answer as BOINC's
      // "down for maintenance" until upgrade_db has run. Checked once per connection,
      // inside its first RPC's transaction (no commit of its own, as CGI paid per run).
      std::string problem;
      ConnectionCheck check;
      if (!schema_checked) {
        check = [&](Database& d) {
          problem = schema_version_problem(d, config->project_dir);
          schema_checked = problem.empty();
          return schema_checked;
        };
      }
      SchedulerReply reply = handle_scheduler_request(request.body, *db, context, std::time(nullptr), check);
      if (!problem.empty()) {
        db.reset();
        log_error("refusing requests: ", problem);
      }
      return xml(reply);
    } catch (const std::exception& e) {
      db.reset();
      log_error("request failed: ", e.what());
      return xml(make_error_reply(project, "Server error; please try again later", 600));
    }
  };
  // A pool worker's requests that waited together (grouped_rpc.h), once its connection has
  // passed the schema check (the first request's, served alone); what the group leaves,
  // and all of a group that failed, served one by one.
  auto serve_group = [&](const std::vector<HttpRequest>& requests) {
    std::vector<std::optional<SchedulerReply>> replies(requests.size());
    std::vector<size_t> posted;
    std::vector<std::string> bodies;
    for (size_t i = 0; i < requests.size(); ++i) {
      if (requests[i].body_too_large || requests[i].method != "POST") continue;
      posted.push_back(i);
      bodies.push_back(requests[i].body);
    }
    if (posted.size() > 1 && db && schema_checked) {
      try {
        auto grouped = handle_scheduler_group(bodies, *db, context, std::time(nullptr));
        for (size_t k = 0; k < posted.size(); ++k) replies[posted[k]] = std::move(grouped[k]);
      } catch (const std::exception& e) {
        db.reset();
        log_error("a group of ", bodies.size(), " requests failed, serving them one by one: ", e.what());
      }
    }
    std::vector<HttpResponse> responses;
    for (size_t i = 0; i < requests.size(); ++i)
      responses.push_back(replies[i] ? xml(*replies[i]) : serve_one(requests[i]));
    return responses;
  };
  return serve_http(argc, argv, &*config, "scheduler", serve_one, serve_group,
                    static_cast<size_t>(config->max_request_size), kMaxGroupRequests, read_ahead);
}
