#!/usr/bin/env bash
# Installs the built programs into a project made by make_project, in BOINC's layout:
# daemons in bin/ (with the scheduler and the upload handler, which `start` can run as FastCGI
# pools: sched/lib/serve_http.h), the scheduler as cgi-bin/cgi (CGI, the URL the master page names) and
# cgi-bin/fcgi (FastCGI, the same binary), the upload handler, submit_rpc, the status pages and their
# stylesheet. When run as root, hands the project to www-data, as Apache runs the CGIs
# as that user (they read config.xml and the upload key, and write upload/).
#   scripts/install_programs.sh BUILD_DIR PROJECT_DIR
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${1:?usage: install_programs.sh BUILD_DIR PROJECT_DIR}"
project="${2:?usage: install_programs.sh BUILD_DIR PROJECT_DIR}"
[ -f "$project/config.xml" ] || { echo "install_programs: $project has no config.xml" >&2; exit 1; }
for program in transitioner validator assimilator file_deleter graph_scheduler clusterer census scheduler file_upload_handler; do
  if [ -x "$build_dir/$program" ]; then cp "$build_dir/$program" "$project/bin/"; fi
done
cp "$build_dir/scheduler" "$project/cgi-bin/cgi"
cp "$build_dir/scheduler" "$project/cgi-bin/fcgi"
cp "$build_dir/file_upload_handler" "$project/cgi-bin/file_upload_handler"
# Remote job submission (docs/remote_submission.md): CGI, and FastCGI as submit_rpc.fcgi.
if [ -x "$build_dir/submit_rpc" ]; then
  cp "$build_dir/submit_rpc" "$project/cgi-bin/submit_rpc"
  cp "$build_dir/submit_rpc" "$project/cgi-bin/submit_rpc.fcgi"
fi
for program in get_output job_file; do
  if [ -x "$build_dir/$program" ]; then cp "$build_dir/$program" "$project/cgi-bin/$program"; fi
done
for page in server_status graphs reclustering volunteers; do
  if [ -x "$build_dir/$page" ]; then cp "$build_dir/$page" "$project/cgi-bin/$page"; fi
done
cp "$here/html/tharsis.css" "$project/html/user/tharsis.css"
if [ "$(id -u)" -eq 0 ]; then chown -R www-data: "$project"; fi
