#!/usr/bin/env bash
# Back-end daemon throughput, whole processes: N due workunits (default 100000, quorum 1)
# driven through every daemon in turn, each run as `<daemon> --one_pass` and timed from
# start to exit. The volunteers' part (send, upload, report) is done in bulk SQL between
# stages so only daemon work is timed. Prints units/s per daemon stage.
#   bench/daemon_throughput.sh BUILD_DIR [N]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:?usage: daemon_throughput.sh BUILD_DIR [N]}" && pwd)"
n="${2:-100000}"
base="$(mktemp -d /tmp/tharsis-bench-XXXXXX)"
trap '"$here/scripts/private_mariadb.sh" stop "$base/db" >/dev/null; rm -rf "$base"' EXIT

"$here/scripts/private_mariadb.sh" start "$base/db"
sock="$base/db/mysqld.sock"
"$build/make_project" --project_dir "$base/p" --name bench --url_base http://127.0.0.1:1/ \
  --db_socket "$sock" --db_user root --db_name bench --key_bits 512 --uldl_dir_fanout 256 >/dev/null
sql() { mariadb --no-defaults -S "$sock" -uroot bench -N -e "$1"; }

cat > "$base/p/templates/out.xml" <<'XML'
<file_info><name><OUTFILE_0/></name><generated_locally/><upload_when_present/><max_nbytes>65536</max_nbytes><url><UPLOAD_URL/></url></file_info>
<result><file_ref><file_name><OUTFILE_0/></file_name><open_name>out</open_name></file_ref></result>
XML
now=$(date +%s)
sql "INSERT INTO app (name, comparator) VALUES ('bench', 'bitwise')"
sql "INSERT INTO workunit (create_time, appid, name, xml_doc, delay_bound, min_quorum, target_nresults,
       max_error_results, max_total_results, max_success_results, transition_time, result_template_file)
     SELECT $now, 1, CONCAT('wu', seq), '<workunit></workunit>', 86400, 1, 1, 3, 10, 6, $now, 'templates/out.xml'
     FROM seq_1_to_$n"

stage() {  # stage NAME DAEMON: time one --one_pass run
  local start end
  start=$(date +%s.%N)
  "$build/$2" --project_dir "$base/p" --one_pass --batch 1000 --log_level warning
  end=$(date +%s.%N)
  awk -v n="$n" -v s="$start" -v e="$end" -v name="$1" \
    'BEGIN { printf "%-36s %8d units in %7.2f s = %8.0f units/s\n", name, n, e - s, n / (e - s) }'
}

stage "transitioner (create results)" transitioner
# Volunteers: every result sent, uploaded and reported as a success.
sql "UPDATE result SET server_state = 5, outcome = 1, client_state = 5, hostid = 1, sent_time = $now,
       report_deadline = $now + 86400, received_time = $now"
sql "UPDATE workunit SET transition_time = $now"
sql "SELECT CONCAT(name, '_0') FROM result" | python3 -c "
import sys, hashlib, os
base, fanout = sys.argv[1], 256
for line in sys.stdin:
    name = line.strip()
    d = os.path.join(base, '%x' % (int(hashlib.md5(name.encode()).hexdigest()[1:8], 16) % fanout))
    with open(os.path.join(d, name), 'w') as f: f.write('answer\n')
" "$base/p/upload"
stage "transitioner (need_validate)" transitioner
stage "validator" validator
stage "assimilator" assimilator
stage "transitioner (file deletion states)" transitioner
stage "file_deleter" file_deleter
"$build/check" --project_dir "$base/p" --settled | tail -1
ps -o rss= -p $$ >/dev/null
