#!/usr/bin/env bash
# Live comparison of the reclustering policies (docs/reclustering.md, issue 7): the same n tasks run
# once per policy (NOOP, DC, SR, DR) through the real back end — a private MariaDB and
# the daemon processes (clusterer, transitioner, validator, assimilator, file_deleter) —
# with R simulated hosts injecting task failures (rate A) and job failures (rate B).
#   bench/recluster_live.sh BUILD_DIR [N] [R] [PHI] [A] [B] [SEED] [HOSTS]
# Defaults: N=400 tasks, R=20 hosts, PHI=0.5 s per task, A=0.05, B=0.02, SEED=1, HOSTS=http.
# HOSTS says how the hosts are simulated:
#   http — R volunteer hosts (ncpus=1 each) in one tharsis-client process, over HTTP to
#          the project's private Apache (FastCGI scheduler, upload handler), running the
#          signed task_app, which injects the faults (--host inject=app) and SLEEPS PHI per
#          task (task_seconds: simulated compute time, so 20 hosts fit on 2 cores). The
#          client retries an empty or failed RPC after at most 1 s (--max_backoff 1):
#          always-on volunteers; the project's request_delay is 0. Each host fetches a
#          job only when it has none (--buffer_tasks 1), as the hosts of the seed's model
#          do: with the client's default buffer of 2, the first hosts to ask hoard two of
#          the last big jobs each while others idle (BUFFER=2 runs that way). Every host
#          has the fault seed SEED: a run's faults are drawn from (SEED, result name, run),
#          so a job of the same tasks fails alike under every policy, whichever host runs
#          it (common random numbers: the policies differ, not their luck).
#   db   — the hosts are simulated through the scheduler's own DB writes
#          (tools/lib/simulated_hosts.h, bench/recluster_hosts): no HTTP, no client.
# Prints the makespan per policy (submission to the last task done) and their ordering;
# tools/check --settled runs after each policy.
# NOOP and SR keep k0 = N/R (the failure-blind size, as in the seed's study); DC and DR
# start there (no failures seen) and follow the model.
# Environment: POLICIES="SR DR" runs only those; KEEP=1 keeps the temp dir (projects,
# logs) and leaves its MariaDB running for a look (stop it with private_mariadb.sh stop).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:?usage: recluster_live.sh BUILD_DIR [N] [R] [PHI] [A] [B] [SEED] [http|db]}" && pwd)"
n="${2:-400}" r="${3:-20}" phi="${4:-0.5}" alpha="${5:-0.05}" beta="${6:-0.02}" seed="${7:-1}" hosts="${8:-http}"
case "$hosts" in http | db) ;; *) echo "recluster_live: HOSTS: expected http or db, found '$hosts'" >&2; exit 2 ;; esac
k0=$(( n / r > 0 ? n / r : 1 ))
policies="${POLICIES:-NOOP DC SR DR}"
iterations=10  # hash iterations per task: real but tiny work; PHI is the task time
base="$(mktemp -d "${TMPDIR:-/tmp}/tharsis-recluster-XXXXXX")"
chmod 755 "$base"
pids=()
apache=""
stop_pids() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  pids=()
}
stop_apache() {
  if [ -n "$apache" ]; then "$here/scripts/private_apache.sh" stop "$apache" >/dev/null 2>&1 || true; fi
  apache=""
}
cleanup() {
  stop_pids
  stop_apache
  if [ "${KEEP:-0}" = 1 ]; then echo "recluster_live: kept $base (MariaDB socket $sock)"; return; fi
  "$here/scripts/private_mariadb.sh" stop "$base/db" >/dev/null 2>&1 || true
  rm -rf "$base"
}
sock="$base/db/mysqld.sock"
trap cleanup EXIT
"$here/scripts/private_mariadb.sh" start "$base/db" >/dev/null
sql() { mariadb --no-defaults -S "$sock" -uroot "$1" -N -e "$2"; }
now() { date +%s.%N; }

# The project of one policy, its task app and its daemons.
setup_project() {
  local policy="$1" p="$2" url_base="$3"
  "$build/make_project" --project_dir "$p" --name "rc_$policy" --url_base "$url_base" \
    --db_socket "$sock" --db_user root --db_name "rc_$policy" --key_bits 512 --uldl_dir_fanout 64 >/dev/null
  sed -i -e "s|<recluster_policy>[A-Z]*</recluster_policy>|<recluster_policy>$policy</recluster_policy>|" \
    -e "s|<initial_cluster_size>[0-9]*</initial_cluster_size>|<initial_cluster_size>$k0</initial_cluster_size>|" \
    "$p/config.xml"
  grep -q "<recluster_policy>$policy<" "$p/config.xml" || { echo "config.xml has no <recluster_policy>" >&2; exit 1; }
  "$build/add_app" --project_dir "$p" --app tasks --file "$build/task_app" >/dev/null
  for daemon in clusterer transitioner validator assimilator file_deleter; do
    "$build/$daemon" --project_dir "$p" --sleep 0.5 --log_level warning >>"$p/log/$daemon.log" 2>&1 &
    pids+=("$!")
  done
}

# HOSTS=db: recluster_hosts submits, runs the hosts and prints the line itself.
run_db_hosts() {
  local policy="$1" p="$2"
  setup_project "$policy" "$p" http://127.0.0.1:1/
  line=$("$build/recluster_hosts" --project_dir "$p" --app tasks --tasks "$n" --hosts "$r" --task_seconds "$phi" \
    --task_failure_rate "$alpha" --job_failure_rate "$beta" --seed "$seed" --iterations "$iterations")
  sleep 2  # let the file deleter finish before the settled check
}

# HOSTS=http: Apache, accounts, one tharsis-client of R hosts; the hosts have made their
# first RPC (so the clusterer counts r of them) before the tasks are submitted.
run_http_hosts() {
  local policy="$1" p="$2" port=$((20000 + RANDOM % 20000))
  setup_project "$policy" "$p" "http://127.0.0.1:$port/"
  "$here/scripts/install_programs.sh" "$build" "$p"
  apache="$base/apache_$policy"
  "$here/scripts/private_apache.sh" start "$apache" "$port" "$p/rc_$policy.httpd.conf" >/dev/null
  local host_args=() i auth
  for ((i = 0; i < r; i++)); do
    auth=$("$build/create_account" --project_dir "$p" --name "host$i" --email "host$i@example.org" 2>/dev/null)
    host_args+=(--host "auth=$auth,ncpus=1,inject=app,task_failure=$alpha,job_failure=$beta,task_seconds=$phi,seed=$seed")
  done
  "$build/tharsis-client" --data_dir "$p/volunteers" --project_url "http://127.0.0.1:$port/rc_$policy/" \
    --scheduler_url "http://127.0.0.1:$port/rc_${policy}_cgi/fcgi" --max_request_delay 0 --max_backoff 1 \
    --buffer_tasks "${BUFFER:-1}" --transfer_backoff 0.2 --max_seconds 1800 --log_level warning "${host_args[@]}" >>"$p/log/client.log" 2>&1 &
  local client=$!
  pids+=("$client")
  for _ in $(seq 1 300); do
    if [ "$(sql "rc_$policy" "SELECT COUNT(*) FROM host WHERE rpc_time > 0")" -ge "$r" ]; then break; fi
    sleep 0.1
  done
  local start end
  start=$(now)
  "$build/submit_tasks" --project_dir "$p" --app tasks --count "$n" --iterations "$iterations" >/dev/null
  while [ "$(sql "rc_$policy" "SELECT COUNT(*) FROM cluster_task WHERE state <> 2")" -ne 0 ] ||
        [ "$(sql "rc_$policy" "SELECT COUNT(*) FROM cluster_task")" -ne "$n" ]; do
    kill -0 "$client" 2>/dev/null || { echo "recluster_live: the client stopped; see $p/log/client.log" >&2; exit 1; }
    sleep 0.2
  done
  end=$(now)
  local jobs failed crashed
  jobs=$(sql "rc_$policy" "SELECT COUNT(*) FROM cluster_job")
  failed=$(sql "rc_$policy" "SELECT COALESCE(SUM(failed_tasks), 0) FROM cluster_job WHERE job_failed = 0")
  crashed=$(sql "rc_$policy" "SELECT COUNT(*) FROM cluster_job WHERE job_failed = 1")
  line="makespan_s=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') jobs=$jobs failed_tasks=$failed crashed_jobs=$crashed"
  # Until the last outputs are deleted and the client has reported everything.
  for _ in $(seq 1 100); do
    if [ "$(sql "rc_$policy" "SELECT COUNT(*) FROM workunit WHERE file_delete_state <> 2 OR assimilate_state <> 2")" -eq 0 ]; then break; fi
    sleep 0.2
  done
}

echo "recluster_live: n=$n r=$r phi=${phi}s alpha=$alpha beta=$beta seed=$seed k0=$k0 hosts=$hosts" \
  "($([ "$hosts" = http ] && echo "tharsis-client over HTTP, inject=app, simulated task time, buffer ${BUFFER:-1}" ||
      echo "simulated via DB writes"))"
declare -A makespan
for policy in $policies; do
  p="$base/$policy"
  "run_${hosts}_hosts" "$policy" "$p"
  stop_pids
  stop_apache
  check=$({ "$build/check" --project_dir "$p" --settled || true; } | tail -2 | tr '\n' ' ')
  stat=$(sql "rc_$policy" \
    "SELECT CONCAT('alpha_hat=', ROUND(alpha, 4), ' beta_hat=', ROUND(beta, 4), ' k_max=',
       (SELECT MAX(k) FROM cluster_job), ' k_last=', (SELECT k FROM cluster_job ORDER BY workunitid DESC LIMIT 1),
       ' model=', model, ' phi_hat=', ROUND(task_time, 2), ' D_hat=', ROUND(job_overhead, 2))
     FROM failure_stat WHERE tasks_left > 0 ORDER BY id DESC LIMIT 1")
  makespan[$policy]=$(sed -n 's/.*makespan_s=\([0-9.]*\).*/\1/p' <<<"$line")
  printf '%-4s %s %s\n     check: %s\n' "$policy" "$line" "$stat" "$check"
done

echo
printf '%-6s %12s %10s\n' policy makespan_s NOOP/this
for policy in $policies; do
  awk -v p="$policy" -v m="${makespan[$policy]}" -v noop="${makespan[NOOP]:-}" \
    'BEGIN { if (noop == "") printf "%-6s %12.1f\n", p, m; else printf "%-6s %12.1f %9.2fx\n", p, m, noop / m }'
done
printf 'ordering (fastest first): '
for policy in $policies; do echo "${makespan[$policy]} $policy"; done | sort -n | awk '{ printf "%s ", $2 } END { print "" }'
