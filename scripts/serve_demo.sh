#!/usr/bin/env bash
# Serves a demo project kept by `./tharsis demo --keep` (scripts/demo.sh) again, for
# submitting to it from your own programs: starts its private MariaDB and Apache, the
# daemons, four simulated volunteers, grants an account submit access, and prints the
# project URL and that account's authenticator. Runs until Ctrl-C, then stops it all.
#   scripts/serve_demo.sh BUILD_DIR DEMO_DIR      (DEMO_DIR: /tmp/tharsis-demo-XXXXXX)
# Then, in another shell (docs/python.md):
#   PYTHONPATH=python /usr/bin/python3 examples/tensor_example.py URL AUTHENTICATOR
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build_dir="$(cd "${1:?usage: serve_demo.sh BUILD_DIR DEMO_DIR}" && pwd)"
base="$(cd "${2:?usage: serve_demo.sh BUILD_DIR DEMO_DIR}" && pwd)"
project="$base/project"
[ -f "$project/config.xml" ] || { echo "serve_demo: no demo project in $base (run ./tharsis demo --keep)" >&2; exit 2; }
url=$(sed -n 's|.*<master_url>\(.*\)</master_url>.*|\1|p' "$project/config.xml" | head -1)
port=$(printf '%s' "$url" | sed -n 's|http://127.0.0.1:\([0-9]*\)/.*|\1|p')
[ -n "$port" ] || { echo "serve_demo: cannot read the port from master_url '$url'" >&2; exit 2; }

volunteers=""
cleanup() {
  set +e
  [ -n "$volunteers" ] && kill "$volunteers" 2>/dev/null && wait "$volunteers" 2>/dev/null
  "$build_dir/stop" --project_dir "$project" --grace 10 >/dev/null
  "$here/scripts/private_apache.sh" stop "$base/apache"
  "$here/scripts/private_mariadb.sh" halt "$base/db" >/dev/null  # kept: it can be served again
  echo "serve_demo: stopped"
}
trap cleanup EXIT
trap 'exit 0' INT TERM

"$here/scripts/private_mariadb.sh" start "$base/db" >/dev/null
"$here/scripts/install_programs.sh" "$build_dir" "$project" >/dev/null
"$here/scripts/private_apache.sh" start "$base/apache" "$port" "$project/demo.httpd.conf"
"$build_dir/start" --project_dir "$project" >/dev/null

# The submitter: an account with a grant for every app (created once, kept in the dir).
if [ ! -s "$base/submitter.key" ]; then
  "$build_dir/create_account" --project_dir "$project" --name submitter --email submitter@example.org \
    2>/dev/null > "$base/submitter.key"
  "$build_dir/grant_submit" --project_dir "$project" --email submitter@example.org --all >/dev/null
fi
key=$(cat "$base/submitter.key")

args=()
faults=("ncpus=2" "ncpus=2" "ncpus=2,job_failure=0.1" "ncpus=2,slowness=2")
for i in "${!faults[@]}"; do
  if [ ! -s "$base/servehost$i.key" ]; then
    "$build_dir/create_account" --project_dir "$project" --name "servehost$i" --email "servehost$i@example.org" \
      2>/dev/null > "$base/servehost$i.key"
  fi
  args+=(--host "auth=$(cat "$base/servehost$i.key"),${faults[$i]}")
done
"$build_dir/tharsis-client" --data_dir "$base/serve_volunteers" --project_url "$url" --max_request_delay 0 \
  --max_backoff 0.5 --transfer_backoff 0.2 --max_seconds 86400 --log_level error "${args[@]}" 2>/dev/null &
volunteers=$!

cat <<TEXT
serve_demo: the demo project is up, with 4 simulated volunteers.
  URL=$url
  AUTHENTICATOR=$key
  PYTHONPATH=$here/python /usr/bin/python3 $here/examples/tensor_example.py \$URL \$AUTHENTICATOR
Ctrl-C stops it.
TEXT
wait "$volunteers"
