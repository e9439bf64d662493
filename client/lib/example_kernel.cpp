// Implementation of client/lib/example_kernel.h.
#include "client/lib/example_kernel.h"

#include <openssl/evp.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace tharsis {
namespace {

std::string sha256_raw(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<const char*>(digest), length);
}

std::string to_hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : bytes) {
    hex += digits[c >> 4];
    hex += digits[c & 15];
  }
  return hex;
}

Result<int64_t> parse_count(const std::string& value, int64_t max, int line) {
  try {
    size_t used = 0;
    long long n = std::stoll(value, &used);
    if (used == value.size() && n >= 0 && n <= max) return static_cast<int64_t>(n);
  } catch (const std::exception&) {
  }
  return make_error("example input line " + std::to_string(line) + ": expected an integer in 0.." +
                    std::to_string(max) + ", found '" + value + "'");
}

}  // namespace

Result<ExampleJob> parse_example_input(const std::string& text) {
  ExampleJob job;
  job.iterations = 1;
  job.terms = 1000;
  bool have_seed = false;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    auto space = line.find(' ');
    std::string key = line.substr(0, space);
    std::string value = space == std::string::npos ? "" : line.substr(space + 1);
    if (key == "seed") {
      job.seed = value;
      have_seed = true;
    } else if (key == "iterations") {
      auto n = parse_count(value, 1'000'000'000, number);
      if (!n.ok()) return make_error(n.error());
      job.iterations = *n;
    } else if (key == "terms") {
      auto n = parse_count(value, 10'000'000'000LL, number);
      if (!n.ok()) return make_error(n.error());
      job.terms = *n;
    } else {
      return make_error("example input line " + std::to_string(number) +
                        ": expected seed, iterations or terms, found '" + key + "'");
    }
  }
  if (!have_seed) return make_error("example input: missing 'seed' line");
  return job;
}

std::string hash_chain_hex(const std::string& seed, int64_t iterations) {
  std::string digest = sha256_raw(seed);
  for (int64_t i = 1; i < iterations; ++i) digest = sha256_raw(digest);
  return to_hex(digest);
}

std::string run_example_job(const ExampleJob& job) {
  // Summed from the smallest term up, so rounding is the same everywhere.
  double pi = 0;
  for (int64_t k = job.terms - 1; k >= 0; --k) {
    double term = 4.0 / static_cast<double>(2 * k + 1);
    pi += (k % 2 == 0) ? term : -term;
  }
  char number[64];
  std::snprintf(number, sizeof number, "%.17g", pi);
  return "sha256 " + hash_chain_hex(job.seed, job.iterations) + "\npi " + number + "\n";
}

Status run_example_files(const std::string& input_path, const std::string& output_path) {
  std::ifstream in(input_path);
  if (!in) return make_error("cannot open input " + input_path);
  std::stringstream text;
  text << in.rdbuf();
  auto job = parse_example_input(text.str());
  if (!job.ok()) return make_error(job.error());
  std::string output = run_example_job(*job);
  std::ofstream out(output_path, std::ios::binary | std::ios::trunc);
  out << output;
  out.close();
  if (!out) return make_error("cannot write output " + output_path);
  return Status::success();
}

}  // namespace tharsis
