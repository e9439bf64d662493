// Short-lived cache of rendered status pages (see page_cache.h).
#include "lib/web/page_cache.h"

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <system_error>

#include "lib/log.h"
#include "lib/text_file.h"

namespace tharsis {

std::string page_cache_path(const std::string& dir, std::string_view program, std::string_view query_string) {
  uint64_t hash = 1469598103934665603ULL;  // FNV-1a: names files, not a security boundary
  for (unsigned char c : query_string) hash = (hash ^ c) * 1099511628211ULL;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return dir + "/" + std::string(program) + "_" + hex;
}

std::optional<CgiResponse> read_cached_page(const std::string& path, int64_t now, int64_t max_age) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  const int64_t age = now - static_cast<int64_t>(info.st_mtime);
  // -1: another process stored the page in the second after this request took `now`.
  if (age < -1 || age >= max_age) return std::nullopt;
  auto text = read_text_file(path);
  if (!text) return std::nullopt;
  // First line: the content type; the rest: the body.
  const size_t newline = text->find('\n');
  if (newline == std::string::npos) return std::nullopt;
  CgiResponse response;
  response.content_type = text->substr(0, newline);
  response.body = text->substr(newline + 1);
  return response;
}

void store_cached_page(const std::string& path, const CgiResponse& response) {
  if (response.status != 200) return;
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  Status written = write_text_file(path, response.content_type + "\n" + response.body);
  if (!written) log_warning("status page cache: ", written.error());
}

}  // namespace tharsis
