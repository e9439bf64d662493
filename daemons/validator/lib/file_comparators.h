// The validator's stock comparators over result output files (issue 3):
//   bitwise  — outputs agree when every file is byte-for-byte equal (integer/hash apps);
//   numeric  — outputs are arrays of doubles (binary float chunk files) that agree when
//              every element is within an absolute or relative tolerance, NaN equal to NaN;
//   trivial  — every readable result agrees (apps where any answer is fine).
// Which files belong to a result is decided by an OutputLocator supplied by the shell
// (it knows the upload directory and fan-out), so these classes do no path arithmetic.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "daemons/validator/comparator.h"
#include "lib/result.h"

namespace tharsis {

// The output file paths of a result, in a stable order (one per output file_ref).
// An error means the result's description is unusable: a permanent read error.
using OutputLocator = std::function<Result<std::vector<std::string>>(const ResultRow&)>;

// Turns one output file into numbers. The default reads the whole file as little-endian
// float64 values; the operand app plugs in its chunk-file reader.
using NumericDecoder = std::function<Result<std::vector<double>>(const std::string& path)>;

Result<std::vector<double>> decode_raw_doubles(const std::string& path);

struct NumericTolerance {
  double absolute = 1e-12;
  double relative = 1e-9;
};
bool numbers_agree(double a, double b, const NumericTolerance& tolerance);

// Files larger than this are a permanent read error (protects the validator's memory).
inline constexpr size_t kMaxComparedFileBytes = 512u * 1024 * 1024;

std::unique_ptr<ResultComparator> make_bitwise_comparator(OutputLocator locate);
std::unique_ptr<ResultComparator> make_numeric_comparator(OutputLocator locate, NumericTolerance tolerance,
                                                          NumericDecoder decode = decode_raw_doubles);
std::unique_ptr<ResultComparator> make_trivial_comparator(OutputLocator locate);

// By name, for config.xml's per-app <validator> choice: "bitwise", "numeric", "trivial".
Result<std::unique_ptr<ResultComparator>> make_comparator(const std::string& name, OutputLocator locate);

}  // namespace tharsis
