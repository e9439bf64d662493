// Implementation of tests/support/test_web_server.h.
#include "tests/support/test_web_server.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>

#include "tests/support/child_process.h"

namespace tharsis::testing {
namespace {

namespace fs = std::filesystem;

std::string apache_script() { return std::string(THARSIS_SOURCE_DIR) + "/scripts/private_apache.sh"; }

size_t collect(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

HttpResult perform(const std::string& url, const std::string* body) {
  HttpResult result;
  CURL* curl = curl_easy_init();
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &result.body);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 30L);
  if (body) {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body->data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body->size()));
  }
  CURLcode code = curl_easy_perform(curl);
  if (code != CURLE_OK) result.error = curl_easy_strerror(code);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &result.status);
  curl_easy_cleanup(curl);
  return result;
}

}  // namespace

TestWebServer::TestWebServer(const TestProject& project, int fixed_port, const std::string& instance,
                             const std::vector<std::string>& extra_config) {
  const ProjectConfig& c = project.config();
  std::string bin = built_programs_dir();
  fs::copy_file(bin + "/scheduler", c.project_dir + "/cgi-bin/cgi", fs::copy_options::overwrite_existing);
  fs::copy_file(bin + "/scheduler", c.project_dir + "/cgi-bin/fcgi", fs::copy_options::overwrite_existing);
  fs::copy_file(bin + "/file_upload_handler", c.project_dir + "/cgi-bin/file_upload_handler",
                fs::copy_options::overwrite_existing);
  // Remote job submission, reached as <master_url>submit_rpc_handler.php through the alias
  // below (make_project does not write it yet; docs/remote_submission.md#install).
  if (fs::exists(bin + "/submit_rpc")) {
    fs::copy_file(bin + "/submit_rpc", c.project_dir + "/cgi-bin/submit_rpc",
                  fs::copy_options::overwrite_existing);
    fs::copy_file(bin + "/submit_rpc", c.project_dir + "/cgi-bin/submit_rpc.fcgi",
                  fs::copy_options::overwrite_existing);
  }
  for (const char* program : {"get_output", "job_file"}) {
    if (fs::exists(bin + "/" + program)) {
      fs::copy_file(bin + "/" + program, c.project_dir + "/cgi-bin/" + program,
                    fs::copy_options::overwrite_existing);
    }
  }
  // The status pages and their stylesheet, where BOINC keeps web pages.
  for (const char* page : {"server_status", "graphs", "reclustering", "volunteers"}) {
    if (fs::exists(bin + "/" + page)) {
      fs::copy_file(bin + "/" + page, c.project_dir + "/cgi-bin/" + page,
                    fs::copy_options::overwrite_existing);
    }
  }
  fs::copy_file(std::string(THARSIS_SOURCE_DIR) + "/html/tharsis.css",
                c.project_dir + "/html/user/tharsis.css", fs::copy_options::overwrite_existing);
  if (getuid() == 0) {
    // Apache runs its CGIs as www-data: give it the project (keys, config, upload/).
    std::string command = "chmod 755 " + project.dir() + " && chown -R www-data: " + c.project_dir;
    if (std::system(command.c_str()) != 0) throw std::runtime_error("cannot hand the project to www-data");
  }
  dir_ = project.dir() + "/" + instance;
  includes_ = c.project_dir + "/" + c.name + ".httpd.conf";
  if (!extra_config.empty()) {
    fs::create_directories(dir_);
    std::string extra = dir_ + "/extra.conf";
    std::ofstream out(extra);
    for (const auto& line : extra_config) out << line << "\n";
    includes_ = extra + " " + includes_;
  }
  std::random_device random;
  for (int attempt = 0; attempt < 5 && port_ == 0; ++attempt) {
    int port = fixed_port != 0 ? fixed_port : 20000 + static_cast<int>(random() % 20000);
    std::string command = apache_script() + " start " + dir_ + " " + std::to_string(port) + " " + includes_ +
                          " >/dev/null 2>&1";
    if (std::system(command.c_str()) == 0) port_ = port;
  }
  if (port_ == 0) throw std::runtime_error("cannot start Apache; see " + dir_ + "/error.log");
}

TestWebServer::~TestWebServer() { halt(); }

void TestWebServer::halt() {
  std::string command = apache_script() + " stop " + dir_ + " >/dev/null 2>&1";
  if (std::system(command.c_str()) != 0) {
    // Nothing more to do: the temp dir goes with the project.
  }
}

void TestWebServer::start() {
  std::string command =
      apache_script() + " start " + dir_ + " " + std::to_string(port_) + " " + includes_ + " >/dev/null 2>&1";
  if (std::system(command.c_str()) != 0)
    throw std::runtime_error("cannot restart Apache; see " + dir_ + "/error.log");
}

std::string TestWebServer::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + "/" + path;
}

int free_local_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("free_local_port: no socket");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  bool ok = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
            getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  close(fd);
  if (!ok) throw std::runtime_error("free_local_port: cannot bind 127.0.0.1:0");
  return ntohs(address.sin_port);
}

HttpResult http_post(const std::string& url, const std::string& body) { return perform(url, &body); }
HttpResult http_get(const std::string& url) { return perform(url, nullptr); }

std::string submit_form(const std::string& xml) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string body = "request=";
  body.reserve(xml.size() * 3 / 2 + 16);
  for (unsigned char c : xml) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      body += static_cast<char>(c);
    } else {
      body += '%';
      body += kHex[c >> 4];
      body += kHex[c & 15];
    }
  }
  return body;
}

}  // namespace tharsis::testing
