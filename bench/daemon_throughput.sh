#!/usr/bin/env bash
# Back-end daemon throughput, whole processes: N due workunits (default 100000, quorum 1)
# driven through every daemon in turn, each run as `<daemon> --one_pass` and timed from
# start to exit. The volunteers' part (send, upload, report) is done in bulk SQL between
# stages so only daemon work is timed. Prints units/s per daemon stage, and the statements
# (server status Questions), rows read (Rows_read, temporary tables aside: flat when reads go
# through an index) and commits (Com_commit) the stage cost per unit, and the CPU
# time per unit the daemon and the database server spent, and the daemon's peak RSS.
# Each stage is followed by its physical limit on this machine: the same workunit and
# result rows the stage wrote (new rows inserted, changed rows rewritten), replayed from
# a copy of the tables as they were before it by bare multi-row statements — per 50
# workunits one transaction with one INSERT of the new results and one multi-row
# INSERT .. ON DUPLICATE KEY UPDATE each for the changed results and workunits — and the
# stage's rate as a share of it. (Other tables a stage writes — credit, assimilation
# records — and its file work are not in the bare writes.) The assimilator's file work
# has its own floor, bench/store_floor: the same outputs read, hashed, linked into a
# directory each with a MANIFEST by bare system calls on as many threads; it prints that
# rate, and the stage's share of bare rows then files (1 / (1/rows + 1/files)).
# With OLD_BUILD_DIR, the same pipeline runs again on a fresh database with that build's
# daemons, right after, for a side-by-side comparison under the same load.
# FLUSH_AT_COMMIT=1 runs MariaDB durable (log flushed at every commit, as production);
# the default 2 (the test servers' setting) flushes it once a second.
# STDERR_BYTES=B gives each reported result a client's stderr_out of B bytes (BOINC's
# clients send up to 64 KB; default 0): in table result_stderr, or in the result row with
# an OLD_BUILD_DIR whose schema still keeps it there (every read of the row carried it).
# PRELOAD_RESULTS=M first fills the tables with about M long-settled results and their
# workunits (bench/preload_settled.sh: a long-running project's history), so the stages
# run against a big table; the bench's N workunits come after them, and the snapshots,
# bare writes and volunteers' SQL touch only those (`check --settled` is skipped: the
# preloaded rows have no files). Give the server a production-sized buffer pool for it,
# e.g. THARSIS_MARIADB_ARGS="--innodb-buffer-pool-size=2G --innodb-log-file-size=512M".
# THREADS=T (1..16, default 1) runs each stage on T database connections at once
# (`<daemon> --threads T`: T workers, each its own connection and sub-shard of the rows)
# and its bare writes on T clients at once, the transactions dealt round-robin to them,
# timed from before the first starts to after the last ends. A build whose daemons lack
# --threads (an OLD_BUILD_DIR from before it) runs its stages on one connection, saying so;
# its bare writes still run on T clients.
# ROUNDS=R (default 1) runs the stages R times on the same server, N new workunits each
# round, so one fill (PRELOAD_RESULTS) gives R samples; FLUSH_AT_COMMIT may then list both
# settings ("2 1"): the rounds alternate between them on the one server (the setting is
# dynamic), each round printed with the setting it ran at.
#   [FLUSH_AT_COMMIT=1|2|"2 1"] [ROUNDS=R] [PRELOAD_RESULTS=M] [STDERR_BYTES=B] [THREADS=T]
#     bench/daemon_throughput.sh BUILD_DIR [N] [OLD_BUILD_DIR]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
new_build="$(cd "${1:?usage: daemon_throughput.sh BUILD_DIR [N] [OLD_BUILD_DIR]}" && pwd)"
n="${2:-100000}"
old_build="${3:+$(cd "$3" && pwd)}"
read -r -a flush_settings <<<"${FLUSH_AT_COMMIT:-2}"
[ "${#flush_settings[@]}" -ge 1 ] || { echo "daemon_throughput: FLUSH_AT_COMMIT: 1, 2 or a list of them" >&2; exit 2; }
for f in "${flush_settings[@]}"; do
  case "$f" in 1|2) ;; *) echo "daemon_throughput: FLUSH_AT_COMMIT: 1, 2 or a list of them" >&2; exit 2 ;; esac
done
flush_at_commit="${flush_settings[0]}"
rounds="${ROUNDS:-1}"
[[ "$rounds" =~ ^[1-9][0-9]?$ ]] || { echo "daemon_throughput: ROUNDS: 1 to 99" >&2; exit 2; }
preload="${PRELOAD_RESULTS:-0}"
stderr_bytes="${STDERR_BYTES:-0}"
[[ "$stderr_bytes" =~ ^[0-9]+$ ]] && [ "$stderr_bytes" -le 65536 ] ||
  { echo "daemon_throughput: STDERR_BYTES: 0 to 65536" >&2; exit 2; }
[[ "$preload" =~ ^[0-9]+$ ]] || { echo "daemon_throughput: PRELOAD_RESULTS must be a number" >&2; exit 2; }
threads="${THREADS:-1}"
[[ "$threads" =~ ^([1-9]|1[0-6])$ ]] || { echo "daemon_throughput: THREADS: 1 to 16" >&2; exit 2; }
export THARSIS_MARIADB_ARGS="${THARSIS_MARIADB_ARGS:-} --innodb-flush-log-at-trx-commit=$flush_at_commit"
per_commit=50
pipeline() {  # pipeline BUILD_DIR: every stage on a fresh private server
  build="$1"
  base="$(mktemp -d "${TMPDIR:-/tmp}/tharsis-bench-XXXXXX")"
  trap '"$here/scripts/private_mariadb.sh" stop "$base/db" >/dev/null; rm -rf "$base"' EXIT
  "$here/scripts/private_mariadb.sh" start "$base/db"
  sock="$base/db/mysqld.sock"
  "$build/make_project" --project_dir "$base/p" --name bench --url_base http://127.0.0.1:1/ \
    --db_socket "$sock" --db_user root --db_name bench --key_bits 512 --uldl_dir_fanout 256 >/dev/null
  sql() { mariadb --no-defaults -S "$sock" -uroot bench -N -e "$1"; }
  # The stages' connections: --threads T when this build's daemons have it.
  daemon_threads=()
  if [ "$threads" -gt 1 ]; then
    help="$("$build/transitioner" --help 2>&1 || true)"
    if grep -q -- --threads <<<"$help"; then
      daemon_threads=(--threads "$threads")
    else
      echo "$build's daemons have no --threads: its stages run on 1 connection (bare writes on $threads)"
    fi
  fi

  cat > "$base/p/templates/out.xml" <<'XML'
<file_info><name><OUTFILE_0/></name><generated_locally/><upload_when_present/><max_nbytes>65536</max_nbytes><url><UPLOAD_URL/></url></file_info>
<result><file_ref><file_name><OUTFILE_0/></file_name><open_name>out</open_name></file_ref></result>
XML
  sql "INSERT INTO app (name, comparator) VALUES ('bench', 'bitwise')"
  [ "$preload" -eq 0 ] || "$here/bench/preload_settled.sh" "$sock" bench 1 "$preload"

  counters() {  # statements, rows read and commits the server has run so far
    sql "SELECT GROUP_CONCAT(VARIABLE_VALUE ORDER BY FIELD(VARIABLE_NAME, 'QUESTIONS', 'ROWS_READ', 'COM_COMMIT')
         SEPARATOR ' ') FROM information_schema.GLOBAL_STATUS
         WHERE VARIABLE_NAME IN ('QUESTIONS', 'ROWS_READ', 'COM_COMMIT')"
  }
  server_cpu() {  # mariadbd's user + system CPU so far, in clock ticks
    awk '{ print $14 + $15 }' "/proc/$(cat "$base/db/mysqld.pid")/stat"
  }
  # A table's columns as one CONCAT_WS list over alias t, strings quoted: a row as SQL values.
  row_values() {
    sql "SELECT GROUP_CONCAT(IF(DATA_TYPE IN ('varchar', 'mediumtext'), CONCAT('QUOTE(t.', COLUMN_NAME, ')'),
           CONCAT('t.', COLUMN_NAME)) ORDER BY ORDINAL_POSITION) FROM information_schema.COLUMNS
         WHERE TABLE_SCHEMA = 'bench' AND TABLE_NAME = '$1'"
  }
  result_values="CONCAT('(', CONCAT_WS(',', $(row_values result)), ')')"
  workunit_values="CONCAT('(', CONCAT_WS(',', $(row_values workunit)), ')')"
  snapshot() {  # bare_workunit, bare_result: the bench's rows as they are before a stage
    sql "DROP TABLE IF EXISTS bare_workunit, bare_result; CREATE TABLE bare_workunit LIKE workunit;
         CREATE TABLE bare_result LIKE result; INSERT INTO bare_workunit SELECT * FROM workunit WHERE id > $wu0;
         INSERT INTO bare_result SELECT * FROM result WHERE id > $r0"
  }
  bare_writes() {  # prints units/s and server CPU us per unit of the stage's row writes replayed onto the snapshot
    local start end cpu0 cpu1
    # One line per $per_commit workunits: the transaction writing their rows.
    sql "SET SESSION group_concat_max_len = 1073741824;
         WITH g AS (SELECT id, (ROW_NUMBER() OVER (ORDER BY id) - 1) DIV $per_commit AS grp FROM workunit WHERE id > $wu0),
         ins AS (SELECT g.grp, GROUP_CONCAT($result_values ORDER BY t.id) AS v FROM result t
                 JOIN g ON g.id = t.workunitid LEFT JOIN bare_result b ON b.id = t.id WHERE b.id IS NULL GROUP BY g.grp),
         upr AS (SELECT g.grp, GROUP_CONCAT($result_values ORDER BY t.id) AS v FROM result t
                 JOIN g ON g.id = t.workunitid JOIN bare_result b ON b.id = t.id
                 WHERE (t.server_state, t.outcome, t.client_state, t.file_delete_state, t.validate_state,
                        t.report_deadline, t.granted_credit)
                    <> (b.server_state, b.outcome, b.client_state, b.file_delete_state, b.validate_state,
                        b.report_deadline, b.granted_credit) GROUP BY g.grp),
         upw AS (SELECT g.grp, GROUP_CONCAT($workunit_values ORDER BY t.id) AS v FROM workunit t
                 JOIN g ON g.id = t.id JOIN bare_workunit b ON b.id = t.id
                 WHERE (t.canonical_resultid, t.transition_time, t.file_delete_state, t.assimilate_state,
                        t.need_validate, t.error_mask, t.canonical_credit)
                    <> (b.canonical_resultid, b.transition_time, b.file_delete_state, b.assimilate_state,
                        b.need_validate, b.error_mask, b.canonical_credit) GROUP BY g.grp)
         SELECT CONCAT('START TRANSACTION;',
                       IFNULL(CONCAT('INSERT INTO bare_result VALUES ', ins.v, ';'), ''),
                       IFNULL(CONCAT('INSERT INTO bare_result VALUES ', upr.v, ' ON DUPLICATE KEY UPDATE ',
                                     'server_state = VALUES(server_state), outcome = VALUES(outcome), ',
                                     'client_state = VALUES(client_state), file_delete_state = VALUES(file_delete_state), ',
                                     'validate_state = VALUES(validate_state), report_deadline = VALUES(report_deadline), ',
                                     'granted_credit = VALUES(granted_credit);'), ''),
                       IFNULL(CONCAT('INSERT INTO bare_workunit VALUES ', upw.v, ' ON DUPLICATE KEY UPDATE ',
                                     'canonical_resultid = VALUES(canonical_resultid), transition_time = VALUES(transition_time), ',
                                     'file_delete_state = VALUES(file_delete_state), assimilate_state = VALUES(assimilate_state), ',
                                     'need_validate = VALUES(need_validate), error_mask = VALUES(error_mask), ',
                                     'canonical_credit = VALUES(canonical_credit);'), ''),
                       'COMMIT;')
         FROM (SELECT DISTINCT grp FROM g) grps LEFT JOIN ins USING (grp) LEFT JOIN upr USING (grp)
           LEFT JOIN upw USING (grp) ORDER BY grps.grp" --raw > "$base/bare.sql"
    # The transactions dealt round-robin to $threads files, one client each, all at once
    # (one file, the whole replay in order, when $threads is 1).
    local i pids=() failed=0
    for ((i = 0; i < threads; i++)); do : > "$base/bare.$i.sql"; done
    awk -v t="$threads" -v b="$base" '{ print > (b "/bare." (NR - 1) % t ".sql") }' "$base/bare.sql"
    cpu0=$(server_cpu)
    start=$(date +%s.%N)
    for ((i = 0; i < threads; i++)); do
      mariadb --no-defaults -S "$sock" -uroot bench < "$base/bare.$i.sql" &
      pids+=($!)
    done
    for i in "${pids[@]}"; do wait "$i" || failed=1; done
    end=$(date +%s.%N)
    cpu1=$(server_cpu)
    [ "$failed" -eq 0 ] || { echo "daemon_throughput: a bare-writes client failed" >&2; exit 1; }
    awk -v n="$n" -v s="$start" -v e="$end" -v c0="$cpu0" -v c1="$cpu1" -v hz="$(getconf CLK_TCK)" \
      'BEGIN { printf "%d %.0f", n / (e - s), (c1 - c0) / hz * 1e6 / n }'
  }
  stage() {  # stage NAME DAEMON: time one --one_pass run, then its bare writes
    local start end before after cpu0 cpu1 bare
    snapshot
    before=$(counters)
    cpu0=$(server_cpu)
    start=$(date +%s.%N)
    /usr/bin/time -o "$base/time" -f "%U %S %M" \
      "$build/$2" --project_dir "$base/p" --one_pass --batch 1000 --units_per_commit "$per_commit" \
      --log_level warning ${daemon_threads[@]+"${daemon_threads[@]}"}
    end=$(date +%s.%N)
    cpu1=$(server_cpu)
    after=$(counters)
    bare=$(bare_writes)
    # The assimilator's file work has a floor of its own (bench/store_floor): the same
    # outputs read, hashed, linked into a directory each with a MANIFEST, by bare system
    # calls on as many threads. Its store stays until the end, as the stage's does.
    local files=""
    if [ "$2" = assimilator ] && [ -x "$new_build/store_floor" ]; then
      files=$(find "$base/p/upload" -type f | head -n "$n" |
        "$new_build/store_floor" --store "$base/store_floor.$number" --threads "$threads")
    fi
    # CPU per unit (daemon and server) is steadier than units/s on a shared machine.
    awk -v n="$n" -v s="$start" -v e="$end" -v name="$1" -v b="$before" -v a="$after" \
        -v t="$(cat "$base/time")" -v c0="$cpu0" -v c1="$cpu1" -v hz="$(getconf CLK_TCK)" -v bare="$bare" \
        -v files="$files" \
      'BEGIN { split(b, x, " "); split(a, y, " "); split(t, u, " ")
               split(bare, w, " "); split(files, f, " ")
               printf "%-36s %7d units/s, %5.2f statements, %5.1f rows read, %4.2f commits, CPU us: daemon %4.0f, server %4.0f per unit, peak RSS %5.1f MiB\n",
                      name, n / (e - s), (y[1] - x[1]) / n, (y[2] - x[2]) / n, (y[3] - x[3]) / n,
                      (u[1] + u[2]) * 1e6 / n, (c1 - c0) / hz * 1e6 / n, u[3] / 1024
               printf "%-36s %7d units/s (stage at %3.0f%% of it), server CPU us %4.0f per unit\n",
                      "  bare writes of its rows", w[1], 100 * n / (e - s) / w[1], w[2]
               if (files != "") {
                 both = 1 / (1 / w[1] + 1 / f[1])
                 printf "%-36s %7d units/s, CPU us %4.0f per unit; rows then files %d units/s (stage at %3.0f%% of it)\n",
                        "  bare file work of its store", f[1], f[2], both, 100 * n / (e - s) / both
               } }'
  }

  round() {  # round NUMBER: N new workunits through every stage
    # The bench's own rows of this round: workunits above wu0, results above r0.
    now=$(date +%s)
    read -r wu0 r0 < <(sql "SELECT (SELECT IFNULL(MAX(id), 0) FROM workunit), (SELECT IFNULL(MAX(id), 0) FROM result)")
    local prefix=wu
    [ "$1" -eq 1 ] || prefix="wu$1_"
    sql "INSERT INTO workunit (create_time, appid, name, xml_doc, delay_bound, min_quorum, target_nresults,
           max_error_results, max_total_results, max_success_results, transition_time, result_template_file)
         SELECT $now, 1, CONCAT('$prefix', seq), '<workunit></workunit>', 86400, 1, 1, 3, 10, 6, $now,
           'templates/out.xml' FROM seq_1_to_$n"
    all_stages
  }
  all_stages() {
    stage "transitioner (create results)" transitioner
    # Volunteers: every result sent, uploaded and reported as a success.
    # Each reports its output 'answer\n' (7 bytes) with its md5, as clients do.
    sql "UPDATE result SET server_state = 5, outcome = 1, client_state = 5, hostid = 1, sent_time = $now,
           report_deadline = $now + 86400, received_time = $now,
           xml_doc_out = CONCAT('<file_info><name>', name, '_0</name><nbytes>7</nbytes>',
                                '<md5_cksum>ba05a5b4d1c90e69b6da7da8b50a5c26</md5_cksum></file_info>')
         WHERE id > $r0"
    if [ "$(sql "SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'bench'
                 AND TABLE_NAME = 'result' AND COLUMN_NAME = 'stderr_out'")" -eq 1 ]; then
      sql "UPDATE result SET stderr_out = REPEAT('e', $stderr_bytes) WHERE id > $r0"
    elif [ "$stderr_bytes" -gt 0 ]; then
      sql "INSERT INTO result_stderr (resultid, stderr_out) SELECT id, REPEAT('e', $stderr_bytes) FROM result
           WHERE id > $r0"
    fi
    sql "UPDATE workunit SET transition_time = $now WHERE id > $wu0"
    sql "SELECT CONCAT(name, '_0') FROM result WHERE id > $r0" | python3 -c "
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
  }
  local r f number=0
  for ((r = 1; r <= rounds; r++)); do
    for f in "${flush_settings[@]}"; do
      number=$((number + 1))
      sql "SET GLOBAL innodb_flush_log_at_trx_commit = $f"
      [ "$rounds" -eq 1 ] && [ "${#flush_settings[@]}" -eq 1 ] ||
        echo "-- round $r of $rounds, innodb_flush_log_at_trx_commit=$f, load $(cut -d' ' -f1-3 /proc/loadavg)"
      round "$number"
    done
  done
  if [ "$preload" -eq 0 ]; then
    "$build/check" --project_dir "$base/p" --settled | tail -1
  else
    echo "check --settled skipped (the preloaded rows have no files)"
  fi
  "$here/scripts/private_mariadb.sh" stop "$base/db" >/dev/null
  rm -rf "$base"
  trap - EXIT
  echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
}

echo "innodb_flush_log_at_trx_commit=${flush_settings[*]}, rounds $rounds, N=$n, $per_commit units per commit, preloaded results $preload, stderr_out $stderr_bytes bytes, threads $threads," \
  "server options: ${THARSIS_MARIADB_ARGS# }"
echo "== $new_build"
pipeline "$new_build"
if [[ -n "$old_build" ]]; then
  echo "== $old_build"
  pipeline "$old_build"
fi
