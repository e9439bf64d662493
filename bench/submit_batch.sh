#!/usr/bin/env bash
# Remote submission speed (DESIGN §8: 100,000 jobs in one submit_batch request in < 10 s
# and < 128 MiB), whole process: a private MariaDB and a project; submit_rpc runs as the
# CGI program Apache would start (REQUEST_METHOD, CONTENT_LENGTH, the body on stdin), so
# the figure is the program's own time and peak RSS (/usr/bin/time -v), without Apache.
# The request is urlencoded as BOINC's Python client sends it: N jobs (default 100000),
# each with one inline input file of its own (staged as download/jf_<md5>) and a command
# line. Then query_batch of that batch and query_batches are timed the same way.
#   bench/submit_batch.sh BUILD_DIR [N_JOBS]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:?usage: submit_batch.sh BUILD_DIR [N_JOBS]}" && pwd)"
n="${2:-100000}"
for program in submit_rpc make_project add_app create_account grant_submit; do
  [ -x "$build/$program" ] || { echo "submit_batch: $build/$program is missing; build it first" >&2; exit 2; }
done
base="$(mktemp -d /tmp/tharsis-submitbench-XXXXXX)"
cleanup() {
  "$here/scripts/private_mariadb.sh" stop "$base/db" >/dev/null 2>&1 || true
  rm -rf "$base"
}
trap cleanup EXIT
THARSIS_MARIADB_ARGS="--innodb-buffer-pool-size=512M --innodb-flush-log-at-trx-commit=1" \
  "$here/scripts/private_mariadb.sh" start "$base/db" >/dev/null
sock="$base/db/mysqld.sock"
p="$base/p"
"$build/make_project" --project_dir "$p" --name bench --url_base "http://127.0.0.1:8080/" \
  --db_socket "$sock" --db_user root --db_name bench --key_bits 1024 --uldl_dir_fanout 1024 >/dev/null
"$build/add_app" --project_dir "$p" --app example >/dev/null
key="$("$build/create_account" --project_dir "$p" --name scientist --email s@example.org)"
user_id="$(mariadb --no-defaults -S "$sock" -uroot bench -N -e "SELECT id FROM user WHERE email_addr='s@example.org'")"
"$build/grant_submit" --project_dir "$p" --user "$user_id" --all >/dev/null

python3 - "$key" "$n" "$base/submit.body" "$base/query.body" "$base/batches.body" <<'PY'
import sys, urllib.parse
key, n, submit_path, query_path, batches_path = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
parts = ["<submit_batch>\n<authenticator>%s</authenticator>\n<batch>\n<app_name>example</app_name>\n"
         "<batch_name>bench</batch_name>\n<job_params><rsc_fpops_est>1e9</rsc_fpops_est></job_params>\n" % key]
for i in range(n):
    parts.append("<job><name>bench_%d</name><command_line>--seed %d</command_line><input_file><mode>inline</mode>"
                 "<source>seed bench_%d\niterations 50\nterms 2000\n</source></input_file></job>\n" % (i, i, i))
parts.append("</batch>\n</submit_batch>\n")
for path, xml in ((submit_path, "".join(parts)),
                  (query_path, "<query_batch><authenticator>%s</authenticator><batch_name>bench</batch_name>"
                               "</query_batch>" % key),
                  (batches_path, "<query_batches><authenticator>%s</authenticator></query_batches>" % key)):
    with open(path, "w") as f:
        f.write(urllib.parse.urlencode({"request": xml}))
PY

# run NAME BODY: submit_rpc as a CGI process; prints seconds and peak RSS.
run() {
  local name="$1" body="$2"
  /usr/bin/time -v -o "$base/$name.time" env REQUEST_METHOD=POST CONTENT_LENGTH="$(stat -c %s "$body")" \
    THARSIS_PROJECT_DIR="$p" "$build/submit_rpc" < "$body" > "$base/$name.reply"
  local seconds rss
  seconds="$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' "$base/$name.time")"
  rss="$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2 / 1024}' "$base/$name.time")"
  if grep -q "<error>" "$base/$name.reply"; then
    echo "$name: ERROR: $(grep -o '<error_msg>.*</error_msg>' "$base/$name.reply")" >&2
    exit 1
  fi
  printf '%-16s %8.2f s  %7s MiB peak RSS  reply %s bytes\n' "$name" "$seconds" "$rss" "$(stat -c %s "$base/$name.reply")"
}
echo "submit_rpc, $n jobs with one inline input each; request $(stat -c %s "$base/submit.body") bytes (urlencoded)"
run submit_batch "$base/submit.body"
made="$(mariadb --no-defaults -S "$sock" -uroot bench -N -e "SELECT COUNT(*) FROM workunit WHERE batch > 0")"
inputs="$(mariadb --no-defaults -S "$sock" -uroot bench -N -e "SELECT COUNT(*) FROM workunit_input")"
echo "workunits created: $made, input records: $inputs"
[ "$made" = "$n" ] || { echo "submit_batch: expected $n workunits" >&2; exit 1; }
run query_batch "$base/query.body"
run query_batches "$base/batches.body"
