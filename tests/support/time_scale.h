// How much longer than in the plain build the integration tests may wait for processes
// to finish their work: THARSIS_TEST_TIME_SCALE (a number from 1 to 20, default 1), which
// scripts/sanitizer_suite.sh sets because every instrumented process (daemons, CGIs,
// clients) runs 2-4 times slower under ASan + UBSan. Only deadlines for work to get done
// scale; what a test asserts about the outcome does not.
#pragma once

#include <cstdlib>
#include <iostream>

namespace tharsis::testing {

// The factor: 1 when the variable is unset; a value that is not a number in [1, 20]
// gives 1 with a warning on stderr.
inline double time_scale() {
  static const double scale = [] {
    const char* text = std::getenv("THARSIS_TEST_TIME_SCALE");
    if (text == nullptr || *text == '\0') return 1.0;
    char* end = nullptr;
    double value = std::strtod(text, &end);
    if (end == text || *end != '\0' || !(value >= 1 && value <= 20)) {
      std::cerr << "THARSIS_TEST_TIME_SCALE: expected a number from 1 to 20, found '" << text
                << "'; using 1\n";
      return 1.0;
    }
    return value;
  }();
  return scale;
}

// seconds * time_scale(): a wait for work to get done, or a process's own --max_seconds.
inline double scaled_seconds(double seconds) { return seconds * time_scale(); }

}  // namespace tharsis::testing
