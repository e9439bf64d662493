#!/usr/bin/env bash
# The whole pipeline in steady state, every part real and running at once (issue 16): a
# private MariaDB; Apache with the FastCGI scheduler (cgi-bin/fcgi) and the upload handler
# as FastCGI (cgi-bin/file_upload_handler.fcgi, config.xml's <upload_url>); every daemon
# of make_project's list, started by `start` (their `--sleep` set to DAEMON_SLEEP); a
# feeder that keeps the unsent queue at LEVEL results by running `create_work --bulk`
# (quorum 2, two results per workunit, one shared input); and build/sched_load with LOOPS
# hosts, each its own account, uploading each result's output ("answer\n", through the
# upload handler) and reporting it while asking for one more (report+get). All hosts
# return the same output, so the validator passes both results of each workunit.
# After WARMUP seconds it measures over a window of SECONDS:
#  - workunit lifecycles/s: workunits whose files were deleted in the window (the last
#    step of created -> sent twice -> reported -> validated -> assimilated -> deleted);
#  - scheduler RPC/s with p50/p99 latency, and the uploads' p50/p99 (from sched_load);
#  - each daemon queue's backlog at the start and end of the window (a growing one means
#    the rate is not sustained);
#  - CPU ms per lifecycle by process (mariadbd, Apache, scheduler, upload handler, each
#    daemon, feeder, load generator; from /proc, utime + stime over the window) and the
#    total, with what 2 idle cores would carry at that cost;
#  - statements (server Questions), commits (Com_commit) and rows read (Rows_read, the
#    bench's own counting queries left out) per lifecycle; InnoDB row lock waits and the
#    time waited in them (Innodb_row_lock_waits, _time) per lifecycle;
#  - the peak RSS of each process (VmHWM; create_work's from /usr/bin/time).
# FLUSH_AT_COMMIT=1 (durable) or 2 runs one setting; unset, both (2 first). With OLD_BUILD
# every window also runs against that build's server programs (scheduler, upload handler,
# daemons, create_work, make_project; the load generator is BUILD's) right after BUILD's,
# on a fresh project, and a ratio table follows.
# NODES=3 runs the database as a 3-node Galera cluster on this machine
# (scripts/private_galera.sh; config.xml lists the nodes in <db_nodes>) with two scheduler
# hosts (a second Apache whose CGIs use node 2; the hosts alternate between them; uploads
# go to the first), and the transitioner, validator, assimilator and file deleter sharded
# --mod 3, shard i on node i; the other daemons on node 1. Statements and commits are
# summed over the nodes. NODES="1 3" runs both, one after the other, with their ratio.
# PRELOAD_RESULTS=M first fills each run's tables with about M long-settled results and
# their workunits (bench/preload_settled.sh: a long-running project's history) before
# anything starts; the lifecycle and VALID counts look only at the rows made after them.
# THARSIS_MARIADB_ARGS adds server options after the bench's own (a 512 MiB buffer pool),
# e.g. "--innodb-buffer-pool-size=2G --innodb-log-file-size=512M" for a big preload.
# RATE=R paces the hosts to offer R report+get RPC/s together (sched_load --rate: each RPC
# started on schedule, its latency counted from then), so p50/p99 are read at a load below
# capacity rather than at saturation; unset, every host runs as fast as it can.
# POOL=1 serves the scheduler and the upload handler from FastCGI pools started up front
# (`<program> --fastcgi_socket S --processes LOOPS`, run by `start` as project daemons,
# reached through Apache's mod_proxy_fcgi; sched/lib/fastcgi_pool.h) instead of mod_fcgid,
# which starts processes only on demand and holds a request a second whenever all it has
# are busy. Single node only. POOL_PROCESSES=N gives each pool N workers (default LOOPS);
# UPLOAD_POOL_PROCESSES=N the upload handler's pool alone (default POOL_PROCESSES).
# TMPDIR=DIR puts the run (database, project, logs) under DIR instead of /tmp, e.g. on a
# file system of another kind (every bench/ script honours it).
# STATEMENTS=K (single node) also prints the K statement shapes (literals replaced by ?)
# that took mariadbd the most time in the window, from its slow query log with every
# statement logged (the logging costs server CPU itself): calls and server µs per
# lifecycle, µs and rows examined per call. Times are wall-clock inside the server, so
# lock waits and CPU contention count in them.
# LOCK_WAITS=K (single node) also samples InnoDB's lock waits every 50 ms over the window
# (information_schema: the waiting statement, the statement the holder runs now, or "idle
# in its transaction" between statements, and the table and index locked) and prints the K
# commonest pairs of shapes with their share of the samples: which transactions wait for
# which. A holder's current statement need not be the one that took the lock.
# ROUNDS=R (with OLD_BUILD) runs each comparison R times, the builds' order alternating
# (odd rounds the new build first, even rounds the old), with a ratio per round: on this VM
# the second window of a pair runs slower whichever build it is.
#   [FLUSH_AT_COMMIT=1|2] [NODES=1|3|"1 3"] [WARMUP=15] [LOOPS=8] [LEVEL=4000] [DAEMON_SLEEP=1] \
#     [PRELOAD_RESULTS=M] [STATEMENTS=K] [LOCK_WAITS=K] [RATE=R] [POOL=1] [POOL_PROCESSES=N] [UPLOAD_POOL_PROCESSES=N] [ROUNDS=R] bench/pipeline.sh BUILD [SECONDS] [OLD_BUILD]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
usage="usage: pipeline.sh BUILD [SECONDS] [OLD_BUILD]"
new_build="$(cd "${1:?$usage}" && pwd)"
seconds="${2:-30}"
old_build="${3:+$(cd "$3" && pwd)}"
warmup="${WARMUP:-15}"
loops="${LOOPS:-8}"
level="${LEVEL:-4000}"
daemon_sleep="${DAEMON_SLEEP:-1}"
flushes="${FLUSH_AT_COMMIT:-2 1}"
statements="${STATEMENTS:-0}"
lock_waits="${LOCK_WAITS:-0}"
rate="${RATE:-0}"
rounds="${ROUNDS:-1}"
case "$rounds" in ''|*[!0-9]*|0) echo "pipeline: ROUNDS: a whole number of at least 1" >&2; exit 2 ;; esac
pool="${POOL:-0}"
pool_processes="${POOL_PROCESSES:-${LOOPS:-8}}"
[[ "$pool_processes" =~ ^[1-9][0-9]*$ ]] || { echo "pipeline: POOL_PROCESSES: workers per pool, at least 1" >&2; exit 2; }
upload_pool_processes="${UPLOAD_POOL_PROCESSES:-$pool_processes}"
[[ "$upload_pool_processes" =~ ^[1-9][0-9]*$ ]] ||
  { echo "pipeline: UPLOAD_POOL_PROCESSES: workers of the upload handler's pool, at least 1" >&2; exit 2; }
case "$pool" in 0|1) ;; *) echo "pipeline: POOL: 0 (mod_fcgid) or 1 (FastCGI pools)" >&2; exit 2 ;; esac
[[ "$rate" =~ ^[0-9]+$ ]] || { echo "pipeline: RATE: report+get RPC/s offered, a whole number" >&2; exit 2; }
[[ "$statements" =~ ^[0-9]+$ ]] || { echo "pipeline: STATEMENTS: a count of statement shapes" >&2; exit 2; }
[[ "$lock_waits" =~ ^[0-9]+$ ]] || { echo "pipeline: LOCK_WAITS: a count of lock wait pairs" >&2; exit 2; }
node_counts="${NODES:-1}"
preload="${PRELOAD_RESULTS:-0}"
[[ "$preload" =~ ^[0-9]+$ ]] || { echo "pipeline: PRELOAD_RESULTS must be a number" >&2; exit 2; }
server_args="${THARSIS_MARIADB_ARGS:-}"
for n in $node_counts; do
  [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] || { echo "pipeline: NODES: node counts of 1 or more" >&2; exit 2; }
done
for f in $flushes; do
  case "$f" in 1|2) ;; *) echo "pipeline: FLUSH_AT_COMMIT must be 1 or 2" >&2; exit 2 ;; esac
done
for v in "$seconds" "$warmup" "$loops" "$level"; do
  [[ "$v" =~ ^[0-9]+$ ]] && [ "$v" -gt 0 ] || { echo "pipeline: SECONDS, WARMUP, LOOPS, LEVEL: positive integers" >&2; exit 2; }
done
for b in "$new_build" ${old_build:+"$old_build"}; do
  for program in scheduler file_upload_handler make_project add_app create_work start stop transitioner validator \
                 assimilator file_deleter graph_scheduler clusterer census; do
    [ -x "$b/$program" ] || { echo "pipeline: $b/$program is missing; build it first" >&2; exit 2; }
  done
done
[ -x "$new_build/sched_load" ] || { echo "pipeline: $new_build/sched_load is missing" >&2; exit 2; }
hz="$(getconf CLK_TCK)"

# The processes of one run, by role, with their CPU ticks (utime + stime; for the feeder,
# a shell, also its reaped children's) and peak RSS: "role pid ticks hwm_kib" per line.
# Roles: mariadbd, apache, scheduler, upload_handler, each daemon by program name, feeder,
# sched_load. Apache's descendants are told apart by the program they run.
sample_processes() {  # sample_processes PROJECT MYSQLD_PIDS HTTPD_PIDS FEEDER_PID LOAD_PID (lists: a,b,..)
  /usr/bin/python3 - "$@" <<'PY'
import os, sys
project, mysqld, httpd, feeder, load = sys.argv[1:6]
mysqld, httpd = mysqld.split(','), httpd.split(',')
procs = {}
for d in os.listdir('/proc'):
    if not d.isdigit():
        continue
    try:
        with open(f'/proc/{d}/stat') as f:
            stat = f.read()
        with open(f'/proc/{d}/cmdline', 'rb') as f:
            argv0 = f.read().split(b'\0')[0].decode(errors='replace')
        hwm = 0
        with open(f'/proc/{d}/status') as f:
            for line in f:
                if line.startswith('VmHWM:'):
                    hwm = int(line.split()[1])
    except OSError:
        continue
    fields = stat[stat.rindex(')') + 2:].split()
    procs[d] = (fields[1], int(fields[11]) + int(fields[12]), int(fields[13]) + int(fields[14]), argv0, hwm)
def under(pid, roots):
    while pid in procs and pid != '1':
        if pid in roots:
            return True
        pid = procs[pid][0]
    return False
for pid, (ppid, own, children, argv0, hwm) in procs.items():
    role = None
    if pid in mysqld:  # on a cluster, each node apart: mariadbd_n1, mariadbd_n2, ...
        role = 'mariadbd' if len(mysqld) == 1 else f'mariadbd_n{mysqld.index(pid) + 1}'
    elif under(pid, httpd):
        role = 'scheduler' if argv0 == f'{project}/cgi-bin/fcgi' else \
               'upload_handler' if argv0 == f'{project}/cgi-bin/file_upload_handler.fcgi' else 'apache'
    elif argv0.startswith(f'{project}/bin/'):
        role = argv0[len(project) + 5:]
        role = 'upload_handler' if role == 'file_upload_handler' else role  # POOL=1
    elif pid == feeder:
        role, own = 'feeder', own + children
    elif pid == load:
        role = 'sched_load'
    if role:
        print(role, pid, own, hwm)
PY
}

stop_servers() {  # the web servers and the database of the run in $base
  "$here/scripts/private_apache.sh" stop "$base/apache" >/dev/null 2>&1 || true
  "$here/scripts/private_apache.sh" stop "$base/apache2" >/dev/null 2>&1 || true
  if [ "$run_nodes" -gt 1 ]; then "$here/scripts/private_galera.sh" stop "$base/db" >/dev/null 2>&1 || true
  else "$here/scripts/private_mariadb.sh" stop "$base/db" >/dev/null 2>&1 || true; fi
}

run() {  # run BUILD FLUSH NODES: one steady-state window; sets the global `figures` line
  local build="$1" flush="$2" nodes="$3"
  run_build="$build" run_nodes="$nodes"
  base="$(mktemp -d "${TMPDIR:-/tmp}/tharsis-pipeline-XXXXXX")"
  port=$((20000 + RANDOM % 20000))
  local p="$base/p" sock="$base/db/mysqld.sock" sockets mysqld_pids httpd_pids urls slow_log=""
  trap 'touch "$base/stop_feeder"; "$run_build/stop" --project_dir "$base/p" --grace 5 >/dev/null 2>&1 || true
        stop_servers; rm -rf "$base"' EXIT
  if [ "$nodes" -gt 1 ]; then
    THARSIS_MARIADB_ARGS="--innodb-buffer-pool-size=512M $server_args --innodb-flush-log-at-trx-commit=$flush" \
      "$here/scripts/private_galera.sh" start "$base/db" "$nodes" >/dev/null
    sockets="$(for i in $(seq "$nodes"); do "$here/scripts/private_galera.sh" socket "$base/db" "$i"; done)"
    sock="$(head -1 <<<"$sockets")"
    mysqld_pids="$(for i in $(seq "$nodes"); do cat "$base/db/n$i/mysqld.pid"; done | paste -sd,)"
  else
    # With STATEMENTS: every statement logged; the window's part is cut out below.
    [ "$statements" -gt 0 ] && slow_log="--long-query-time=0 --slow-query-log=ON --slow-query-log-file=$base/slow.log"
    THARSIS_MARIADB_ARGS="--innodb-buffer-pool-size=512M $server_args --innodb-flush-log-at-trx-commit=$flush $slow_log" \
      "$here/scripts/private_mariadb.sh" start "$base/db" >/dev/null
    sockets="$sock"
    mysqld_pids="$(cat "$base/db/mysqld.pid")"
  fi
  "$build/make_project" --project_dir "$p" --name bench --url_base "http://127.0.0.1:$port/" \
    --db_socket "$sock" --db_user root --db_name bench --key_bits 1024 --uldl_dir_fanout 1024 >/dev/null
  sql() { mariadb --no-defaults -S "$sock" -uroot bench -N -e "$1"; }
  # Uploads through the FastCGI build of the upload handler; a day's quota far above what
  # a bench host asks for; daemons paced by DAEMON_SLEEP when idle.
  sed -i -e "s|<upload_url>[^<]*</upload_url>|<upload_url>http://127.0.0.1:$port/bench_cgi/file_upload_handler.fcgi</upload_url>|" \
    -e 's|<daily_result_quota>[0-9]*</daily_result_quota>|<daily_result_quota>10000000</daily_result_quota>|' \
    -e "s|--sleep 5|--sleep $daemon_sleep|" "$p/config.xml"
  if [ "$nodes" -gt 1 ]; then  # every node listed; the four pipeline daemons one shard per node
    /usr/bin/python3 - "$p/config.xml" "$nodes" $sockets <<'PY'
import re, sys
path, n, sockets = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
text = open(path).read()
text = re.sub(r'\s*<db_host>[^<]*</db_host>', '', text)
nodes = ''.join(f'<node>{s}</node>' for s in sockets)
text = re.sub(r'<db_socket>[^<]*</db_socket>', f'<db_nodes>{nodes}</db_nodes>', text)
def shard(m):
    cmd = m.group(1)
    if cmd.split()[0] not in ('transitioner', 'validator', 'assimilator', 'file_deleter'):
        return m.group(0)
    return ''.join(f'<daemon><cmd>{cmd} --mod {n} --mod_id {i} --db_node {i + 1}</cmd></daemon>'
                   for i in range(n))
text = re.sub(r'<daemon>\s*<cmd>([^<]*)</cmd>.*?</daemon>', shard, text, flags=re.S)
open(path, 'w').write(text)
PY
  fi
  printf '#!/bin/sh\nexit 0\n' > "$base/bench_app"
  "$build/add_app" --project_dir "$p" --app bench --file "$base/bench_app" >/dev/null
  [ "$preload" -eq 0 ] ||
    "$here/bench/preload_settled.sh" "$sock" bench "$(sql "SELECT id FROM app WHERE name = 'bench'")" "$preload" |
      sed 's/^/  /'
  # The run's own rows: workunits above wu0, results above r0.
  local wu0 r0
  read -r wu0 r0 < <(sql "SELECT (SELECT IFNULL(MAX(id), 0) FROM workunit), (SELECT IFNULL(MAX(id), 0) FROM result)")
  sql "INSERT INTO user (create_time, name, authenticator)
       SELECT UNIX_TIMESTAMP(), CONCAT('loop', seq), CONCAT('bench_key_loop', seq) FROM seq_1_to_$loops"
  "$here/scripts/install_programs.sh" "$build" "$p" >/dev/null
  cp "$build/file_upload_handler" "$p/cgi-bin/file_upload_handler.fcgi"
  echo "seed input" > "$base/in"
  if [ "$(id -u)" -eq 0 ]; then chmod 755 "$base" && chown -R www-data: "$p"; fi
  # As many FastCGI processes of each program as hosts: with fewer, mod_fcgid holds a
  # request it has no free process for about a second before it tries again.
  printf 'FcgidMaxProcessesPerClass %s\nFcgidMinProcessesPerClass %s\n' "$loops" "$loops" > "$base/fcgid.conf"
  if [ "$pool" = 1 ]; then  # the pools as project daemons, Apache passing their URLs to them
    mkdir -p "$p/run"
    for program in scheduler:fcgi file_upload_handler:file_upload_handler.fcgi; do
      local workers="$pool_processes"
      [ "${program%%:*}" = file_upload_handler ] && workers="$upload_pool_processes"
      sed -i "s|</daemons>|<daemon><cmd>${program%%:*} --fastcgi_socket $p/run/${program%%:*}.sock --processes $workers</cmd></daemon></daemons>|" \
        "$p/config.xml"
      echo "ProxyPass \"/bench_cgi/${program#*:}\" \"unix:$p/run/${program%%:*}.sock|fcgi://${program%%:*}/\" retry=0" >> "$base/fcgid.conf"
    done
  fi
  "$here/scripts/private_apache.sh" start "$base/apache" "$port" "$p/bench.httpd.conf" "$base/fcgid.conf"
  httpd_pids="$(cat "$base/apache/httpd.pid")"
  urls="http://127.0.0.1:$port/bench_cgi/fcgi"
  if [ "$nodes" -gt 1 ]; then  # a second scheduler host, its CGIs on node 2
    local port2=$((port + 1))
    printf 'SetEnv THARSIS_DB_NODE 2\nFcgidInitialEnv THARSIS_DB_NODE 2\n' > "$base/node2.conf"
    "$here/scripts/private_apache.sh" start "$base/apache2" "$port2" "$p/bench.httpd.conf" "$base/fcgid.conf" \
      "$base/node2.conf"
    httpd_pids="$httpd_pids,$(cat "$base/apache2/httpd.pid")"
    urls="$urls,http://127.0.0.1:$port2/bench_cgi/fcgi"
  fi

  # The feeder: unsent results plus two for each workunit the transitioner has not yet
  # given results, kept at LEVEL by bulk create_work runs of at least LEVEL/16 workunits.
  (
    k=0
    while [ ! -e "$base/stop_feeder" ]; do
      queued=$(sql "SELECT (SELECT COUNT(*) FROM result WHERE server_state = 2) + 2 * ((SELECT IFNULL(MAX(id), 0)
                    FROM workunit) - (SELECT IFNULL(MAX(workunitid), 0) FROM result))")
      need=$(( (level - queued) / 2 ))
      if [ "$need" -ge $((level / 8)) ]; then
        seq -f "w%.0f $base/in" $((k + 1)) $((k + need)) > "$base/jobs"
        k=$((k + need))
        /usr/bin/time -a -o "$base/feeder_rss" -f "%M" "$build/create_work" --project_dir "$p" --app bench \
          --bulk "$base/jobs" --shared --min_quorum 2 --target_nresults 2 >/dev/null
      else
        sleep 0.5
      fi
    done
  ) &
  local feeder=$!
  "$build/start" --project_dir "$p" > "$base/start.log" 2>&1
  if [ "$pool" = 1 ]; then  # the pools listening before any host asks
    for _ in $(seq 100); do [ -S "$p/run/scheduler.sock" ] && [ -S "$p/run/file_upload_handler.sock" ] && break; sleep 0.1; done
  fi
  # The hosts attach once the queue is half full (an attach that gets no work ends its loop).
  for _ in $(seq 300); do
    [ "$(sql "SELECT COUNT(*) FROM result WHERE server_state = 2")" -ge $((level / 2)) ] && break
    sleep 0.2
  done
  local keys
  keys="$(seq -f "bench_key_loop%.0f" 1 "$loops" | paste -sd,)"
  /usr/bin/time -o "$base/load_rss" -f "%M" "$new_build/sched_load" --url "$urls" \
    --mode report_get --upload --authenticators "$keys" --seconds $((warmup + seconds)) --warmup "$warmup" \
    --rate "$rate" > "$base/load.out" 2> "$base/load.err" &
  local load_shell=$! load="" load_start
  load_start=$(date +%s.%N)
  for _ in $(seq 50); do load="$(pgrep -P "$load_shell" -f sched_load || true)"; [ -n "$load" ] && break; sleep 0.1; done

  backlogs() {  # unsent, transition due, need_validate, assimilate ready, file delete ready (wu+results), in progress
    sql "SELECT (SELECT COUNT(*) FROM result WHERE server_state = 2), (SELECT COUNT(*) FROM workunit
           WHERE transition_time <= UNIX_TIMESTAMP()), (SELECT COUNT(*) FROM workunit WHERE need_validate = 1),
         (SELECT COUNT(*) FROM workunit WHERE assimilate_state = 1), (SELECT COUNT(*) FROM workunit WHERE
           file_delete_state = 1) + (SELECT COUNT(*) FROM result WHERE file_delete_state = 1),
         (SELECT COUNT(*) FROM result WHERE server_state = 4)" | tr '\t' ' '
  }
  rows_read() {  # rows the servers have read so far (Rows_read, all nodes)
    local rows=0 r node
    for node in $sockets; do
      r=$(mariadb --no-defaults -S "$node" -uroot -N -e "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS
            WHERE VARIABLE_NAME = 'ROWS_READ'")
      rows=$((rows + r))
    done
    echo "$rows"
  }
  # Lifecycles done so far, statements, commits (all nodes), results validated VALID, other
  # outcomes, then rows read before and after these counts (their own reads left out).
  counters() {
    local statements=0 commits=0 waits=0 waited=0 s c w t node rows0
    for node in $sockets; do
      read -r s c w t < <(mariadb --no-defaults -S "$node" -uroot -N -e "SELECT
        (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'QUESTIONS'),
        (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'COM_COMMIT'),
        (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'INNODB_ROW_LOCK_WAITS'),
        (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'INNODB_ROW_LOCK_TIME')")
      statements=$((statements + s)); commits=$((commits + c)); waits=$((waits + w)); waited=$((waited + t))
    done
    rows0=$(rows_read)
    echo "$(sql "SELECT (SELECT COUNT(*) FROM workunit WHERE file_delete_state = 2 AND id > $wu0), $statements, $commits,
           (SELECT COUNT(*) FROM result WHERE validate_state = 1 AND id > $r0),
           (SELECT COUNT(*) FROM result WHERE server_state = 5 AND id > $r0
              AND (outcome <> 1 OR validate_state NOT IN (0, 1)))" | tr '\t' ' ') $rows0 $(rows_read) $waits $waited"
  }
  sleep "$(awk -v s="$load_start" -v w="$warmup" -v now="$(date +%s.%N)" 'BEGIN { d = s + w - now; print (d > 0 ? d : 0) }')"
  local load0 t0 t1 c0 c1 b0 b1
  load0="$(cut -d' ' -f1 /proc/loadavg)"
  t0=$(date +%s.%N); c0="$(counters)"; b0="$(backlogs)"
  [ -n "$slow_log" ] && : > "$base/slow.log"  # (the server appends: the log now starts here)
  local lock_sampler=""
  if [ "$lock_waits" -gt 0 ] && [ "$nodes" -eq 1 ]; then
    sample_lock_waits "$sock" "$base/lock_waits" "$base/lock_waits.stop" &
    lock_sampler=$!
  fi
  sample_processes "$p" "$mysqld_pids" "$httpd_pids" "$feeder" "$load" > "$base/cpu0"
  # The last sample before sched_load exits ends the window (sampled often only near it).
  sleep "$(awk -v s="$load_start" -v w="$((warmup + seconds))" -v now="$(date +%s.%N)" \
    'BEGIN { d = s + w - 1.5 - now; print (d > 0 ? d : 0) }')"
  while kill -0 "$load" 2>/dev/null; do
    sample_processes "$p" "$mysqld_pids" "$httpd_pids" "$feeder" "$load" \
      > "$base/cpu1.new"
    # (a sample taken just after it exited lacks it: the one before stands)
    if grep -q '^sched_load ' "$base/cpu1.new"; then mv "$base/cpu1.new" "$base/cpu1"; fi
    sleep 0.2
  done
  t1=$(date +%s.%N); c1="$(counters)"; b1="$(backlogs)"
  [ -n "$slow_log" ] && cp "$base/slow.log" "$base/window.log"
  [ -n "$lock_sampler" ] && { touch "$base/lock_waits.stop"; wait "$lock_sampler" || true; }
  [ -s "$base/cpu1" ] || { echo "pipeline: the load generator ended early: $(cat "$base/load.err")" >&2; exit 1; }
  wait "$load_shell" || true
  local load1; load1="$(cut -d' ' -f1 /proc/loadavg)"
  touch "$base/stop_feeder"; wait "$feeder" || true
  "$build/stop" --project_dir "$p" --grace 10 >/dev/null 2>&1 || true
  [ -s "$base/load.err" ] && sed 's/^/  /' "$base/load.err" | head -3

  # One line of figures: key=value pairs the report below reads.
  figures="$(/usr/bin/python3 - "$t0" "$t1" "$c0" "$c1" "$b0" "$b1" "$(cat "$base/load.out")" "$base" "$hz" \
    "$load0" "$load1" <<'PY'
import sys
t0, t1, c0, c1, b0, b1, load_out, base, hz, load0, load1 = sys.argv[1:12]
window = float(t1) - float(t0)
c0 = [int(x) for x in c0.split()]; c1 = [int(x) for x in c1.split()]
n = c1[0] - c0[0]
out = {'window_s': f'{window:.1f}', 'lifecycles': n, 'lifecycles_per_s': f'{n / window:.0f}',
       'load': f'{load0}-{load1}'}
for kv in load_out.split():
    k, v = kv.split('=')
    out[k] = v
per = max(n, 1)
out['statements'] = f'{(c1[1] - c0[1]) / per:.1f}'
out['commits'] = f'{(c1[2] - c0[2]) / per:.2f}'
out['rows_read'] = f'{(c1[5] - c0[6]) / per:.0f}'
out['lock_waits'] = f'{(c1[7] - c0[7]) / per:.2f}'
out['lock_wait_ms'] = f'{(c1[8] - c0[8]) / per:.2f}'
out['valid'] = c1[3] - c0[3]
out['not_valid'] = c1[4]
for name, b in (('backlog_start', b0), ('backlog_end', b1)):
    out[name] = '/'.join(b.split())
def read(path):
    rows = {}
    for line in open(path):
        role, pid, ticks, hwm = line.split()
        rows[pid] = (role, int(ticks), int(hwm))
    return rows
s0, s1 = read(f'{base}/cpu0'), read(f'{base}/cpu1')
cpu, rss = {}, {}
for pid, (role, ticks, hwm) in s1.items():
    cpu[role] = cpu.get(role, 0) + ticks - (s0[pid][1] if pid in s0 else 0)
    rss[role] = max(rss.get(role, 0), hwm)
for line in open(f'{base}/load_rss'):
    if line.strip().isdigit():
        rss['sched_load'] = int(line)
try:
    rss['create_work'] = max(int(l) for l in open(f'{base}/feeder_rss') if l.strip().isdigit())
except (OSError, ValueError):
    pass
total = server = 0
nodes = sorted(r for r in cpu if r.startswith('mariadbd_n'))
if nodes:  # the cluster's nodes in one figure too, and each node's share
    out['cpu_nodes'] = ' '.join(f'{cpu[r] / int(hz) * 1000 / per:.3f}' for r in nodes).replace(' ', '/')
    out['rss_nodes'] = '/'.join(f'{rss[r] / 1024:.1f}' for r in nodes)
    cpu['mariadbd'] = sum(cpu.pop(r) for r in nodes)
    rss['mariadbd'] = max(rss.pop(r) for r in nodes)
for role, ticks in sorted(cpu.items()):
    ms = ticks / int(hz) * 1000 / per
    total += ms
    server += ms if role not in ('feeder', 'sched_load') else 0
    out[f'cpu_{role}'] = f'{ms:.3f}'
out['cpu_total'] = f'{total:.3f}'
out['cpu_server'] = f'{server:.3f}'
out['capacity_2_cores'] = f'{2000 / server:.0f}' if server else '0'
for role, kib in sorted(rss.items()):
    out[f'rss_{role}'] = f'{kib / 1024:.1f}'
print(' '.join(f'{k}={v}' for k, v in out.items()))
PY
)"
  statement_shapes=""
  [ -s "$base/window.log" ] && statement_shapes="$(/usr/bin/python3 - "$base/window.log" \
    "$(field "$figures" lifecycles)" "$statements" <<'PY'
import collections, re, sys
path, lifecycles, top = sys.argv[1], max(int(sys.argv[2]), 1), int(sys.argv[3])
shapes = collections.defaultdict(lambda: [0, 0.0, 0])  # calls, seconds, rows examined
def shape(text):
    text = re.sub(r"'(?:[^'\\]|\\.)*'", "?", text)
    text = re.sub(r"\b\d+(?:\.\d+)?(?:e[-+]?\d+)?\b", "?", text)
    text = re.sub(r"\?(?:\s*,\s*\?)+", "?..", text)
    text = re.sub(r"\(\?\.\.\)(?:\s*,\s*\(\?\.\.\))+", "(?..)..", text)
    return re.sub(r"\s+", " ", text).strip()[:150]
entry, lines = None, []
def close():
    if entry and lines:
        s = shapes[shape(" ".join(lines))]
        s[0] += 1; s[1] += entry[0]; s[2] += entry[1]
for line in open(path, errors="replace"):
    if line.startswith("# Query_time:"):
        close()
        m = re.search(r"Query_time: ([\d.]+).*Rows_examined: (\d+)", line)
        entry, lines = (float(m.group(1)), int(m.group(2))), []
    elif not line.startswith(("#", "SET timestamp", "use ", "/usr", "Tcp port", "Time ")):
        lines.append(line.strip())
close()
for text, (calls, secs, rows) in sorted(shapes.items(), key=lambda kv: -kv[1][1])[:top]:
    print(f"  {calls / lifecycles:7.2f} {secs * 1e6 / lifecycles:8.1f} {secs * 1e6 / calls:8.1f} "
          f"{rows / calls:8.1f}  {text}")
PY
)"
  lock_wait_pairs=""
  [ -n "$lock_sampler" ] && lock_wait_pairs="$(/usr/bin/python3 - "$base/lock_waits" "$base/lock_waits.samples" \
    "$lock_waits" <<'PY'
import collections, re, sys
path, samples_path, top = sys.argv[1], sys.argv[2], int(sys.argv[3])
def shape(text):
    text = re.sub(r"'(?:[^'\\]|\\.)*'", "?", text)
    return re.sub(r"\s+", " ", re.sub(r"\b\d+\b", "?", text)).strip()[:70]
pairs = collections.Counter()
for line in open(path, errors="replace"):
    fields = line.rstrip("\n").split("\t")
    if len(fields) == 4:
        pairs[(shape(fields[0]), shape(fields[1]), fields[2], fields[3])] += 1
samples = sum(1 for _ in open(samples_path)) or 1
waits = sum(pairs.values())
print(f"  {samples} samples, {waits} waits seen ({waits / samples:.2f} per sample)")
for (waiter, holder, table, index), n in pairs.most_common(top):
    print(f"  {100 * n / max(waits, 1):5.1f}%  {table}.{index}: {waiter}  <- held by: {holder}")
PY
)"
  stop_servers
  rm -rf "$base"
  trap - EXIT
}

# Samples the lock waits (waiter, holder's statement now, table, index; tab-separated) into
# OUT every 50 ms until STOP exists; a line per sample goes to OUT.samples.
sample_lock_waits() {
  local sock="$1" out="$2" stop="$3"
  : > "$out"; : > "$out.samples"
  while [ ! -e "$stop" ]; do
    mariadb --no-defaults --socket="$sock" --user=root --batch --skip-column-names -e "
      SELECT REPLACE(LEFT(rt.trx_query, 200), '\t', ' '),
             IFNULL(REPLACE(LEFT(bt.trx_query, 200), '\t', ' '), '(idle in its transaction)'),
             l.lock_table, l.lock_index
      FROM information_schema.innodb_lock_waits w
      JOIN information_schema.innodb_trx rt ON rt.trx_id = w.requesting_trx_id
      JOIN information_schema.innodb_trx bt ON bt.trx_id = w.blocking_trx_id
      JOIN information_schema.innodb_locks l ON l.lock_id = w.requested_lock_id" >> "$out" 2>/dev/null || true
    echo >> "$out.samples"
    sleep 0.05
  done
}

field() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"; }

report() {  # report LABEL FIGURES
  local f="$2"
  echo "== $1"
  printf '  %-28s %s/s (%s in %s s; results VALID in the window %s, not valid so far %s)\n' "workunit lifecycles" \
    "$(field "$f" lifecycles_per_s)" "$(field "$f" lifecycles)" "$(field "$f" window_s)" "$(field "$f" valid)" \
    "$(field "$f" not_valid)"
  printf '  %-28s %s/s, p50 %s ms, p99 %s ms, max %s ms, errors %s\n' "scheduler report+get RPCs" \
    "$(field "$f" rpc_per_s)" "$(field "$f" p50_ms)" "$(field "$f" p99_ms)" "$(field "$f" max_ms)" "$(field "$f" errors)"
  printf '  %-28s %s in the window, p50 %s ms, p99 %s ms\n' "uploads" "$(field "$f" uploads)" \
    "$(field "$f" upload_p50_ms)" "$(field "$f" upload_p99_ms)"
  printf '  %-28s start %s, end %s\n' "backlogs" "$(field "$f" backlog_start)" "$(field "$f" backlog_end)"
  echo "    (unsent results / workunits due for transition / need_validate / assimilate ready /"
  echo "     file deletions ready, workunits + results / results in progress)"
  printf '  %-28s %s statements, %s commits, %s rows read\n' "per lifecycle" "$(field "$f" statements)" \
    "$(field "$f" commits)" "$(field "$f" rows_read)"
  printf '  %-28s %s InnoDB row lock waits, %s ms waited in them\n' "" "$(field "$f" lock_waits)" \
    "$(field "$f" lock_wait_ms)"
  printf '  %-28s' "CPU ms per lifecycle"
  for role in mariadbd apache scheduler upload_handler transitioner validator assimilator file_deleter \
              graph_scheduler clusterer census feeder sched_load; do
    printf ' %s %s' "$role" "$(field "$f" "cpu_$role")"
  done
  [ -n "$(field "$f" cpu_nodes)" ] && printf '\n  %-28s %s ms (peak RSS %s MiB)' "  mariadbd by node" \
    "$(field "$f" cpu_nodes)" "$(field "$f" rss_nodes)"
  printf '\n  %-28s %s ms, all %s ms (2 idle cores would carry ~%s lifecycles/s at the server'"'"'s cost)\n' \
    "  server (all but the last 2)" "$(field "$f" cpu_server)" "$(field "$f" cpu_total)" "$(field "$f" capacity_2_cores)"
  printf '  %-28s' "peak RSS MiB"
  for role in mariadbd apache scheduler upload_handler transitioner validator assimilator file_deleter \
              graph_scheduler clusterer census create_work sched_load; do
    printf ' %s %s' "$role" "$(field "$f" "rss_$role")"
  done
  printf '\n  %-28s %s\n' "load average (start-end)" "$(field "$f" load)"
  if [ -n "$3" ]; then
    echo "  statement shapes by server time (calls and µs per lifecycle, µs and rows examined per call):"
    echo "$3"
  fi
  if [ -n "${4:-}" ]; then
    echo "  lock waits sampled every 50 ms (waiting statement <- what its holder runs now):"
    echo "$4"
  fi
}

# The file system the run is on: on ext4 without a journal, each new file's inode search
# passes over the inodes freed in the last minutes, so file costs grow as a run churns
# (docs/benchmarks.md, 2026-11-27 04:00).
filesystem() {
  local type source dev loop=""
  read -r type source < <(findmnt -n -o FSTYPE,SOURCE --target "${TMPDIR:-/tmp}" 2>/dev/null) || true
  [ -n "${type:-}" ] || { echo "unknown"; return; }
  dev="$(basename "${source:-none}")"
  # A loop device without direct I/O caches its file's pages twice (in the device and in
  # the file system under it): a 10M preload's 16 GB then pressed this VM's memory and
  # slowed every process of the window (docs/benchmarks.md, 2026-11-28).
  [ "$(cat "/sys/block/$dev/loop/dio" 2>/dev/null)" = 0 ] &&
    loop="; a loop device WITHOUT direct I/O: its file cached twice (losetup --direct-io=on)"
  if [ "$type" = ext4 ] && [ -d "/proc/fs/ext4/$dev" ]; then
    compgen -G "/proc/fs/jbd2/$dev-*" >/dev/null && echo "ext4 on $source, journaled$loop" ||
      echo "ext4 on $source WITHOUT a journal: file creation slows as the run churns files$loop"
  else
    echo "$type on $source$loop"
  fi
}
echo "pipeline: runs under ${TMPDIR:-/tmp}: $(filesystem)"
echo "pipeline: quorum 2, $loops hosts (report+get, uploads$( [ "$rate" -gt 0 ] && echo ", $rate RPC/s offered")), unsent queue kept at $level results," \
  "daemons --sleep $daemon_sleep, warm-up $warmup s, window $seconds s, preloaded results $preload," \
  "server options added: ${server_args:-none}, $([ "$pool" = 1 ] && echo "FastCGI pools of $pool_processes workers (the upload handler's $upload_pool_processes)" ||
    echo "mod_fcgid")"
declare -A all
for flush in $flushes; do
  for nodes in $node_counts; do
    for round in $(seq "$rounds"); do
      # Even rounds run the old build first: the second window of a pair runs slower
      # whichever build it is (docs/benchmarks.md), so only alternating orders compare.
      order=("$new_build" ${old_build:+"$old_build"})
      [ -n "$old_build" ] && [ $((round % 2)) -eq 0 ] && order=("$old_build" "$new_build")
      for b in "${order[@]}"; do
        run "$b" "$flush" "$nodes"
        all[$b,$flush,$nodes,$round]="$figures"
        report "$b, innodb_flush_log_at_trx_commit=$flush, $nodes database node(s)$([ "$rounds" -gt 1 ] &&
          echo ", round $round of $rounds")" "$figures" "$statement_shapes" "$lock_wait_pairs"
      done
    done
  done
done

ratio_row() {  # ratio_row LABEL A_FIGURES B_FIGURES: B against A
  local a="$2" b="$3"
  printf '%-14s | %16s %16s %6.2fx | %18s %6.2fx | %11s %11s | %15s | %s\n' "$1" \
    "$(field "$a" lifecycles_per_s) / $(field "$b" lifecycles_per_s)" \
    "$(field "$a" rpc_per_s) / $(field "$b" rpc_per_s)" \
    "$(awk -v x="$(field "$b" lifecycles_per_s)" -v y="$(field "$a" lifecycles_per_s)" 'BEGIN { print y ? x / y : 0 }')" \
    "$(field "$a" cpu_server) / $(field "$b" cpu_server)" \
    "$(awk -v x="$(field "$b" cpu_server)" -v y="$(field "$a" cpu_server)" 'BEGIN { print y ? x / y : 0 }')" \
    "$(field "$a" statements) / $(field "$b" statements)" "$(field "$a" commits) / $(field "$b" commits)" \
    "$(field "$a" p99_ms) / $(field "$b" p99_ms)" "$(field "$a" load) / $(field "$b" load)"
}
ratio_header() {
  echo
  echo "$1"
  printf '%-14s | %16s %16s %7s | %18s %7s | %11s %11s | %15s | %s\n' "flush, nodes" "lifecycles/s" "RPC/s" \
    "ratio" "server CPU ms" "ratio" "stmts" "commits" "RPC p99 ms" "load"
}
if [ -n "$old_build" ]; then
  ratio_header "old ($old_build) / new ($new_build), same run; ratio = new / old$([ "$rounds" -gt 1 ] &&
    echo "; round r: flush, nodes, r (odd rounds ran the new build first, even ones the old)")"
  for flush in $flushes; do
    for nodes in $node_counts; do
      for round in $(seq "$rounds"); do
        ratio_row "$flush, $nodes$([ "$rounds" -gt 1 ] && echo ", $round")" \
          "${all[$old_build,$flush,$nodes,$round]}" "${all[$new_build,$flush,$nodes,$round]}"
      done
    done
  done
fi
first_nodes="${node_counts%% *}"
if [ "$first_nodes" != "$node_counts" ]; then
  for b in "$new_build" ${old_build:+"$old_build"}; do
    ratio_header "$b: $first_nodes node(s) / N nodes, same run; ratio = N nodes / $first_nodes"
    for flush in $flushes; do
      for nodes in ${node_counts#* }; do
        ratio_row "$flush, $nodes" "${all[$b,$flush,$first_nodes,1]}" "${all[$b,$flush,$nodes,1]}"
      done
    done
  done
fi
