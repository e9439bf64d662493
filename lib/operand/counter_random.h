// Counter-based random fill: element i of a tensor with seed s is a pure function of
// (s, i), so any chunk can be generated on its own and the chunked computation sees the
// very values the direct computation sees. Not for cryptography.
#pragma once

#include <cstdint>

namespace tharsis::operand {

// Uniform in [0, 1), 53 random bits.
double counter_uniform(uint64_t seed, uint64_t index);

}  // namespace tharsis::operand
