// file_upload_handler: BOINC's upload protocol as a CGI/FastCGI program, installed as
// <project>/cgi-bin/file_upload_handler (sched/lib/upload_handler.h). It reads the
// database settings of config.xml to find the result an upload belongs to, with the
// status pages' SELECT-only account when make_project made one (it only reads, and it
// faces hostile input); under FastCGI the connection is kept across requests. With
// --fastcgi_socket PATH --processes N it runs as a pool of FastCGI workers for Apache's
// mod_proxy_fcgi (sched/lib/serve_http.h).
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>

#include "db/database.h"
#include "db/upload_store.h"
#include "lib/config/project_config.h"
#include "lib/crypto/boinc_key.h"
#include "lib/crypto/openssl_setup.h"
#include "lib/log.h"
#include "lib/web/status_cgi.h"
#include "sched/lib/cgi_server.h"
#include "sched/lib/serve_http.h"
#include "sched/lib/upload_handler.h"

using namespace tharsis;

int main(int argc, char** argv) {
  set_log_program("file_upload_handler");
  set_up_openssl_for_short_runs();  // a CGI run signs or checks once: OpenSSL's start is its cost
  std::string dir =
      std::getenv("THARSIS_PROJECT_DIR")
          ? std::getenv("THARSIS_PROJECT_DIR")
          : std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path().string();
  auto config = load_project_config(dir + "/config.xml");
  auto key = config.ok() ? load_boinc_public_key(config->key_dir + "/upload_public")
                         : Result<RsaKey>(Error{config.error()});
  auto reply = [](const DataServerReply& r) {
    return HttpResponse{200, "text/plain", render_data_server_reply(r)};
  };
  if (!config.ok() || !key.ok()) {
    log_error("cannot start: ", !config.ok() ? config.error() : key.error());
    return serve_http(argc, argv, nullptr, "file_upload_handler", [&](const RequestHead&, BodyReader&) {
      return reply(DataServerReply{UploadStatus::TransientError, std::nullopt, "server misconfigured"});
    });
  }
  // A pool worker serves several uploads at once, one per thread (serve_http.h): they
  // share its one connection, one short read at a time.
  std::mutex db_mutex;
  std::unique_ptr<Database> db;
  OutputOwnerLookup lookup = [&](const std::string& result_name) -> std::optional<OutputOwner> {
    std::lock_guard lock(db_mutex);
    try {
      if (!db) {
        // The result may have been sent a moment ago through a scheduler on another node.
        DbConfig db_config = status_page_db(*config);
        db_config.causal_reads = true;
        db = Database::open(db_config);
      }
      auto row = fetch_upload_target(*db, result_name);
      if (!row) return std::nullopt;
      return output_owner_of(*row);
    } catch (...) {
      db.reset();  // reconnect at the next request
      throw;
    }
  };
  return serve_http(
      argc, argv, &*config, "file_upload_handler", [&](const RequestHead& head, BodyReader& body) {
        if (head.bad_content_length) {
          return reply(DataServerReply{UploadStatus::PermanentError, std::nullopt, "bad Content-Length"});
        }
        return reply(handle_upload_request(body, *config, *key, lookup));
      });
}
