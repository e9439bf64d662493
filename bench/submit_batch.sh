#!/usr/bin/env bash
# Remote submission speed (target: 100,000 jobs in one submit_batch request in < 10 s
# and < 128 MiB), whole process: a private MariaDB and a project; submit_rpc runs as the
# CGI program Apache would start (REQUEST_METHOD, CONTENT_LENGTH, the body on stdin), so
# the figure is the program's own time and peak RSS (/usr/bin/time -v), without Apache.
# The requests are urlencoded as BOINC's Python client sends them, N jobs each (default
# 100000) with a command line of their own and one input file:
#   staged  a file the project put in download/ beforehand (local_staged; 1000 files
#           shared by the jobs);
#   inline  content of its own per job, which submit_rpc writes as download/jf_<md5>: N
#           new files, so this case measures the file system's file creation too.
# Then query_batch of one of these batches, and query_batches of the account with 1,000
# batches, are timed the same way.
#   bench/submit_batch.sh BUILD_DIR [N_JOBS]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:?usage: submit_batch.sh BUILD_DIR [N_JOBS]}" && pwd)"
n="${2:-100000}"
for program in submit_rpc make_project add_app create_account grant_submit; do
  [ -x "$build/$program" ] || { echo "submit_batch: $build/$program is missing; build it first" >&2; exit 2; }
done
base="$(mktemp -d "${TMPDIR:-/tmp}/tharsis-submitbench-XXXXXX")"
cleanup() {
  if [ "${KEEP:-0}" = 1 ]; then
    echo "kept: $base (project p/, request bodies, replies); stop: $here/scripts/private_mariadb.sh stop $base/db"
    return
  fi
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
key="$("$build/create_account" --project_dir "$p" --name scientist --email s@example.org 2>/dev/null)"
user_id="$(mariadb --no-defaults -S "$sock" -uroot bench -N -e "SELECT id FROM user WHERE email_addr='s@example.org'")"
"$build/grant_submit" --project_dir "$p" --user "$user_id" --all >/dev/null

python3 - "$key" "$n" "$base" "$p/download" <<'PY'
import hashlib, os, sys, urllib.parse
key, n, base, download = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def fanout(name):  # BOINC's dir_hier: md5 hex digits 1..7 mod 1024, in hex
    return "%x" % (int(hashlib.md5(name.encode()).hexdigest()[1:8], 16) % 1024)
for i in range(1000):
    name = "bench_data_%d" % i
    os.makedirs(os.path.join(download, fanout(name)), exist_ok=True)
    with open(os.path.join(download, fanout(name), name), "w") as f:
        f.write("seed %d\niterations 50\nterms 2000\n" % i)
def batch(mode):
    parts = ["<submit_batch>\n<authenticator>%s</authenticator>\n<batch>\n<app_name>example</app_name>\n"
             "<batch_name>bench_%s</batch_name>\n<job_params><rsc_fpops_est>1e9</rsc_fpops_est></job_params>\n"
             % (key, mode)]
    for i in range(n):
        if mode == "inline":
            source = "<mode>inline</mode><source>seed %s_%d\niterations 50\nterms 2000\n</source>" % (mode, i)
        else:
            source = "<mode>local_staged</mode><source>bench_data_%d</source>" % (i % 1000)
        parts.append("<job><name>%s_%d</name><command_line>--seed %d</command_line><input_file>%s</input_file>"
                     "</job>\n" % (mode, i, i, source))
    parts.append("</batch>\n</submit_batch>\n")
    return "".join(parts)
for name, xml in (("staged", batch("staged")), ("inline", batch("inline")),
                  ("query", "<query_batch><authenticator>%s</authenticator><batch_name>bench_staged</batch_name>"
                            "</query_batch>" % key),
                  ("batches", "<query_batches><authenticator>%s</authenticator></query_batches>" % key)):
    with open(os.path.join(base, name + ".body"), "w") as f:
        f.write(urllib.parse.urlencode({"request": xml}))
PY

# run NAME BODY: submit_rpc as a CGI process; prints seconds and peak RSS.
run() {
  local name="$1" body="$2"
  /usr/bin/time -v -o "$base/$name.time" env REQUEST_METHOD=POST CONTENT_LENGTH="$(stat -c %s "$body")" \
    THARSIS_PROJECT_DIR="$p" "$build/submit_rpc" < "$body" > "$base/$name.reply" 2> "$base/$name.err"; cat "$base/$name.err" >&2
  local seconds rss
  seconds="$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' "$base/$name.time")"
  rss="$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2 / 1024}' "$base/$name.time")"
  if grep -q "<error>" "$base/$name.reply"; then
    echo "$name: ERROR: $(grep -o '<error_msg>.*</error_msg>' "$base/$name.reply")" >&2
    exit 1
  fi
  printf '%-16s %8.2f s  %7s MiB peak RSS  reply %s bytes\n' "$name" "$seconds" "$rss" "$(stat -c %s "$base/$name.reply")"
}
count() { mariadb --no-defaults -S "$sock" -uroot bench -N -e "$1"; }
echo "submit_rpc as CGI, $n jobs per batch; request bodies (urlencoded): staged $(stat -c %s "$base/staged.body") bytes, inline $(stat -c %s "$base/inline.body") bytes"
run submit_staged "$base/staged.body"
run submit_inline "$base/inline.body"
made="$(count "SELECT COUNT(*) FROM workunit WHERE batch > 0")"
inputs="$(count "SELECT COUNT(*) FROM workunit_input")"
echo "workunits created: $made, input records: $inputs"
[ "$made" = "$((2 * n))" ] || { echo "submit_batch: expected $((2 * n)) workunits" >&2; exit 1; }
run query_batch "$base/query.body"
# query_batches of an account with 1,000 batches (998 more rows, as a long-time submitter has).
app_id="$(count "SELECT id FROM app WHERE name = 'example'")"
count "INSERT INTO batch (user_id, create_time, name, app_id, state, njobs) SELECT $user_id, UNIX_TIMESTAMP(), CONCAT('old_', seq), $app_id, 2, 10 FROM seq_1_to_998"
echo "batches of the account: $(count "SELECT COUNT(*) FROM batch WHERE user_id = $user_id")"
run query_batches "$base/batches.body"
