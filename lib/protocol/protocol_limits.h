// Size limits for everything a client sends us (scheduler requests, upload headers).
// A request over any limit is rejected with an error naming the limit, the element and
// the line, never a crash or an unbounded allocation.
#pragma once

#include <cstddef>

namespace tharsis {

struct ProtocolLimits {
  size_t max_request_bytes = 16u << 20;  // whole scheduler_request document
  size_t max_elements = 500000;          // XML nodes in the document
  int max_depth = 64;                    // element nesting
  size_t max_results = 5000;             // reported <result>s (more: the request is rejected)
  size_t max_other_results = 20000;      // <other_result>s and <ip_result>s, each list
  size_t max_file_infos = 20000;         // sticky <file_info>s, and output files per result
  size_t max_platforms = 32;             // <alt_platform>s
  size_t max_stderr_bytes = 64u << 10;   // stderr_out of one result (BOINC's 64 KiB blob)
  bool truncate_stderr = true;           // longer stderr: keep the head (true) or reject (false)
  size_t max_name_bytes = 255;           // names, authenticator, platform, md5 and similar
  size_t max_text_bytes = 8192;          // longer free texts (os_version, keys, signatures)
  // Text of one number. format_double writes fixed-point, up to ~330 bytes for the largest
  // and the smallest doubles (1e308, 5e-324); 64 refused what our own renderers wrote, e.g.
  // a decayed credit of 1e-70 in a reply (found by fuzzing).
  size_t max_number_bytes = 400;
};

}  // namespace tharsis
