// A private Apache serving a TestProject on 127.0.0.1 (scripts/private_apache.sh) with the
// scheduler installed as cgi-bin/cgi and cgi-bin/fcgi and the upload handler as
// cgi-bin/file_upload_handler, as a BOINC project has them, the status pages (server_status,
// graphs, reclustering, volunteers) in cgi-bin/ and tharsis.css in html/user/; remote submission
// (cgi-bin/submit_rpc, submit_rpc.fcgi, and <name>/submit_rpc_handler.php aliased to it); and a small HTTP
// POST helper (libcurl) for tests that speak the protocols by hand.
#pragma once

#include <string>
#include <vector>

#include "tests/support/test_project.h"

namespace tharsis::testing {

class TestWebServer {
 public:
  // port 0: a random free one (retried on collision); otherwise exactly `port`. A second
  // server of one project (another scheduler host) needs its own `instance` name (its
  // state dir under the project's temp dir); `extra_config` lines are loaded before the
  // project's include (e.g. which database node its CGIs use).
  explicit TestWebServer(const TestProject& project, int port = 0, const std::string& instance = "apache",
                         const std::vector<std::string>& extra_config = {});
  ~TestWebServer();
  int port() const { return port_; }
  std::string url(const std::string& path) const;  // http://127.0.0.1:<port>/<path>
  // Apache's access log: one line per request, "%h %t \"%r\" %>s %b %D".
  std::string access_log() const { return dir_ + "/access.log"; }
  // Apache's error log, where the CGIs' stderr (their log lines) goes.
  std::string error_log() const { return dir_ + "/error.log"; }
  // An outage: halt() stops Apache (the port refuses connections), start() serves again
  // on the same port. Throws when Apache does not come back.
  void halt();
  void start();

 private:
  std::string dir_;
  std::string includes_;  // the httpd config files, space-separated: the extra one, then the project's
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

// A submit RPC's POST body: `xml` as the field `request`, application/x-www-form-urlencoded
// as lib/submit_api.py sends it (all but RFC 3986's unreserved characters percent-encoded;
// curl_easy_escape stops at 8 MB, requests here go beyond).
std::string submit_form(const std::string& xml);

}  // namespace tharsis::testing
