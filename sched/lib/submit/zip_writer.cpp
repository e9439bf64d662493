// Implementation of sched/lib/submit/zip_writer.h (PKWARE APPNOTE: local file headers,
// central directory, end record; method 0, "stored").
#include "sched/lib/submit/zip_writer.h"

#include <zlib.h>

namespace tharsis {
namespace {

void put16(std::string& out, uint32_t v) {
  out.push_back(static_cast<char>(v & 0xff));
  out.push_back(static_cast<char>((v >> 8) & 0xff));
}

void put32(std::string& out, uint32_t v) {
  put16(out, v & 0xffff);
  put16(out, v >> 16);
}

constexpr uint32_t kDosDate = (0 << 9) | (1 << 5) | 1;  // 1980-01-01

}  // namespace

void ZipWriter::add(std::string_view name, std::string_view content) {
  uint32_t crc = static_cast<uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(content.data()), static_cast<uInt>(content.size())));
  uint32_t size = static_cast<uint32_t>(content.size());
  uint32_t offset = static_cast<uint32_t>(data_.size());
  put32(data_, 0x04034b50);
  put16(data_, 20);  // version needed
  put16(data_, 0);   // flags
  put16(data_, 0);   // stored
  put16(data_, 0);   // time
  put16(data_, kDosDate);
  put32(data_, crc);
  put32(data_, size);
  put32(data_, size);
  put16(data_, static_cast<uint32_t>(name.size()));
  put16(data_, 0);  // extra
  data_.append(name);
  data_.append(content);

  put32(directory_, 0x02014b50);
  put16(directory_, 20);  // made by
  put16(directory_, 20);  // needed
  put16(directory_, 0);
  put16(directory_, 0);
  put16(directory_, 0);
  put16(directory_, kDosDate);
  put32(directory_, crc);
  put32(directory_, size);
  put32(directory_, size);
  put16(directory_, static_cast<uint32_t>(name.size()));
  put16(directory_, 0);  // extra
  put16(directory_, 0);  // comment
  put16(directory_, 0);  // disk
  put16(directory_, 0);  // internal attributes
  put32(directory_, 0);  // external attributes
  put32(directory_, offset);
  directory_.append(name);
  ++entries_;
}

std::string ZipWriter::finish() {
  std::string out = std::move(data_);
  uint32_t directory_offset = static_cast<uint32_t>(out.size());
  out += directory_;
  put32(out, 0x06054b50);
  put16(out, 0);
  put16(out, 0);
  put16(out, static_cast<uint32_t>(entries_));
  put16(out, static_cast<uint32_t>(entries_));
  put32(out, static_cast<uint32_t>(directory_.size()));
  put32(out, directory_offset);
  put16(out, 0);  // comment
  data_.clear();
  directory_.clear();
  entries_ = 0;
  return out;
}

}  // namespace tharsis
