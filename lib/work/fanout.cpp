// Implementation of lib/work/fanout.h.
#include "lib/work/fanout.h"

#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "lib/crypto/md5.h"

namespace tharsis {
namespace {

std::string join(std::string_view base, std::string_view name) {
  std::string out(base);
  if (!out.empty() && out.back() != '/') out.push_back('/');
  out.append(name);
  return out;
}

Status make_dir(const std::string& path) {
  if (::mkdir(path.c_str(), 0775) == 0 || errno == EEXIST) return Status::success();
  return make_error("cannot create directory " + path + ": " + std::strerror(errno));
}

std::string hex_no_padding(unsigned long value) {
  char buffer[32];
  const auto written = std::to_chars(buffer, buffer + sizeof buffer, value, 16);
  return std::string(buffer, written.ptr);
}

}  // namespace

std::string fanout_dir(std::string_view name, int fanout) {
  if (fanout <= 0) return "";
  // Hex digits 1..7 of the digest: the low half of its first byte, then three bytes.
  const Md5Digest digest = md5_bytes(name);
  const unsigned long value = (static_cast<unsigned long>(digest[0] & 0x0f) << 24) |
                              (static_cast<unsigned long>(digest[1]) << 16) |
                              (static_cast<unsigned long>(digest[2]) << 8) | digest[3];
  return hex_no_padding(value % static_cast<unsigned long>(fanout));
}

std::string fanout_path(std::string_view base, std::string_view name, int fanout) {
  if (fanout <= 0) return join(base, name);
  return join(join(base, fanout_dir(name, fanout)), name);
}

Result<std::string> fanout_path_create(std::string_view base, std::string_view name, int fanout) {
  if (fanout > 0) {
    Status made = make_dir(join(base, fanout_dir(name, fanout)));
    if (!made) return make_error(made.error());
  }
  return fanout_path(base, name, fanout);
}

Status create_fanout_dirs(std::string_view base, int fanout) {
  for (int i = 0; i < fanout; ++i) {
    Status made = make_dir(join(base, hex_no_padding(static_cast<unsigned long>(i))));
    if (!made) return made;
  }
  return Status::success();
}

}  // namespace tharsis
