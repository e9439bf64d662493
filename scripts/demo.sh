#!/usr/bin/env bash
# The demo behind `./tharsis demo`: a private MariaDB and Apache on 127.0.0.1, a demo
# project made by make_project, its daemons started with tools/start, and its status
# printed. Everything lives under one temp dir, removed at the end unless --keep.
#   scripts/demo.sh BUILD_DIR [--keep] [--port N]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="$(cd "${1:?usage: demo.sh BUILD_DIR [--keep] [--port N]}" && pwd)"; shift
keep=0
port=$((20000 + RANDOM % 20000))
while [ $# -gt 0 ]; do
  case "$1" in
    --keep) keep=1 ;;
    --port) port="$2"; shift ;;
    *) echo "demo: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

base="$(mktemp -d /tmp/tharsis-demo-XXXXXX)"
chmod 755 "$base"
project="$base/project"
cleanup() {
  set +e
  [ -x "$build_dir/stop" ] && [ -f "$project/config.xml" ] &&
    "$build_dir/stop" --project_dir "$project" --grace 10 >/dev/null
  "$here/scripts/private_apache.sh" stop "$base/apache"
  "$here/scripts/private_mariadb.sh" stop "$base/db" >/dev/null
  if [ "$keep" -eq 0 ]; then rm -rf "$base"; else echo "demo: kept $base"; fi
}
trap cleanup EXIT

step() { printf '\n== %s\n' "$*"; }

step "private MariaDB under $base/db"
"$here/scripts/private_mariadb.sh" start "$base/db"

step "make_project demo (url http://127.0.0.1:$port/)"
"$build_dir/make_project" --project_dir "$project" --name demo --long_name "Tharsis demo" \
  --url_base "http://127.0.0.1:$port/" --db_socket "$base/db/mysqld.sock" --db_user root \
  --db_name tharsis_demo

# The project's programs: daemons in bin/, CGIs in cgi-bin/ (BOINC's layout).
for program in transitioner validator assimilator file_deleter graph_scheduler; do
  [ -x "$build_dir/$program" ] && cp "$build_dir/$program" "$project/bin/"
done
# The scheduler is one binary serving CGI (cgi-bin/cgi, the URL the master page names)
# and FastCGI (cgi-bin/fcgi); the upload handler likewise.
cp "$build_dir/scheduler" "$project/cgi-bin/cgi"
cp "$build_dir/scheduler" "$project/cgi-bin/fcgi"
cp "$build_dir/file_upload_handler" "$project/cgi-bin/file_upload_handler"
# The status pages (CGIs reading the DB with the read-only account make_project created)
# and their one stylesheet, served from the project's web root.
for page in server_status graphs reclustering volunteers; do
  if [ -x "$build_dir/$page" ]; then cp "$build_dir/$page" "$project/cgi-bin/$page"; fi
done
cp "$here/html/tharsis.css" "$project/html/user/tharsis.css"
# Apache runs the CGIs as www-data when started as root: they read config.xml and the
# upload key, and write upload/.
[ "$(id -u)" -eq 0 ] && chown -R www-data: "$project"

step "Apache on 127.0.0.1:$port"
"$here/scripts/private_apache.sh" start "$base/apache" "$port" "$project/demo.httpd.conf"
curl -fsS "http://127.0.0.1:$port/demo/" | grep -o '<link[^>]*scheduler[^>]*>' || true
echo "scheduler answers an empty request with:"
curl -fsS -X POST --data '<scheduler_request></scheduler_request>' "http://127.0.0.1:$port/demo_cgi/cgi" |
  grep -o '<message[^<]*</message>' || true

step "daemons"
if ls "$project/bin/"* >/dev/null 2>&1; then
  "$build_dir/start" --project_dir "$project"
else
  echo "(no daemons built yet)"
fi

sleep 1.5  # let each daemon record its first heartbeat
step "status"
if [ -x "$build_dir/status" ]; then
  "$build_dir/status" --project_dir "$project"
else
  ls "$project"
fi
