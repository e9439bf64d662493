// Implementation of sched/lib/submit/submit_limits.h.
#include "sched/lib/submit/submit_limits.h"

#include "lib/protocol/xml_text.h"

namespace tharsis {
namespace {

void read_positive(const ProjectConfig& config, const char* key, size_t& out) {
  auto found = config.other.find(key);
  if (found == config.other.end()) return;
  auto value = parse_xml_int(found->second);
  if (value && *value > 0) out = static_cast<size_t>(*value);
}

}  // namespace

SubmitLimits submit_limits(const ProjectConfig& config) {
  SubmitLimits limits;
  read_positive(config, "submit_max_request_bytes", limits.max_request_bytes);
  read_positive(config, "submit_max_jobs", limits.max_jobs);
  read_positive(config, "submit_semilocal_max_bytes", limits.semilocal_max_bytes);
  auto allow = config.other.find("submit_semilocal_allow");
  // BOINC's flag style: <submit_semilocal_allow/> or <submit_semilocal_allow>1</...> turn it on.
  limits.semilocal_allow = allow != config.other.end() &&
                           (allow->second.empty() || allow->second == "1" || allow->second == "true");
  read_positive(config, "submit_max_graph_operands", limits.max_graph_operands);
  return limits;
}

ProtocolLimits xml_limits(const SubmitLimits& limits) {
  ProtocolLimits xml;
  xml.max_request_bytes = limits.max_request_bytes;
  xml.max_elements = limits.base_nodes + limits.nodes_per_job * limits.max_jobs;
  xml.max_depth = limits.max_depth;
  xml.max_name_bytes = 254;
  xml.max_text_bytes = limits.max_text_bytes;
  xml.max_number_bytes = 64;  // what submit requests have always been held to
  return xml;
}

}  // namespace tharsis
