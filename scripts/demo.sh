#!/usr/bin/env bash
# The demo behind `./tharsis demo`: a private MariaDB and Apache on 127.0.0.1, a demo
# project made by make_project, its daemons started with tools/start, the scheduler and the
# upload handler among them as FastCGI pools of two workers (docs/admin.md); then 200 plain
# workunits (quorum 2) run by 8 simulated volunteer hosts (some crashing, failing,
# returning garbage, vanishing, slow) in one tharsis-client, with a progress bar and a
# summary, every canonical output checked against a local run of the app, and
# tools/check --settled; then an operand graph, a chain of matmuls ((a + b) @ c) @ d over
# 400x400 tensors in 100x100 chunks, run by faulty volunteers and verified element by
# element against a direct computation; then 200 clustered tasks packed into jobs by the
# clusterer (DR) and run by 10 volunteers whose task app injects task and job failures,
# every task done exactly once (tools/check --settled); then a batch of 40 jobs submitted
# over HTTP by a scientist's account with tharsis-submit (sandbox upload, submit, query,
# outputs, retire: BOINC's remote submission). Everything lives under one temp
# dir, removed at the end unless --keep (which keeps the database too, shut down).
#   scripts/demo.sh BUILD_DIR [--keep] [--port N]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="$(cd "${1:?usage: demo.sh BUILD_DIR [--keep] [--port N]}" && pwd)"; shift
keep=0
port=$((20000 + RANDOM % 20000))
while [ $# -gt 0 ]; do
  case "$1" in
    --keep) keep=1 ;;
    --port) port="$2"; shift ;;
    *) echo "demo: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

base="$(mktemp -d /tmp/tharsis-demo-XXXXXX)"
chmod 755 "$base"
project="$base/project"
cleanup() {
  set +e
  [ -x "$build_dir/stop" ] && [ -f "$project/config.xml" ] &&
    "$build_dir/stop" --project_dir "$project" --grace 10 >/dev/null
  "$here/scripts/private_apache.sh" stop "$base/apache"
  if [ "$keep" -eq 0 ]; then
    "$here/scripts/private_mariadb.sh" stop "$base/db" >/dev/null
    rm -rf "$base"
  else  # the database too: `scripts/private_mariadb.sh start $base/db` resumes it
    "$here/scripts/private_mariadb.sh" halt "$base/db" >/dev/null
    echo "demo: kept $base (database: scripts/private_mariadb.sh start $base/db)"
  fi
}
trap cleanup EXIT

step() { printf '\n== %s\n' "$*"; }

# start_volunteers NAME MAX_SECONDS HOST_SPEC...: an account NAME<i> per spec, and one
# tharsis-client in the background simulating those hosts (its pid in $volunteers).
start_volunteers() {
  local name="$1" max_seconds="$2" i auth args=()
  shift 2
  for ((i = 1; i <= $#; i++)); do
    auth=$("$build_dir/create_account" --project_dir "$project" --name "$name$((i - 1))" \
             --email "$name$((i - 1))@example.org" 2>/dev/null)
    args+=(--host "auth=$auth,${!i}")
  done
  "$build_dir/tharsis-client" --data_dir "$base/${name}_volunteers" --project_url "http://127.0.0.1:$port/demo/" \
    --max_request_delay 0 --max_backoff 0.5 --transfer_backoff 0.2 --max_seconds "$max_seconds" \
    --log_level error "${args[@]}" 2>/dev/null &
  volunteers=$!
}

step "private MariaDB under $base/db"
"$here/scripts/private_mariadb.sh" start "$base/db"

step "make_project demo (url http://127.0.0.1:$port/)"
"$build_dir/make_project" --project_dir "$project" --name demo --long_name "Tharsis demo" \
  --url_base "http://127.0.0.1:$port/" --db_socket "$base/db/mysqld.sock" --db_user root \
  --db_name tharsis_demo --fastcgi_pool 2
# A demo wants to be watched: daemons poll every 0.2 s instead of every 5 s when idle, and
# the census recounts for the status pages every 5 s instead of every minute.
# Clustered tasks (the last stage) are packed by the DR policy.
sed -i -e 's/--sleep 5</--sleep 0.2</' -e 's|<census_interval>[0-9]*<|<census_interval>5<|' \
  -e 's|<recluster_policy>[A-Z]*</recluster_policy>|<recluster_policy>DR</recluster_policy>|' "$project/config.xml"

# The project's programs: daemons in bin/; the scheduler (CGI and FastCGI), the upload
# handler and the status pages in cgi-bin/ (BOINC's layout); owned by www-data if root.
"$here/scripts/install_programs.sh" "$build_dir" "$project"

step "Apache on 127.0.0.1:$port"
"$here/scripts/private_apache.sh" start "$base/apache" "$port" "$project/demo.httpd.conf"
curl -fsS "http://127.0.0.1:$port/demo/" | grep -o '<link[^>]*scheduler[^>]*>' || true

step "daemons (the scheduler's and the upload handler's FastCGI pools among them)"
if ls "$project/bin/"* >/dev/null 2>&1; then
  "$build_dir/start" --project_dir "$project"
else
  echo "(no daemons built yet)"
fi
for _ in $(seq 100); do  # the pools listening before anyone asks
  [ -S "$project/run/scheduler.sock" ] && [ -S "$project/run/file_upload_handler.sock" ] && break
  sleep 0.1
done
echo "scheduler answers an empty request with:"
curl -fsS -X POST --data '<scheduler_request></scheduler_request>' "http://127.0.0.1:$port/demo_cgi/cgi" |
  grep -o '<message[^<]*</message>' || true

sleep 1.5  # let each daemon record its first heartbeat
step "status"
if [ -x "$build_dir/status" ]; then
  "$build_dir/status" --project_dir "$project"
else
  ls "$project"
fi

step "app 'example' (version signed with the project's code-signing key), 200 workunits, quorum 2"
"$build_dir/add_app" --project_dir "$project" --app example --file "$build_dir/example_app"
inputs="$base/inputs"
mkdir -p "$inputs"
for i in $(seq 0 199); do
  printf 'seed demo%d\niterations 2000\nterms 200000\n' "$i" > "$inputs/demo$i.in"
  echo "demo$i $inputs/demo$i.in=in"
done > "$inputs/jobs"
# delay_bound 20 s: the vanishing host's results time out and are re-sent within the demo.
"$build_dir/create_work" --project_dir "$project" --app example --bulk "$inputs/jobs" \
  --min_quorum 2 --target_nresults 2 --delay_bound 20 --rsc_fpops_est 1e8 | tail -1
[ "$(id -u)" -eq 0 ] && chown -R www-data: "$project/download" "$project/upload"

step "8 simulated volunteers in one tharsis-client (over HTTP, like real hosts)"
cat <<'TEXT'
  simhost0, simhost1  sound
  simhost2            task processes crash 30% of the time (restarted)
  simhost3            40% of jobs fail (reported as client errors)
  simhost4            every output is garbage (the validator must outvote it)
  simhost5            vanishes after 2 s (its results time out and are re-sent)
  simhost6            4x slower
  simhost7            a bit of everything
TEXT
host_faults=("ncpus=2" "ncpus=2" "ncpus=2,task_failure=0.3" "ncpus=2,job_failure=0.4"
             "ncpus=2,garbage=1" "ncpus=2,vanish_after=2" "ncpus=2,slowness=4"
             "ncpus=2,task_failure=0.1,job_failure=0.1,garbage=0.1")
client_args=()
for i in "${!host_faults[@]}"; do
  auth=$("$build_dir/create_account" --project_dir "$project" --name "simhost$i" \
           --email "simhost$i@example.org" 2>/dev/null)
  client_args+=(--host "auth=$auth,${host_faults[$i]}")
done
# The client prints one progress line a second and a summary line (stderr); the bar
# redraws one line in place.
set +e
"$build_dir/tharsis-sim" --data_dir "$base/volunteers" --project_url "http://127.0.0.1:$port/demo/" \
  --max_request_delay 0 --max_backoff 0.5 --transfer_backoff 0.2 --summary --until_settled \
  --project_dir "$project" --max_seconds 300 --log_level error "${client_args[@]}" 2>&1 |
  awk '
    /\] workunits / {
      split($0, a, "workunits "); split(a[2], b, "/"); done = b[1]; split(b[2], c, " "); total = c[1];
      width = 40; filled = total > 0 ? int(width * done / total) : 0;
      bar = ""; for (i = 0; i < width; i++) bar = bar (i < filled ? "#" : ".");
      printf "\r  [%s] %3d/%d workunits done   ", bar, done, total; fflush(); next }
    /^summary: / || /summary: / { printf "\n  %s\n", substr($0, index($0, "summary: ")); next }
    { print "  " $0 }'
client_status=${PIPESTATUS[0]}
set -e
[ "$client_status" -eq 0 ] || echo "demo: tharsis-sim exited with status $client_status"

step "verify: every canonical output equals a local run of the app"
correct=0; wrong=0; errored=0
for i in $(seq 0 199); do
  stored="$project/results/demo$i"
  if [ -f "$stored/MANIFEST" ]; then
    out_file="$stored/$(awk 'NR==1 {print $1}' "$stored/MANIFEST")"
    if "$build_dir/example_app" "$inputs/demo$i.in" "$inputs/expected" && cmp -s "$inputs/expected" "$out_file"; then
      correct=$((correct + 1))
    else
      wrong=$((wrong + 1))
    fi
  else
    errored=$((errored + 1))
  fi
done
echo "  $correct canonical outputs correct, $wrong wrong, $errored workunits ended in error"

step "check --settled (the back-end law's invariants, assimilated once, files deleted)"
"$build_dir/check" --project_dir "$project" --settled | tail -3

step "operand graph: a tensor computation as a DAG of workunits, run by faulty volunteers"
"$build_dir/add_app" --project_dir "$project" --app operand --comparator numeric --file "$build_dir/operand_app"
expression='a = rand(seed=1, shape=(400,400), chunk=(100,100))
b = rand(seed=2, shape=(400,400), chunk=(100,100))
c = rand(seed=3, shape=(400,400), chunk=(100,100))
d = rand(seed=4, shape=(400,400), chunk=(100,100))
result = ((a + b) @ c) @ d'
printf '%s\n' "$expression" | sed 's/^/  /'
graph_faults=("ncpus=2" "ncpus=2" "ncpus=2,job_failure=0.3" "ncpus=2,task_failure=0.3"
              "ncpus=2,vanish_after=3" "ncpus=2,slowness=3")
start_volunteers graphhost 300 "${graph_faults[@]}"
graph_client=$volunteers
# delay_bound 20 s: the vanishing host's operands are re-sent; --verify recomputes the
# expression here without chunks and compares (1e-9 relative).
set +e
"$build_dir/submit_graph" --project_dir "$project" --name demo_graph --expression "$expression" \
  --delay_bound 20 --prefer_seconds 5 --poll 0.5 --wait --verify --out "$base/demo_graph.npy" 2>&1 |
  tr '\r' '\n' | awk 'NR == 1 { print "  graph id " $0; next } /./ { last = $0 } /verify|written|failed|cancel/ { print "  " $0 }'
graph_status=${PIPESTATUS[0]}
set -e
kill "$graph_client" 2>/dev/null; wait "$graph_client" 2>/dev/null || true
[ "$graph_status" -eq 0 ] || echo "demo: the graph did not finish correctly (status $graph_status)"
"$build_dir/graph_status" --project_dir "$project" 2>&1 | head -12 | sed 's/^/  /' || true

step "clustered tasks: 200 tasks packed k per job by the clusterer (policy DR), 10 faulty volunteers"
cat <<'TEXT'
  each volunteer's task app fails a task 5% of the time and a whole job 5% of the time
  (inject=app) and takes 0.1 s per task (simulated); DR retries only the failed tasks,
  in jobs resized by the model from the failure rates it estimates as jobs come back
TEXT
"$build_dir/add_app" --project_dir "$project" --app tasks --file "$build_dir/task_app" >/dev/null
sql() { mariadb --no-defaults -S "$base/db/mysqld.sock" -uroot tharsis_demo -N -e "$1"; }
task_faults=()
for i in $(seq 0 9); do
  task_faults+=("ncpus=1,inject=app,task_failure=0.05,job_failure=0.05,task_seconds=0.1,seed=$((500 + i))")
done
start_volunteers taskhost 120 "${task_faults[@]}"
task_client=$volunteers
# The volunteers' first RPCs register them, so the clusterer sizes jobs for r = 10.
for _ in $(seq 1 100); do
  [ "$(sql "SELECT COUNT(*) FROM host h JOIN user u ON u.id = h.userid WHERE u.name LIKE 'taskhost%'")" -ge 10 ] && break
  sleep 0.1
done
"$build_dir/submit_tasks" --project_dir "$project" --app tasks --count 200 --iterations 1000 | sed 's/^/  /'
tasks_done=0
for _ in $(seq 1 450); do
  tasks_done=$(sql "SELECT COUNT(*) FROM cluster_task WHERE state = 2")
  printf '\r  [%-40s] %3d/200 tasks done   ' "$(head -c $((tasks_done / 5)) /dev/zero | tr '\0' '#')" "$tasks_done"
  [ "$tasks_done" -eq 200 ] && break
  sleep 0.2
done
echo
# Until the last jobs' files are deleted, so that check --settled applies.
for _ in $(seq 1 100); do
  [ "$(sql "SELECT COUNT(*) FROM workunit WHERE file_delete_state <> 2")" -eq 0 ] && break
  sleep 0.2
done
kill "$task_client" 2>/dev/null; wait "$task_client" 2>/dev/null || true
sql "SELECT CONCAT('  tasks done ', (SELECT COUNT(*) FROM cluster_task WHERE state = 2),
       ', jobs ', COUNT(*), ' (', SUM(job_failed), ' failed whole, ', SUM(failed_tasks > 0 AND job_failed = 0),
       ' with failed tasks; ', SUM(IF(job_failed = 1, k, failed_tasks)), ' task runs redone)',
       ', k chosen ', (SELECT GROUP_CONCAT(DISTINCT k ORDER BY k DESC) FROM cluster_job))
     FROM cluster_job"
sql "SELECT CONCAT('  estimates: alpha_hat ', ROUND(alpha, 3), ', beta_hat ', ROUND(beta, 3),
       ' (injected 0.05, 0.05), model ', model, ', phi_hat ', ROUND(task_time, 2), ' s, D_hat ',
       ROUND(job_overhead, 2), ' s') FROM failure_stat ORDER BY id DESC LIMIT 1"
set +e
"$build_dir/check" --project_dir "$project" --settled | tail -2 | sed 's/^/  /'
check_status=${PIPESTATUS[0]}
set -e

step "remote submission: a scientist submits a batch over HTTP (BOINC's submit RPCs)"
cat <<'TEXT'
  the account has a grant and only the project's URL and its key: no config.xml, no database;
  it uploads two input files to its sandbox (job_file.php), submits 40 jobs (half inline,
  half sandbox files) to submit_rpc_handler.php, watches the batch, downloads every output
  (get_output.php) and retires the batch
TEXT
"$build_dir/create_account" --project_dir "$project" --name scientist --email scientist@example.org \
  > "$base/scientist.key" 2>/dev/null
"$build_dir/grant_submit" --project_dir "$project" --email scientist@example.org --all | sed 's/^/  /'
submitter=("$build_dir/tharsis-submit" --url "http://127.0.0.1:$port/demo/" --authenticator "$(cat "$base/scientist.key")")
remote="$base/remote"
mkdir -p "$remote"
for i in 0 1; do printf 'seed sandbox%d\niterations 2000\nterms 20000\n' "$i" > "$remote/sandbox$i.in"; done
"${submitter[@]}" upload "$remote/sandbox0.in" "$remote/sandbox1.in" > "$remote/uploaded" 2>/dev/null
sed 's/^/  /' "$remote/uploaded"
for i in $(seq 0 39); do
  if [ $((i % 2)) -eq 0 ]; then
    printf 'seed remote%d\niterations 2000\nterms 20000\n' "$i" > "$remote/job$i.in"
    echo "$remote/job$i.in"
  else
    awk -v n=$((i / 2 % 2)) 'NR == n + 1 { print $2 }' "$remote/uploaded"
  fi
done > "$remote/jobs.txt"
start_volunteers remotehost 120 "ncpus=2" "ncpus=2" "ncpus=2"
remote_client=$volunteers
batch=$( ("${submitter[@]}" submit --app example --batch_name demo_remote "$remote/jobs.txt" || true) | awk '{print $2}')
echo "  submitted batch $batch"
remote_state=""
for _ in $(seq 1 300); do
  remote_state=$("${submitter[@]}" query "$batch" 2>&1 || true)
  printf '\r  %s   ' "$remote_state"
  case "$remote_state" in *completed*) break ;; esac
  sleep 0.2
done
echo
kill "$remote_client" 2>/dev/null; wait "$remote_client" 2>/dev/null || true
"${submitter[@]}" outputs "$batch" "$remote/outputs.zip" | sed 's/^/  /'
remote_outputs=$( (unzip -Z1 "$remote/outputs.zip" 2>/dev/null || true) | wc -l)
echo "  outputs.zip holds $remote_outputs outputs"
"${submitter[@]}" retire "$batch" | sed 's/^/  /'
case "$remote_state" in *completed*) remote_ok=1 ;; *) remote_ok=0 ;; esac

step "status"
"$build_dir/status" --project_dir "$project"

# The demo's exit status says whether everything it showed was right.
if [ "$client_status" -ne 0 ] || [ "$wrong" -ne 0 ] || [ "$graph_status" -ne 0 ] ||
   [ "$tasks_done" -ne 200 ] || [ "$check_status" -ne 0 ] || [ "$remote_ok" -ne 1 ]; then
  echo "demo: FAILED (client $client_status, wrong outputs $wrong, graph $graph_status," \
    "clustered tasks done $tasks_done/200, check $check_status, remote batch completed $remote_ok)" >&2
  exit 1
fi
echo "demo: all outputs verified, every clustered task done exactly once, the remote batch completed"
