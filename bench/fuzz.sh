#!/usr/bin/env bash
# Runs the libFuzzer targets of fuzz/ (docs/fuzzing.md).
#   bench/fuzz.sh [TARGET|all] [SECONDS]     each target SECONDS (default 60)
#   bench/fuzz.sh TARGET -runs N             a number of executions instead of a time
#   bench/fuzz.sh --merge TARGET             fold new coverage of the scratch corpus into
#                                            fuzz/corpus/TARGET (minimised)
#   bench/fuzz.sh --campaign TARGET [N]      N executions (default 10 million) in slices of
#                                            THARSIS_FUZZ_SLICE seconds (default 120); prints
#                                            the totals and the load average at each slice's
#                                            start (exec counts do not depend on the load,
#                                            only wall time does). With THARSIS_FUZZ_MAX_LOAD
#                                            set, each slice waits for the load to drop below
#                                            it first
#   bench/fuzz.sh --list                     the target names
# Builds build-fuzz/ first if needed (clang, THARSIS_FUZZ=ON; needs Debian's
# libclang-rt-14-dev). Each target starts from fuzz/corpus/TARGET and
# fuzz/regressions/TARGET and adds what it finds to a scratch corpus in
# build-fuzz/fuzz-work/TARGET/corpus (the checked-in corpus is never written).
# Prints per target: executions, exec/s, coverage (cov: edges, ft: features) and the
# scratch corpus size. Exits 1 on any crash, leak, timeout, out-of-memory or sanitizer
# report; the reproducer is build-fuzz/fuzz-work/TARGET/artifacts/crash-* (or leak-,
# timeout-, oom-), printed with the command that replays it.
# Environment: THARSIS_FUZZ_BUILD_DIR (default build-fuzz), THARSIS_FUZZ_MAX_LOAD (wait
# before each target until the 1-minute load average is below it), THARSIS_FUZZ_ARGS (more
# libFuzzer flags, e.g. -max_len=65536).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${THARSIS_FUZZ_BUILD_DIR:-$here/build-fuzz}"

targets_in_tree() {
  for f in "$here"/fuzz/*_fuzz.cpp; do basename "$f" _fuzz.cpp; done
}

ensure_built() {
  if [ ! -f "$build/CMakeCache.txt" ]; then
    command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found (apt-get install clang libclang-rt-14-dev)" >&2; exit 2; }
    local launcher=""
    command -v ccache >/dev/null && launcher="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
    CC=clang CXX=clang++ cmake -S "$here" -B "$build" -DTHARSIS_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      $launcher >/dev/null || exit 2
  fi
  cmake --build "$build" -j"${THARSIS_JOBS:-2}" >/dev/null || { echo "fuzz.sh: build failed" >&2; exit 2; }
}

wait_for_load() {
  local max="${THARSIS_FUZZ_MAX_LOAD:-}"
  [ -z "$max" ] && return 0
  while awk -v max="$max" '{ exit !($1 >= max) }' /proc/loadavg; do sleep 30; done
}

# run_target NAME LIBFUZZER-LIMIT-FLAG...
run_target() {
  local t="$1"; shift
  local bin="$build/fuzz/${t}_fuzz" work="$build/fuzz-work/$t"
  [ -x "$bin" ] || { echo "fuzz.sh: no target '$t' (try --list)" >&2; return 2; }
  mkdir -p "$work/corpus" "$work/artifacts" "$here/fuzz/corpus/$t" "$here/fuzz/regressions/$t"
  wait_for_load
  local load; load=$(cut -d' ' -f1 /proc/loadavg)
  "$bin" "$@" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
    ${THARSIS_FUZZ_ARGS:-} "$work/corpus" "$here/fuzz/corpus/$t" "$here/fuzz/regressions/$t" >"$work/last.log" 2>&1
  local rc=$?
  local execs rate cov ft units bytes
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/last.log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/last.log" | tail -1)
  cov=$(grep -o ' cov: [0-9]*' "$work/last.log" | tail -1 | grep -o '[0-9]*')
  ft=$(grep -o ' ft: [0-9]*' "$work/last.log" | tail -1 | grep -o '[0-9]*')
  units=$(find "$work/corpus" "$here/fuzz/corpus/$t" -type f | wc -l)
  bytes=$(find "$work/corpus" "$here/fuzz/corpus/$t" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
  printf '%-22s execs %-11s exec/s %-7s cov %-6s ft %-6s corpus %s files %s bytes  load %s\n' \
    "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$units" "$bytes" "$load"
  if [ $rc -ne 0 ] || grep -qE 'ERROR: (Address|Leak|UndefinedBehavior)Sanitizer|runtime error:|libFuzzer: (timeout|out-of-memory)' "$work/last.log"; then
    echo "FAILED: $t (exit $rc); log $work/last.log" >&2
    grep -E 'SUMMARY|runtime error|fuzz contract|Test unit written|ERROR:' "$work/last.log" | head -8 >&2
    local artifact; artifact=$(grep -o "Test unit written to [^ ]*" "$work/last.log" | tail -1 | cut -d' ' -f5)
    [ -n "$artifact" ] && echo "replay: $bin $artifact" >&2
    return 1
  fi
  return 0
}

case "${1:-}" in
  --list) targets_in_tree; exit 0 ;;
  --merge)
    t="${2:?usage: bench/fuzz.sh --merge TARGET}"
    ensure_built
    mkdir -p "$here/fuzz/corpus/$t"
    "$build/fuzz/${t}_fuzz" -merge=1 "$here/fuzz/corpus/$t" "$build/fuzz-work/$t/corpus" 2>&1 | tail -2
    exit $? ;;
esac

# --campaign TARGET N: slices until N executions; the last run line is kept per slice.
if [ "${1:-}" = --campaign ]; then
  t="${2:?usage: bench/fuzz.sh --campaign TARGET [N]}"
  want="${3:-10000000}"
  ensure_built
  total=0 slices=0 loads="" started=$(date -u +%FT%TZ)
  while [ "$total" -lt "$want" ]; do
    line=$(run_target "$t" -max_total_time="${THARSIS_FUZZ_SLICE:-120}") || { echo "$line"; exit 1; }
    slices=$((slices + 1))
    total=$((total + $(echo "$line" | awk '{ print $3 }')))
    loads="$loads $(echo "$line" | awk '{ print $NF }')"
    echo "$line  (slice $slices, total $total)"
  done
  range=$(echo "$loads" | tr ' ' '\n' | sed '/^$/d' | sort -g | sed -n '1p;$p' | paste -sd-)
  echo "campaign $t: $total executions in $slices slices from $started to $(date -u +%FT%TZ)," \
    "load at slice starts $range; last: $line"
  exit 0
fi

target="${1:-all}"
limit=(-max_total_time="${2:-60}")
if [ "${2:-}" = "-runs" ]; then limit=(-runs="${3:?-runs needs a number}"); fi
ensure_built
if [ "$target" = all ]; then targets=($(targets_in_tree)); else targets=("$target"); fi
failed=0
for t in "${targets[@]}"; do
  run_target "$t" "${limit[@]}" || failed=1
done
exit $failed
