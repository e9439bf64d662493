// BOINC's hashed fan-out directories (filename_hash) and MD5 hex digests.
#include "lib/work/fanout.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "lib/crypto/md5.h"

namespace tharsis {
namespace {

TEST(Md5, KnownDigests) {
  EXPECT_EQ(md5_hex(""), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(md5_hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(md5_hex("The quick brown fox jumps over the lazy dog"), "9e107d9d372bb6826bd81d3542a419d6");
}

TEST(Md5, BytesAreTheHexDigits) {
  for (const char* text : {"", "abc", "wu17_0_0"}) {
    const Md5Digest digest = md5_bytes(text);
    std::string hex;
    for (unsigned char byte : digest) {
      hex.push_back("0123456789abcdef"[byte >> 4]);
      hex.push_back("0123456789abcdef"[byte & 0x0f]);
    }
    EXPECT_EQ(hex, md5_hex(text)) << text;
  }
}

TEST(Md5, FileDigestEqualsDigestOfContent) {
  std::string path = std::filesystem::temp_directory_path() / ("tharsis_md5_" + std::to_string(::getpid()));
  std::string content(200000, 'x');
  content += "tail";
  { std::ofstream(path, std::ios::binary) << content; }
  auto digest = md5_file_hex(path);
  ASSERT_TRUE(digest.ok()) << digest.error();
  EXPECT_EQ(*digest, md5_hex(content));
  std::filesystem::remove(path);
  EXPECT_FALSE(md5_file_hex(path).ok());
}

TEST(Fanout, DirIsDigits1To7OfMd5ModFanoutInHex) {
  // md5("abc") = 9|0015098|3cd...: 0x0015098 = 86168; 86168 % 1024 = 152 = 0x98.
  EXPECT_EQ(fanout_dir("abc", 1024), "98");
  EXPECT_EQ(fanout_dir("abc", 1000), "a8");  // 86168 % 1000 = 168 = 0xa8
  // md5 = 9|e107d9d|...: 0xe107d9d % 1024 = 0x19d.
  EXPECT_EQ(fanout_dir("The quick brown fox jumps over the lazy dog", 1024), "19d");
  EXPECT_EQ(fanout_dir("x", 7), "4");  // single digit, no zero padding
  EXPECT_EQ(fanout_dir("abc", 1), "0");
  // md5("wu17_0_0") hex digits 1..7, read as the scheduler and BOINC read them.
  const std::string hex = md5_hex("wu17_0_0");
  char expected[16];
  std::snprintf(expected, sizeof expected, "%lx", std::stoul(hex.substr(1, 7), nullptr, 16) % 4096);
  EXPECT_EQ(fanout_dir("wu17_0_0", 4096), expected);
}

TEST(Fanout, ZeroFanoutIsFlat) {
  EXPECT_EQ(fanout_dir("abc", 0), "");
  EXPECT_EQ(fanout_path("/p/upload", "abc", 0), "/p/upload/abc");
}

TEST(Fanout, PathJoinsBaseDirAndName) {
  EXPECT_EQ(fanout_path("/p/download", "abc", 1024), "/p/download/98/abc");
  EXPECT_EQ(fanout_path("/p/download/", "abc", 1024), "/p/download/98/abc");
}

TEST(Fanout, CreateMakesDirectoriesOnDemandAndUpFront) {
  auto base = std::filesystem::temp_directory_path() / ("tharsis_fan_" + std::to_string(::getpid()));
  std::filesystem::create_directories(base);
  auto path = fanout_path_create(base.string(), "abc", 1024);
  ASSERT_TRUE(path.ok()) << path.error();
  EXPECT_EQ(*path, (base / "98" / "abc").string());
  EXPECT_TRUE(std::filesystem::is_directory(base / "98"));
  ASSERT_TRUE(create_fanout_dirs(base.string(), 32).ok());
  EXPECT_TRUE(std::filesystem::is_directory(base / "0"));
  EXPECT_TRUE(std::filesystem::is_directory(base / "1f"));
  EXPECT_FALSE(std::filesystem::exists(base / "20"));
  std::filesystem::remove_all(base);
  EXPECT_FALSE(create_fanout_dirs((base / "missing").string(), 2).ok());
}

}  // namespace
}  // namespace tharsis
