// The scheduler's per-process cache of apps and app versions (sched/lib/app_version_cache.h)
// against a real MariaDB: newest current version per platform; a version added or
// deprecated is seen after the reload interval (the clock is moved, not slept on); a new
// app is seen at once; an unknown app does not make every request re-read the tables.
#include "sched/lib/app_version_cache.h"

#include <gtest/gtest.h>

#include "db/sql.h"
#include "tests/support/test_database.h"

namespace tharsis::app_version_cache_test {
namespace {

using testing::TestDatabase;

constexpr int64_t kNow = 1'000'000;
const std::vector<std::string> kLinux{"x86_64-pc-linux-gnu"};

std::string version_xml(const std::string& file) {
  return "<file_info><name>" + file + "</name><url>http://x/" + file +
         "</url><executable/></file_info>\n<app_version><file_ref><file_name>" + file +
         "</file_name><main_program/></file_ref></app_version>\n";
}

class AppVersionCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = tdb_.open();
    linux_ = insert_platform(*db_, {0, "x86_64-pc-linux-gnu", "Linux"});
    windows_ = insert_platform(*db_, {0, "windows_x86_64", "Windows"});
    app_ = insert_app(*db_, {0, "hasher", "Hasher", "bitwise"});
  }
  int64_t add_version(int64_t appid, int64_t platform, int version_num, const std::string& xml = "") {
    std::string file = "hasher_" + std::to_string(version_num) + "_" + std::to_string(platform);
    return insert_app_version(*db_,
                              {0, appid, version_num, platform, "", xml.empty() ? version_xml(file) : xml});
  }

  TestDatabase tdb_;
  std::unique_ptr<Database> db_;
  int64_t linux_ = 0, windows_ = 0, app_ = 0;
  AppVersionCache cache_;
};

TEST_F(AppVersionCacheTest, ChoosesTheNewestVersionForTheFirstPlatformThatHasOne) {
  add_version(app_, linux_, 100);
  int64_t newest = add_version(app_, linux_, 102);
  add_version(app_, linux_, 101);
  int64_t windows = add_version(app_, windows_, 300);
  auto choice = cache_.choose(*db_, app_, kLinux, kNow);
  ASSERT_TRUE(choice.app);
  EXPECT_EQ(choice.app->row.name, "hasher");
  ASSERT_TRUE(choice.version);
  EXPECT_EQ(choice.version->row.id, newest);
  EXPECT_EQ(choice.version->platform, "x86_64-pc-linux-gnu");
  ASSERT_EQ(choice.version->description.file_refs.size(), 1u);
  EXPECT_TRUE(choice.version->description.file_refs[0].main_program);
  auto alt = cache_.choose(*db_, app_, {"windows_x86_64", "x86_64-pc-linux-gnu"}, kNow);
  ASSERT_TRUE(alt.version);
  EXPECT_EQ(alt.version->row.id, windows);
  EXPECT_FALSE(cache_.choose(*db_, app_, {"arm-android"}, kNow).version);
  EXPECT_EQ(cache_.loads(), 1) << "one read served every choice";
}

TEST_F(AppVersionCacheTest, AddedAndDeprecatedVersionsAreSeenAfterTheReloadInterval) {
  int64_t first = add_version(app_, linux_, 100);
  EXPECT_EQ(cache_.choose(*db_, app_, kLinux, kNow).version->row.id, first);
  int64_t second = add_version(app_, linux_, 101);
  auto held = cache_.choose(*db_, app_, kLinux, kNow + AppVersionCache::kReloadSeconds - 1);
  EXPECT_EQ(held.version->row.id, first) << "read again before the interval";
  auto reloaded = cache_.choose(*db_, app_, kLinux, kNow + AppVersionCache::kReloadSeconds);
  EXPECT_EQ(reloaded.version->row.id, second);
  EXPECT_EQ(held.version->row.id, first) << "a choice made before the reload changed under its holder";
  EXPECT_EQ(cache_.loads(), 2);

  exec(*db_, "UPDATE app_version SET deprecated = 1 WHERE id = ?", second);
  auto after = cache_.choose(*db_, app_, kLinux, kNow + 2 * AppVersionCache::kReloadSeconds);
  EXPECT_EQ(after.version->row.id, first);
  exec(*db_, "UPDATE app_version SET deprecated = 1 WHERE id = ?", first);
  EXPECT_FALSE(cache_.choose(*db_, app_, kLinux, kNow + 3 * AppVersionCache::kReloadSeconds).version);
  // A clock that went back (the host's, a test's) reads again rather than trusting the cache.
  exec(*db_, "UPDATE app_version SET deprecated = 0 WHERE id = ?", second);
  EXPECT_EQ(cache_.choose(*db_, app_, kLinux, kNow).version->row.id, second);
}

TEST_F(AppVersionCacheTest, ANewAppIsSeenAtOnceAndAnUnknownOneDoesNotRereadEveryTime) {
  add_version(app_, linux_, 100);
  cache_.choose(*db_, app_, kLinux, kNow);
  int64_t other = insert_app(*db_, {0, "sorter", "Sorter", "bitwise"});
  int64_t other_version = add_version(other, linux_, 5);
  auto choice = cache_.choose(*db_, other, kLinux, kNow);
  ASSERT_TRUE(choice.app) << "a new app waited for the reload interval";
  EXPECT_EQ(choice.version->row.id, other_version);
  int64_t loads = cache_.loads();
  EXPECT_FALSE(cache_.choose(*db_, 9999, kLinux, kNow).app);
  EXPECT_FALSE(cache_.choose(*db_, 9999, kLinux, kNow + 1).app);
  EXPECT_FALSE(cache_.choose(*db_, 9999, kLinux, kNow + 2).app);
  EXPECT_EQ(cache_.loads(), loads + 1) << "an unknown app re-read the tables at every request";
}

TEST_F(AppVersionCacheTest, AVersionWithAnUnusableDescriptionIsPassedOver) {
  int64_t good = add_version(app_, linux_, 100);
  add_version(app_, linux_, 101, "<file_info><name>broken");
  auto choice = cache_.choose(*db_, app_, kLinux, kNow);
  ASSERT_TRUE(choice.version);
  EXPECT_EQ(choice.version->row.id, good);
}

}  // namespace
}  // namespace tharsis::app_version_cache_test
