// One HTTP connection's worth of libcurl for the client: POST a body and read the reply
// (scheduler RPC, upload handler), GET a URL into a file (downloads). A session keeps its
// curl handle so keep-alive connections are reused across requests to the same server.
#pragma once

#include <string>

namespace tharsis {

struct HttpReply {
  long status = 0;  // HTTP status; 0 when no reply arrived
  std::string body;
  std::string error;  // transport error (connect refused, timeout...), empty on success
  bool ok() const { return error.empty() && status == 200; }
  // "HTTP 404" or the transport error, for messages.
  std::string describe() const;
};

class HttpSession {
 public:
  explicit HttpSession(double timeout_seconds = 60);
  ~HttpSession();
  HttpSession(const HttpSession&) = delete;
  HttpSession& operator=(const HttpSession&) = delete;

  HttpReply post(const std::string& url, const std::string& body);
  HttpReply get(const std::string& url);
  // Writes the body to `path` (truncating it); the reply's body stays empty.
  HttpReply get_to_file(const std::string& url, const std::string& path);

 private:
  HttpReply perform(const std::string& url, const std::string* post_body, const std::string* file_path);
  void* curl_ = nullptr;
  double timeout_seconds_;
};

}  // namespace tharsis
