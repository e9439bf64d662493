// file_upload_handler: BOINC's upload protocol as a CGI/FastCGI program, installed as
// <project>/cgi-bin/file_upload_handler (sched/lib/upload_handler.h).
#include <cstdlib>
#include <filesystem>

#include "lib/crypto/boinc_key.h"
#include "lib/log.h"
#include "lib/project_config.h"
#include "sched/lib/cgi_server.h"
#include "sched/lib/upload_handler.h"

using namespace tharsis;

int main() {
  set_log_program("file_upload_handler");
  std::string dir = std::getenv("THARSIS_PROJECT_DIR")
                        ? std::getenv("THARSIS_PROJECT_DIR")
                        : std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path().string();
  auto config = load_project_config(dir + "/config.xml");
  auto key = config.ok() ? load_boinc_public_key(config->key_dir + "/upload_public") : Result<RsaKey>(Error{config.error()});
  auto reply = [](const DataServerReply& r) { return HttpResponse{200, "text/plain", render_data_server_reply(r)}; };
  if (!config.ok() || !key.ok()) {
    log_error("cannot start: ", !config.ok() ? config.error() : key.error());
    return serve_cgi_or_fastcgi(
        [&](const HttpRequest&) {
          return reply(DataServerReply{UploadStatus::TransientError, std::nullopt, "server misconfigured"});
        },
        1 << 16);
  }
  size_t max_body = static_cast<size_t>(config->max_upload_size) + 65536;  // file + header
  return serve_cgi_or_fastcgi(
      [&](const HttpRequest& request) {
        if (request.body_too_large) {
          return reply(DataServerReply{UploadStatus::PermanentError, std::nullopt, "upload too large"});
        }
        if (request.body_truncated) {
          return reply(DataServerReply{UploadStatus::TransientError, std::nullopt, "request cut short"});
        }
        return reply(handle_upload_request(request.body, *config, *key));
      },
      max_body);
}
