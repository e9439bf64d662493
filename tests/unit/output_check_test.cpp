// The rule "does this output file hold what its result reported" (lib/work/output_check.h), and
// its shell on real files.
#include "lib/work/output_check.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "lib/crypto/md5.h"

namespace tharsis::output_check_test {
namespace {

namespace fs = std::filesystem;

const std::string kMd5 = md5_hex("answer 42\n");

TEST(OutputCheck, MatchesWhenSizeAndMd5AreThoseReported) {
  ReportedOutput reported{"r_0", 10, kMd5};
  EXPECT_EQ(match_reported_output(&reported, OutputOnDisk{10, kMd5}), OutputMatch::Match);
  std::string upper = kMd5;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ(match_reported_output(&reported, OutputOnDisk{10, upper}), OutputMatch::Match) << "hex case";
}

TEST(OutputCheck, ForgedFileOfAnotherSizeOrSameSizeDiffers) {
  ReportedOutput reported{"r_0", 95, kMd5};
  EXPECT_EQ(match_reported_output(&reported, OutputOnDisk{93, ""}), OutputMatch::SizeDiffers);
  EXPECT_FALSE(md5_needed(&reported, 93)) << "the size decides: no hashing";
  EXPECT_TRUE(md5_needed(&reported, 95));
  EXPECT_EQ(match_reported_output(&reported, OutputOnDisk{95, md5_hex("other")}), OutputMatch::Md5Differs);
}

TEST(OutputCheck, AFileTheReportDoesNotDescribeIsNotReported) {
  EXPECT_EQ(match_reported_output(nullptr, OutputOnDisk{10, kMd5}), OutputMatch::NotReported);
  ReportedOutput no_md5{"r_0", 10, ""};
  EXPECT_EQ(match_reported_output(&no_md5, OutputOnDisk{10, kMd5}), OutputMatch::NotReported);
  EXPECT_FALSE(md5_needed(&no_md5, 10));
  ReportedOutput no_size{"r_0", -1, kMd5};
  EXPECT_EQ(match_reported_output(&no_size, OutputOnDisk{10, kMd5}), OutputMatch::NotReported);
}

TEST(OutputCheck, ReadsTheSchedulersAndBoincsFormsOfTheReport) {
  auto reported = reported_outputs_in(
      "<file_info><name>a_0</name><nbytes>95</nbytes><md5_cksum>E74F</md5_cksum></file_info>\n"
      "<file_info><name>a_1</name><nbytes>1234567.000000</nbytes><max_nbytes>9</max_nbytes>"
      "<md5_cksum> ab </md5_cksum></file_info>"
      "<file_info><name>a_2</name><nbytes>1.23457e+06</nbytes></file_info>"
      "<file_info><name>a_3</name><nbytes>-4</nbytes><md5_cksum>x</md5_cksum></file_info>"
      "<file_info><name>a_4</name><nbytes>9.5</nbytes></file_info>"
      "<file_info><name>a_5</name><nbytes>12 bytes</nbytes></file_info>");
  ASSERT_TRUE(reported.ok()) << reported.error();
  ASSERT_EQ(reported->size(), 6u);
  EXPECT_EQ((*reported)[0].nbytes, 95);
  EXPECT_EQ((*reported)[0].md5, "e74f");
  EXPECT_EQ((*reported)[1].nbytes, 1234567);
  EXPECT_EQ((*reported)[1].md5, "ab");
  EXPECT_EQ((*reported)[2].nbytes, 1234570) << "a rounded size is a different size";
  EXPECT_EQ((*reported)[2].md5, "");
  EXPECT_EQ((*reported)[3].nbytes, -1);
  EXPECT_EQ((*reported)[4].nbytes, -1);
  EXPECT_EQ((*reported)[5].nbytes, -1);
  EXPECT_EQ(find_reported(*reported, "a_1"), &(*reported)[1]);
  EXPECT_EQ(find_reported(*reported, "a_9"), nullptr);
  EXPECT_FALSE(reported_outputs_in("<file_info><name>x</nbytes>").ok());
  EXPECT_TRUE(reported_outputs_in("")->empty());
}

TEST(OutputCheck, WrittenReportReadsBack) {
  std::vector<ReportedOutput> outputs{{"a&b_0", 3, "00ff"}, {"c_1", 0, md5_hex("")}};
  auto back = reported_outputs_in(reported_outputs_xml(outputs));
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0].name, "a&b_0");
  EXPECT_EQ((*back)[0].nbytes, 3);
  EXPECT_EQ((*back)[1].md5, md5_hex(""));
}

TEST(OutputCheck, ShellHashesOnlyWhenTheSizeMatchesAndNamesWhatDiffers) {
  char pattern[] = "/tmp/tharsis-outcheck-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  std::string dir = pattern;
  std::string path = dir + "/r_0";
  std::ofstream(path, std::ios::binary) << "answer 42\n";
  ReportedOutput reported{"r_0", 10, kMd5};
  OutputVerdict ok = verify_output_file(path, "r_0", &reported);
  EXPECT_EQ(ok.error_number, 0);
  EXPECT_EQ(ok.match, OutputMatch::Match);
  EXPECT_EQ(ok.on_disk.md5, kMd5);

  std::ofstream(path, std::ios::binary | std::ios::trunc) << "forged\n";
  OutputVerdict forged = verify_output_file(path, "r_0", &reported);
  EXPECT_EQ(forged.match, OutputMatch::SizeDiffers);
  EXPECT_EQ(forged.on_disk.md5, "") << "not hashed";
  EXPECT_NE(forged.message.find("reported 10 bytes"), std::string::npos) << forged.message;
  EXPECT_NE(forged.message.find("found 7 bytes"), std::string::npos) << forged.message;

  OutputVerdict missing = verify_output_file(dir + "/absent", "absent", &reported);
  EXPECT_EQ(missing.error_number, ENOENT);
  EXPECT_NE(missing.message.find("cannot stat " + dir + "/absent"), std::string::npos) << missing.message;
  fs::remove_all(dir);
}

TEST(OutputCheck, ShellRefusesWhatIsNotARegularFileWithoutBlocking) {
  char pattern[] = "/tmp/tharsis-outcheck-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  std::string dir = pattern;
  ReportedOutput reported{"r_0", 10, kMd5};
  fs::create_directory(dir + "/r_0");
  OutputVerdict directory = verify_output_file(dir + "/r_0", "r_0", &reported);
  EXPECT_EQ(directory.error_number, EISDIR);
  EXPECT_EQ(directory.message, dir + "/r_0 is not a regular file");
  ASSERT_EQ(mkfifo((dir + "/r_1").c_str(), 0644), 0);  // no writer: a blocking open would hang
  OutputVerdict fifo = verify_output_file(dir + "/r_1", "r_1", &reported);
  EXPECT_EQ(fifo.error_number, EISDIR);
  fs::remove_all(dir);
}

TEST(OutputCheck, ShellHashesFilesOfAnySize) {
  char pattern[] = "/tmp/tharsis-outcheck-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  std::string dir = pattern;
  // Empty, one byte, and around the 64 KiB read size.
  for (size_t size : {size_t{0}, size_t{1}, size_t{65535}, size_t{65536}, size_t{65537}, size_t{200000}}) {
    std::string content(size, 'a');
    for (size_t i = 0; i < size; ++i) content[i] = static_cast<char>('a' + i % 26);
    std::ofstream(dir + "/f", std::ios::binary | std::ios::trunc) << content;
    ReportedOutput reported{"f", static_cast<int64_t>(size), md5_hex(content)};
    OutputVerdict verdict = verify_output_file(dir + "/f", "f", &reported);
    EXPECT_EQ(verdict.error_number, 0) << size;
    EXPECT_EQ(verdict.match, OutputMatch::Match) << size;
    if (size == 0) continue;
    content.back() = '!';  // same size, other bytes
    std::ofstream(dir + "/f", std::ios::binary | std::ios::trunc) << content;
    EXPECT_EQ(verify_output_file(dir + "/f", "f", &reported).match, OutputMatch::Md5Differs) << size;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tharsis::output_check_test
