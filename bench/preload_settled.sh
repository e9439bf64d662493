#!/usr/bin/env bash
# Fills a bench's database with the history a long-running project holds before the timed
# work starts (issue 16's flat-cost target: "the same figures with 10M results in the
# table"): about RESULTS results that are long settled, with their workunits, all through
# the tables' own indexes as db/schema.sql makes them (nothing is dropped or disabled).
# Each workunit was created on a day of the last 180, quorum 2; it has two results that
# were sent, reported a success and validated VALID, and every 50th has a third, sent
# first, that ended in a client error; it was assimilated (its `assimilation` row, its
# canonical result), its files deleted (file_delete_state DONE on it and its results) and
# it needs no transition (transition_time 2^31 - 1). Its input is listed in
# workunit_input, as create_work leaves it until db_purge. Names and XML are as long as
# the project's own (a 36-byte workunit name; xml_doc, xml_doc_in, xml_doc_out and
# stderr_out of 120-420 bytes; stderr_out in table result_stderr, or in the result row
# where the schema still has it there: an old build's database); the results are spread over 20,000 host ids and 5,000
# user ids (no host or user rows: a bench's own hosts get ids from 1, and so an old
# history each).
# Set-based: INSERT .. SELECT over MariaDB's seq_ tables, CHUNK workunits (with their
# results, inputs and assimilation rows) per statement, so one statement writes about
# a million rows. Ids follow the rows already there, so a bench's own rows come after.
# Waits at the end until InnoDB has written the fill's dirty pages out, so the timed
# work after it does not pay for the fill.
#   bench/preload_settled.sh SOCKET DATABASE APPID RESULTS
set -euo pipefail
usage="usage: preload_settled.sh SOCKET DATABASE APPID RESULTS"
sock="${1:?$usage}"
db="${2:?$usage}"
appid="${3:?$usage}"
results="${4:?$usage}"
for v in "$appid" "$results"; do
  [[ "$v" =~ ^[0-9]+$ ]] && [ "$v" -gt 0 ] || { echo "preload_settled: APPID and RESULTS: positive integers" >&2; exit 2; }
done
chunk=500000
sql() { mariadb --no-defaults -S "$sock" -uroot "$db" -N -e "$1"; }

# w workunits have 2w + floor(w / 50) results.
workunits=$((results * 50 / 101))
[ "$workunits" -gt 0 ] || workunits=1
# A client's stderr_out, for a result that ended in a client error or not ($1).
stderr_text() {
  echo "CONCAT('<core_client_version>8.0.2</core_client_version>\n<![CDATA[\n<stderr_txt>\n',
               IF($1, 'process exited with code 195 (0xc3, -61)\n', 'called boinc_finish(0)\n'),
               '</stderr_txt>\n]]>\n')"
}
in_row=$(sql "SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()
              AND TABLE_NAME = 'result' AND COLUMN_NAME = 'stderr_out'")
stderr_column=""
stderr_value=""
if [ "$in_row" -eq 1 ]; then
  stderr_column=", stderr_out"
  stderr_value=", $(stderr_text w.error)"
fi
read -r wbase rbase < <(sql "SELECT (SELECT IFNULL(MAX(id), 0) FROM workunit), (SELECT IFNULL(MAX(id), 0) FROM result)")
now=$(date +%s)
start=$(date +%s.%N)
span=$((180 * 86400))
for ((first = 1; first <= workunits; first += chunk)); do
  chunk_start=$(date +%s)
  last=$((first + chunk - 1))
  [ "$last" -le "$workunits" ] || last=$workunits
  # Workunit k (1-based in the preload) has id wbase + k; its results' ids start at
  # rbase + 2(k - 1) + floor((k - 1) / 50) + 1; with a third (k a multiple of 50), the
  # first of them is the client error, so the canonical one is the next.
  sql "INSERT INTO workunit (id, create_time, appid, name, xml_doc, rsc_fpops_est, rsc_fpops_bound, rsc_memory_bound,
         rsc_disk_bound, delay_bound, min_quorum, target_nresults, max_error_results, max_total_results,
         max_success_results, canonical_resultid, transition_time, file_delete_state, assimilate_state, need_validate,
         canonical_credit, result_template_file)
       SELECT $wbase + seq, $now - $span + seq * $span DIV $workunits, $appid, CONCAT('h', LPAD($wbase + seq, 10, '0'), '_', LEFT(MD5(seq), 24)),
         CONCAT('<file_info><name>h', LPAD($wbase + seq, 10, '0'), '_in</name><url>http://project.example.org/download/',
                HEX(seq % 1024), '/h', LPAD($wbase + seq, 10, '0'), '_in</url><md5_cksum>', MD5(seq),
                '</md5_cksum><nbytes>', 4096 + seq % 61440, '</nbytes></file_info>\n<workunit>\n',
                '<file_ref><file_name>h', LPAD($wbase + seq, 10, '0'), '_in</file_name><open_name>in</open_name></file_ref>\n',
                '<command_line>--seed ', seq, ' --steps 1000</command_line>\n</workunit>\n'),
         3.6e12, 3.6e14, 2.6e8, 1e9, 604800, 2, 2, 3, 10, 6,
         $rbase + 2 * (seq - 1) + (seq - 1) DIV 50 + 1 + (seq % 50 = 0), 2147483647, 2, 2, 0,
         40 + seq % 20, 'templates/out.xml'
       FROM seq_${first}_to_${last}"
  sql "INSERT INTO result (id, create_time, workunitid, appid, name, server_state, outcome, client_state,
         file_delete_state, validate_state, report_deadline, hostid, userid, sent_time, received_time, app_version_id,
         exit_status, cpu_time, elapsed_time, xml_doc_in, xml_doc_out, claimed_credit, granted_credit,
         random, priority $stderr_column)
       SELECT $rbase + 2 * (w.id - $wbase - 1) + (w.id - $wbase - 1) DIV 50 + 1 + w.k, w.create_time + w.k * 3600, w.id,
         $appid, CONCAT(w.name, '_', w.k), 5, IF(w.error, 3, 1), IF(w.error, 3, 5), 2, IF(w.error, 0, 1),
         w.create_time + w.k * 3600 + 600 + 604800, 1 + (w.id * 2 + w.k) * 7919 % 20000,
         1 + (w.id * 2 + w.k) * 7919 % 20000 DIV 4, w.create_time + w.k * 3600 + 600,
         w.create_time + w.k * 3600 + 4200 + (w.id + w.k) % 86400, 1, IF(w.error, -177, 0),
         IF(w.error, 120, 3400 + w.id % 400), IF(w.error, 130, 3500 + w.id % 400),
         CONCAT('<file_info><name>', w.name, '_', w.k, '_0</name><generated_locally/><upload_when_present/>',
                '<max_nbytes>65536</max_nbytes><url>http://project.example.org/bench_cgi/file_upload_handler</url>',
                '</file_info>\n<result><file_ref><file_name>', w.name, '_', w.k,
                '_0</file_name><open_name>out</open_name></file_ref></result>\n'),
         IF(w.error, '', CONCAT('<file_info><name>', w.name, '_', w.k, '_0</name><nbytes>', 100 + w.id % 900,
                                '</nbytes><md5_cksum>', MD5(w.id), '</md5_cksum></file_info>\n')),
         IF(w.error, 0, w.canonical_credit), IF(w.error, 0, w.canonical_credit), (w.id * 31 + w.k) % 2147483647, 0
         $stderr_value
       FROM (SELECT w.id, w.create_time, w.name, w.canonical_credit, r.seq AS k,
               r.seq = 0 AND (w.id - $wbase) % 50 = 0 AS error
             FROM workunit w JOIN seq_0_to_2 r ON r.seq < 2 OR (w.id - $wbase) % 50 = 0
             WHERE w.id BETWEEN $wbase + $first AND $wbase + $last) w"
  [ "$in_row" -eq 1 ] ||
    sql "INSERT INTO result_stderr (resultid, stderr_out) SELECT id, $(stderr_text 'outcome = 3') FROM result
         WHERE workunitid BETWEEN $wbase + $first AND $wbase + $last"
  sql "INSERT INTO workunit_input (workunitid, file_name)
       SELECT id, CONCAT('h', LPAD(id, 10, '0'), '_in') FROM workunit WHERE id BETWEEN $wbase + $first AND $wbase + $last;
       INSERT INTO assimilation (workunitid, time, canonical_resultid)
       SELECT id, create_time + 90000, canonical_resultid FROM workunit WHERE id BETWEEN $wbase + $first AND $wbase + $last"
  echo "preload: workunits $first-$last of $workunits with their results in $(($(date +%s) - chunk_start)) s"
done
filled=$(date +%s)
# Dirty pages written out now, not during the timed work: as fast as the disk takes them
# (the settings put back after).
read -r pct io io_max < <(sql "SELECT @@GLOBAL.innodb_max_dirty_pages_pct, @@GLOBAL.innodb_io_capacity,
                                 @@GLOBAL.innodb_io_capacity_max")
sql "SET GLOBAL innodb_io_capacity_max = 100000; SET GLOBAL innodb_io_capacity = 100000;
     SET GLOBAL innodb_max_dirty_pages_pct = 0"
for _ in $(seq 3600); do
  [ "$(sql "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS
             WHERE VARIABLE_NAME = 'INNODB_BUFFER_POOL_PAGES_DIRTY'")" -lt 100 ] && break
  sleep 1
done
sql "SET GLOBAL innodb_max_dirty_pages_pct = $pct; SET GLOBAL innodb_io_capacity = $io;
     SET GLOBAL innodb_io_capacity_max = $io_max"
read -r nw nr < <(sql "SELECT (SELECT COUNT(*) FROM workunit WHERE id > $wbase), (SELECT COUNT(*) FROM result WHERE id > $rbase)")
awk -v w="$nw" -v r="$nr" -v s="$start" -v f="$filled" -v e="$(date +%s.%N)" \
  'BEGIN { printf "preloaded %d settled workunits and %d results in %.0f s (and %.0f s writing them out)\n",
                  w, r, f - s, e - f }'
