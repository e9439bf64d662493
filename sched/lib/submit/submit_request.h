// Parsing submit RPC requests (docs/remote_submission.md) into typed structs, under
// SubmitLimits: the document is refused before parsing if it declares a DOCTYPE or
// entities (no entity can expand), then read in place (lib/protocol/xml_reader.h, no second
// copy of a request of tens of MB) with the size, depth and node limits of xml_limits().
// Pure: no database, no files.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/protocol/xml_reader.h"
#include "lib/result.h"
#include "sched/lib/submit/submit_limits.h"

namespace tharsis {

// A loaded request: its operation (the root element's name) and the tree over its text.
struct SubmitDocument {
  std::string operation;
  std::string text;  // parsed in place: the tree points into it
  std::unique_ptr<ProtocolLimits> xml_limits;
  std::unique_ptr<XmlReader> reader;  // the tree, over `text`
  // Frees the tree and the text (after a big request was read into typed form).
  void release() {
    reader.reset();
    std::string().swap(text);
  }
};

// The root element's name without parsing the document (after an optional <?xml?>,
// comments and whitespace); empty if there is none.
std::string root_element_name(std::string_view xml);

// Checks the text (no DOCTYPE, no ENTITY) and loads it. The error says why.
Result<std::unique_ptr<SubmitDocument>> load_submit_document(std::string text, const SubmitLimits& limits);

// <authenticator> of the request ("" when absent).
Result<std::string> request_authenticator(const SubmitDocument& doc);

enum class InputMode { LocalStaged, Inline, Remote, Sandbox, Semilocal, Local };
// "local_staged" -> LocalStaged, ...; nullopt for an unknown mode.
std::optional<InputMode> parse_input_mode(std::string_view text);
const char* input_mode_name(InputMode mode);

struct SubmitInput {
  InputMode mode = InputMode::LocalStaged;
  std::string source =
      "";                // file name (local_staged, sandbox), content (inline), path/URL (local, semilocal)
  std::string url = "";  // remote
  double nbytes = 0;     // remote
  std::string md5 = "";  // remote
};

struct SubmitJob {
  std::string name;  // "" = the server names it
  std::string command_line;
  double rsc_fpops_est = 0;  // 0 = the batch's job_params, else the default
  std::optional<int> priority;
  std::vector<SubmitInput> inputs;
};

struct JobParams {
  double rsc_fpops_est = 0, rsc_fpops_bound = 0, rsc_memory_bound = 0, rsc_disk_bound = 0;
  double delay_bound = 0;  // seconds; 0 = the default
};

// The <batch> of submit_batch and estimate_batch.
struct BatchDescription {
  std::string app_name;
  int64_t batch_id = 0;  // an existing batch in INIT (create_batch), or 0
  std::string batch_name;
  std::optional<int> priority;
  std::string output_template_filename;
  JobParams job_params;
  std::vector<SubmitJob> jobs;
};

Result<BatchDescription> parse_batch_description(const SubmitDocument& doc, const SubmitLimits& limits);

// A batch named by <batch_id> or <batch_name> (query_batch, abort_batch, retire_batch,
// set_expire_time).
struct BatchRef {
  int64_t id = 0;
  std::string name;
};
Result<BatchRef> parse_batch_ref(const SubmitDocument& doc);

// Typed optional fields of the root element (0 or empty when absent). An integer is a
// whole number within +-2^53, written as BOINC's clients do ("12" or "12.000000").
Result<std::string> optional_name(const SubmitDocument& doc, const char* element);
Result<int64_t> optional_integer(const SubmitDocument& doc, const char* element);
Result<double> optional_number(const SubmitDocument& doc, const char* element);
// Every <element> child of the root, as names (abort_jobs' <job_name>s).
Result<std::vector<std::string>> repeated_names(const SubmitDocument& doc, const char* element,
                                                size_t max_count);

}  // namespace tharsis
