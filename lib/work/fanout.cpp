// Implementation of lib/work/fanout.h.
#include "lib/work/fanout.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
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
  std::snprintf(buffer, sizeof buffer, "%lx", value);
  return buffer;
}

}  // namespace

std::string fanout_dir(std::string_view name, int fanout) {
  if (fanout <= 0) return "";
  std::string digest = md5_hex(name);
  unsigned long value = std::stoul(digest.substr(1, 7), nullptr, 16);
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
