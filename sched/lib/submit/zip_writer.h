// A zip archive built in memory with its entries stored (not compressed: outputs are
// often compressed already, and storing needs no CPU): BOINC's get_output.php answers
// cmd=batch_files with a zip of the batch's outputs. No zip64: at most 65,535 entries
// and 4 GiB, which callers bound below.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tharsis {

class ZipWriter {
 public:
  // Adds a file (name as stored in the archive, e.g. "job_0_out").
  void add(std::string_view name, std::string_view content);
  // The archive (central directory appended); the writer is empty afterwards.
  std::string finish();
  size_t entries() const { return entries_; }
  size_t bytes() const { return data_.size(); }

 private:
  std::string data_;
  std::string directory_;
  size_t entries_ = 0;
};

}  // namespace tharsis
