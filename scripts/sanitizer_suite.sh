#!/usr/bin/env bash
# The ctest suite under AddressSanitizer + UndefinedBehaviorSanitizer (docs/reliability.md,
# "Sanitizers"):
#   scripts/sanitizer_suite.sh [CTEST-ARGS...]     e.g. -L unit, -R 'GraphPipeline|Volunteer'
# Builds build-asan/ (THARSIS_SANITIZE=ON) if needed, then runs ctest there with every
# instrumented process — the tests, the daemons and tools they start, the clients, and the
# CGIs under the tests' private Apache (scripts/private_apache.sh passes the options on) —
# writing its reports to one directory. An ASan or UBSan report aborts its process
# (-fno-sanitize-recover=all), and LeakSanitizer checks every process that exits normally.
# Prints the failed tests and the reports, copied to build-asan/sanitizer-reports/; exits 1
# if a test failed or any process wrote a report.
# Environment: THARSIS_ASAN_BUILD_DIR (default build-asan), THARSIS_JOBS (default 2),
# THARSIS_TEST_TIME_SCALE (default 3: how much longer tests wait for slow processes),
# THARSIS_ASAN_SKIP_BUILD=1 (run what is built, e.g. `cmake --build build-asan --target
# unit_tests` then `-L unit -E fuzz_replay`).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${THARSIS_ASAN_BUILD_DIR:-$here/build-asan}"
jobs="${THARSIS_JOBS:-2}"

if [ ! -f "$build/CMakeCache.txt" ]; then
  launcher=""
  command -v ccache >/dev/null && launcher="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
  # -O1 -g1: what ASan recommends; compiles about a third faster than -O2 -g and still
  # gives reports with file and line.
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DTHARSIS_SANITIZE=ON $launcher >/dev/null || exit 2
fi
if [ -z "${THARSIS_ASAN_SKIP_BUILD:-}" ]; then
  cmake --build "$build" -j"$jobs" >"$build/build.log" 2>&1 || { tail -20 "$build/build.log" >&2; exit 2; }
fi

# Under /tmp and world-writable: Apache runs the CGIs as www-data when the tests run as root.
reports="$(mktemp -d "${TMPDIR:-/tmp}/tharsis-sanitizer.XXXXXX")"
chmod 1777 "$reports"
export ASAN_OPTIONS="log_path=$reports/asan:detect_leaks=1:print_suppressions=0"
export UBSAN_OPTIONS="log_path=$reports/ubsan:print_stacktrace=1:halt_on_error=1"
# Instrumented processes run 2-4 times slower: tests scale their waits for work to get
# done by this (tests/support/time_scale.h). 3 keeps the longest wait (the matmul chain's
# client, 170 s) within ctest's 600 s per test.
export THARSIS_TEST_TIME_SCALE="${THARSIS_TEST_TIME_SCALE:-3}"
rc=0
ctest --test-dir "$build" -j"$jobs" --output-on-failure "$@" >"$build/ctest.log" 2>&1 || rc=1
grep -E '^[0-9]+% tests passed|Total Test time' "$build/ctest.log"
sed -n '/The following tests FAILED/,$p' "$build/ctest.log"

rm -rf "$build/sanitizer-reports"
mkdir -p "$build/sanitizer-reports"
if [ -n "$(ls -A "$reports")" ]; then
  cp "$reports"/* "$build/sanitizer-reports/"
  echo "sanitizer reports ($(ls "$reports" | wc -l) processes), in $build/sanitizer-reports:"
  grep -h -E 'SUMMARY|runtime error' "$reports"/* | sort | uniq -c | sort -rn | head -40
  rc=1
else
  echo "no sanitizer report"
fi
rm -rf "$reports"
exit $rc
