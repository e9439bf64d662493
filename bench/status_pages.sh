#!/usr/bin/env bash
# Status page render time, whole CGI processes: fills a private MariaDB with 1M results
# (500k workunits, 50k hosts, 20k users, 200 operand graphs of 100 operands and one of 300,
# 100k failure_stat estimates, 10k waiting tasks; queue backlogs of about 5k each) in bulk
# SQL, then runs each page's CGI program as Apache would (REQUEST_METHOD, QUERY_STRING,
# config.xml with the read-only account make_project created; no page cache) RUNS times
# and prints the median and p95 wall time. server_status is measured first with no census
# snapshot (its live fallback, which counts every result), then after one census pass (the
# normal case; the pass's own time is printed), and again with queues far over the count
# cap (200k waiting for validation, 250k due for transition). Meanwhile (from the census
# pass on) MariaDB logs every query that reads without an index or scans a whole index;
# afterwards the bench lists those that examined more than 10,000 rows (the ones whose cost
# grows with the database). The load average is printed before and after.
# THARSIS_BENCH_KEEP=1 keeps the database running for EXPLAIN.
#   bench/status_pages.sh BUILD_DIR [RUNS] [RESULTS]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:?usage: status_pages.sh BUILD_DIR [RUNS] [RESULTS]}" && pwd)"
runs="${2:-30}"
results="${3:-1000000}"
workunits=$((results / 2))
base="$(mktemp -d "${TMPDIR:-/tmp}/tharsis-bench-pages-XXXXXX")"
if [ "${THARSIS_BENCH_KEEP:-0}" = 1 ]; then
  trap 'echo "kept $base (stop: scripts/private_mariadb.sh stop $base/db)"' EXIT
else
  trap '"$here/scripts/private_mariadb.sh" stop "$base/db" >/dev/null; rm -rf "$base"' EXIT
fi

"$here/scripts/private_mariadb.sh" start "$base/db" >/dev/null
sock="$base/db/mysqld.sock"
"$build/make_project" --project_dir "$base/p" --name bench --url_base http://127.0.0.1:1/ \
  --db_socket "$sock" --db_user root --db_name bench --key_bits 512 --uldl_dir_fanout 16 >/dev/null
sql() { mariadb --no-defaults -S "$sock" -uroot bench -N -e "$1"; }

now=$(date +%s)
start=$(date +%s.%N)
sql "INSERT INTO app (name) VALUES ('bench'), ('ops')"
sql "INSERT INTO user (create_time, name, authenticator, total_credit, expavg_credit)
     SELECT $now, CONCAT('user', seq), CONCAT('auth', seq), (seq * 7919) % 100003, (seq * 104729) % 1009
     FROM seq_1_to_20000"
sql "INSERT INTO host (create_time, userid, rpc_time, total_credit, expavg_credit, domain_name, platform_name)
     SELECT $now, 1 + seq % 20000, $now - (seq % 7200), (seq * 15485863) % 1000003, (seq * 32452843) % 10007,
            CONCAT('host', seq), 'x86_64-pc-linux-gnu' FROM seq_1_to_50000"
sql "INSERT INTO workunit (create_time, appid, name, xml_doc, transition_time, need_validate, assimilate_state)
     SELECT $now - seq % 86400, 1, CONCAT('wu', seq), '', IF(seq % 100 = 0, $now - 60, $now + 86400),
            seq % 97 = 0, IF(seq % 89 = 0, 1, 0) FROM seq_1_to_$workunits"
# Two results per workunit in the states a busy project has: unsent, in progress, over with
# each outcome.
sql "INSERT INTO result (create_time, workunitid, appid, name, server_state, outcome, hostid, userid,
       xml_doc_in, xml_doc_out, granted_credit)
     SELECT $now, 1 + (seq - 1) DIV 2, 1, CONCAT('r', seq), ELT(1 + seq % 5, 2, 4, 5, 5, 5),
            IF(seq % 5 >= 2, 1 + seq % 7, 0), 1 + seq % 50000, 1 + seq % 20000, '', '', seq % 50
     FROM seq_1_to_$results"
# Graphs: 200 of 100 operands (levels of 10, each operand reading two of the level before)
# and one of 300; operands use the first workunits as their jobs.
sql "INSERT INTO graph (create_time, name, expression) SELECT $now, CONCAT('graph', seq), '' FROM seq_1_to_201"
sql "INSERT INTO operand (id, graph_id, name, workunitid, state, state_time, depth, output_nbytes, spec)
     SELECT seq, 1 + (seq - 1) DIV 100, CONCAT('op', seq), seq, ELT(1 + seq % 6, 0, 1, 2, 3, 4, 4),
            $now - 10000 + seq, ((seq - 1) % 100) DIV 10, 1048576, '' FROM seq_1_to_20000"
sql "INSERT INTO operand (id, graph_id, name, workunitid, state, state_time, depth, output_nbytes, spec)
     SELECT 20000 + seq, 201, CONCAT('op', 20000 + seq), 20000 + seq, ELT(1 + seq % 6, 0, 1, 2, 3, 4, 4),
            $now - 1000 + seq, (seq - 1) DIV 30, 4096, '' FROM seq_1_to_300"
sql "INSERT INTO operand_dependency (predecessor_id, successor_id, input_index)
     SELECT o.id - 10 - k.seq, o.id, k.seq FROM operand o JOIN seq_0_to_1 k
     WHERE o.depth > 0 AND o.graph_id <= 200"
sql "INSERT INTO operand_dependency (predecessor_id, successor_id, input_index)
     SELECT o.id - 30, o.id, 0 FROM operand o WHERE o.graph_id = 201 AND o.depth > 0"
sql "INSERT INTO assimilation (workunitid, time)
     SELECT workunitid, $now - 20000 + workunitid FROM operand WHERE state IN (3, 4)"
sql "INSERT INTO failure_stat (appid, time, jobs, tasks, alpha, beta, cluster_size, model)
     SELECT 1 + seq % 2, $now - 100000 + seq, 200, 1000, 0.01 + (seq % 100) / 5000, 0.1, 1 + seq % 20, 'TFM'
     FROM seq_1_to_100000"
sql "INSERT INTO cluster_task (task_key, appid) SELECT CONCAT('t', seq), 1 + seq % 2 FROM seq_1_to_10000"
sql "ANALYZE TABLE user, host, workunit, result, graph, operand, operand_dependency, failure_stat,
       cluster_task, assimilation" >/dev/null
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" -v r="$results" 'BEGIN { printf "filled %d results and the rest in %.1f s\n", r, e - s }'

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

page() {  # page NAME PROGRAM QUERY_STRING
  local name="$1" program="$2" query="$3" times=()
  for _ in $(seq 1 "$runs"); do
    local t0 t1
    t0=$(date +%s%N)
    REQUEST_METHOD=GET QUERY_STRING="$query" THARSIS_CONFIG="$base/p/config.xml" "$build/$program" > "$base/out"
    t1=$(date +%s%N)
    times+=($(((t1 - t0) / 1000)))
  done
  head -1 "$base/out" | grep -q "200 OK" || { echo "$name: $(head -1 "$base/out")"; exit 1; }
  printf '%s\n' "${times[@]}" | sort -n | awk -v name="$name" -v bytes="$(wc -c < "$base/out")" '
    { t[NR] = $1 } END {
      p95 = int(NR * 0.95 + 0.999); if (p95 > NR) p95 = NR
      printf "%-32s median %7.1f ms   p95 %7.1f ms   (%d runs, %d bytes)\n",
             name, t[int((NR + 1) / 2)] / 1000, t[p95] / 1000, NR, bytes }'
}

echo "page render time, whole CGI process, $runs runs each:"
page "server_status (no snapshot: live)" server_status ""
t0=$(date +%s%N)
"$build/census" --project_dir "$base/p" --one_pass >/dev/null 2>&1
t1=$(date +%s%N)
awk -v ms="$(((t1 - t0) / 1000))" -v d="$(sql "SELECT duration FROM census_run")" \
  'BEGIN { printf "census --one_pass: %.1f ms whole process (counting %.1f ms)\n", ms / 1000, d * 1000 }'

# Any page query that reads without an index goes to the slow log (long_query_time is
# high so only those are logged).
sql "SET GLOBAL slow_query_log_file = '$base/no_index.log', long_query_time = 1000,
       log_queries_not_using_indexes = ON, slow_query_log = ON"
page "server_status" server_status ""
page "server_status (json)" server_status "format=json"
page "server_status (prometheus)" server_status "format=prometheus"
page "graphs (list)" graphs ""
page "graphs?id (100 operands)" graphs "id=17"
page "graphs?id (300, DAG drawn)" graphs "id=201"
page "reclustering" reclustering ""
page "volunteers" volunteers ""
page "volunteers (page 2 of hosts)" volunteers "hosts_after=100"
sql "SET GLOBAL slow_query_log = OFF"
sql "UPDATE workunit SET need_validate = 1 WHERE id <= 200000"
sql "UPDATE workunit SET transition_time = $now - 60 WHERE id % 2 = 0"
"$build/census" --project_dir "$base/p" --one_pass >/dev/null 2>&1  # counts the new backlog
sql "SET GLOBAL slow_query_log = ON"
page "server_status (queues over the cap)" server_status ""
grep -q "census: [0-9]" "$base/out" || { echo "server_status: a capped queue lacks the census count"; exit 1; }
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

sql "SET GLOBAL slow_query_log = OFF"
awk '/^# Query_time/ { for (i = 1; i < NF; ++i) if ($i == "Rows_examined:") rows = $(i + 1) }
     /^(SELECT|select)/ { if (rows > 10000) { if (rows > max[$0]) max[$0] = rows } }
     END { n = 0; for (q in max) { printf "  %9d rows examined: %s\n", max[q], q; ++n }
           if (n == 0) print "no page query examined more than 10,000 rows" }' "$base/no_index.log"
