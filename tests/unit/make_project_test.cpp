// make_project into a temp dir (--no_db): BOINC layout, usable keys, a config.xml that
// parses back, an Apache include that Apache accepts, refusal to clobber, and --force.
#include "tools/lib/make_project.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "lib/crypto/boinc_key.h"
#include "lib/crypto/boinc_signature.h"
#include "lib/text_file.h"
#include "lib/work/fanout.h"

namespace tharsis::make_project_test {
namespace {

namespace fs = std::filesystem;

class MakeProjectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("tharsis_mkproj_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    options_.project_dir = (root_ / "proj").string();
    options_.name = "demo";
    options_.url_base = "http://127.0.0.1:8123";
    options_.db.user = "boincadm";
    options_.db.name = "demo_db";
    options_.db.socket = "/tmp/db.sock";
    options_.uldl_dir_fanout = 16;
    options_.no_db = true;
  }
  void TearDown() override { fs::remove_all(root_); }

  std::string in_project(const std::string& rel) const { return options_.project_dir + "/" + rel; }

  static bool apache_installed() { return ::access("/usr/sbin/apache2", X_OK) == 0; }
  // `apache2 -t` on a server that includes the project's httpd include, with the modules
  // scripts/private_apache.sh loads for a project and `extra_modules`.
  bool passes_apache_config_test(const std::vector<std::string>& extra_modules, std::string& log) const {
    std::string server = (root_ / "httpd.conf").string();
    std::string text = "ServerRoot " + root_.string() + "\nServerName 127.0.0.1\n" +
                       "Listen 127.0.0.1:1\nErrorLog /dev/null\nPidFile " + (root_ / "httpd.pid").string() +
                       "\n";
    std::vector<std::string> modules{"mpm_event", "authz_core", "alias", "mime", "dir", "cgid", "fcgid"};
    modules.insert(modules.end(), extra_modules.begin(), extra_modules.end());
    for (const auto& m : modules)
      text += "LoadModule " + m + "_module /usr/lib/apache2/modules/mod_" + m + ".so\n";
    text += "Include " + in_project("demo.httpd.conf") + "\n";
    if (!write_text_file(server, text).ok()) return false;
    std::string command = "/usr/sbin/apache2 -t -f " + server + " >" + (root_ / "t.log").string() + " 2>&1";
    bool passed = std::system(command.c_str()) == 0;
    auto out = read_text_file((root_ / "t.log").string());
    log = out.ok() ? *out : "";
    return passed;
  }

  fs::path root_;
  MakeProjectOptions options_;
};

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 0777;
}

TEST_F(MakeProjectTest, MakeProject_CreatesBoincLayout) {
  auto made = make_project(options_);
  ASSERT_TRUE(made.ok()) << made.error();
  for (const char* dir : {"download", "upload", "keys", "bin", "cgi-bin", "html/user", "html/ops", "log",
                          "pid", "tmp", "apps", "templates"}) {
    EXPECT_TRUE(fs::is_directory(in_project(dir))) << dir;
  }
  for (const char* hashed : {"download", "upload"}) {
    EXPECT_TRUE(fs::is_directory(in_project(std::string(hashed) + "/0")));
    EXPECT_TRUE(fs::is_directory(in_project(std::string(hashed) + "/f")));
    EXPECT_FALSE(fs::exists(in_project(std::string(hashed) + "/10")));  // fanout 16: 0..f
  }
  EXPECT_EQ(fanout_path(made->download_dir, "x", made->uldl_dir_fanout),
            in_project("download/" + fanout_dir("x", 16) + "/x"));
}

TEST_F(MakeProjectTest, MakeProject_KeysLoadAndSignVerify) {
  ASSERT_TRUE(make_project(options_).ok());
  EXPECT_EQ(mode_of(in_project("keys/code_sign_private")), 0600u);
  EXPECT_EQ(mode_of(in_project("keys/upload_private")), 0600u);
  auto keys = load_boinc_key_files(in_project("keys"));
  ASSERT_TRUE(keys.ok()) << keys.error();
  EXPECT_EQ(keys->upload_private.bits(), 1024);
  EXPECT_FALSE(same_public_key(keys->upload_public, keys->code_sign_public));

  std::string app = in_project("download/app_1.0");
  ASSERT_TRUE(write_text_file(app, "#!/bin/sh\necho hi\n").ok());
  auto file_signature = sign_file_boinc(keys->code_sign_private, app);
  ASSERT_TRUE(file_signature.ok()) << file_signature.error();
  EXPECT_TRUE(*verify_file_boinc(keys->code_sign_public, app, *file_signature));
  EXPECT_FALSE(*verify_file_boinc(keys->upload_public, app, *file_signature));

  std::string cert = upload_certificate_text("wu_1_r0_0", 65536);
  auto cert_signature = sign_block_boinc(keys->upload_private, cert);
  ASSERT_TRUE(cert_signature.ok());
  EXPECT_TRUE(*verify_block_boinc(keys->upload_public, cert, *cert_signature));
}

TEST_F(MakeProjectTest, MakeProject_ConfigParsesBackWithUrlsAndDb) {
  auto made = make_project(options_);
  ASSERT_TRUE(made.ok()) << made.error();
  auto loaded = load_project_config(in_project("config.xml"));
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_EQ(render_project_config(*loaded), render_project_config(*made));
  EXPECT_EQ(loaded->master_url, "http://127.0.0.1:8123/demo/");
  EXPECT_EQ(loaded->download_url, "http://127.0.0.1:8123/demo/download");
  EXPECT_EQ(loaded->cgi_url, "http://127.0.0.1:8123/demo_cgi/");
  EXPECT_EQ(loaded->upload_url, "http://127.0.0.1:8123/demo_cgi/file_upload_handler");
  EXPECT_EQ(loaded->project_dir, options_.project_dir);
  EXPECT_EQ(loaded->key_dir, in_project("keys"));
  EXPECT_EQ(loaded->db.socket, "/tmp/db.sock");
  EXPECT_EQ(loaded->db.name, "demo_db");
  EXPECT_EQ(loaded->uldl_dir_fanout, 16);
  ASSERT_FALSE(loaded->daemons.empty());
  EXPECT_EQ(loaded->daemons[0].cmd, "transitioner --sleep 5");
  std::vector<std::string> daemons;
  for (const auto& d : loaded->daemons) daemons.push_back(d.cmd.substr(0, d.cmd.find(' ')));
  for (const char* needed :
       {"transitioner", "validator", "assimilator", "file_deleter", "clusterer", "census"}) {
    EXPECT_NE(std::find(daemons.begin(), daemons.end(), needed), daemons.end()) << needed;
  }

  auto master = read_text_file(in_project("html/user/index.html"));
  ASSERT_TRUE(master.ok());
  EXPECT_NE(master->find("<scheduler>http://127.0.0.1:8123/demo_cgi/cgi</scheduler>"), std::string::npos);
}

TEST_F(MakeProjectTest, MakeProject_MasterPageListsEverySchedulerHost) {
  options_.scheduler_urls = {"http://s1.local/demo_cgi/fcgi", "http://s2.local/demo_cgi/fcgi"};
  auto made = make_project(options_);
  ASSERT_TRUE(made.ok()) << made.error();
  EXPECT_EQ(load_project_config(in_project("config.xml"))->scheduler_urls, options_.scheduler_urls);
  auto master = read_text_file(in_project("html/user/index.html"));
  ASSERT_TRUE(master.ok());
  for (const auto& url : options_.scheduler_urls) {
    EXPECT_NE(master->find("<scheduler>" + url + "</scheduler>"), std::string::npos) << url;
    EXPECT_NE(master->find("href=\"" + url + "\""), std::string::npos) << url;
  }
  EXPECT_EQ(master->find("demo_cgi/cgi<"), std::string::npos) << "only the listed schedulers";
}

TEST_F(MakeProjectTest, MakeProject_HttpdIncludeMapsUrlsAndPassesApacheConfigTest) {
  ASSERT_TRUE(make_project(options_).ok());
  auto conf = read_text_file(in_project("demo.httpd.conf"));
  ASSERT_TRUE(conf.ok()) << conf.error();
  EXPECT_NE(conf->find("Alias \"/demo/download\" \"" + in_project("download") + "\""), std::string::npos);
  EXPECT_NE(conf->find("ScriptAlias \"/demo_cgi/\" \"" + in_project("cgi-bin/") + "\""), std::string::npos);
  EXPECT_LT(conf->find("Alias \"/demo/download\""), conf->find("Alias \"/demo\" "));
  EXPECT_EQ(conf->find("\nListen"), std::string::npos);  // the including server listens
  // mod_fcgid's body limit, and larger or chunked bodies to the CGI build of the same
  // program, from one number (issue 13, item 3).
  const std::string limit = std::to_string(kFastCgiMaxRequestBytes);
  EXPECT_NE(conf->find("FcgidMaxRequestLen " + limit + "\n"), std::string::npos);
  EXPECT_NE(conf->find("<If \"-n req('Transfer-Encoding') || req('Content-Length') -gt " + limit +
                       "\">\n        SetHandler cgi-script\n"),
            std::string::npos)
      << *conf;

  if (!apache_installed()) GTEST_SKIP() << "apache2 not installed";
  std::string log;
  EXPECT_TRUE(passes_apache_config_test({}, log)) << log;
}

// With --fastcgi_pool the scheduler and the upload handler are two more daemons, pools on
// sockets in run/, and every URL of theirs goes to its own pool through mod_proxy_fcgi.
TEST_F(MakeProjectTest, MakeProject_FastCgiPoolsAreDaemonsAndTheirUrlsGoToThem) {
  options_.fastcgi_pool = 6;
  auto made = make_project(options_);
  ASSERT_TRUE(made.ok()) << made.error();
  for (const std::string program : {"scheduler", "file_upload_handler"}) {
    const std::string socket = in_project("run/" + program + ".sock");
    EXPECT_EQ(fastcgi_pool_socket(*made, program), socket);
    EXPECT_TRUE(std::any_of(made->daemons.begin(), made->daemons.end(), [&](const DaemonConfig& d) {
      return d.cmd == program + " --fastcgi_socket " + socket + " --processes 6";
    })) << program;
  }
  for (const auto& d : made->daemons) EXPECT_EQ(d.nice, 0) << d.cmd << ": make_project writes no <nice>";
  EXPECT_TRUE(fs::is_directory(in_project("run")));
  auto conf = read_text_file(in_project("demo.httpd.conf"));
  ASSERT_TRUE(conf.ok());
  EXPECT_NE(conf->find("ProxyPassMatch \"^/demo_cgi/f?cgi$\" \"unix:" + in_project("run/scheduler.sock") +
                       "|fcgi://demo-scheduler/\" retry=0"),
            std::string::npos)
      << *conf;
  EXPECT_NE(
      conf->find("ProxyPassMatch \"^/demo_cgi/file_upload_handler(\\.fcgi)?$\" \"unix:" +
                 in_project("run/file_upload_handler.sock") + "|fcgi://demo-file_upload_handler/\" retry=0"),
      std::string::npos)
      << *conf;
  // config.xml reads back with the pools among its daemons.
  auto reread = load_project_config(in_project("config.xml"));
  ASSERT_TRUE(reread.ok()) << reread.error();
  EXPECT_EQ(fastcgi_pool_socket(*reread, "scheduler"), in_project("run/scheduler.sock"));
  if (!apache_installed()) GTEST_SKIP() << "apache2 not installed";
  std::string log;
  EXPECT_TRUE(passes_apache_config_test({"proxy", "proxy_fcgi"}, log)) << log;
}

TEST_F(MakeProjectTest, MakeProject_WithoutPoolsTheIncludeProxiesNothing) {
  auto made = make_project(options_);
  ASSERT_TRUE(made.ok());
  EXPECT_EQ(fastcgi_pool_socket(*made, "scheduler"), "");
  EXPECT_EQ(read_text_file(in_project("demo.httpd.conf"))->find("ProxyPass"), std::string::npos);
  options_.fastcgi_pool = 257;
  options_.force = true;
  auto refused = make_project(options_);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("--fastcgi_pool"), std::string::npos) << refused.error();
}

TEST_F(MakeProjectTest, MakeProject_RefusesExistingDirectoryWithoutForce) {
  ASSERT_TRUE(make_project(options_).ok());
  auto before = read_text_file(in_project("config.xml"));
  options_.url_base = "http://127.0.0.1:9999/";
  auto again = make_project(options_);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error(), "project directory " + options_.project_dir +
                               " already exists and is not empty; use --force to reuse it");
  EXPECT_EQ(*read_text_file(in_project("config.xml")), *before);
}

TEST_F(MakeProjectTest, MakeProject_ForceRewritesConfigAndKeepsValidKeys) {
  ASSERT_TRUE(make_project(options_).ok());
  auto upload_key = read_text_file(in_project("keys/upload_private"));
  auto code_sign_key = read_text_file(in_project("keys/code_sign_private"));
  fs::remove(in_project("keys/code_sign_public"));  // a broken pair is regenerated
  fs::remove_all(in_project("tmp"));

  options_.url_base = "http://127.0.0.1:9999/";
  options_.force = true;
  auto again = make_project(options_);
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(load_project_config(in_project("config.xml"))->master_url, "http://127.0.0.1:9999/demo/");
  EXPECT_EQ(*read_text_file(in_project("keys/upload_private")), *upload_key);
  EXPECT_NE(*read_text_file(in_project("keys/code_sign_private")), *code_sign_key);
  EXPECT_TRUE(load_boinc_key_files(in_project("keys")).ok());
  EXPECT_TRUE(fs::is_directory(in_project("tmp")));
}

TEST_F(MakeProjectTest, MakeProject_EmptyExistingDirectoryIsAccepted) {
  fs::create_directories(options_.project_dir);
  EXPECT_TRUE(make_project(options_).ok());
}

TEST_F(MakeProjectTest, MakeProject_BadOptionsNamedAndNothingCreated) {
  MakeProjectOptions bad = options_;
  bad.name = "my project";
  auto r = make_project(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "--name: expected letters, digits, '_' or '-', found 'my project'");

  bad = options_;
  bad.url_base = "127.0.0.1:80";
  r = make_project(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "--url_base: expected an http:// or https:// URL, found '127.0.0.1:80'");

  bad = options_;
  bad.key_bits = 2048;
  r = make_project(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().rfind("--key_bits: expected 512..1024", 0), 0u) << r.error();

  bad = options_;
  bad.db.name.clear();
  EXPECT_FALSE(make_project(bad).ok());
  EXPECT_FALSE(fs::exists(options_.project_dir));
}

}  // namespace
}  // namespace tharsis::make_project_test
