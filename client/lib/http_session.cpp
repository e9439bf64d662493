// Implementation of client/lib/http_session.h.
#include "client/lib/http_session.h"

#include <curl/curl.h>

#include <cstdio>
#include <mutex>

namespace tharsis {
namespace {

size_t to_string(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

size_t to_file(char* data, size_t size, size_t n, void* out) {
  return std::fwrite(data, size, n, static_cast<std::FILE*>(out)) * size;
}

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

}  // namespace

std::string HttpReply::describe() const {
  if (!error.empty()) return error;
  return "HTTP " + std::to_string(status);
}

HttpSession::HttpSession(double timeout_seconds) : timeout_seconds_(timeout_seconds) {
  global_init();
  curl_ = curl_easy_init();
}

HttpSession::~HttpSession() {
  if (curl_) curl_easy_cleanup(static_cast<CURL*>(curl_));
}

HttpReply HttpSession::post(const std::string& url, const std::string& body) {
  return perform(url, &body, nullptr);
}
HttpReply HttpSession::get(const std::string& url) { return perform(url, nullptr, nullptr); }
HttpReply HttpSession::get_to_file(const std::string& url, const std::string& path) {
  return perform(url, nullptr, &path);
}

HttpReply HttpSession::perform(const std::string& url, const std::string* post_body,
                               const std::string* file_path) {
  HttpReply reply;
  CURL* curl = static_cast<CURL*>(curl_);
  if (!curl) {
    reply.error = "cannot initialise libcurl";
    return reply;
  }
  std::FILE* file = nullptr;
  if (file_path) {
    file = std::fopen(file_path->c_str(), "wb");
    if (!file) {
      reply.error = "cannot write " + *file_path;
      return reply;
    }
  }
  curl_easy_reset(curl);
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_seconds_ * 1000));
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "BOINC client (x86_64-pc-linux-gnu 7.20.2) tharsis-client");
  if (file) {
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, to_file);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, file);
  } else {
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, to_string);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply.body);
  }
  if (post_body) {
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, post_body->data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(post_body->size()));
  }
  CURLcode code = curl_easy_perform(curl);
  if (code != CURLE_OK) reply.error = url + ": " + curl_easy_strerror(code);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply.status);
  if (file && std::fclose(file) != 0 && reply.error.empty()) reply.error = "cannot write " + *file_path;
  return reply;
}

}  // namespace tharsis
