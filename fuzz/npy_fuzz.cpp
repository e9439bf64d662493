// Fuzz target: the .npy reader (decode_npy), which reads chunk files volunteers upload and
// spec inputs. Contract checked: errors are values with a message; a decoded array has
// element_count(shape) values and a bounded rank; encode_npy of it decodes to the same bits.
#include <cstring>

#include "fuzz/fuzz_check.h"
#include "lib/operand/npy.h"

using namespace tharsis;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto array = operand::decode_npy(std::string(fuzz::as_text(data, size)), "fuzz");
  if (!array.ok()) {
    FUZZ_CHECK(!array.error().empty(), "an error without a message");
    return 0;
  }
  FUZZ_CHECK(static_cast<int64_t>(array->data.size()) == operand::element_count(array->shape),
             "size != shape");
  auto again = operand::decode_npy(operand::encode_npy(*array), "fuzz again");
  FUZZ_CHECK(again.ok(), "encoded array does not decode: " + again.error());
  FUZZ_CHECK(again->shape == array->shape, "shape changed");
  FUZZ_CHECK(again->data.size() == array->data.size() &&
                 (array->data.empty() || std::memcmp(again->data.data(), array->data.data(),
                                                     array->data.size() * sizeof(double)) == 0),
             "values changed");
  return 0;
}
