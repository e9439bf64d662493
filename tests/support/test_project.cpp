// Implementation of tests/support/test_project.h.
#include "tests/support/test_project.h"

#include <stdexcept>

#include "db/app_store.h"
#include "lib/text_file.h"
#include "lib/work/create_work.h"
#include "tools/lib/app_admin.h"
#include "tools/lib/make_project.h"

namespace tharsis::testing {

TestProject::TestProject(const std::string& url_base, const std::optional<DbConfig>& admin)
    : dir_("tharsis-project"), database_(admin ? TestDatabase(*admin) : TestDatabase()) {
  MakeProjectOptions options;
  options.project_dir = dir_.path() + "/project";
  options.name = "test";
  options.url_base = url_base;
  options.db = database_.config();
  options.key_bits = 512;
  options.uldl_dir_fanout = 16;
  options.no_db = true;  // the TestDatabase already holds the schema
  auto made = make_project(options);
  if (!made.ok()) throw std::runtime_error("test project: " + made.error());
  config_ = *made;
  if (admin && !admin->fallbacks.empty()) {
    config_.db_nodes = {admin->endpoint()};
    config_.db_nodes.insert(config_.db_nodes.end(), admin->fallbacks.begin(), admin->fallbacks.end());
    config_.db.fallbacks = admin->fallbacks;
    Status written =
        write_text_file(config_.project_dir + "/config.xml", render_project_config(config_), 0644);
    if (!written.ok()) throw std::runtime_error("test project: " + written.error());
  }
  auto db = open();
  appid_ = insert_app(*db, AppRow{0, "example", "Example", "bitwise"});
  auto templ = write_output_template(config_, "example_out.xml", 1, 1 << 20);
  if (!templ.ok()) throw std::runtime_error("test project: " + templ.error());
  output_template_ = *templ;
}

Status TestProject::publish_example_version(Database& db, const std::string& platform) const {
  std::string app_file = dir() + "/example_app";
  if (Status written = write_text_file(app_file, "#!/bin/sh\n"); !written.ok()) return written;
  auto published = publish_app_version(db, config_, {"example", platform, 100, {app_file}});
  if (!published.ok()) return make_error(published.error());
  return Status::success();
}

MakeProjectOptions dedicated_project_options(const DedicatedServer& server, const std::string& dir,
                                             const std::string& name) {
  MakeProjectOptions options;
  options.project_dir = dir + "/p";
  options.name = name;
  options.url_base = "http://127.0.0.1:1/";
  options.db = server.admin();
  options.db.name = name + "proj";
  options.key_bits = 512;
  options.uldl_dir_fanout = 4;
  return options;
}

}  // namespace tharsis::testing
