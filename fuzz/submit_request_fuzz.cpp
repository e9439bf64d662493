// Fuzz target: a remote submission request as submit_rpc and job_file read it from the
// POST body of anyone on the web (docs/remote_submission.md): the form body (urlencoded,
// multipart or the bare document), the XML checks (no DOCTYPE or entities, depth and
// node limits), and every typed reader an operation calls. Limits are small here so the
// fuzzer reaches them. Contract checked: nothing throws; an error is a value with a
// message; what is accepted lies within the limits (jobs, inputs per job, inline bytes,
// command line bytes, names).
#include "fuzz/fuzz_check.h"
#include "sched/lib/submit/form_body.h"
#include "sched/lib/submit/submit_request.h"

using namespace tharsis;

namespace {

SubmitLimits fuzz_limits() {
  SubmitLimits limits;
  limits.max_request_bytes = 1u << 20;
  limits.max_jobs = 64;
  limits.max_depth = 8;
  limits.nodes_per_job = 16;
  limits.base_nodes = 64;
  limits.max_inline_bytes = 256;
  limits.max_text_bytes = 128;
  limits.max_inputs_per_job = 4;
  limits.max_names = 32;
  return limits;
}

template <class T>
void check_error(const Result<T>& result) {
  if (!result.ok()) FUZZ_CHECK(!result.error().empty(), "an error without a message");
}

void check_batch(const SubmitDocument& doc, const SubmitLimits& limits) {
  auto batch = parse_batch_description(doc, limits);
  check_error(batch);
  if (!batch.ok()) return;
  FUZZ_CHECK(batch->jobs.size() <= limits.max_jobs, "more jobs than the limit");
  for (const SubmitJob& job : batch->jobs) {
    FUZZ_CHECK(job.inputs.size() <= limits.max_inputs_per_job, "more inputs than the limit");
    FUZZ_CHECK(job.command_line.size() <= limits.max_text_bytes, "command line over the limit");
    FUZZ_CHECK(job.name.size() <= 254, "job name over 254 bytes: " + job.name);
    for (const SubmitInput& input : job.inputs) {
      if (input.mode == InputMode::Inline)
        FUZZ_CHECK(input.source.size() <= limits.max_inline_bytes, "inline file over the limit");
      FUZZ_CHECK(parse_input_mode(input_mode_name(input.mode)) == input.mode, "mode name round trip");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const SubmitLimits limits = fuzz_limits();
  const std::string_view body = fuzz::as_text(data, size);
  check_error(multipart_parts(body, 16));
  auto text = extract_request_document(body);
  check_error(text);
  if (!text.ok()) return 0;
  const std::string root = root_element_name(*text);
  auto doc = load_submit_document(*text, limits);
  check_error(doc);
  if (!doc.ok()) return 0;
  FUZZ_CHECK((*doc)->operation == root, "operation " + (*doc)->operation + " is not the root " + root);
  check_error(request_authenticator(**doc));
  check_batch(**doc, limits);
  check_error(parse_batch_ref(**doc));
  check_error(optional_name(**doc, "app_name"));
  check_error(optional_integer(**doc, "job_id"));
  check_error(optional_number(**doc, "expire_time"));
  auto names = repeated_names(**doc, "job_name", limits.max_names);
  check_error(names);
  if (names.ok()) FUZZ_CHECK(names->size() <= limits.max_names, "more names than the limit");
  (*doc)->release();
  return 0;
}
