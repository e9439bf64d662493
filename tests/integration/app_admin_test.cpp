// Publishing apps and signed app versions into a real project.
#include "tools/lib/app_admin.h"

#include <gtest/gtest.h>

#include <fstream>

#include "db/app_store.h"
#include "lib/crypto/boinc_key.h"
#include "lib/crypto/boinc_signature.h"
#include "lib/work/fanout.h"
#include "lib/work/file_refs.h"
#include "tests/support/test_project.h"

namespace tharsis {
namespace {

TEST(AppAdmin, PublishesASignedAppVersionTheClientCanVerify) {
  testing::TestProject project;
  auto db = project.open();
  ASSERT_TRUE(ensure_app(*db, "hasher", "bitwise").ok());
  std::string program = project.dir() + "/hasher_bin";
  std::ofstream(program) << "#!/bin/sh\necho hashing\n";
  AppVersionFiles version{"hasher", "x86_64-pc-linux-gnu", 101, {program}};
  auto id = publish_app_version(*db, project.config(), version);
  ASSERT_TRUE(id.ok()) << id.error();

  auto stored = fetch_latest_app_version(*db, fetch_app_by_name(*db, "hasher")->id, "x86_64-pc-linux-gnu");
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->version_num, 101);
  EXPECT_NE(stored->xml_doc.find("<main_program/>"), std::string::npos);
  // The published file verifies against the project's public code-signing key.
  std::string name = "hasher_101_x86_64-pc-linux-gnu_hasher_bin";
  std::string path = fanout_path(project.config().download_dir, name, project.config().uldl_dir_fanout);
  auto xml = stored->xml_doc;
  auto begin = xml.find("<file_signature>\n") + 17;
  auto signature = xml.substr(begin, xml.find("</file_signature>") - begin);
  auto key = load_boinc_public_key(project.config().key_dir + "/code_sign_public");
  ASSERT_TRUE(key.ok()) << key.error();
  auto verified = verify_file_boinc(*key, path, signature);
  ASSERT_TRUE(verified.ok()) << verified.error();
  EXPECT_TRUE(*verified);

  // Publishing the same version again is refused with a clear message.
  auto again = publish_app_version(*db, project.config(), version);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.error().find("already exists"), std::string::npos);
}

TEST(AppAdmin, RejectsUnknownAppsAndBadNames) {
  testing::TestProject project;
  auto db = project.open();
  EXPECT_FALSE(
      publish_app_version(*db, project.config(), {"nope", "x86_64-pc-linux-gnu", 1, {"/bin/true"}}).ok());
  EXPECT_FALSE(ensure_app(*db, "../evil", "bitwise").ok());
  EXPECT_FALSE(ensure_app(*db, "fine", "fuzzy").ok());
  EXPECT_FALSE(ensure_platform(*db, "a/b").ok());
}

}  // namespace
}  // namespace tharsis
