// A private Apache serving a TestProject on 127.0.0.1 (scripts/private_apache.sh) with the
// scheduler installed as cgi-bin/cgi and cgi-bin/fcgi and the upload handler as
// cgi-bin/file_upload_handler, as a BOINC project has them, the status pages (server_status,
// graphs, reclustering, volunteers) in cgi-bin/ and tharsis.css in html/user/; remote submission
// (cgi-bin/submit_rpc, submit_rpc.fcgi, and <name>/submit_rpc_handler.php aliased to it); and a small HTTP POST helper
// (libcurl) for tests that speak the protocols by hand.
#pragma once

#include <string>

#include "tests/support/test_project.h"

namespace tharsis::testing {

class TestWebServer {
 public:
  // port 0: a random free one (retried on collision); otherwise exactly `port`.
  explicit TestWebServer(const TestProject& project, int port = 0);
  ~TestWebServer();
  int port() const { return port_; }
  std::string url(const std::string& path) const;  // http://127.0.0.1:<port>/<path>
  // An outage: halt() stops Apache (the port refuses connections), start() serves again
  // on the same port. Throws when Apache does not come back.
  void halt();
  void start();

 private:
  std::string dir_;
  std::string include_;  // the project's httpd config
  int port_ = 0;
};

struct HttpResult {
  long status = 0;
  std::string body;
  std::string error;  // transport error, empty on success
};

// A TCP port on 127.0.0.1 that nothing listened on a moment ago (bind to port 0).
int free_local_port();

HttpResult http_post(const std::string& url, const std::string& body);
HttpResult http_get(const std::string& url);

}  // namespace tharsis::testing
