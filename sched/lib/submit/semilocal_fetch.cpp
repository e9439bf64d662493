// Implementation of sched/lib/submit/semilocal_fetch.h.
#include "sched/lib/submit/semilocal_fetch.h"

#include <curl/curl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <random>

#include "lib/crypto/md5.h"
#include "lib/work/fanout.h"

namespace tharsis {
namespace {

struct Sink {
  FILE* file = nullptr;
  size_t max_bytes = 0;
  size_t written = 0;
  bool over_limit = false;
};

size_t write_limited(char* data, size_t size, size_t n, void* out) {
  auto* sink = static_cast<Sink*>(out);
  size_t bytes = size * n;
  if (sink->written + bytes > sink->max_bytes) {
    sink->over_limit = true;
    return 0;  // stops the transfer
  }
  if (std::fwrite(data, 1, bytes, sink->file) != bytes) return 0;
  sink->written += bytes;
  return bytes;
}

}  // namespace

Result<FetchedFile> fetch_semilocal(const std::string& url, const ProjectConfig& config, size_t max_bytes) {
  std::string tmp = config.download_dir + "/.semilocal_" + std::to_string(getpid()) + "_" +
                    std::to_string(std::random_device{}()) + ".tmp";
  Sink sink{std::fopen(tmp.c_str(), "wb"), max_bytes};
  if (!sink.file) return make_error("semilocal " + url + ": cannot create " + tmp);
  CURL* curl = curl_easy_init();
  if (!curl) {
    std::fclose(sink.file);
    unlink(tmp.c_str());
    return make_error("semilocal " + url + ": cannot start libcurl");
  }
  char curl_error[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 5L);
  curl_easy_setopt(curl, CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(max_bytes));
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 10L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 600L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "tharsis-semilocal");
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, curl_error);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, write_limited);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  CURLcode code = curl_easy_perform(curl);
  curl_easy_cleanup(curl);
  bool closed = std::fclose(sink.file) == 0;
  auto fail = [&](const std::string& why) -> Result<FetchedFile> {
    unlink(tmp.c_str());
    return make_error("semilocal " + url.substr(0, 200) + ": " + why);
  };
  if (sink.over_limit || code == CURLE_FILESIZE_EXCEEDED) {
    return fail("larger than the project's limit of " + std::to_string(max_bytes) +
                " bytes (config.xml <submit_semilocal_max_bytes>)");
  }
  if (code != CURLE_OK) return fail(curl_error[0] ? curl_error : curl_easy_strerror(code));
  if (!closed) return fail("cannot write " + tmp);
  auto md5 = md5_file_hex(tmp);
  if (!md5.ok()) return fail(md5.error());
  FetchedFile fetched{"jf_" + *md5, *md5, static_cast<int64_t>(sink.written)};
  auto path = fanout_path_create(config.download_dir, fetched.name, config.uldl_dir_fanout);
  if (!path.ok()) return fail(path.error());
  struct stat info {};
  if (stat(path->c_str(), &info) == 0) {
    unlink(tmp.c_str());  // content-addressed: the same bytes are there already
    utimes(path->c_str(), nullptr);
  } else if (rename(tmp.c_str(), path->c_str()) != 0) {
    return fail("cannot move the file into download/");
  }
  return fetched;
}

}  // namespace tharsis
