// The example app's real work, for plain (non-graph) jobs: an iterated SHA-256 hash
// chain over a seed text, plus a numeric kernel (a partial sum of the Leibniz series for
// pi) so outputs can be checked bitwise or numerically. Deterministic: the same input
// gives byte-identical output on every host, so redundant results agree.
#pragma once

#include <cstdint>
#include <string>

#include "lib/result.h"

namespace tharsis {

struct ExampleJob {
  std::string seed;        // text hashed first
  int64_t iterations = 0;  // hash chain length, 1..10^9
  int64_t terms = 0;       // series terms, 0..10^10
};

// Input file format: lines "seed TEXT", "iterations N", "terms N" (any order; seed
// required, others default to 0/1000). Unknown keys and bad numbers are errors naming
// the line.
Result<ExampleJob> parse_example_input(const std::string& text);

// SHA-256 applied `iterations` times (at least once) starting from `seed`, as hex.
std::string hash_chain_hex(const std::string& seed, int64_t iterations);

// Output file: "sha256 <hex>\npi <value with 17 significant digits>\n".
std::string run_example_job(const ExampleJob& job);

// The whole app: reads the input file, runs the job, writes the output file. Errors name
// the file or the bad input line (the apps print them on stderr and exit 1).
Status run_example_files(const std::string& input_path, const std::string& output_path);

}  // namespace tharsis
