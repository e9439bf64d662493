#!/usr/bin/env bash
# Scheduler RPC throughput and latency, CGI vs FastCGI (docs/benchmarks.md), whole processes over
# real HTTP: a private MariaDB and Apache serve a project whose DB holds N unsent results
# (default 100000); build/sched_load runs one and two concurrent loops, each loop its own
# account and host, for two RPC kinds:
#   new_host    a new host's first RPC (host created, no work asked);
#   report_get  report the one result the host holds + get exactly one new one.
# Prints RPC/s, p50/p99 latency, errors, server CPU and SQL statements and transactions per
# RPC (the server's Questions and Com_commit counters) per case, the FastCGI/CGI ratios, the
# scheduler's peak RSS (CGI: 200 direct runs; each FastCGI process) and EXPLAIN of the queries.
# Floors: after each report_get case, the same loops against build/sched_floor installed
# beside the scheduler (cgi-bin/floor, cgi-bin/floor.fcgi: same Apache, same mod_fcgid
# limits), which reads the request as the scheduler does and answers a fixed reply of a
# report_get's size, nothing else ("HTTP floor"), and again with ?sql=N: N primary-key
# reads in one transaction, N = the prepared statements the scheduler's report_get just
# executed per RPC ("HTTP + SQL floor"). Prints their RPC/s and CPU per RPC, the reply
# sizes (Apache's log) and report_get's rate as a share of each floor.
#   [FLUSH_AT_COMMIT=1|2] [JOBS=K] [POOL=1 [PROCESSES=N]] [KEEP=1] \
#     bench/scheduler_rpc.sh BUILD_DIR [N_RESULTS] [SECONDS_PER_CASE] [BASELINE_BUILD_DIR]
# With BASELINE_BUILD_DIR (e.g. an older commit built elsewhere), its `scheduler` is installed
# beside BUILD_DIR's as cgi-bin/base_cgi and base.fcgi, each case runs against both in turn
# in the same run (same DB, same load), and a table of ratios new/baseline follows (the
# result table then also has the stderr_out column a baseline before result_stderr writes).
# Durability: FLUSH_AT_COMMIT=1 (the default) is MariaDB's durable setting, the log flushed
# to disk at every commit, as a production server runs; FLUSH_AT_COMMIT=2 (the test
# servers' setting) writes it at commit and flushes about once a second. The output
# states which one ran.
# LOOPS="1 2" (the default): the numbers of concurrent loops each case runs, e.g. LOOPS="2 16"
# (more loops than pool workers: requests wait at the pool's socket and are served in
# groups, sched/lib/rpc/grouped_rpc.h).
# JOBS=K (default 1): each report_get RPC reports the K results its host holds and asks
# for K more (the floors stay at one).
# POOL=1: the FastCGI cases go instead to a FastCGI pool of the scheduler started up front
# (`scheduler --fastcgi_socket p/run/scheduler.sock --processes PROCESSES`, run in the
# background with THARSIS_PROJECT_DIR set; sched/lib/fastcgi_pool.h), reached through
# Apache's mod_proxy_fcgi (ProxyPass "/bench_cgi/fcgi" "unix:SOCK|fcgi://scheduler/"), as
# bench/pipeline.sh's POOL=1, instead of mod_fcgid, which starts processes on demand. One
# pool per build for the whole run, PROCESSES workers each (default 2, the most loops a
# case runs); a baseline's scheduler gets its own pool on its own socket and path
# (/bench_cgi/base.fcgi; its own pid_dir, as a pool locks pid/scheduler.pid), so it must
# know --fastcgi_socket: a pool whose socket is not there within 10 s stops the run with
# an error and the pool's log. The pools' processes count in the server CPU and their
# workers' peak RSS is printed. The floors stay under mod_fcgid (sched_floor serves as
# CGI or mod_fcgid only), so in this mode the FastCGI floor rows are mod_fcgid's. The CGI
# cases are unchanged. The output states which mode ran.
# With KEEP=1 the servers keep running afterwards (for profiling); the script prints how
# to stop them.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:?usage: scheduler_rpc.sh BUILD_DIR [N_RESULTS] [SECONDS]}" && pwd)"
n="${2:-100000}"
seconds="${3:-10}"
jobs="${JOBS:-1}"
[[ "$jobs" =~ ^[0-9]+$ ]] && [ "$jobs" -ge 1 ] || { echo "scheduler_rpc: JOBS must be 1 or more" >&2; exit 2; }
pool="${POOL:-0}"
case "$pool" in 0|1) ;; *) echo "scheduler_rpc: POOL: 0 (mod_fcgid) or 1 (FastCGI pools)" >&2; exit 2 ;; esac
processes="${PROCESSES:-2}"
loops_list="${LOOPS:-1 2}"
max_loops="$(tr ' ' '\n' <<<"$loops_list" | sort -n | tail -1)"
[[ "$processes" =~ ^[0-9]+$ ]] && [ "$processes" -ge 1 ] ||
  { echo "scheduler_rpc: PROCESSES must be 1 or more" >&2; exit 2; }
baseline=""
[ -n "${4:-}" ] && baseline="$(cd "$4" && pwd)"
for program in scheduler sched_floor sched_load make_project add_app create_work transitioner; do
  [ -x "$build/$program" ] || { echo "scheduler_rpc: $build/$program is missing; build it first" >&2; exit 2; }
done
if [ -n "$baseline" ] && [ ! -x "$baseline/scheduler" ]; then
  echo "scheduler_rpc: $baseline/scheduler is missing" >&2; exit 2
fi
base="$(mktemp -d "${TMPDIR:-/tmp}/tharsis-schedbench-XXXXXX")"
pool_pids=()  # POOL=1: each pool's parent (it stops its workers on SIGTERM) ...
pool_names=()  # ... and its name (scheduler, base_scheduler)
stop_pools() {
  local pid
  for pid in "${pool_pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pool_pids[@]}"; do  # a worker busy with a request gets 10 s to finish it
    for _ in $(seq 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    wait "$pid" 2>/dev/null || true
  done
}
cleanup() {
  if [ "${KEEP:-0}" = 1 ]; then
    echo "kept: project $base/p, DB socket $base/db/mysqld.sock, http://127.0.0.1:$port/bench_cgi/"
    echo "stop: $here/scripts/private_apache.sh stop $base/apache; $here/scripts/private_mariadb.sh stop $base/db"
    [ "${#pool_pids[@]}" -eq 0 ] || echo "      kill -TERM ${pool_pids[*]}  # the FastCGI pools"
    return
  fi
  stop_pools
  "$here/scripts/private_apache.sh" stop "$base/apache" >/dev/null 2>&1 || true
  "$here/scripts/private_mariadb.sh" stop "$base/db" >/dev/null 2>&1 || true
  rm -rf "$base"
}
port=$((20000 + RANDOM % 20000))
trap cleanup EXIT

flush_at_commit="${FLUSH_AT_COMMIT:-1}"
case "$flush_at_commit" in 1|2) ;; *) echo "scheduler_rpc: FLUSH_AT_COMMIT must be 1 or 2" >&2; exit 2 ;; esac
THARSIS_MARIADB_ARGS="--innodb-buffer-pool-size=512M --innodb-flush-log-at-trx-commit=$flush_at_commit" \
  "$here/scripts/private_mariadb.sh" start "$base/db"
sock="$base/db/mysqld.sock"
p="$base/p"
"$build/make_project" --project_dir "$p" --name bench --url_base "http://127.0.0.1:$port/" \
  --db_socket "$sock" --db_user root --db_name bench --key_bits 1024 --uldl_dir_fanout 1024 >/dev/null
sql() { mariadb --no-defaults -S "$sock" -uroot bench -N -e "$1"; }

# A day's quota far above what a bench host asks for: the loops would otherwise hit it.
sed -i 's|<daily_result_quota>[0-9]*</daily_result_quota>|<daily_result_quota>10000000</daily_result_quota>|' \
  "$p/config.xml"
printf '#!/bin/sh\nexit 0\n' > "$base/bench_app"
"$build/add_app" --project_dir "$p" --app bench --file "$base/bench_app" >/dev/null

# One workunit made by create_work and its result made by the transitioner; the other
# N-1 are copies with their own names (bulk SQL: seconds instead of minutes).
echo "seed input" > "$base/in"
echo "w_0000001 $base/in" > "$base/jobs"
"$build/create_work" --project_dir "$p" --app bench --bulk "$base/jobs" --shared >/dev/null
"$build/transitioner" --project_dir "$p" --one_pass --log_level warning
echo "filling the database with $n unsent results ..."
sql "INSERT INTO workunit (create_time, appid, name, xml_doc, batch, rsc_fpops_est, rsc_fpops_bound,
       rsc_memory_bound, rsc_disk_bound, delay_bound, min_quorum, target_nresults, max_error_results,
       max_total_results, max_success_results, priority, transition_time, result_template_file)
     SELECT w.create_time, w.appid, CONCAT('w_', LPAD(s.seq, 7, '0')), w.xml_doc, w.batch, w.rsc_fpops_est,
       w.rsc_fpops_bound, w.rsc_memory_bound, w.rsc_disk_bound, w.delay_bound, w.min_quorum,
       w.target_nresults, w.max_error_results, w.max_total_results, w.max_success_results, w.priority,
       w.transition_time, w.result_template_file
     FROM workunit w JOIN seq_2_to_$n s WHERE w.id = 1"
sql "INSERT INTO workunit_input (workunitid, file_name) SELECT w.id, i.file_name
     FROM workunit w JOIN workunit_input i ON i.workunitid = 1 WHERE w.id > 1"
sql "INSERT INTO result (create_time, workunitid, appid, name, server_state, xml_doc_in, xml_doc_out,
       random, priority)
     SELECT r.create_time, w.id, r.appid, REPLACE(r.name, 'w_0000001', w.name), r.server_state,
       REPLACE(r.xml_doc_in, 'w_0000001', w.name), '', RAND() * 2147483647, r.priority
     FROM result r JOIN workunit w ON w.id > 1 WHERE r.id = 1"
sql "INSERT INTO user (create_time, name, authenticator) VALUES $(
  for ((i = 1; i <= max_loops; i++)); do printf "%s(UNIX_TIMESTAMP(), 'loop$i', 'bench_key_loop$i')" "$([ $i -gt 1 ] && echo ,)"; done)"
sql "ANALYZE TABLE result, workunit, host" >/dev/null
echo "unsent results: $(sql "SELECT COUNT(*) FROM result WHERE server_state = 2")"

cp "$build/scheduler" "$p/cgi-bin/cgi"
cp "$build/scheduler" "$p/cgi-bin/fcgi"
cp "$build/sched_floor" "$p/cgi-bin/floor"
cp "$build/sched_floor" "$p/cgi-bin/floor.fcgi"  # FastCGI by its name
cgi_programs="cgi"
fcgi_programs="fcgi"
if [ -n "$baseline" ]; then
  cp "$baseline/scheduler" "$p/cgi-bin/base_cgi"
  cp "$baseline/scheduler" "$p/cgi-bin/base.fcgi"  # FastCGI by its name (make_project's Apache config)
  cgi_programs="base_cgi cgi"
  fcgi_programs="base.fcgi fcgi"
  # A baseline from before table result_stderr writes each report's stderr into the result
  # row: give it that column (empty, as the loops report no stderr; this build never reads it).
  sql "ALTER TABLE result ADD COLUMN IF NOT EXISTS stderr_out MEDIUMTEXT NOT NULL DEFAULT ''"
fi
if [ "$(id -u)" -eq 0 ]; then chmod 755 "$base" && chown -R www-data: "$p"; fi
: > "$base/pool.conf"
if [ "$pool" = 1 ]; then
  # The pools, listening before Apache starts; Apache passes their URLs to them.
  # start_pool NAME PROGRAM PROJECT_DIR: cgi-bin/PROGRAM as a pool on run/NAME.sock, its
  # config.xml read from PROJECT_DIR (a baseline's: a copy with its own pid_dir).
  start_pool() {
    local sock="$p/run/$1.sock" pid
    THARSIS_PROJECT_DIR="$3" "$p/cgi-bin/$2" --fastcgi_socket "$sock" --processes "$processes" \
      > "$base/pool_$1.log" 2>&1 &
    pid=$!
    pool_pids+=("$pid")
    pool_names+=("$1")
    for _ in $(seq 100); do
      [ -S "$sock" ] && return 0
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      echo "scheduler_rpc: the FastCGI pool of cgi-bin/$2 (pid $pid) opened no socket $sock within 10 s;" \
        "its log: $(tail -5 "$base/pool_$1.log")" >&2
    else
      echo "scheduler_rpc: the FastCGI pool of cgi-bin/$2 exited before it opened its socket $sock" \
        "(a scheduler without --fastcgi_socket?); its log: $(tail -5 "$base/pool_$1.log")" >&2
    fi
    exit 1
  }
  mkdir -p "$p/run"
  start_pool scheduler fcgi "$p"
  echo "ProxyPass \"/bench_cgi/fcgi\" \"unix:$p/run/scheduler.sock|fcgi://scheduler/\" retry=0" >> "$base/pool.conf"
  if [ -n "$baseline" ]; then
    mkdir -p "$base/pbase/pid"
    sed "s|<pid_dir>[^<]*</pid_dir>|<pid_dir>$base/pbase/pid</pid_dir>|" "$p/config.xml" > "$base/pbase/config.xml"
    start_pool base_scheduler base.fcgi "$base/pbase"
    echo "ProxyPass \"/bench_cgi/base.fcgi\" \"unix:$p/run/base_scheduler.sock|fcgi://base-scheduler/\" retry=0" \
      >> "$base/pool.conf"
  fi
fi
"$here/scripts/private_apache.sh" start "$base/apache" "$port" "$p/bench.httpd.conf" "$base/pool.conf"

# CPU time (ticks) of the server side: mariadbd and Apache's process tree, which holds the
# scheduler processes (exited CGI runs count in their reaping parent's cutime/cstime), and
# with POOL=1 each pool's parent and its workers (not Apache's children).
# The machine is shared, so wall-clock rates depend on the neighbours; CPU per RPC does not.
server_ticks() {
  local roots
  roots="$(cat "$base/db/mysqld.pid") $(cat "$base/apache/httpd.pid") ${pool_pids[*]}"
  ps -e -o pid=,ppid= | awk -v roots="$roots" '
    BEGIN { n = split(roots, r, " "); for (i = 1; i <= n; i++) keep[r[i]] = 1 }
    { parent[$1] = $2; pids[NR] = $1 }
    END { for (i = 1; i <= NR; i++) { p = pids[i]; q = p
            while (q in parent && !(q in keep) && q > 1) q = parent[q]
            if (q in keep) print p } }' |
    while read -r pid; do
      sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{ print $12 + $13 + $14 + $15 }'
    done | awk '{ s += $1 } END { print s + 0 }'
}
hz="$(getconf CLK_TCK)"
# Statements clients sent (Questions: each prepared statement's execution, prepare, plain
# query), transactions committed and prepared statements executed, server-wide.
sql_counters() {
  sql "SELECT SUM(IF(VARIABLE_NAME = 'QUESTIONS', VARIABLE_VALUE, 0)), SUM(IF(VARIABLE_NAME = 'COM_COMMIT',
       VARIABLE_VALUE, 0)), SUM(IF(VARIABLE_NAME = 'COM_STMT_EXECUTE', VARIABLE_VALUE, 0))
     FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN ('QUESTIONS', 'COM_COMMIT', 'COM_STMT_EXECUTE')"
}

# The scheduler as CGI, run directly: a new host asking for work, given one result. Each
# run is a host of its own (its own cpid), so every run does the same work (one host's
# results in progress would grow run by run). Apache's cgid lets the kernel reap its CGI
# children, so their CPU time reaches no parent's account; these runs measure it (and the
# peak RSS) for the CGI figures.
probe_request() {  # probe_request N: the request of probe host N (its length the same for every N)
  printf '%s' "<scheduler_request><authenticator>bench_key_loop1</authenticator><hostid>0</hostid>
<platform_name>x86_64-pc-linux-gnu</platform_name><work_req_seconds>1</work_req_seconds>
<host_info><host_cpid>probe$(printf '%06d' "$1")</host_cpid><p_ncpus>1</p_ncpus><p_fpops>1e9</p_fpops>
<m_nbytes>8e9</m_nbytes><d_free>1e11</d_free></host_info></scheduler_request>"
}
request="$(probe_request 0)"
printf '%s' "$request" > "$base/probe.xml"
probes_made=0 probe_runs=200  # 200 runs: 0.05 ms steps
# One `time` over PROBE_RUNS runs: per-run CPU is below its 10 ms resolution. ru_maxrss of the
# children is the largest single run's peak.
declare -A cgi_process_ms cgi_kib
probe_cgi() {  # probe_cgi PROGRAM[?QUERY]
  local program="${1%%\?*}" query="" cgi_probe i
  [[ "$1" == *\?* ]] && query="${1#*\?}"
  for i in $(seq $probe_runs); do probe_request $((probes_made + i)) > "$base/probe_$i.xml"; done
  probes_made=$((probes_made + probe_runs))
  cgi_probe="$(REQUEST_METHOD=POST CONTENT_LENGTH=${#request} QUERY_STRING="$query" THARSIS_PROJECT_DIR="$p" \
    /usr/bin/time -f '%U %S %M' \
    sh -c "for i in \$(seq $probe_runs); do '$p/cgi-bin/$program' < '$base/probe_'\$i.xml > /dev/null 2>&1; done" \
    2>&1 | tail -1 | awk -v n=$probe_runs '{ printf "%.2f %d", 1000 * ($1 + $2) / n, $3 }')"
  cgi_process_ms[$1]="${cgi_probe% *}"
  cgi_kib[$1]="${cgi_probe#* }"
}
for program in $cgi_programs floor; do probe_cgi "$program"; done
# The start of any process, for scale: a bare fork + exec of /bin/true, the same way.
exec_ms="$(/usr/bin/time -f '%U %S' sh -c "for i in \$(seq $probe_runs); do /bin/true < '$base/probe.xml'; done" \
  2>&1 | tail -1 | awk -v n=$probe_runs '{ printf "%.2f", 1000 * ($1 + $2) / n }')"

declare -A rate p50 p99 cpu stmts txns execs reply_bytes
run_case() {  # run_case PROGRAM[?QUERY] MODE LOOPS
  local keys="bench_key_loop1" line before after rpcs sql_before sql_after log_before i
  for ((i = 2; i <= $3; i++)); do keys+=",bench_key_loop$i"; done
  sql_before="$(sql_counters)"
  log_before="$(wc -l < "$base/apache/access.log")"
  before="$(server_ticks)"
  local jobs_arg=()
  [ "$2" = report_get ] && [[ "$1" != floor* ]] && jobs_arg=(--jobs "$jobs")
  line="$("$build/sched_load" --url "http://127.0.0.1:$port/bench_cgi/$1" --mode "$2" \
          --authenticators "$keys" --seconds "$seconds" "${jobs_arg[@]}")" || {
    # A floor is a reference, not the thing measured: mod_fcgid, which starts floor.fcgi's
    # processes on demand, drops some connections at 64 loops. Its row is printed, marked.
    if [[ "$1" != floor* || "$line" != rpcs=* ]]; then echo "FAILED: $1 $2 x$3: $line" >&2; exit 1; fi
    echo "  (floor $1 x$3 had errors; its figures are a lower bound of the floor)" >&2
  }
  after="$(server_ticks)"
  sql_after="$(sql_counters)"
  rpcs="$(sed 's/^rpcs=\([0-9]*\).*/\1/' <<<"$line")"
  # (less the one statement that read the counters before)
  stmts[$1,$2,$3]="$(awk -v a="$sql_after" -v b="$sql_before" -v n="$rpcs" \
    'BEGIN { split(a, x, "\t"); split(b, y, "\t"); printf "%.1f", (x[1] - y[1] - 1) / n }')"
  txns[$1,$2,$3]="$(awk -v a="$sql_after" -v b="$sql_before" -v n="$rpcs" \
    'BEGIN { split(a, x, "\t"); split(b, y, "\t"); printf "%.1f", (x[2] - y[2]) / n }')"
  execs[$1,$2,$3]="$(awk -v a="$sql_after" -v b="$sql_before" -v n="$rpcs" \
    'BEGIN { split(a, x, "\t"); split(b, y, "\t"); printf "%.1f", (x[3] - y[3]) / n }')"
  # Mean reply body of the case's requests (Apache's log: %b is the 8th field).
  reply_bytes[$1,$2,$3]="$(tail -n +$((log_before + 1)) "$base/apache/access.log" |
    awk '{ s += $8; n++ } END { printf "%d", n ? s / n : 0 }')"
  local own="${cgi_process_ms[$1]:-0}"
  cpu[$1,$2,$3]="$(awk -v t=$((after - before)) -v hz="$hz" -v n="$rpcs" -v own="$own" \
    'BEGIN { printf "%.2f", 1000 * t / hz / n + own }')"
  rate[$1,$2,$3]="$(sed 's/.*rpc_per_s=\([0-9.]*\).*/\1/' <<<"$line")"
  p50[$1,$2,$3]="$(sed 's/.*p50_ms=\([0-9.]*\).*/\1/' <<<"$line")"
  p99[$1,$2,$3]="$(sed 's/.*p99_ms=\([0-9.]*\).*/\1/' <<<"$line")"
  printf '  %-9s %-10s x%d  %s server_cpu_ms_per_rpc=%s sql_per_rpc=%s commits_per_rpc=%s\n' "$1" "$2" "$3" \
    "$line" "${cpu[$1,$2,$3]}" "${stmts[$1,$2,$3]}" "${txns[$1,$2,$3]}"
}
# The floors of a report_get case just run (KIND cgi|fcgi, LOOPS): the bare responder, then
# with as many primary-key reads as the scheduler executed prepared statements per RPC.
declare -A floor_sql
run_floors() {  # run_floors KIND LOOPS
  local program=floor
  [ "$1" = fcgi ] && program=floor.fcgi
  floor_sql[$1,$2]="$(awk -v e="${execs[$1,report_get,$2]}" 'BEGIN { n = int(e + 0.5); print (n < 1 ? 1 : n) }')"
  run_case "$program" report_get "$2"
  if [ "$1" = cgi ]; then probe_cgi "$program?sql=${floor_sql[$1,$2]}"; fi
  run_case "$program?sql=${floor_sql[$1,$2]}" report_get "$2"
}
echo "innodb_flush_log_at_trx_commit = $(sql "SELECT @@innodb_flush_log_at_trx_commit")" \
  "($([ "$flush_at_commit" = 1 ] && echo "durable: log flushed at every commit" || echo "log flushed about once a second"))"
if [ "$pool" = 1 ]; then
  fcgi_mode="FastCGI pool (POOL=1): $processes scheduler processes per build started up front, mod_proxy_fcgi; floors under mod_fcgid"
else
  fcgi_mode="FastCGI under mod_fcgid (processes started on demand)"
fi
echo "$fcgi_mode"
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "running each case for $seconds s ..."
for kind in cgi fcgi; do
  programs="$cgi_programs"
  [ "$kind" = fcgi ] && programs="$fcgi_programs"
  for mode in new_host report_get; do
    for loops in $loops_list; do
      for program in $programs; do run_case "$program" "$mode" "$loops"; done
      if [ "$mode" = report_get ]; then run_floors "$kind" "$loops"; fi
    done
  done
done

echo
echo "N=$n unsent results at the start; $seconds s per case; report_get: $jobs result(s) reported and sent per RPC;"
echo "server CPU = mariadbd + Apache + scheduler$([ "$pool" = 1 ] && echo " (+ the pools)");"
echo "$fcgi_mode;"
echo "innodb_flush_log_at_trx_commit=$flush_at_commit; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-22s | %8s %7s %7s %7s | %8s %7s %7s %7s | %8s\n' "case" "CGI/s" "p50 ms" "p99 ms" "cpu ms" \
  "FCGI/s" "p50 ms" "p99 ms" "cpu ms" "FCGI/CGI"
for mode in new_host report_get; do
  for loops in $loops_list; do
    printf '%-22s | %8s %7s %7s %7s | %8s %7s %7s %7s | %7.1fx\n' "$mode, $loops loop(s)" \
      "${rate[cgi,$mode,$loops]}" "${p50[cgi,$mode,$loops]}" "${p99[cgi,$mode,$loops]}" "${cpu[cgi,$mode,$loops]}" \
      "${rate[fcgi,$mode,$loops]}" "${p50[fcgi,$mode,$loops]}" "${p99[fcgi,$mode,$loops]}" \
      "${cpu[fcgi,$mode,$loops]}" \
      "$(awk -v a="${rate[fcgi,$mode,$loops]}" -v b="${rate[cgi,$mode,$loops]}" 'BEGIN { print a / b }')"
  done
done
printf '%-22s | %8s %8s | %8s %8s\n' "SQL per RPC" "CGI stmt" "commits" "FCGI stmt" "commits"
for mode in new_host report_get; do
  for loops in $loops_list; do
    printf '%-22s | %8s %8s | %8s %8s\n' "$mode, $loops loop(s)" "${stmts[cgi,$mode,$loops]}" \
      "${txns[cgi,$mode,$loops]}" "${stmts[fcgi,$mode,$loops]}" "${txns[fcgi,$mode,$loops]}"
  done
done
echo "(stmt = statements the server received per RPC, prepares and plain queries included;"
echo " a CGI run prepares each of its statements, a FastCGI process once)"
echo "(cpu ms = server CPU per RPC; 2 idle cores would serve about 2000 / cpu ms RPC/s;"
echo " CGI: mariadbd + Apache measured, plus ${cgi_process_ms[cgi]} ms per scheduler process from $probe_runs direct runs$(
  [ -n "${cgi_process_ms[base_cgi]:-}" ] && echo "; the baseline's ${cgi_process_ms[base_cgi]} ms"))"
echo
echo "Floors of report_get: sched_floor under the same Apache (fixed reply, no work: HTTP; + N"
echo "primary-key reads in one transaction, N = the scheduler's prepared statements per RPC: + SQL)"
printf '%-26s | %8s %7s %7s %6s | %8s %7s %7s %6s\n' "case" "CGI/s" "cpu ms" "bytes" "stmt" \
  "FCGI/s" "cpu ms" "bytes" "stmt"
for loops in $loops_list; do
  for row in scheduler http sql; do
    label="report_get, $loops loop(s)"
    c="cgi,report_get,$loops"; f="fcgi,report_get,$loops"
    if [ "$row" = http ]; then
      label="  floor HTTP"; c="floor,report_get,$loops"; f="floor.fcgi,report_get,$loops"
    elif [ "$row" = sql ]; then
      label="  floor HTTP + ${floor_sql[cgi,$loops]} / ${floor_sql[fcgi,$loops]} SQL"
      c="floor?sql=${floor_sql[cgi,$loops]},report_get,$loops"; f="floor.fcgi?sql=${floor_sql[fcgi,$loops]},report_get,$loops"
    fi
    printf '%-26s | %8s %7s %7s %6s | %8s %7s %7s %6s\n' "$label" \
      "${rate[$c]}" "${cpu[$c]}" "${reply_bytes[$c]}" "${stmts[$c]}" \
      "${rate[$f]}" "${cpu[$f]}" "${reply_bytes[$f]}" "${stmts[$f]}"
  done
done
echo "report_get's RPC/s as a share of each floor's (same loops, same run):"
for loops in $loops_list; do
  for kind in cgi fcgi; do
    floor_program=floor
    [ "$kind" = fcgi ] && floor_program=floor.fcgi
    s="$kind,report_get,$loops"; h="$floor_program,report_get,$loops"
    q="$floor_program?sql=${floor_sql[$kind,$loops]},report_get,$loops"
    printf '  %-4s %d loop(s): %5.1f %% of the HTTP floor, %5.1f %% of HTTP + SQL; CPU per RPC above them %s / %s ms\n' \
      "$kind" "$loops" "$(awk -v a="${rate[$s]}" -v b="${rate[$h]}" 'BEGIN { print 100 * a / b }')" \
      "$(awk -v a="${rate[$s]}" -v b="${rate[$q]}" 'BEGIN { print 100 * a / b }')" \
      "$(awk -v a="${cpu[$s]}" -v b="${cpu[$h]}" 'BEGIN { printf "%.2f", a - b }')" \
      "$(awk -v a="${cpu[$s]}" -v b="${cpu[$q]}" 'BEGIN { printf "%.2f", a - b }')"
  done
done
echo "(bytes = mean reply body; stmt = statements per RPC as above; CGI floor cpu includes"
echo " ${cgi_process_ms[floor]} ms per floor process, measured as the scheduler's; a bare fork + exec of"
echo " /bin/true costs $exec_ms ms the same way)"

if [ -n "$baseline" ]; then
  echo
  echo "new ($build) vs baseline ($baseline), same run; ratio = new / baseline"
  printf '%-28s | %8s %8s %6s | %6s %6s %6s | %5s %5s | %4s %4s | %7s %7s\n' "case" "base/s" "new/s" "ratio" \
    "b cpu" "n cpu" "ratio" "b sql" "n sql" "b tx" "n tx" "b p99" "n p99"
  for kind in cgi fcgi; do
    new_program="$kind"; old_program="base_cgi"
    [ "$kind" = fcgi ] && old_program="base.fcgi"
    for mode in new_host report_get; do
      for loops in $loops_list; do
        o="$old_program,$mode,$loops"; w="$new_program,$mode,$loops"
        printf '%-28s | %8s %8s %5.2fx | %6s %6s %5.2fx | %5s %5s | %4s %4s | %7s %7s\n' \
          "$kind $mode, $loops loop(s)" "${rate[$o]}" "${rate[$w]}" \
          "$(awk -v a="${rate[$w]}" -v b="${rate[$o]}" 'BEGIN { print a / b }')" "${cpu[$o]}" "${cpu[$w]}" \
          "$(awk -v a="${cpu[$w]}" -v b="${cpu[$o]}" 'BEGIN { print a / b }')" "${stmts[$o]}" "${stmts[$w]}" \
          "${txns[$o]}" "${txns[$w]}" "${p99[$o]}" "${p99[$w]}"
      done
    done
  done
  echo "(cpu = server CPU ms per RPC, sql = statements per RPC, tx = commits per RPC)"
fi

echo "scheduler peak RSS: CGI run $((cgi_kib[cgi] / 1024)) MiB (${cgi_kib[cgi]} KiB, the largest of $probe_runs runs)"
if [ "$pool" = 1 ]; then  # the pools' workers, which served every FastCGI case
  for i in "${!pool_pids[@]}"; do
    for pid in $(pgrep -P "${pool_pids[$i]}" || true); do
      echo "  ${pool_names[$i]} pool worker $pid: $(awk '/VmHWM|VmRSS/ { printf "%s %d KiB  ", $1, $2 }' "/proc/$pid/status")"
    done
  done
else
  for pid in $(pgrep -f "^$p/cgi-bin/fcgi" || true); do
    echo "  FastCGI process $pid: $(awk '/VmHWM|VmRSS/ { printf "%s %d KiB  ", $1, $2 }' "/proc/$pid/status")"
  done
fi
echo
echo "EXPLAIN at N=$n of the queries that could scan (rows = the optimizer's estimate; for the"
echo "send query ANALYZE: r_rows = rows actually read, the LIMIT, however long the queue):"
sql "SET STATEMENT optimizer_switch = 'exists_to_in=off' FOR ANALYZE SELECT r.id, w.delay_bound,
       COALESCE((SELECT o.preferred_host FROM operand o WHERE o.workunitid = r.workunitid LIMIT 1), 0)
     FROM result r JOIN workunit w ON w.id = r.workunitid WHERE r.server_state = 2
       AND NOT EXISTS (SELECT 1 FROM result h WHERE h.workunitid = r.workunitid AND h.hostid = 1)
     ORDER BY r.priority DESC, r.id LIMIT 16" | awk '{ print "  send:        " $0 }'
sql "EXPLAIN SELECT * FROM result WHERE hostid = 1 AND server_state = 4" | awk '{ print "  host work:   " $0 }'
sql "EXPLAIN SELECT * FROM result WHERE name = 'w_0000001_0'" | awk '{ print "  report:      " $0 }'
