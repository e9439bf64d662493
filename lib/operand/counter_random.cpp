#include "lib/operand/counter_random.h"

namespace tharsis::operand {

namespace {

// The splitmix64 finaliser: a bijective mix with full avalanche.
uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

}  // namespace

double counter_uniform(uint64_t seed, uint64_t index) {
  // Mixing the seed first, then the index through a Weyl step, keeps streams of nearby
  // seeds unrelated.
  const uint64_t key = mix64(seed ^ 0x6a09e667f3bcc909ULL);
  const uint64_t bits = mix64(key + (index + 1) * 0x9e3779b97f4a7c15ULL);
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

}  // namespace tharsis::operand
