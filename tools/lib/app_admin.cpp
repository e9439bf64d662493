// Implementation of tools/lib/app_admin.h.
#include "tools/lib/app_admin.h"

#include <sys/stat.h>

#include <filesystem>
#include <sstream>

#include "db/app_store.h"
#include "lib/crypto/boinc_key.h"
#include "lib/crypto/boinc_signature.h"
#include "lib/crypto/md5.h"
#include "lib/work/fanout.h"

namespace tharsis {
namespace {

bool safe_identifier(const std::string& s) {
  if (s.empty() || s.size() > 100) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  }
  return s[0] != '.';
}

}  // namespace

Result<int64_t> ensure_app(Database& db, const std::string& name, const std::string& comparator) {
  if (!safe_identifier(name))
    return make_error("app name: expected letters, digits, '_', '-', found '" + name + "'");
  if (comparator != "bitwise" && comparator != "numeric" && comparator != "trivial") {
    return make_error("app " + name + ": comparator expected bitwise, numeric or trivial, found '" +
                      comparator + "'");
  }
  if (auto app = fetch_app_by_name(db, name)) return app->id;
  return insert_app(db, AppRow{0, name, name, comparator});
}

Result<int64_t> ensure_platform(Database& db, const std::string& name) {
  if (!safe_identifier(name)) return make_error("platform name: unexpected '" + name + "'");
  if (auto platform = fetch_platform_by_name(db, name)) return platform->id;
  return insert_platform(db, PlatformRow{0, name, name});
}

Result<int64_t> publish_app_version(Database& db, const ProjectConfig& config, const AppVersionFiles& v) {
  if (v.files.empty()) return make_error("app version: expected at least the main program, found no files");
  auto app = fetch_app_by_name(db, v.app);
  if (!app) return make_error("app version: no app named '" + v.app + "' (add it first)");
  auto platform_id = ensure_platform(db, v.platform);
  if (!platform_id.ok()) return make_error(platform_id.error());
  auto key = load_boinc_private_key(config.key_dir + "/code_sign_private");
  if (!key.ok()) return make_error("app version: cannot sign: " + key.error());

  std::ostringstream xml;
  std::vector<std::string> names;
  for (const auto& source : v.files) {
    std::string base = std::filesystem::path(source).filename().string();
    std::string name = v.app + "_" + std::to_string(v.version_num) + "_" + v.platform + "_" + base;
    if (!safe_identifier(name)) return make_error("app version: unsafe file name '" + name + "'");
    auto target = fanout_path_create(config.download_dir, name, config.uldl_dir_fanout);
    if (!target.ok()) return make_error(target.error());
    std::error_code ec;
    std::filesystem::copy_file(source, *target, std::filesystem::copy_options::overwrite_existing, ec);
    if (ec) return make_error("app version: cannot copy " + source + ": " + ec.message());
    chmod(target->c_str(), 0755);
    auto md5 = md5_file_hex(*target);
    if (!md5.ok()) return make_error(md5.error());
    auto signature = sign_file_boinc(*key, *target);
    if (!signature.ok()) return make_error(signature.error());
    xml << "<file_info>\n  <name>" << name << "</name>\n  <url>" << config.download_url << "/"
        << fanout_dir(name, config.uldl_dir_fanout) << "/" << name
        << "</url>\n  <executable/>\n  <file_signature>\n"
        << *signature << "</file_signature>\n  <md5_cksum>" << *md5 << "</md5_cksum>\n  <nbytes>"
        << std::filesystem::file_size(*target) << "</nbytes>\n</file_info>\n";
    names.push_back(name);
  }
  xml << "<app_version>\n  <app_name>" << v.app << "</app_name>\n  <version_num>" << v.version_num
      << "</version_num>\n  <platform>" << v.platform << "</platform>\n";
  for (size_t i = 0; i < names.size(); ++i) {
    xml << "  <file_ref>\n    <file_name>" << names[i] << "</file_name>\n"
        << (i == 0 ? "    <main_program/>\n" : "") << "  </file_ref>\n";
  }
  xml << "</app_version>\n";
  try {
    return insert_app_version(db, AppVersionRow{0, app->id, v.version_num, *platform_id, "", xml.str()});
  } catch (const DbError& e) {
    if (e.duplicate_key()) {
      return make_error("app version " + v.app + " " + std::to_string(v.version_num) + " for " + v.platform +
                        " already exists");
    }
    throw;
  }
}

}  // namespace tharsis
