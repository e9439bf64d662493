// make_project: creates a project directory in BOINC's layout, ready for a web server and
// the daemons. Library part of tools/make_project, so tests can run it into a temp dir.
//
// Layout under project_dir (all made up front):
//   config.xml                 rendered from make_project_config()
//   <name>.httpd.conf          Apache include (render_httpd_conf)
//   keys/                      code_sign_{private,public}, upload_{private,public} in BOINC's
//                              text format (lib/crypto/boinc_key.h); private ones mode 0600
//   download/, upload/         with all uldl_dir_fanout hashed subdirectories created now
//                              (lib/work/fanout.h), so every writer, including the web server's
//                              user, finds them in place; writers still create on demand
//   bin/ cgi-bin/ apps/ templates/ html/user/ html/ops/
//   log/ pid/ tmp/             BOINC's log_<host>/ and pid_<host>/ are one log/ and pid/ here
//   html/user/index.html       master page naming the scheduler (<cgi_url>cgi) the way
//                              BOINC clients look for it
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/config/db_config.h"
#include "lib/config/project_config.h"
#include "lib/result.h"

namespace tharsis {

struct MakeProjectOptions {
  std::string project_dir;  // made absolute
  std::string name;         // short name: letters, digits, '_' and '-'
  std::string long_name;    // defaults to name
  std::string url_base;     // e.g. "http://127.0.0.1:8080/" ('/' appended if missing)
  DbConfig db{"localhost", 3306, "", "", "", ""};
  int key_bits = 1024;  // 512..1024: BOINC's key files hold at most 1024-bit keys
  int uldl_dir_fanout = 1024;
  bool force = false;  // reuse an existing, non-empty project_dir (see make_project)
  bool no_db = false;  // do not create the database
  // Scheduler hosts' URLs for the master page (<scheduler_urls>); none: <cgi_url>cgi.
  std::vector<std::string> scheduler_urls;
  // Above 0: the scheduler and the upload handler also run as FastCGI pools of this many
  // workers each (sched/lib/fastcgi_pool.h), two more <daemon>s on sockets in run/, and the
  // include sends their URLs there through mod_proxy_fcgi (see render_httpd_conf).
  int fastcgi_pool = 0;
};

// The configuration make_project writes, following BOINC's make_project URLs:
//   master_url   = url_base + name + "/"
//   download_url = url_base + name + "/download"
//   cgi_url      = url_base + name + "_cgi/"
//   upload_url   = cgi_url + "file_upload_handler"
// directories under project_dir, and the daemons transitioner, validator, assimilator,
// file_deleter, graph_scheduler, clusterer and census (the status pages' counts), each
// "--sleep 5". Fails on invalid options (one line naming the option).
Result<ProjectConfig> make_project_config(const MakeProjectOptions& options);

// The master page (html/user/index.html): the project's name and every scheduler URL of
// project_scheduler_urls(config), in both forms BOINC clients look for (<scheduler> in a
// comment, <link rel="boinc_scheduler">).
std::string render_master_page(const ProjectConfig& config);

inline constexpr int64_t kFastCgiMaxRequestBytes = int64_t{16} << 20;

// The Apache include for a project. It maps URLs to directories, sets access and the
// FastCGI body limit (below); the including server provides Listen (127.0.0.1),
// ServerRoot and the modules (alias, cgid, fcgid, mime, dir, authz_core), as
// scripts/private_apache.sh does:
//   /<name>/download -> download/   static files
//   /<name>_cgi/     -> cgi-bin/    CGI programs; a program named "fcgi" or "*.fcgi"
//                                   runs under mod_fcgid instead (FastCGI)
//   /<name>_ops/     -> html/ops/   admin pages, from the local host only
//   /<name>/         -> html/user/  public pages
// A FastCGI program ("fcgi", "*.fcgi") serves requests up to kFastCgiMaxRequestBytes
// (the include sets mod_fcgid's FcgidMaxRequestLen to it, for the server or virtual host
// it is included in); a larger or chunked request runs the same program as a plain CGI
// (an <If> on the request's headers, Apache core), which streams the body, so every size
// gets an answer in the protocol. The one place for that size; it is independent of the
// programs' own limits in config.xml (<max_request_size>, <max_upload_size>).
// When config.xml runs the scheduler or the upload handler as a FastCGI pool (a <daemon>
// "scheduler --fastcgi_socket S ..."), the include sends that program's URLs (cgi and fcgi;
// file_upload_handler and its .fcgi) to the pool's socket instead (ProxyPassMatch; the
// server must load mod_proxy and mod_proxy_fcgi): every worker exists up front, where
// mod_fcgid would hold a request for a second whenever its processes are all busy.
std::string render_httpd_conf(const ProjectConfig& config);

// The socket a <daemon> of config.xml runs `program` as a FastCGI pool on, or "" when none.
std::string fastcgi_pool_socket(const ProjectConfig& config, const std::string& program);

// The read-only account make_project creates for the status pages: "<db_name>_web".
std::string read_only_user_name(const std::string& db_name);

// Creates the project. An existing non-empty project_dir is refused (message names it and
// --force) unless options.force: then config.xml, the httpd include and index.html are
// rewritten, missing directories created, and existing valid key files kept (as BOINC's
// make_project does, so files already signed stay valid); missing keys are generated.
// Unless no_db, then creates database options.db.name (if missing) and loads db/schema.sql
// into it (db/schema_loader.h), connecting with options.db, which therefore needs the right
// to create databases and users; and creates the status pages' read-only account
// (read_only_user_name, SELECT only, a fresh random password; <web_db_user> and
// <web_db_passwd> in config.xml). With no_db, those entries are absent and the pages read
// with <db_user>. Returns the written config.
Result<ProjectConfig> make_project(const MakeProjectOptions& options);

}  // namespace tharsis
