// A main for the fuzz targets without libFuzzer: runs LLVMFuzzerTestOneInput once over
// every file given (directories recursively), so the g++ build replays the seed corpora and
// every finding's input (fuzz/regressions/) under the targets' contract checks. A broken
// contract aborts, which fails the ctest that runs it.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

void run_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // A copy of exactly the input's size, so reads past the end are not hidden by slack.
  std::vector<uint8_t> input(bytes.begin(), bytes.end());
  LLVMFuzzerTestOneInput(input.data(), input.size());
}

}  // namespace

int main(int argc, char** argv) {
  size_t count = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    std::error_code ec;
    if (std::filesystem::is_directory(arg, ec)) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(arg, ec)) {
        if (!entry.is_regular_file()) continue;
        run_file(entry.path());
        ++count;
      }
    } else if (std::filesystem::is_regular_file(arg, ec)) {
      run_file(arg);
      ++count;
    } else {
      std::cerr << argv[0] << ": no such file or directory: " << arg << "\n";
      return 2;
    }
  }
  std::cout << argv[0] << ": " << count << " input(s) replayed, contract held\n";
  return 0;
}
