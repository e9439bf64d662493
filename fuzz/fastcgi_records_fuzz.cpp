// Fuzz target: the FastCGI record reader of the pools (sched/lib/fastcgi_records.h), fed
// the input in pieces whose sizes the first byte chooses, as reads from a socket come.
// Contract checked: the body kept never exceeds the limit plus one byte; a reader that has
// finished (whole or failed) stays so; a failure says why; a whole request has its params.
#include "fuzz/fuzz_check.h"
#include "sched/lib/fastcgi_records.h"

using namespace tharsis;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t piece = 1 + data[0] % 64;
  constexpr size_t kMaxBody = 256;
  std::string_view input = fuzz::as_text(data + 1, size - 1);
  FastCgiRequestReader reader(kMaxBody);
  using State = FastCgiRequestReader::State;
  State last = State::kReading;
  for (size_t at = 0; at < input.size(); at += piece) {
    State state = reader.feed(input.substr(at, piece));
    FUZZ_CHECK(last == State::kReading || state == last, "a finished reader changed its state");
    last = state;
    FUZZ_CHECK(reader.body().size() <= kMaxBody + 1, "kept " + std::to_string(reader.body().size()));
    FUZZ_CHECK(reader.body().size() <= reader.body_bytes_sent(), "kept more than was sent");
  }
  if (last == State::kFailed) FUZZ_CHECK(!reader.error().empty(), "a failure without a reason");
  if (last == State::kComplete) {
    size_t param_bytes = 0;
    for (const auto& [name, value] : reader.params()) param_bytes += name.size() + value.size();
    FUZZ_CHECK(param_bytes <= kMaxFastCgiParamBytes, "params over the limit");
    FUZZ_CHECK(reader.request_id() != 0, "a request with the management id");
  }
  return 0;
}
