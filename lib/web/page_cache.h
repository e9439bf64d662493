// A rendered status page kept for a few seconds, as BOINC caches its server status page:
// counting a million results on every request would cost a full index scan each time,
// while the numbers change slowly. One file per page and query string under a directory
// (the project's tmp/status_pages/), written atomically; a page older than its time to
// live is rendered again. Failures to read or write the cache only cost the speed-up.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lib/web/cgi_request.h"

namespace tharsis {

// dir/<program>_<16 hex digits of a hash of the query string>.
std::string page_cache_path(const std::string& dir, std::string_view program, std::string_view query_string);

// The response stored at `path` if it was written less than max_age seconds before `now`
// (or in the second after it: another process may store a page during a request).
std::optional<CgiResponse> read_cached_page(const std::string& path, int64_t now, int64_t max_age);

// Stores a 200 response (anything else is not cached); creates the directory if needed.
void store_cached_page(const std::string& path, const CgiResponse& response);

}  // namespace tharsis
