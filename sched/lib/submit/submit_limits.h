// Hard limits of the remote submission endpoint (docs/remote_submission.md#limits): a
// request over any of them gets a well-formed <error>, never a crash or an unbounded
// allocation. Read from config.xml's optional <submit_max_request_bytes>,
// <submit_max_jobs>, <submit_max_graph_operands>, <submit_semilocal_allow> and
// <submit_semilocal_max_bytes> (ProjectConfig::other); the rest are fixed.
#pragma once

#include <cstddef>
#include <cstdint>

#include "lib/config/project_config.h"
#include "lib/protocol/protocol_limits.h"

namespace tharsis {

struct SubmitLimits {
  size_t max_request_bytes = 64u << 20;  // the POST body (form encoding included)
  size_t max_jobs = 100000;              // <job>s in one request
  int max_depth = 16;                    // element nesting
  size_t nodes_per_job = 32;             // XML nodes allowed per job on average ...
  size_t base_nodes = 1000;              // ... plus these
  size_t max_inline_bytes = 1u << 20;    // one inline input file
  size_t max_text_bytes = 4096;          // command lines and other free text
  size_t max_inputs_per_job = 64;        // <input_file>s of one job
  size_t max_names = 100000;             // <job_name>s in abort_jobs
  // semilocal inputs (the server fetches a URL: an SSRF risk, so off unless the project
  // says so): at most this many bytes per file, and this many distinct URLs per request.
  bool semilocal_allow = false;
  size_t semilocal_max_bytes = 100u << 20;
  size_t semilocal_max_urls = 100;
  size_t max_graph_operands = 20000;  // chunk operands of one submit_graph (after fusion)
  size_t max_graph_bytes = 1u << 20;  // its <expression> or <graph_json>
};

// The limits for `config` (defaults where config.xml says nothing or something invalid).
SubmitLimits submit_limits(const ProjectConfig& config);

// The XML reader's limits derived from these.
ProtocolLimits xml_limits(const SubmitLimits& limits);

}  // namespace tharsis
