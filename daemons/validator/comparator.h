// The validator's pluggable judgement of result outputs: can a result's output be read,
// and do two results agree. File comparators (bitwise, numeric tolerance, trivial) implement
// ResultComparator; the validator's rules (validator_rules.h) only call this interface.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "db/rows.h"

namespace tharsis {

enum class ReadOutcome {
  Ok,
  TransientError,  // e.g. upload directory not mounted: try the whole workunit later
  PermanentError,  // missing or malformed output: the result gets VALIDATE_ERROR
};

enum class CompareOutcome {
  Match,
  Mismatch,
  TransientError,  // try the whole workunit later
  PermanentError,  // cannot compare these two: treated as a mismatch (as BOINC does)
};

// One output file of a result as a caller has already found it on disk: a regular file
// of `size` bytes at `path`.
struct FoundOutput {
  std::string path;
  int64_t size = 0;
};

class ResultComparator {
 public:
  virtual ~ResultComparator() = default;
  // BOINC's init_result: is this result's output present and well formed?
  virtual ReadOutcome check_readable(const ResultRow& result) = 0;
  // The same judgement for a caller that has already located every output file of the
  // result and found each a regular file (`found`, in the order of the comparator's
  // locator; report_checking_comparator.h): a comparator may use what was found instead
  // of looking again. By default it looks again.
  virtual ReadOutcome check_found_readable(const ResultRow& result, const std::vector<FoundOutput>& found) {
    (void)found;
    return check_readable(result);
  }
  // BOINC's compare_results: do the outputs of two readable results agree? Called only
  // for results check_readable accepted.
  virtual CompareOutcome compare(const ResultRow& a, const ResultRow& b) = 0;
};

// A comparator made of two functions; handy for tests and for simple applications.
class FunctionComparator final : public ResultComparator {
 public:
  using ReadFn = std::function<ReadOutcome(const ResultRow&)>;
  using CompareFn = std::function<CompareOutcome(const ResultRow&, const ResultRow&)>;

  FunctionComparator(ReadFn read, CompareFn compare) : read_(std::move(read)), compare_(std::move(compare)) {}
  // Every output readable; agreement decided by `compare`.
  explicit FunctionComparator(CompareFn compare)
      : FunctionComparator([](const ResultRow&) { return ReadOutcome::Ok; }, std::move(compare)) {}

  ReadOutcome check_readable(const ResultRow& result) override { return read_(result); }
  CompareOutcome compare(const ResultRow& a, const ResultRow& b) override { return compare_(a, b); }

 private:
  ReadFn read_;
  CompareFn compare_;
};

}  // namespace tharsis
