#!/bin/sh
# Fails when a C++ source of the tree does not follow the repository's .clang-format,
# naming each such file (ctest source_format; fix with `clang-format -i FILE`).
root=$(cd "$(dirname "$0")/.." && pwd)
command -v clang-format >/dev/null || { echo "clang-format is not installed (./tharsis deps)"; exit 1; }
cd "$root" || exit 1
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  files=$(git ls-files '*.h' '*.cpp')
else
  files=$(find . -name 'build*' -prune -o \( -name '*.h' -o -name '*.cpp' \) -print)
fi
# One clang-format for all files: it names each place that differs as FILE:LINE:COL.
off=$(clang-format --dry-run $files 2>&1 | grep -oE '^[^ :]+\.(h|cpp):[0-9]+:[0-9]+: (error|warning)' |
      cut -d: -f1 | sort -u)
if [ -n "$off" ]; then
  echo "$off" | sed 's/^/not formatted: /'
  echo "$(echo "$off" | wc -l) file(s) do not follow .clang-format"
  exit 1
fi
echo "every C++ source follows .clang-format"
