#!/usr/bin/env bash
# Back-end daemon throughput, whole processes: N due workunits (default 100000, quorum 1)
# driven through every daemon in turn, each run as `<daemon> --one_pass` and timed from
# start to exit. The volunteers' part (send, upload, report) is done in bulk SQL between
# stages so only daemon work is timed. Prints units/s per daemon stage, and the statements
# (server status Questions) and commits (Com_commit) the stage cost per unit, and the CPU
# time per unit the daemon and the database server spent, and the daemon's peak RSS.
# With OLD_BUILD_DIR, the same pipeline runs again on a fresh database with that build's
# daemons, right after, for a side-by-side comparison under the same load.
#   bench/daemon_throughput.sh BUILD_DIR [N] [OLD_BUILD_DIR]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
new_build="$(cd "${1:?usage: daemon_throughput.sh BUILD_DIR [N] [OLD_BUILD_DIR]}" && pwd)"
n="${2:-100000}"
old_build="${3:+$(cd "$3" && pwd)}"
pipeline() {  # pipeline BUILD_DIR: every stage on a fresh private server
  build="$1"
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

  counters() {  # statements and commits the server has run so far
    sql "SELECT GROUP_CONCAT(VARIABLE_VALUE ORDER BY VARIABLE_NAME DESC SEPARATOR ' ') FROM information_schema.GLOBAL_STATUS
         WHERE VARIABLE_NAME IN ('QUESTIONS', 'COM_COMMIT')"
  }
  server_cpu() {  # mariadbd's user + system CPU so far, in clock ticks
    awk '{ print $14 + $15 }' "/proc/$(cat "$base/db/mysqld.pid")/stat"
  }
  stage() {  # stage NAME DAEMON: time one --one_pass run
    local start end before after cpu0 cpu1
    before=$(counters)
    cpu0=$(server_cpu)
    start=$(date +%s.%N)
    /usr/bin/time -o "$base/time" -f "%U %S %M" \
      "$build/$2" --project_dir "$base/p" --one_pass --batch 1000 --log_level warning
    end=$(date +%s.%N)
    cpu1=$(server_cpu)
    after=$(counters)
    # CPU per unit (daemon and server) is steadier than units/s on a shared machine.
    awk -v n="$n" -v s="$start" -v e="$end" -v name="$1" -v b="$before" -v a="$after" \
        -v t="$(cat "$base/time")" -v c0="$cpu0" -v c1="$cpu1" -v hz="$(getconf CLK_TCK)" \
      'BEGIN { split(b, x, " "); split(a, y, " "); split(t, u, " ")
               printf "%-36s %7d units/s, %5.2f statements, %4.2f commits, CPU us: daemon %4.0f, server %4.0f per unit, peak RSS %5.1f MiB\n",
                      name, n / (e - s), (y[1] - x[1]) / n, (y[2] - x[2]) / n,
                      (u[1] + u[2]) * 1e6 / n, (c1 - c0) / hz * 1e6 / n, u[3] / 1024 }'
  }

  stage "transitioner (create results)" transitioner
  # Volunteers: every result sent, uploaded and reported as a success.
  # Each reports its output 'answer\n' (7 bytes) with its md5, as clients do.
  sql "UPDATE result SET server_state = 5, outcome = 1, client_state = 5, hostid = 1, sent_time = $now,
         report_deadline = $now + 86400, received_time = $now,
         xml_doc_out = CONCAT('<file_info><name>', name, '_0</name><nbytes>7</nbytes>',
                              '<md5_cksum>ba05a5b4d1c90e69b6da7da8b50a5c26</md5_cksum></file_info>')"
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
  "$here/scripts/private_mariadb.sh" stop "$base/db" >/dev/null
  rm -rf "$base"
  trap - EXIT
}

echo "== $new_build"
pipeline "$new_build"
if [[ -n "$old_build" ]]; then
  echo "== $old_build"
  pipeline "$old_build"
fi
