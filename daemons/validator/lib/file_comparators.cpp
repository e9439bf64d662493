// Implementation of daemons/validator/lib/file_comparators.h.
#include "daemons/validator/lib/file_comparators.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

namespace tharsis {
namespace {

// ENOENT and friends are permanent for a result (its upload never arrived); anything
// else (EIO, EACCES on a flaky mount) is worth retrying later.
ReadOutcome classify_errno(int error) {
  return (error == ENOENT || error == ENOTDIR) ? ReadOutcome::PermanentError : ReadOutcome::TransientError;
}

// The comparators hold both results' files in memory: larger ones are not compared.
bool within_compare_limit(int64_t size) { return static_cast<size_t>(size) <= kMaxComparedFileBytes; }

ReadOutcome check_files(const OutputLocator& locate, const ResultRow& result) {
  auto paths = locate(result);
  if (!paths.ok() || paths->empty()) return ReadOutcome::PermanentError;
  for (const auto& path : *paths) {
    struct stat info {};
    if (stat(path.c_str(), &info) != 0) return classify_errno(errno);
    if (!S_ISREG(info.st_mode)) return ReadOutcome::PermanentError;
    if (!within_compare_limit(info.st_size)) return ReadOutcome::PermanentError;
  }
  return ReadOutcome::Ok;
}

Result<std::string> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error("cannot open " + path + ": " + std::strerror(errno));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return make_error("read error on " + path);
  return bytes;
}

// Shared shape of the file comparators: locate both outputs, require the same number of
// files, then compare file by file with `same_file`.
class FileComparator : public ResultComparator {
 public:
  explicit FileComparator(OutputLocator locate) : locate_(std::move(locate)) {}
  ReadOutcome check_readable(const ResultRow& result) override { return check_files(locate_, result); }
  // check_files' rule on files already found regular: each within kMaxComparedFileBytes.
  ReadOutcome check_found_readable(const ResultRow&, const std::vector<FoundOutput>& found) override {
    if (found.empty()) return ReadOutcome::PermanentError;
    for (const auto& file : found) {
      if (!within_compare_limit(file.size)) return ReadOutcome::PermanentError;
    }
    return ReadOutcome::Ok;
  }
  CompareOutcome compare(const ResultRow& a, const ResultRow& b) override {
    auto paths_a = locate_(a);
    auto paths_b = locate_(b);
    if (!paths_a.ok() || !paths_b.ok()) return CompareOutcome::PermanentError;
    if (paths_a->size() != paths_b->size()) return CompareOutcome::Mismatch;
    for (size_t i = 0; i < paths_a->size(); ++i) {
      CompareOutcome outcome = same_file((*paths_a)[i], (*paths_b)[i]);
      if (outcome != CompareOutcome::Match) return outcome;
    }
    return CompareOutcome::Match;
  }

 protected:
  virtual CompareOutcome same_file(const std::string& a, const std::string& b) = 0;

 private:
  OutputLocator locate_;
};

class BitwiseComparator final : public FileComparator {
 public:
  using FileComparator::FileComparator;

 protected:
  CompareOutcome same_file(const std::string& a, const std::string& b) override {
    auto bytes_a = read_bytes(a);
    auto bytes_b = read_bytes(b);
    if (!bytes_a.ok() || !bytes_b.ok()) return CompareOutcome::TransientError;
    return *bytes_a == *bytes_b ? CompareOutcome::Match : CompareOutcome::Mismatch;
  }
};

class NumericComparator final : public FileComparator {
 public:
  NumericComparator(OutputLocator locate, NumericTolerance tolerance, NumericDecoder decode)
      : FileComparator(std::move(locate)), tolerance_(tolerance), decode_(std::move(decode)) {}

 protected:
  CompareOutcome same_file(const std::string& a, const std::string& b) override {
    auto numbers_a = decode_(a);
    auto numbers_b = decode_(b);
    // A file that does not decode is garbage: it cannot agree with anything.
    if (!numbers_a.ok() || !numbers_b.ok()) return CompareOutcome::PermanentError;
    if (numbers_a->size() != numbers_b->size()) return CompareOutcome::Mismatch;
    for (size_t i = 0; i < numbers_a->size(); ++i) {
      if (!numbers_agree((*numbers_a)[i], (*numbers_b)[i], tolerance_)) return CompareOutcome::Mismatch;
    }
    return CompareOutcome::Match;
  }

 private:
  NumericTolerance tolerance_;
  NumericDecoder decode_;
};

class TrivialComparator final : public FileComparator {
 public:
  using FileComparator::FileComparator;

 protected:
  CompareOutcome same_file(const std::string&, const std::string&) override { return CompareOutcome::Match; }
};

}  // namespace

Result<std::vector<double>> decode_raw_doubles(const std::string& path) {
  auto bytes = read_bytes(path);
  if (!bytes.ok()) return make_error(bytes.error());
  if (bytes->size() % sizeof(double) != 0) {
    return make_error(path + ": expected a multiple of 8 bytes of float64, found " +
                      std::to_string(bytes->size()) + " bytes");
  }
  std::vector<double> numbers(bytes->size() / sizeof(double));
  std::memcpy(numbers.data(), bytes->data(), bytes->size());
  return numbers;
}

bool numbers_agree(double a, double b, const NumericTolerance& tolerance) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (a == b) return true;  // equal infinities included
  double difference = std::fabs(a - b);
  if (!std::isfinite(difference)) return false;
  return difference <= tolerance.absolute ||
         difference <= tolerance.relative * std::max(std::fabs(a), std::fabs(b));
}

std::unique_ptr<ResultComparator> make_bitwise_comparator(OutputLocator locate) {
  return std::make_unique<BitwiseComparator>(std::move(locate));
}

std::unique_ptr<ResultComparator> make_numeric_comparator(OutputLocator locate, NumericTolerance tolerance,
                                                          NumericDecoder decode) {
  return std::make_unique<NumericComparator>(std::move(locate), tolerance, std::move(decode));
}

std::unique_ptr<ResultComparator> make_trivial_comparator(OutputLocator locate) {
  return std::make_unique<TrivialComparator>(std::move(locate));
}

Result<std::unique_ptr<ResultComparator>> make_comparator(const std::string& name, OutputLocator locate) {
  if (name == "bitwise") return make_bitwise_comparator(std::move(locate));
  if (name == "numeric") return make_numeric_comparator(std::move(locate), NumericTolerance{});
  if (name == "trivial") return make_trivial_comparator(std::move(locate));
  return make_error("validator: expected comparator bitwise, numeric or trivial, found '" + name + "'");
}

}  // namespace tharsis
