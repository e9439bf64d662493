// Implementation of tools/lib/make_project.h.
#include "tools/lib/make_project.h"

#include <openssl/rand.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "db/database.h"
#include "db/schema_loader.h"
#include "lib/crypto/boinc_key.h"
#include "lib/crypto/rsa_key.h"
#include "lib/text_file.h"
#include "lib/web/html_escape.h"
#include "lib/work/fanout.h"

namespace tharsis {
namespace {

namespace fs = std::filesystem;

bool valid_short_name(const std::string& name) {
  if (name.empty()) return false;
  for (char ch : name) {
    bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
              ch == '-';
    if (!ok) return false;
  }
  return true;
}

Status make_dir(const std::string& path, mode_t mode) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) return make_error("cannot create directory " + path + ": " + ec.message());
  if (::chmod(path.c_str(), mode) != 0) return make_error("cannot set permissions of " + path);
  return Status::success();
}

// A fresh password for the status pages' read-only account: 24 random hex digits.
std::string random_password() {
  unsigned char bytes[12];
  if (RAND_bytes(bytes, sizeof bytes) != 1) throw std::runtime_error("RAND_bytes failed");
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

bool non_empty_directory(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return false;
  if (!fs::is_directory(path, ec)) return true;  // a file in the way counts as "exists"
  return fs::directory_iterator(path, ec) != fs::directory_iterator();
}

// Keeps the four key files if they all load; otherwise generates the missing pairs.
Status ensure_keys(const ProjectConfig& config, int key_bits) {
  const std::string& dir = config.key_dir;
  for (const char* pair : {"code_sign", "upload"}) {
    std::string private_path = dir + "/" + pair + "_private";
    std::string public_path = dir + "/" + pair + "_public";
    Result<RsaKey> existing = load_boinc_private_key(private_path);
    Result<RsaKey> existing_public = load_boinc_public_key(public_path);
    if (existing && existing_public && same_public_key(*existing, *existing_public)) continue;
    Result<RsaKey> key = generate_key_pair(key_bits);
    if (!key) return make_error(key.error());
    Status written = write_boinc_key_pair(*key, private_path, public_path);
    if (!written) return written;
  }
  return Status::success();
}

}  // namespace

// BOINC clients read the scheduler URLs from the master page, in either of these forms;
// with several scheduler hosts each is listed, and clients spread over them.
std::string render_master_page(const ProjectConfig& config) {
  std::string title = html_escape(config.long_name);
  std::string links, comments;
  for (const std::string& url : project_scheduler_urls(config)) {
    std::string scheduler = html_escape(url);
    links += "<link rel=\"boinc_scheduler\" href=\"" + scheduler + "\">\n";
    comments += "<!-- <scheduler>" + scheduler + "</scheduler> -->\n";
  }
  return "<!DOCTYPE html>\n<html>\n<head>\n<title>" + title + "</title>\n" + links + "</head>\n<body>\n" +
         comments + "<h1>" + title + "</h1>\n</body>\n</html>\n";
}

Result<ProjectConfig> make_project_config(const MakeProjectOptions& o) {
  if (o.project_dir.empty()) return make_error("--project_dir: expected a directory, found nothing");
  if (!valid_short_name(o.name)) {
    return make_error("--name: expected letters, digits, '_' or '-', found '" + o.name + "'");
  }
  std::string base = o.url_base;
  if (base.rfind("http://", 0) != 0 && base.rfind("https://", 0) != 0) {
    return make_error("--url_base: expected an http:// or https:// URL, found '" + base + "'");
  }
  if (base.back() != '/') base.push_back('/');
  if (o.key_bits < 512 || o.key_bits > kBoincMaxKeyBits) {
    return make_error(
        "--key_bits: expected 512..1024 (BOINC key files and the stock client hold "
        "at most 1024-bit keys), found " +
        std::to_string(o.key_bits));
  }
  if (o.uldl_dir_fanout < 1) {
    return make_error("--uldl_dir_fanout: expected a positive integer, found " +
                      std::to_string(o.uldl_dir_fanout));
  }
  if (o.db.name.empty()) return make_error("--db_name: expected a database name, found nothing");
  if (o.db.user.empty()) return make_error("--db_user: expected a database user, found nothing");
  if (o.db.port < 0 || o.db.port > 65535) {
    return make_error("--db_port: expected 0..65535, found " + std::to_string(o.db.port));
  }

  ProjectConfig c;
  c.name = o.name;
  c.long_name = o.long_name.empty() ? o.name : o.long_name;
  c.master_url = base + o.name + "/";
  c.download_url = base + o.name + "/download";
  c.cgi_url = base + o.name + "_cgi/";
  c.upload_url = c.cgi_url + "file_upload_handler";
  for (const std::string& url : o.scheduler_urls) {
    if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0)
      return make_error("--scheduler_url: expected an http:// or https:// URL, found '" + url + "'");
    if (std::find(c.scheduler_urls.begin(), c.scheduler_urls.end(), url) == c.scheduler_urls.end())
      c.scheduler_urls.push_back(url);
  }
  c.db = o.db;
  c.project_dir = fs::absolute(o.project_dir).lexically_normal().string();
  while (c.project_dir.size() > 1 && c.project_dir.back() == '/') c.project_dir.pop_back();
  c.download_dir = c.project_dir + "/download";
  c.upload_dir = c.project_dir + "/upload";
  c.key_dir = c.project_dir + "/keys";
  c.log_dir = c.project_dir + "/log";
  c.pid_dir = c.project_dir + "/pid";
  c.tmp_dir = c.project_dir + "/tmp";
  c.uldl_dir_fanout = o.uldl_dir_fanout;
  // The clusterer idles (one query per pass) until tasks are submitted with submit_tasks;
  // the census counts for the status pages every <census_interval> s.
  for (const char* daemon : {"transitioner", "validator", "assimilator", "file_deleter", "graph_scheduler",
                             "clusterer", "census"}) {
    c.daemons.push_back(DaemonConfig{std::string(daemon) + " --sleep 5", false});
  }
  if (o.fastcgi_pool < 0 || o.fastcgi_pool > 256)
    return make_error("--fastcgi_pool: 0 (none) to 256 workers, found " + std::to_string(o.fastcgi_pool));
  if (o.fastcgi_pool > 0) {
    for (const char* program : {"scheduler", "file_upload_handler"}) {
      c.daemons.push_back(DaemonConfig{std::string(program) + " --fastcgi_socket " + c.project_dir + "/run/" +
                                           program + ".sock --processes " + std::to_string(o.fastcgi_pool),
                                       false});
    }
  }
  return c;
}

std::string fastcgi_pool_socket(const ProjectConfig& config, const std::string& program) {
  for (const auto& daemon : config.daemons) {
    std::istringstream words(daemon.cmd);
    std::string first, option, socket;
    words >> first;
    if (first != program) continue;
    while (words >> option) {
      if (option == "--fastcgi_socket" && words >> socket) return socket;
    }
  }
  return "";
}

std::string read_only_user_name(const std::string& db_name) { return db_name + "_web"; }

std::string render_httpd_conf(const ProjectConfig& c) {
  const std::string& p = c.project_dir;
  const std::string& n = c.name;
  auto dir_block = [](const std::string& dir, const std::string& body) {
    return "<Directory \"" + dir + "\">\n" + body + "</Directory>\n\n";
  };
  const std::string fcgi_limit = std::to_string(kFastCgiMaxRequestBytes);
  std::string out = "# Apache httpd include for Tharsis project '" + n +
                    "', written by make_project.\n"
                    "# The including server provides Listen (127.0.0.1 only), ServerRoot and the modules\n"
                    "# alias, cgid, fcgid, mime, dir and authz_core; this file maps URLs to directories.\n\n";
  out +=
      "# mod_fcgid reads a whole request body before its program sees any of it, and answers\n"
      "# a body over FcgidMaxRequestLen with its own HTML error page instead of the program's\n"
      "# answer. So a request to a FastCGI program over that size, or with a chunked body (no\n"
      "# Content-Length), runs the same binary as a plain CGI (below), which streams the body\n"
      "# and answers in the protocol (the programs' own limits are config.xml's\n"
      "# <max_request_size> and <max_upload_size>). Do not set a smaller FcgidMaxRequestLen\n"
      "# after this include: requests between the two sizes would get Apache's error page.\n"
      "<IfModule fcgid_module>\n  FcgidMaxRequestLen " +
      fcgi_limit + "\n</IfModule>\n\n";
  // Alias order matters (the first match wins): the longer /<name>/... before /<name>.
  // BOINC's URLs for remote job submission (docs/remote_submission.md): its submit clients
  // build them from the project's URL.
  for (const auto& [url, program] :
       {std::pair{"submit_rpc_handler.php", "submit_rpc"}, std::pair{"job_file.php", "job_file"},
        std::pair{"get_output.php", "get_output"}, std::pair{"server_status.php", "server_status"}}) {
    out += "ScriptAlias \"/" + n + "/" + url + "\" \"" + p + "/cgi-bin/" + program + "\"\n";
  }
  out += "Alias \"/" + n + "/download\" \"" + p + "/download\"\n";
  out += "ScriptAlias \"/" + n + "_cgi/\" \"" + p + "/cgi-bin/\"\n";
  // FastCGI pools (config.xml's <daemons>): each its own worker name, since mod_proxy would
  // otherwise hand one pool's requests to another of the same name; retry=0, since by
  // default a pool that was down a moment (a restart) would get no request for 60 s.
  for (const auto& [program, urls] :
       {std::pair{"scheduler", "f?cgi"}, std::pair{"file_upload_handler", "file_upload_handler(\\.fcgi)?"}}) {
    std::string socket = fastcgi_pool_socket(c, program);
    if (socket.empty()) continue;
    out += "ProxyPassMatch \"^/" + n + "_cgi/" + urls + "$\" \"unix:" + socket + "|fcgi://" + n + "-" +
           program + "/\" retry=0\n";
  }
  out += "Alias \"/" + n + "_ops\" \"" + p + "/html/ops\"\n";
  out += "Alias \"/" + n + "\" \"" + p + "/html/user\"\n\n";
  out += dir_block(p + "/download", "  Options None\n  AllowOverride None\n  Require all granted\n");
  out += dir_block(p + "/cgi-bin",
                   "  Options +ExecCGI\n  AllowOverride None\n  Require all granted\n"
                   "  # The scheduler built for FastCGI is installed as \"fcgi\" (or *.fcgi).\n"
                   "  <IfModule fcgid_module>\n"
                   "    <FilesMatch \"^(fcgi|.*\\.fcgi)$\">\n"
                   "      SetHandler fcgid-script\n"
                   "      <If \"-n req('Transfer-Encoding') || req('Content-Length') -gt " +
                       fcgi_limit +
                       "\">\n"
                       "        SetHandler cgi-script\n"
                       "      </If>\n"
                       "    </FilesMatch>\n"
                       "  </IfModule>\n");
  out += dir_block(p + "/html/user",
                   "  Options None\n  AllowOverride None\n  DirectoryIndex index.html\n"
                   "  Require all granted\n");
  out += dir_block(p + "/html/ops",
                   "  Options None\n  AllowOverride None\n  DirectoryIndex index.html\n"
                   "  # Admin pages: from this machine only (needs mod_authz_host; without it the\n"
                   "  # server is expected to listen on 127.0.0.1 only).\n"
                   "  <IfModule authz_host_module>\n    Require local\n  </IfModule>\n"
                   "  <IfModule !authz_host_module>\n    Require all granted\n  </IfModule>\n");
  return out;
}

Result<ProjectConfig> make_project(const MakeProjectOptions& options) {
  Result<ProjectConfig> made = make_project_config(options);
  if (!made) return made;
  if (!options.no_db) {
    // The status pages read the database with an account that can only SELECT.
    made->other["web_db_user"] = read_only_user_name(options.db.name);
    made->other["web_db_passwd"] = random_password();
  }
  const ProjectConfig& c = *made;
  if (non_empty_directory(c.project_dir) && !options.force) {
    return make_error("project directory " + c.project_dir +
                      " already exists and is not empty; use --force to reuse it");
  }

  for (const std::string& dir :
       {c.project_dir, c.download_dir, c.upload_dir, c.log_dir, c.pid_dir, c.tmp_dir, c.project_dir + "/run",
        c.project_dir + "/bin", c.project_dir + "/cgi-bin", c.project_dir + "/apps",
        c.project_dir + "/templates", c.project_dir + "/html/user", c.project_dir + "/html/ops"}) {
    Status s = make_dir(dir, 0755);
    if (!s) return make_error(s.error());
  }
  // keys/ stays searchable: the upload handler, run by the web server's user, reads
  // upload_public; the private key files themselves are 0600.
  Status keys_dir = make_dir(c.key_dir, 0755);
  if (!keys_dir) return make_error(keys_dir.error());
  for (const std::string& hashed : {c.download_dir, c.upload_dir}) {
    Status s = create_fanout_dirs(hashed, c.uldl_dir_fanout);
    if (!s) return make_error(s.error());
  }
  Status keys = ensure_keys(c, options.key_bits);
  if (!keys) return make_error(keys.error());

  // config.xml must be readable by the CGI programs, which run as the web server's user.
  for (const auto& [path, text, mode] :
       {std::tuple{c.project_dir + "/config.xml", render_project_config(c), mode_t{0644}},
        std::tuple{c.project_dir + "/" + c.name + ".httpd.conf", render_httpd_conf(c), mode_t{0644}},
        std::tuple{c.project_dir + "/html/user/index.html", render_master_page(c), mode_t{0644}}}) {
    Status s = write_text_file(path, text, mode);
    if (!s) return make_error(s.error());
  }
  if (!options.no_db) {
    try {
      create_database(options.db, options.db.name);
      create_read_only_user(options.db, options.db.name, c.other.at("web_db_user"),
                            c.other.at("web_db_passwd"));
    } catch (const DbError& e) {
      return make_error("project files written to " + c.project_dir + ", but creating database '" +
                        options.db.name + "' failed: " + e.what() + "; fix that and rerun with --force");
    }
  }
  return made;
}

}  // namespace tharsis
