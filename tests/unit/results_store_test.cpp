// The assimilator's default handler effect: canonical outputs copied with a manifest,
// idempotently.
#include "daemons/assimilator/lib/results_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "lib/crypto/md5.h"
#include "lib/text_file.h"

namespace tharsis {
namespace {

namespace fs = std::filesystem;

class ResultsStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/tharsis-store-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    fs::create_directories(dir_ + "/upload");
  }
  void TearDown() override { fs::remove_all(dir_); }
  // An output written to upload/, described as its result reported it.
  CanonicalOutput output(const std::string& name, const std::string& content) {
    std::string path = dir_ + "/upload/" + name;
    std::ofstream(path, std::ios::binary) << content;
    return CanonicalOutput{path,
                           ReportedOutput{name, static_cast<int64_t>(content.size()), md5_hex(content)}};
  }
  std::string dir_;
};

TEST_F(ResultsStoreTest, Assimilator_CopiesCanonicalOutputsWithManifest) {
  auto stored = store_canonical_outputs(dir_ + "/results", "wu_1",
                                        {output("wu_1_0_r0", "alpha"), output("wu_1_0_r1", "beta")});
  ASSERT_TRUE(stored.ok()) << stored.error();
  auto manifest = read_manifest(dir_ + "/results", "wu_1");
  ASSERT_TRUE(manifest.ok()) << manifest.error();
  ASSERT_EQ(manifest->size(), 2u);
  EXPECT_EQ((*manifest)[0].name, "wu_1_0_r0");
  EXPECT_EQ((*manifest)[0].size, 5);
  EXPECT_EQ((*manifest)[0].md5, md5_hex("alpha"));
  EXPECT_EQ(*read_text_file(dir_ + "/results/wu_1/wu_1_0_r1"), "beta");
}

TEST_F(ResultsStoreTest, Assimilator_RerunAfterKillRewritesTheSameContent) {
  std::vector<CanonicalOutput> outputs{output("o", "payload")};
  ASSERT_TRUE(store_canonical_outputs(dir_ + "/results", "wu_2", outputs).ok());
  auto first = *read_text_file(dir_ + "/results/wu_2/MANIFEST");
  std::ofstream(dir_ + "/results/wu_2/.gone.incoming") << "placed by a killed run, never checked";
  ASSERT_TRUE(store_canonical_outputs(dir_ + "/results", "wu_2", outputs).ok());
  EXPECT_EQ(*read_text_file(dir_ + "/results/wu_2/MANIFEST"), first);
  int entries = 0;
  for (auto& e : fs::directory_iterator(dir_ + "/results/wu_2")) entries += e.is_regular_file();
  EXPECT_EQ(entries, 2);  // the output and MANIFEST, no temp or unchecked files left
}

TEST_F(ResultsStoreTest, Assimilator_MissingOutputFailsWithoutManifest) {
  auto stored =
      store_canonical_outputs(dir_ + "/results", "wu_3",
                              {CanonicalOutput{dir_ + "/upload/absent", ReportedOutput{"absent", 1, "x"}}});
  ASSERT_FALSE(stored.ok());
  EXPECT_NE(stored.error().find("absent"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir_ + "/results/wu_3/MANIFEST"));
}

TEST_F(ResultsStoreTest, Assimilator_StoresNothingWhenAnOutputDiffersFromItsReport) {
  CanonicalOutput good = output("wu_5_0", "honest answer");
  CanonicalOutput forged = output("wu_5_1", "honest answer");
  std::ofstream(forged.path, std::ios::binary | std::ios::trunc) << "forged!";  // swapped after the report
  auto stored = store_canonical_outputs(dir_ + "/results", "wu_5", {good, forged});
  ASSERT_FALSE(stored.ok());
  EXPECT_NE(stored.error().find("wu_5_1"), std::string::npos) << stored.error();
  EXPECT_FALSE(fs::exists(dir_ + "/results/wu_5")) << "nothing stored, not even the matching file";

  forged = output("wu_5_1", "same size, other bytes");
  std::ofstream(forged.path, std::ios::binary | std::ios::trunc) << "same size, OTHER bytes";
  ASSERT_FALSE(store_canonical_outputs(dir_ + "/results", "wu_5", {forged}).ok()) << "md5 differs";
  EXPECT_FALSE(fs::exists(dir_ + "/results/wu_5"));

  CanonicalOutput unreported = output("wu_5_2", "x");
  unreported.reported.md5.clear();
  ASSERT_FALSE(store_canonical_outputs(dir_ + "/results", "wu_5", {unreported}).ok()) << "no md5 reported";
}

TEST_F(ResultsStoreTest, Assimilator_RecordsErrorWorkunits) {
  ASSERT_TRUE(store_workunit_error(dir_ + "/results", "wu_4", 2, "too many errors").ok());
  auto text = read_text_file(dir_ + "/results/wu_4/ERROR");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "error_mask 2\ntoo many errors\n");
}

}  // namespace
}  // namespace tharsis
