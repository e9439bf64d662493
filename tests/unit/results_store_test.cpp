// The assimilator's default handler effect: canonical outputs copied with a manifest,
// idempotently.
#include "daemons/assimilator/lib/results_store.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>

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
    store_ = std::make_unique<ResultsStore>(dir_ + "/results");
  }
  void TearDown() override { fs::remove_all(dir_); }
  // An output written to upload/, described as its result reported it.
  CanonicalOutput output(const std::string& name, const std::string& content) {
    std::string path = dir_ + "/upload/" + name;
    std::ofstream(path, std::ios::binary) << content;
    return CanonicalOutput{path,
                           ReportedOutput{name, static_cast<int64_t>(content.size()), md5_hex(content)}};
  }
  // The same, checked (it matches its report): open on the bytes checked.
  CheckedOutput checked(const std::string& name, const std::string& content) {
    CheckedOutput file;
    OutputVerdict verdict = check_output(output(name, content), file);
    EXPECT_EQ(verdict.error_number, 0) << verdict.message;
    EXPECT_EQ(verdict.match, OutputMatch::Match) << verdict.message;
    return file;
  }
  std::vector<CheckedOutput> all(CheckedOutput a) {
    std::vector<CheckedOutput> files;
    files.push_back(std::move(a));
    return files;
  }
  static ino_t inode_of(const std::string& path) {
    struct stat info {};
    EXPECT_EQ(::stat(path.c_str(), &info), 0) << path;
    return info.st_ino;
  }
  std::string dir_;
  std::unique_ptr<ResultsStore> store_;  // one for the test, as a worker keeps one
};

TEST_F(ResultsStoreTest, Assimilator_KeepsTheCheckedFilesWithManifest) {
  std::vector<CheckedOutput> files;
  files.push_back(checked("wu_1_0_r0", "alpha"));
  files.push_back(checked("wu_1_0_r1", "beta"));
  auto stored = store_->store_outputs("wu_1", files);
  ASSERT_TRUE(stored.ok()) << stored.error();
  auto manifest = read_manifest(dir_ + "/results", "wu_1");
  ASSERT_TRUE(manifest.ok()) << manifest.error();
  ASSERT_EQ(manifest->size(), 2u);
  EXPECT_EQ((*manifest)[0].name, "wu_1_0_r0");
  EXPECT_EQ((*manifest)[0].size, 5);
  EXPECT_EQ((*manifest)[0].md5, md5_hex("alpha"));
  EXPECT_EQ(*read_text_file(dir_ + "/results/wu_1/wu_1_0_r1"), "beta");
  // A link to the file in upload/, not a copy (the same file system here).
  EXPECT_EQ(inode_of(dir_ + "/results/wu_1/wu_1_0_r1"), inode_of(dir_ + "/upload/wu_1_0_r1"));
}

TEST_F(ResultsStoreTest, Assimilator_AManifestEmptiedByAPowerCutIsReadFromItsFiles) {
  std::vector<CheckedOutput> files;
  files.push_back(checked("wu_13_0_r1", "beta"));
  files.push_back(checked("wu_13_0_r0", "alpha"));
  ASSERT_TRUE(store_->store_outputs("wu_13", files).ok());
  auto written = read_manifest(dir_ + "/results", "wu_13");
  ASSERT_TRUE(written.ok()) << written.error();
  // What a power cut before the MANIFEST's data reached the disk leaves: the name, empty.
  fs::resize_file(dir_ + "/results/wu_13/MANIFEST", 0);
  std::ofstream(dir_ + "/results/wu_13/.wu_13_0_r2.incoming") << "a killed run's, never checked";
  auto read = read_manifest(dir_ + "/results", "wu_13");
  ASSERT_TRUE(read.ok()) << read.error();
  ASSERT_EQ(read->size(), 2u) << "the stored files only, not the hidden one";
  for (const auto& file : *read) {  // by name, each as the MANIFEST had it
    auto same =
        std::find_if(written->begin(), written->end(), [&](const auto& w) { return w.name == file.name; });
    ASSERT_NE(same, written->end()) << file.name;
    EXPECT_EQ(file.size, same->size) << file.name;
    EXPECT_EQ(file.md5, same->md5) << file.name;
  }
  EXPECT_EQ((*read)[0].name, "wu_13_0_r0");
  EXPECT_EQ((*read)[1].md5, md5_hex("beta"));
  // A MANIFEST that is absent still means an incomplete store.
  fs::remove(dir_ + "/results/wu_13/MANIFEST");
  EXPECT_FALSE(read_manifest(dir_ + "/results", "wu_13").ok());
}

TEST_F(ResultsStoreTest, Assimilator_RerunAfterKillRewritesTheSameContent) {
  ASSERT_TRUE(store_->store_outputs("wu_2", all(checked("o", "payload"))).ok());
  auto first = *read_text_file(dir_ + "/results/wu_2/MANIFEST");
  std::ofstream(dir_ + "/results/wu_2/.gone.incoming") << "placed by a killed run, never checked";
  std::ofstream(dir_ + "/results/wu_2/.MANIFEST.4242.7.incoming") << "a killed run's unfinished MANIFEST";
  // The name left by the first run is another file now (as a copy would be): replaced.
  fs::remove(dir_ + "/results/wu_2/o");
  std::ofstream(dir_ + "/results/wu_2/o") << "stale";
  ASSERT_TRUE(store_->store_outputs("wu_2", all(checked("o", "payload"))).ok());
  EXPECT_EQ(*read_text_file(dir_ + "/results/wu_2/MANIFEST"), first);
  EXPECT_EQ(*read_text_file(dir_ + "/results/wu_2/o"), "payload");
  int entries = 0;
  for (auto& e : fs::directory_iterator(dir_ + "/results/wu_2")) entries += e.is_regular_file();
  EXPECT_EQ(entries, 2);  // the output and MANIFEST, no temp or unchecked files left
  // Once more, the name already the checked file: kept as it is.
  ASSERT_TRUE(store_->store_outputs("wu_2", all(checked("o", "payload"))).ok());
  EXPECT_EQ(inode_of(dir_ + "/results/wu_2/o"), inode_of(dir_ + "/upload/o"));
}

TEST_F(ResultsStoreTest, Assimilator_AnOutputGoneOrUncheckedIsNotStoredNorAnyManifest) {
  CheckedOutput absent;
  OutputVerdict verdict =
      check_output(CanonicalOutput{dir_ + "/upload/absent", ReportedOutput{"absent", 1, "x"}}, absent);
  EXPECT_EQ(verdict.error_number, ENOENT);
  EXPECT_FALSE(absent.fd) << "nothing kept open";
  std::vector<CheckedOutput> files;
  files.push_back(checked("wu_3_0", "kept"));
  files.push_back(std::move(absent));
  auto stored = store_->store_outputs("wu_3", files);
  ASSERT_FALSE(stored.ok());
  EXPECT_NE(stored.error().find("absent"), std::string::npos) << stored.error();
  EXPECT_FALSE(fs::exists(dir_ + "/results/wu_3")) << "not even the file placed before it";

  // Deleted from upload/ after its check (its last name gone): it cannot be linked back.
  CheckedOutput deleted = checked("wu_3_1", "short-lived");
  fs::remove(dir_ + "/upload/wu_3_1");
  stored = store_->store_outputs("wu_3", all(std::move(deleted)));
  ASSERT_FALSE(stored.ok());
  EXPECT_NE(stored.error().find("wu_3_1"), std::string::npos) << stored.error();
  EXPECT_FALSE(fs::exists(dir_ + "/results/wu_3/MANIFEST"));
}

TEST_F(ResultsStoreTest, Assimilator_OnlyAMatchIsKeptOpen) {
  CanonicalOutput forged = output("wu_5_1", "honest answer");
  std::ofstream(forged.path, std::ios::binary | std::ios::trunc) << "forged!";  // swapped after the report
  CheckedOutput file;
  EXPECT_EQ(check_output(forged, file).match, OutputMatch::SizeDiffers);
  EXPECT_FALSE(file.fd);

  forged = output("wu_5_1", "same size, other bytes");
  std::ofstream(forged.path, std::ios::binary | std::ios::trunc) << "same size, OTHER bytes";
  EXPECT_EQ(check_output(forged, file).match, OutputMatch::Md5Differs);
  EXPECT_FALSE(file.fd);

  CanonicalOutput unreported = output("wu_5_2", "x");
  unreported.reported.md5.clear();
  EXPECT_EQ(check_output(unreported, file).match, OutputMatch::NotReported);
  EXPECT_FALSE(file.fd);
}

TEST_F(ResultsStoreTest, Assimilator_ASwapInUploadAfterTheCheckNeverReachesTheStore) {
  // Another file renamed over the upload/ name between the check and the store.
  auto swap_in_forged = [&](const std::string& name) {
    std::ofstream(dir_ + "/upload/forged", std::ios::binary) << "forged answer";
    fs::rename(dir_ + "/upload/forged", dir_ + "/upload/" + name);
  };
  // The checked file keeps another name: that very file is stored, not the one now under
  // its upload/ name.
  CheckedOutput honest = checked("wu_6_0", "honest answer");
  fs::create_hard_link(dir_ + "/upload/wu_6_0", dir_ + "/upload/other_name");
  swap_in_forged("wu_6_0");
  auto stored = store_->store_outputs("wu_6", all(std::move(honest)));
  ASSERT_TRUE(stored.ok()) << stored.error();
  EXPECT_EQ(*read_text_file(dir_ + "/results/wu_6/wu_6_0"), "honest answer");
  EXPECT_EQ((*read_manifest(dir_ + "/results", "wu_6"))[0].md5, md5_hex("honest answer"));

  // The checked file has no name left: nothing is stored (a later check sees the forgery).
  honest = checked("wu_7_0", "honest answer");
  swap_in_forged("wu_7_0");
  stored = store_->store_outputs("wu_7", all(std::move(honest)));
  ASSERT_FALSE(stored.ok());
  EXPECT_NE(stored.error().find("wu_7_0"), std::string::npos) << stored.error();
  EXPECT_FALSE(fs::exists(dir_ + "/results/wu_7"));
}

TEST_F(ResultsStoreTest, Assimilator_CopiesTheCheckedFileToAStoreOnAnotherFileSystem) {
  struct stat upload {
  }, shm{};
  ASSERT_EQ(::stat((dir_ + "/upload").c_str(), &upload), 0);
  if (::stat("/dev/shm", &shm) != 0 || shm.st_dev == upload.st_dev) {
    GTEST_SKIP() << "no second file system at /dev/shm";
  }
  char pattern[] = "/dev/shm/tharsis-store-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string store = pattern;
  CheckedOutput honest = checked("wu_8_0", "honest answer");
  fs::create_hard_link(dir_ + "/upload/wu_8_0", dir_ + "/upload/other_name");
  std::ofstream(dir_ + "/upload/forged", std::ios::binary) << "forged answer";
  fs::rename(dir_ + "/upload/forged", dir_ + "/upload/wu_8_0");  // swapped after the check
  auto stored = ResultsStore(store).store_outputs("wu_8", all(std::move(honest)));
  EXPECT_TRUE(stored.ok()) << stored.error();
  EXPECT_EQ(*read_text_file(store + "/wu_8/wu_8_0"), "honest answer") << "a copy of the file checked";
  EXPECT_NE(inode_of(store + "/wu_8/wu_8_0"), inode_of(dir_ + "/upload/other_name"));
  EXPECT_EQ((*read_manifest(store, "wu_8"))[0].md5, md5_hex("honest answer"));
  int entries = 0;
  for (auto& e : fs::directory_iterator(store + "/wu_8")) entries += e.is_regular_file();
  EXPECT_EQ(entries, 2);  // no temp file left
  fs::remove_all(store);
}

TEST_F(ResultsStoreTest, Assimilator_FollowsItsDirectoryMovedOrRemoved) {
  ASSERT_TRUE(store_->store_outputs("wu_9", all(checked("wu_9_0", "first"))).ok());
  // Removed under a running store: the next workunit makes it anew at once.
  fs::remove_all(dir_ + "/results");
  auto stored = store_->store_outputs("wu_10", all(checked("wu_10_0", "second")));
  ASSERT_TRUE(stored.ok()) << stored.error();
  EXPECT_EQ(*read_text_file(dir_ + "/results/wu_10/wu_10_0"), "second");
  // Moved away by the admin, and looked up again (here at every workunit): the store
  // goes on in the new results/, the moved one is left as it was.
  ResultsStore store(dir_ + "/results", std::chrono::seconds(0));
  ASSERT_TRUE(store.store_outputs("wu_11", all(checked("wu_11_0", "third"))).ok());
  fs::rename(dir_ + "/results", dir_ + "/results.archived");
  stored = store.store_outputs("wu_12", all(checked("wu_12_0", "fourth")));
  ASSERT_TRUE(stored.ok()) << stored.error();
  EXPECT_EQ(*read_text_file(dir_ + "/results/wu_12/wu_12_0"), "fourth");
  EXPECT_FALSE(fs::exists(dir_ + "/results.archived/wu_12"));
  EXPECT_EQ((*read_manifest(dir_ + "/results.archived", "wu_11"))[0].md5, md5_hex("third"));
}

TEST_F(ResultsStoreTest, Assimilator_RecordsErrorWorkunits) {
  ASSERT_TRUE(store_->store_error("wu_4", 2, "too many errors").ok());
  auto text = read_text_file(dir_ + "/results/wu_4/ERROR");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "error_mask 2\ntoo many errors\n");
  // Recorded again (a re-run after a kill): the same record, no temp file left.
  ASSERT_TRUE(store_->store_error("wu_4", 2, "too many errors").ok());
  EXPECT_EQ(*read_text_file(dir_ + "/results/wu_4/ERROR"), *text);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ + "/results/wu_4"), fs::directory_iterator()), 1);
}

}  // namespace
}  // namespace tharsis
