#!/usr/bin/env bash
# The reliability run (docs/reliability.md): a live project under chaos, then a settled check.
#   bench/chaos.sh BUILD_DIR [MINUTES] [SEED]        (defaults: 30 minutes, seed 1)
# MINUTES may be a fraction: under 2 minutes the short profile runs (0.3 = 18 s, the CI test).
# Sets up a private MariaDB, Apache with the scheduler and upload handler (CGI), a project
# by make_project with every daemon of its <daemons> list started by tools/start; apps
# 'example' and 'operand'. Then, for MINUTES:
#   - a stream of example workunits (create_work --bulk, quorum 2) and operand graphs
#     (submit_graph --wait --verify, checked against a direct computation);
#   - simulated volunteer hosts in two tharsis-client processes: sound ones, and ~20%
#     failing ones (task crashes, job failures, garbage output, vanishing);
#   - a chaos driver, seeded: SIGKILLs a random daemon (brought back by `start --cron`
#     as an admin's crontab would), restarts the DB (clean shutdown or SIGKILL of
#     mariadbd; daemons, scheduler and clients all see it gone for a few seconds),
#     SIGKILLs the failing hosts' client (restarted later on its state), and sends hostile
#     requests (bench/chaos_hostile: duplicate and foreign reports, made-up
#     authenticators, malformed XML, oversized bodies, path-traversing upload names,
#     outputs swapped after upload or report, non-UTF-8 host text and stderr);
#   - tools/check every so often (a violation at any moment counts).
# Then the stream stops, everything drains, and `check --settled` must pass. Prints a
# summary; exits 1 on any invariant violation, a daemon that did not come back (or died
# unkilled), a scheduler or upload handler crash, a hostile request answered wrongly, a
# graph that failed verification, a workunit not assimilated exactly once, or no drain.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:?usage: chaos.sh BUILD_DIR [MINUTES] [SEED]}" && pwd)"
minutes="${2:-30}" seed="${3:-1}"
duration=$(awk -v m="$minutes" 'BEGIN { printf "%d", m * 60 }')
[ "$duration" -ge 10 ] || { echo "chaos: MINUTES must give at least 10 s" >&2; exit 2; }
RANDOM=$seed  # every random choice below follows from the seed
# A crashing scheduler, upload handler or daemon leaves a core file in its working
# directory (cgi-bin/, the project dir) for the verdict to find.
ulimit -c unlimited 2>/dev/null || true

# Profile: the short run (CI) packs a few of each event into seconds.
if [ "$duration" -lt 120 ]; then
  kill_gap=(4 8) db_gap=(8 8) db_down=(1 2) client_gap=(12 12) hostile_gap=(2 4) hostile_count=4
  cron_every=3 check_every=6 batch_every=2 batch_size=2 delay_bound=12 drain_limit=60 sleep=0.2 key_bits=512
  # A READY operand waits this long for the host holding its inputs (default 60 s): a
  # failing host out of daily quota would hold the short run's graph that long.
  graph_prefer=5 graph_times=(0)
  # Under the sanitizers every process runs 2-4 times slower: the test suite's time scale
  # (tests/support/time_scale.h) lengthens the drain and the jobs' deadline (meant to
  # expire only for a killed host), not the chaos.
  scale="${THARSIS_TEST_TIME_SCALE:-1}"
  scale="${scale%%.*}"
  if [[ "$scale" =~ ^[0-9]+$ ]] && [ "$scale" -ge 2 ] && [ "$scale" -le 20 ]; then
    drain_limit=$((drain_limit * scale)) delay_bound=$((delay_bound * scale))
  fi
else
  kill_gap=(10 40) db_gap=(90 240) db_down=(2 12) client_gap=(60 180) hostile_gap=(5 15) hostile_count=6
  cron_every=15 check_every=60 batch_every=4 batch_size=4 delay_bound=40 drain_limit=600 sleep=0.5 key_bits=1024
  graph_prefer=60 graph_times=(0 $((duration / 2)))
fi
between() { echo $(( $1 + RANDOM % ($2 - $1 + 1) )); }

base="$(mktemp -d "${TMPDIR:-/tmp}/tharsis-chaos-XXXXXX")"
chmod 755 "$base"
project="$base/project" db="$base/db" apache="$base/apache"
port=$(( 20000 + (RANDOM + $$) % 20000 ))
bg_pids=()
cleanup() {
  set +e
  # Children first: a graph's subshell would leave its submit_graph --wait running.
  for pid in "${bg_pids[@]}"; do pkill -9 -P "$pid" 2>/dev/null; kill -9 "$pid" 2>/dev/null; done
  [ -f "$project/config.xml" ] && "$build/stop" --project_dir "$project" --grace 2 >/dev/null 2>&1
  "$here/scripts/private_apache.sh" stop "$apache"
  if [ -n "${CHAOS_KEEP:-}" ]; then  # the DB halted, to be started again for a look
    "$here/scripts/private_mariadb.sh" halt "$db" >/dev/null 2>&1
    echo "chaos: kept $base (scripts/private_mariadb.sh start $db)"
  else
    "$here/scripts/private_mariadb.sh" stop "$db" >/dev/null 2>&1
    rm -rf "$base"
  fi
}
trap cleanup EXIT
t0=$(date +%s)
now() { echo $(( $(date +%s) - t0 )); }
say() { printf '[%4ds] %s\n' "$(now)" "$*"; }
sql() { mariadb --no-defaults -S "$db/mysqld.sock" -uroot chaos -N -e "$1"; }

# ---- the live project -------------------------------------------------------------------
"$here/scripts/private_mariadb.sh" start "$db"
"$build/make_project" --project_dir "$project" --name chaos --url_base "http://127.0.0.1:$port/" \
  --db_socket "$db/mysqld.sock" --db_user root --db_name chaos --key_bits "$key_bits" >/dev/null
sed -i -e "s/--sleep 5</--sleep $sleep</" \
  -e "s|<cmd>graph_scheduler \([^<]*\)</cmd>|<cmd>graph_scheduler \1 --prefer_seconds $graph_prefer</cmd>|" "$project/config.xml"
daemons=$(sed -n 's:.*<cmd>\([A-Za-z_]*\).*</cmd>.*:\1:p' "$project/config.xml")
for program in $daemons; do
  [ -x "$build/$program" ] || { echo "chaos: config.xml lists daemon $program, not built in $build" >&2; exit 2; }
done
"$here/scripts/install_programs.sh" "$build" "$project"
# A port someone else holds fails the start: try a few.
for attempt in 1 2 3 4 5; do
  "$here/scripts/private_apache.sh" start "$apache" "$port" "$project/chaos.httpd.conf" 2>"$base/apache.err" && break
  [ "$attempt" -lt 5 ] || { cat "$base/apache.err" >&2; exit 1; }
  old_port=$port port=$(( 20000 + (RANDOM + $$) % 20000 ))
  sed -i "s|127.0.0.1:$old_port/|127.0.0.1:$port/|g" "$project/config.xml" "$project"/html/user/index.html 2>/dev/null || true
done
"$build/add_app" --project_dir "$project" --app example --file "$build/example_app" >/dev/null
"$build/add_app" --project_dir "$project" --app operand --comparator numeric --file "$build/operand_app" >/dev/null
[ "$(id -u)" -eq 0 ] && chown -R www-data: "$project"
"$build/start" --project_dir "$project" >/dev/null
setup_seconds=$(now)
t0=$(date +%s)  # times from here on count from the start of the chaos
say "project up in ${setup_seconds}s: daemons $(echo $daemons), scheduler http://127.0.0.1:$port/chaos_cgi/cgi, $duration s of chaos, seed $seed"

# ---- volunteers: 20 hosts, 4 of them failing (20%) ---------------------------------------
account() { "$build/create_account" --project_dir "$project" --name "$1" --email "$1@example.org" 2>/dev/null; }
sound_args=() failing_args=()
for i in $(seq 0 15); do sound_args+=(--host "auth=$(account sound$i),ncpus=2"); done
vanish_at=$(between $((duration / 4)) $((duration / 2)))
failing_specs=("task_failure=0.5" "job_failure=0.5" "garbage=1" "vanish_after=$vanish_at")
for i in "${!failing_specs[@]}"; do failing_args+=(--host "auth=$(account failing$i),ncpus=2,${failing_specs[$i]}"); done
hostile_auth=$(account hostile)
run_client() {  # NAME ARGS... ; stdout/err to log, pid on stdout
  local name="$1"; shift
  "$build/tharsis-client" --data_dir "$base/$name" --project_url "http://127.0.0.1:$port/chaos/" \
    --max_request_delay 0 --max_backoff 2 --transfer_backoff 0.5 --log_level error "$@" \
    >>"$base/$name.log" 2>&1 &
  echo $!
}
sound_client=$(run_client sound "${sound_args[@]}"); bg_pids+=("$sound_client")
failing_client=$(run_client failing "${failing_args[@]}"); bg_pids+=("$failing_client")

# ---- the work stream ---------------------------------------------------------------------
mkdir -p "$base/inputs"
stream() {
  local batch=0 failed=0
  while [ ! -f "$base/stream_stop" ]; do
    batch=$((batch + 1))
    local jobs="$base/inputs/batch$batch"
    for i in $(seq 1 "$batch_size"); do
      printf 'seed chaos%d_%d\niterations 200\nterms 2000\n' "$batch" "$i" >"$jobs.$i.in"
      echo "chaos${batch}_$i $jobs.$i.in=in"
    done >"$jobs"
    "$build/create_work" --project_dir "$project" --app example --bulk "$jobs" --min_quorum 2 \
      --target_nresults 2 --delay_bound "$delay_bound" --rsc_fpops_est 1e8 >/dev/null 2>>"$base/stream.err" ||
      failed=$((failed + 1))
    echo "$failed" >"$base/stream_failed"
    sleep "$batch_every"
  done
}
stream & stream_pid=$!; bg_pids+=("$stream_pid")
graphs=0
submit_graph() {  # N: graph number
  printf 'a = rand(seed=%d, shape=(200,200), chunk=(100,100))\nb = rand(seed=%d, shape=(200,200), chunk=(100,100))\nc = rand(seed=%d, shape=(200,200), chunk=(100,100))\nresult = (a + b) @ c\n' \
    "$1" $(( $1 + 100 )) $(( $1 + 200 )) >"$base/graph$1.expr"
  # Its exit status goes to a file: bash forgets those of long-finished children.
  { "$build/submit_graph" --project_dir "$project" --name "chaos_graph$1" --file "$base/graph$1.expr" \
      --delay_bound "$delay_bound" --min_quorum 2 --target_nresults 2 --max_error_results 8 \
      --max_total_results 20 --prefer_seconds 2 --poll 1 --wait --verify --out "$base/graph$1.npy" \
      >"$base/graph$1.log" 2>&1
    echo $? >"$base/graph$1.status"; } &
  bg_pids+=("$!"); graphs=$1
  say "graph $1 submitted"
}

# ---- the chaos driver --------------------------------------------------------------------
kills=0 cron_restarts=0 unkilled_deaths=0 db_restarts=0 db_kills=0 client_kills=0 checks=0 check_violations=0
hostile_bad=0 hostile_batches=0
declare -A killed_by_name hostile_totals
pending_kills=" "  # daemons killed and not yet seen restarted
next_kill=$(between "${kill_gap[@]}") next_db=$(between "${db_gap[@]}") next_client=$(between "${client_gap[@]}")
next_hostile=1 next_cron=$cron_every next_check=$check_every graph_index=0
client_down_until=-1

pid_files() { ls "$project/pid/"*.pid 2>/dev/null || true; }
cron() {
  local out
  out=$("$build/start" --project_dir "$project" --cron 2>>"$base/cron.err") ||
    { say "start --cron failed: $out $(tail -2 "$base/cron.err")"; return; }
  [ -z "$out" ] && return
  for name in ${out#start --cron: restarted}; do
    cron_restarts=$((cron_restarts + 1))
    if [[ "$pending_kills" == *" $name "* ]]; then
      pending_kills="${pending_kills/ $name / }"
    else
      unkilled_deaths=$((unkilled_deaths + 1))
      say "daemon $name had died without being killed; restarted"
    fi
  done
}
run_check() {  # [--settled]; returns check's status (2: DB unreachable)
  local status=0
  "$build/check" --project_dir "$project" "$@" >"$base/check.out" 2>&1 || status=$?
  return $status
}
hostile() {
  local line status=0
  line=$("$build/chaos_hostile" --project_dir "$project" --authenticator "$hostile_auth" \
    --count "$hostile_count" --seed "$RANDOM" 2>>"$base/hostile.err") || status=$?
  hostile_batches=$((hostile_batches + 1))
  [ "$status" -eq 0 ] || { hostile_bad=$((hostile_bad + 1)); say "hostile batch answered wrongly: $(tail -3 "$base/hostile.err")"; }
  for pair in $line; do
    local key="${pair%%=*}" value="${pair#*=}"
    hostile_totals[$key]=$(( ${hostile_totals[$key]:-0} + value ))
  done
}

end=$duration
while [ "$(now)" -lt "$end" ]; do
  t=$(now)
  if [ "$graph_index" -lt "${#graph_times[@]}" ] && [ "$t" -ge "${graph_times[$graph_index]}" ]; then
    submit_graph $((graph_index + 1)); graph_index=$((graph_index + 1))
  fi
  if [ "$t" -ge "$next_kill" ]; then
    mapfile -t files < <(pid_files)
    if [ "${#files[@]}" -gt 0 ]; then
      file="${files[$((RANDOM % ${#files[@]}))]}"
      name=$(basename "$file" .pid) pid=$(cat "$file" 2>/dev/null || echo 0)
      if [ "$pid" -gt 0 ] && kill -9 "$pid" 2>/dev/null; then
        kills=$((kills + 1)); killed_by_name[$name]=$(( ${killed_by_name[$name]:-0} + 1 ))
        pending_kills+="$name "
        say "SIGKILL $name ($pid)"
      fi
    fi
    next_kill=$((t + $(between "${kill_gap[@]}")))
  fi
  if [ "$t" -ge "$next_db" ]; then
    down=$(between "${db_down[@]}")
    if [ $((RANDOM % 2)) -eq 0 ]; then
      say "DB: clean shutdown, down ${down}s"
      "$here/scripts/private_mariadb.sh" halt "$db"
    else
      say "DB: SIGKILL mariadbd, down ${down}s"
      kill -9 "$(cat "$db/mysqld.pid")"; db_kills=$((db_kills + 1))
      while [ -S "$db/mysqld.sock" ] && mariadb-admin --no-defaults -S "$db/mysqld.sock" -uroot ping >/dev/null 2>&1; do sleep 0.1; done
      rm -f "$db/mysqld.sock" "$db/mysqld.pid"
    fi
    sleep "$down"
    "$here/scripts/private_mariadb.sh" start "$db"
    db_restarts=$((db_restarts + 1))
    say "DB back"
    next_db=$(( $(now) + $(between "${db_gap[@]}") ))
  fi
  if [ "$t" -ge "$next_client" ] && [ "$client_down_until" -lt 0 ]; then
    kill -9 "$failing_client" 2>/dev/null && client_kills=$((client_kills + 1))
    client_down_until=$((t + $(between 2 6)))
    say "SIGKILL the failing hosts' client"
    next_client=$((t + $(between "${client_gap[@]}")))
  fi
  if [ "$client_down_until" -ge 0 ] && [ "$t" -ge "$client_down_until" ]; then
    failing_client=$(run_client failing "${failing_args[@]}"); bg_pids+=("$failing_client")
    client_down_until=-1
  fi
  if [ "$t" -ge "$next_hostile" ]; then
    hostile; next_hostile=$(( $(now) + $(between "${hostile_gap[@]}") ))
  fi
  if [ "$t" -ge "$next_cron" ]; then cron; next_cron=$((t + cron_every)); fi
  if [ "$t" -ge "$next_check" ]; then
    status=0; run_check || status=$?
    if [ "$status" -le 1 ]; then checks=$((checks + 1)); fi
    if [ "$status" -eq 1 ]; then
      n=$(grep -c '^\[' "$base/check.out" || true); check_violations=$((check_violations + n))
      say "check: $n violation(s):"; grep '^\[' "$base/check.out" | head -20
    fi
    next_check=$((t + check_every))
  fi
  sleep 0.5
done

# ---- drain --------------------------------------------------------------------------------
touch "$base/stream_stop"
wait "$stream_pid" 2>/dev/null || true
[ "$client_down_until" -ge 0 ] && { failing_client=$(run_client failing "${failing_args[@]}"); bg_pids+=("$failing_client"); }
say "stream stopped; draining (limit ${drain_limit}s)"
drain_start=$(now) settled=0
while [ $(( $(now) - drain_start )) -lt "$drain_limit" ]; do
  # Not more often than in the run: a second `start` inside a restarted daemon's first
  # moment (before its pid file) launches a twin, which refuses to run and would count
  # as a death.
  if [ "$(now)" -ge "$next_cron" ]; then cron; next_cron=$(( $(now) + cron_every )); fi
  status=0; run_check || status=$?
  if [ "$status" -eq 1 ]; then
    n=$(grep -c '^\[' "$base/check.out" || true); check_violations=$((check_violations + n))
    say "check: $n violation(s):"; grep '^\[' "$base/check.out" | head -20
  fi
  [ "$status" -le 1 ] && checks=$((checks + 1))
  status=0; run_check --settled || status=$?
  # Graphs still running keep their workunits unsettled; wait for them too.
  graphs_running=0
  for g in $(seq 1 "$graphs"); do [ -f "$base/graph$g.status" ] || graphs_running=1; done
  if [ "$status" -eq 0 ] && [ "$graphs_running" -eq 0 ]; then settled=1; break; fi
  sleep 1
done
drain_seconds=$(( $(now) - drain_start ))
if [ "$settled" -eq 0 ]; then
  say "not settled after ${drain_limit}s; check --settled says:"; grep '^\[' "$base/check.out" | head -20
  echo "unsettled results (now $(date +%s)):"
  sql "SELECT r.id, r.name, r.server_state, r.outcome, r.hostid, r.sent_time, r.report_deadline, w.transition_time
       FROM result r JOIN workunit w ON w.id = r.workunitid WHERE r.server_state <> 5 LIMIT 20" || true
  echo "daemon heartbeats:"; sql "SELECT name, pid, $(date +%s) - last_beat FROM daemon_heartbeat" || true
fi

# ---- verdicts -----------------------------------------------------------------------------
# A daemon killed after the last cron pass comes back at the next one, as in the run: a
# short drain can end first (it did once: census killed at 17 s, settled at 2 s of drain).
if [ -n "${pending_kills// /}" ]; then
  while [ "$(now)" -lt "$next_cron" ]; do sleep 0.2; done
  cron
fi
daemons_down() {
  local program pid down=""
  for program in $daemons; do
    pid=$(cat "$project/pid/$program.pid" 2>/dev/null || echo 0)
    kill -0 "$pid" 2>/dev/null || down+=" $program"
  done
  echo "$down"
}
not_running=$(daemons_down)
for _ in $(seq 25); do  # a daemon just restarted writes its pid file in its first moment
  [ -z "$not_running" ] && break
  sleep 0.2; not_running=$(daemons_down)
done
graph_ok=0 graph_failed=0
for g in $(seq 1 "$graphs"); do
  if [ "$(cat "$base/graph$g.status" 2>/dev/null)" = 0 ]; then graph_ok=$((graph_ok + 1)); else graph_failed=$((graph_failed + 1)); fi
done
# A CGI that crashes shows in Apache's error log as a response without headers.
cgi_crashes=$(grep -c -E 'End of script output before headers|Premature end of script|Segmentation|core dumped' \
  "$apache/error.log" 2>/dev/null || true)
cores=$(find "$project" -name 'core*' -type f 2>/dev/null | wc -l)
read -r wu_total wu_canonical wu_error wu_done asm_records asm_distinct <<<"$(sql "
  SELECT (SELECT COUNT(*) FROM workunit), (SELECT COUNT(*) FROM workunit WHERE canonical_resultid <> 0),
         (SELECT COUNT(*) FROM workunit WHERE error_mask <> 0), (SELECT COUNT(*) FROM workunit WHERE assimilate_state = 2),
         (SELECT COUNT(*) FROM assimilation), (SELECT COUNT(DISTINCT workunitid) FROM assimilation)")"
results_total=$(sql "SELECT COUNT(*) FROM result")
assimilated_once=$([ "$wu_total" -eq "$wu_done" ] && [ "$asm_records" -eq "$wu_total" ] && [ "$asm_distinct" -eq "$wu_total" ] && echo yes || echo no)

echo
echo "chaos summary (seed $seed, setup ${setup_seconds}s, ${duration}s of chaos, drain ${drain_seconds}s, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
printf '  daemon kills:        %d (%s)\n' "$kills" "$(for k in "${!killed_by_name[@]}"; do printf '%s %d, ' "$k" "${killed_by_name[$k]}"; done | sed 's/, $//')"
printf '  cron restarts:       %d (daemons that died unkilled: %d; not running at the end:%s)\n' \
  "$cron_restarts" "$unkilled_deaths" "${not_running:- none}"
printf '  DB restarts:         %d (%d by SIGKILL of mariadbd)\n' "$db_restarts" "$db_kills"
printf '  client kills:        %d (failing hosts'"'"' tharsis-client)\n' "$client_kills"
printf '  hostile requests:    %d in %d batches: duplicate %d, foreign %d, wrong_auth %d, malformed %d, oversized %d, traversal %d, output_swap %d, bad_utf8 %d\n' \
  "${hostile_totals[sent]:-0}" "$hostile_batches" "${hostile_totals[duplicate]:-0}" "${hostile_totals[foreign]:-0}" \
  "${hostile_totals[wrong_auth]:-0}" "${hostile_totals[malformed]:-0}" "${hostile_totals[oversized]:-0}" "${hostile_totals[traversal]:-0}" \
  "${hostile_totals[output_swap]:-0}" "${hostile_totals[bad_utf8]:-0}"
printf '  hostile answers:     error_reply %d, acked_ignored %d, other_reply %d, skipped (DB down or nothing to pick) %d, wrong %d\n' \
  "${hostile_totals[error_reply]:-0}" "${hostile_totals[acked_ignored]:-0}" "${hostile_totals[other_reply]:-0}" \
  "${hostile_totals[skipped]:-0}" "${hostile_totals[bad]:-0}"
printf '  CGI crashes:         %d in Apache'"'"'s error log, %d core files\n' "$cgi_crashes" "$cores"
printf '  create_work batches failed (DB down): %s\n' "$(cat "$base/stream_failed" 2>/dev/null || echo 0)"
printf '  workunits:           %d (%d results): %d with canonical result, %d errored, %d assimilated\n' \
  "$wu_total" "$results_total" "$wu_canonical" "$wu_error" "$wu_done"
printf '  assimilation table:  %d records, %d distinct workunits; each workunit assimilated exactly once: %s\n' \
  "$asm_records" "$asm_distinct" "$assimilated_once"
printf '  graphs:              %d verified, %d failed\n' "$graph_ok" "$graph_failed"
printf '  checks:              %d run, %d violation(s); settled: %s\n' "$checks" "$check_violations" \
  "$([ "$settled" -eq 1 ] && echo yes || echo no)"

failures=()
[ "$check_violations" -eq 0 ] || failures+=("invariant violations")
[ "$settled" -eq 1 ] || failures+=("not settled")
[ -z "$not_running" ] || failures+=("daemons not running:$not_running")
[ "$unkilled_deaths" -eq 0 ] || failures+=("daemons died unkilled")
[ "$cgi_crashes" -eq 0 ] && [ "$cores" -eq 0 ] || failures+=("CGI crash")
[ "$hostile_bad" -eq 0 ] || failures+=("hostile requests answered wrongly")
[ "$graph_failed" -eq 0 ] || failures+=("graph failed")
[ "$assimilated_once" = yes ] || failures+=("assimilation not exactly once")
if [ "${#failures[@]}" -gt 0 ]; then
  echo "chaos: FAILED: $(IFS=';'; echo "${failures[*]}")"
  for f in "$base"/graph*.log; do [ -f "$f" ] && { echo "--- $f"; tail -5 "$f"; }; done
  exit 1
fi
echo "chaos: PASSED"
