#!/usr/bin/env bash
# Live comparison of the reclustering policies (DESIGN §7, issue 7): the same n tasks run
# once per policy (NOOP, DC, SR, DR) through the real back end — a private MariaDB and
# the daemon processes (clusterer, transitioner, validator, assimilator, file_deleter) —
# with R simulated hosts injecting task failures (rate A) and job failures (rate B).
# LABEL: the hosts are simulated through the scheduler's own DB writes
# (tools/lib/simulated_hosts.h, bench/recluster_hosts), not over HTTP/Apache: the
# tharsis-client simulation mode had not landed when this was written.
# Prints the makespan per policy (submission to the last task done) and their ordering;
# tools/check --settled runs after each policy.
#   bench/recluster_live.sh BUILD_DIR [N] [R] [PHI] [A] [B] [SEED]
# Defaults: N=400 tasks, R=20 hosts, PHI=0.5 s per task, A=0.05, B=0.02, SEED=1.
# NOOP and SR keep k0 = N/R (the failure-blind size, as in the seed's study); DC and DR
# start there (no failures seen) and follow the model.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:?usage: recluster_live.sh BUILD_DIR [N] [R] [PHI] [A] [B] [SEED]}" && pwd)"
n="${2:-400}" r="${3:-20}" phi="${4:-0.5}" alpha="${5:-0.05}" beta="${6:-0.02}" seed="${7:-1}"
k0=$(( n / r > 0 ? n / r : 1 ))
base="$(mktemp -d /tmp/tharsis-recluster-XXXXXX)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  "$here/scripts/private_mariadb.sh" stop "$base/db" >/dev/null 2>&1 || true
  rm -rf "$base"
}
trap cleanup EXIT
"$here/scripts/private_mariadb.sh" start "$base/db" >/dev/null
sock="$base/db/mysqld.sock"

echo "recluster_live: n=$n r=$r phi=${phi}s alpha=$alpha beta=$beta seed=$seed k0=$k0 (hosts simulated via DB writes)"
declare -A makespan
for policy in NOOP DC SR DR; do
  p="$base/$policy"
  "$build/make_project" --project_dir "$p" --name "rc_$policy" --url_base http://127.0.0.1:1/ \
    --db_socket "$sock" --db_user root --db_name "rc_$policy" --key_bits 512 --uldl_dir_fanout 64 >/dev/null
  sed -i -e "s|<recluster_policy>[A-Z]*</recluster_policy>|<recluster_policy>$policy</recluster_policy>|" \
    -e "s|<initial_cluster_size>[0-9]*</initial_cluster_size>|<initial_cluster_size>$k0</initial_cluster_size>|" \
    "$p/config.xml"
  grep -q "<recluster_policy>$policy<" "$p/config.xml" || { echo "config.xml has no <recluster_policy>" >&2; exit 1; }
  "$build/add_app" --project_dir "$p" --app tasks >/dev/null
  pids=()
  for daemon in clusterer transitioner validator assimilator file_deleter; do
    "$build/$daemon" --project_dir "$p" --sleep 0.5 --log_level warning >>"$p/log/$daemon.log" 2>&1 &
    pids+=("$!")
  done
  line=$("$build/recluster_hosts" --project_dir "$p" --app tasks --tasks "$n" --hosts "$r" --task_seconds "$phi" \
    --task_failure_rate "$alpha" --job_failure_rate "$beta" --seed "$seed")
  sleep 2  # let the file deleter finish before the settled check
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  pids=()
  check=$({ "$build/check" --project_dir "$p" --settled || true; } | tail -2 | tr '\n' ' ')
  stat=$(mariadb --no-defaults -S "$sock" -uroot "rc_$policy" -N -e \
    "SELECT CONCAT('alpha_hat=', ROUND(alpha, 4), ' beta_hat=', ROUND(beta, 4), ' k_max=',
       (SELECT MAX(k) FROM cluster_job), ' k_last=', (SELECT k FROM cluster_job ORDER BY workunitid DESC LIMIT 1),
       ' model=', model, ' phi_hat=', ROUND(task_time, 2), ' D_hat=', ROUND(job_overhead, 2))
     FROM failure_stat WHERE tasks_left > 0 ORDER BY id DESC LIMIT 1")
  makespan[$policy]=$(sed -n 's/.*makespan_s=\([0-9.]*\).*/\1/p' <<<"$line")
  printf '%-4s %s %s\n     check: %s\n' "$policy" "$line" "$stat" "$check"
done

echo
printf '%-6s %12s %10s\n' policy makespan_s NOOP/this
for policy in NOOP DC SR DR; do
  awk -v p="$policy" -v m="${makespan[$policy]}" -v noop="${makespan[NOOP]}" \
    'BEGIN { printf "%-6s %12.1f %9.2fx\n", p, m, noop / m }'
done
printf 'ordering (fastest first): '
for policy in NOOP DC SR DR; do echo "${makespan[$policy]} $policy"; done | sort -n | awk '{ printf "%s ", $2 } END { print "" }'
