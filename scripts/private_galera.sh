#!/usr/bin/env bash
# A private MariaDB Galera cluster on one machine, for tests, benchmarks and the demo: N
# real mariadbd nodes (default 3), each with its own datadir, Unix socket and 127.0.0.1
# ports, started as the current user. Like private_mariadb.sh it never reads /etc/mysql or
# ~/.my.cnf (--no-defaults everywhere), listens on 127.0.0.1 only and never touches a
# system service.
#   private_galera.sh start DIR [N]    bootstrap node 1 (--wsrep-new-cluster), join 2..N,
#                                      wait until every node is ready and the cluster has N
#   private_galera.sh stop DIR         shut every node down (kill after 30 s), remove DIR
#   private_galera.sh kill DIR I       SIGKILL node I (a crash: no clean leave)
#   private_galera.sh restart DIR I    start node I again (after kill or halt) joining the
#                                      others; wait until it is synced and the cluster whole
#   private_galera.sh halt DIR I       shut node I down cleanly, keep its datadir
#   private_galera.sh status DIR       one line per node: I, socket, SQL port, state,
#                                      cluster size; exit 0 when every node is ready
#   private_galera.sh socket DIR I     print node I's socket path
#   private_galera.sh port DIR I       print node I's SQL port (127.0.0.1)
# Layout: DIR/nodes (N), DIR/base_port, DIR/nI/{data,tmp,mysqld.sock,mysqld.pid,mysqld.log}.
# Ports of node I (1-based), from a free base B: SQL B+10(I-1), Galera group B+10(I-1)+1,
# IST +2, SST (rsync daemon) +3. THARSIS_GALERA_BASE_PORT picks B; otherwise a free one.
# Access: user 'root' with an empty password over each node's socket, and over TCP from
# 127.0.0.1. State transfer: rsync (wsrep_sst_rsync; needs the rsync program).
# THARSIS_MARIADB_ARGS adds server options to every node (bench: a bigger buffer pool).
set -euo pipefail

die() { echo "private_galera: $*" >&2; exit 1; }

PROVIDER=/usr/lib/galera/libgalera_smm.so

node_dir() { echo "$1/n$2"; }
socket_of() { echo "$1/n$2/mysqld.sock"; }
base_port() { cat "$1/base_port"; }
nodes_of() { cat "$1/nodes"; }
sql_port() { echo $(($(base_port "$1") + 10 * ($2 - 1))); }
group_port() { echo $(($(sql_port "$1" "$2") + 1)); }
ist_port() { echo $(($(sql_port "$1" "$2") + 2)); }
sst_port() { echo $(($(sql_port "$1" "$2") + 3)); }

sql() {  # sql DIR I STATEMENT: run on node I, tab-separated rows without header
  mariadb --no-defaults --socket="$(socket_of "$1" "$2")" --user=root --connect-timeout=2 \
    --batch --skip-column-names -e "$3" 2>/dev/null
}

answers() {
  [ -S "$(socket_of "$1" "$2")" ] || return 1
  mariadb-admin --no-defaults --socket="$(socket_of "$1" "$2")" --user=root --connect-timeout=2 \
    ping >/dev/null 2>&1
}

wsrep_status() {  # wsrep_status DIR I VARIABLE
  sql "$1" "$2" "SHOW GLOBAL STATUS LIKE '$3'" | cut -f2
}

# Ready: answers SQL, wsrep_ready=ON, local state Synced, and sees `want` members.
node_ready() {
  local dir="$1" i="$2" want="$3"
  answers "$dir" "$i" || return 1
  local rows
  rows="$(sql "$dir" "$i" "SHOW GLOBAL STATUS WHERE Variable_name IN \
('wsrep_ready','wsrep_cluster_size','wsrep_local_state_comment','wsrep_cluster_status')")" || return 1
  grep -q $'^wsrep_ready\tON$' <<<"$rows" || return 1
  grep -q $'^wsrep_local_state_comment\tSynced$' <<<"$rows" || return 1
  grep -q $'^wsrep_cluster_status\tPrimary$' <<<"$rows" || return 1
  grep -q $'^wsrep_cluster_size\t'"$want"'$' <<<"$rows" || return 1
}

log_tail() { tail -n 30 "$1/mysqld.log" 2>/dev/null || echo "(no log at $1/mysqld.log)"; }

user_args() { [ "$(id -u)" -eq 0 ] && echo "--user=root" || true; }

# Run as root, rsync's daemon (the joiner's end of an rsync SST) drops to uid 'nobody',
# which cannot write into root's datadir, and wsrep_sst_rsync has no knob for it. So the
# nodes use SST method "tharsis_rsync": DIR/bin/wsrep_sst_tharsis_rsync runs the stock
# wsrep_sst_rsync with DIR/bin first on its PATH, where an `rsync` wrapper adds, for
# --daemon only, -M uid/gid overrides that keep the daemon's identity (exec: same pid).
# (mariadbd puts its own bin dir first on the SST script's PATH, hence the method name
# rather than a PATH entry.)
make_sst_wrappers() {
  local dir="$1"
  mkdir -p "$dir/bin"
  local real; real="$(command -v rsync)"
  local sst; sst="$(command -v wsrep_sst_rsync || echo /usr/bin/wsrep_sst_rsync)"
  [ -x "$sst" ] || die "wsrep_sst_rsync is not installed (package mariadb-server)"
  {
    echo '#!/bin/sh'
    echo 'for a in "$@"; do'
    echo "  [ \"\$a\" = --daemon ] && exec '$real' \"\$@\" -M uid=$(id -u) -M gid=$(id -g)"
    echo 'done'
    echo "exec '$real' \"\$@\""
  } >"$dir/bin/rsync"
  {
    echo '#!/bin/sh'
    echo "PATH='$dir/bin':\"\$PATH\" exec '$sst' \"\$@\""
  } >"$dir/bin/wsrep_sst_tharsis_rsync"
  chmod 755 "$dir/bin/rsync" "$dir/bin/wsrep_sst_tharsis_rsync"
}

port_free() { ! ss -Htln "sport = :$1" 2>/dev/null | grep -q .; }

# A base port B such that B..B+10N-1 are free on 127.0.0.1 (random start: tests in
# parallel worktrees must not collide).
choose_base_port() {
  local n="$1"
  if [ -n "${THARSIS_GALERA_BASE_PORT:-}" ]; then echo "$THARSIS_GALERA_BASE_PORT"; return; fi
  for _ in $(seq 1 50); do
    local base=$((20000 + (RANDOM % 2000) * 10)) ok=1
    for p in $(seq "$base" $((base + 10 * n - 1))); do
      port_free "$p" || { ok=0; break; }
    done
    [ "$ok" -eq 1 ] && { echo "$base"; return; }
  done
  die "no free block of $((10 * n)) ports found on 127.0.0.1"
}

cluster_address() {
  local dir="$1" n; n="$(nodes_of "$dir")"
  local list=""
  for i in $(seq 1 "$n"); do list="$list${list:+,}127.0.0.1:$(group_port "$dir" "$i")"; done
  echo "gcomm://$list"
}

# Starts node I's mariadbd in the background; `bootstrap` as $3 makes it a new cluster.
launch_node() {
  local dir="$1" i="$2" mode="${3:-join}"
  local nd; nd="$(node_dir "$dir" "$i")"
  local sock; sock="$(socket_of "$dir" "$i")"
  [ ${#sock} -lt 108 ] || die "socket path is ${#sock} bytes, a Unix socket allows 107: $sock"
  mkdir -p "$nd/data" "$nd/tmp"
  rm -f "$sock" "$nd/mysqld.pid"
  local new_cluster=""
  if [ "$mode" = bootstrap ]; then
    new_cluster="--wsrep-new-cluster"
  fi
  # Small and fast like private_mariadb.sh (64 MiB buffer pool, no fsync per commit). Galera
  # needs row binlog format and interleaved auto-increment locks. Short failure-detection
  # timeouts (evs.*) so a killed node is dropped from the view in seconds, not 15 s; a
  # small gcache (IST for a node that was away briefly, rsync SST otherwise).
  local provider_options="gmcast.listen_addr=tcp://127.0.0.1:$(group_port "$dir" "$i");\
ist.recv_addr=127.0.0.1:$(ist_port "$dir" "$i");gcache.size=32M;\
evs.keepalive_period=PT0.5S;evs.inactive_check_period=PT0.5S;evs.suspect_timeout=PT2S;\
evs.inactive_timeout=PT4S;evs.install_timeout=PT4S;pc.wait_prim_timeout=PT30S"
  # shellcheck disable=SC2046,SC2086
  PATH="$dir/bin:$PATH" mariadbd --no-defaults --datadir="$nd/data" --tmpdir="$nd/tmp" --socket="$sock" \
    --bind-address=127.0.0.1 --port="$(sql_port "$dir" "$i")" \
    --pid-file="$nd/mysqld.pid" --log-error="$nd/mysqld.log" $(user_args) \
    --innodb-buffer-pool-size=64M --innodb-log-file-size=16M \
    --innodb-flush-log-at-trx-commit=2 --max-connections=300 \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci --skip-name-resolve \
    --binlog-format=ROW --default-storage-engine=InnoDB --innodb-autoinc-lock-mode=2 \
    --server-id="$i" --wsrep-on=ON --wsrep-provider="$PROVIDER" \
    --wsrep-cluster-name=tharsis --wsrep-node-name="n$i" \
    --wsrep-node-address="127.0.0.1:$(group_port "$dir" "$i")" \
    --wsrep-node-incoming-address="127.0.0.1:$(sql_port "$dir" "$i")" \
    --wsrep-cluster-address="$(cluster_address "$dir")" \
    --wsrep-provider-options="$provider_options" \
    --wsrep-sst-method=tharsis_rsync --wsrep-sst-receive-address="127.0.0.1:$(sst_port "$dir" "$i")" \
    --wsrep-slave-threads=2 $new_cluster ${THARSIS_MARIADB_ARGS:-} \
    </dev/null >/dev/null 2>&1 &
  echo $! >"$nd/launcher.pid"
}

# Waits up to `seconds` for node I to be ready in a cluster of `want` nodes.
wait_ready() {
  local dir="$1" i="$2" want="$3" seconds="${4:-120}"
  local nd; nd="$(node_dir "$dir" "$i")"
  local pid; pid="$(cat "$nd/launcher.pid")"
  for _ in $(seq 1 $((seconds * 5))); do
    if node_ready "$dir" "$i" "$want"; then return 0; fi
    if ! kill -0 "$pid" 2>/dev/null; then
      die "node $i (mariadbd $pid) exited while starting; last lines of $nd/mysqld.log:
$(log_tail "$nd")"
    fi
    sleep 0.2
  done
  die "node $i not ready in a cluster of $want within $seconds s; last lines of $nd/mysqld.log:
$(log_tail "$nd")"
}

# How many nodes are running now (a node killed and not restarted is not).
running_nodes() {
  local dir="$1" n count=0; n="$(nodes_of "$dir")"
  for i in $(seq 1 "$n"); do
    local pidfile; pidfile="$(node_dir "$dir" "$i")/launcher.pid"
    [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null && count=$((count + 1))
  done
  echo "$count"
}

start() {
  local dir; dir="$(realpath -m "$1")"
  local n="${2:-3}"
  [[ "$n" =~ ^[1-9][0-9]?$ ]] || die "N must be 1..99, got '$n'"
  [ -x /usr/sbin/mariadbd ] || command -v mariadbd >/dev/null || die "mariadbd is not installed"
  [ -f "$PROVIDER" ] || die "galera is not installed ($PROVIDER missing; apt-get install galera-4)"
  command -v rsync >/dev/null || die "rsync is not installed (SST needs it; apt-get install rsync)"
  if [ -f "$dir/nodes" ]; then
    local all=1
    for i in $(seq 1 "$(nodes_of "$dir")"); do node_ready "$dir" "$i" "$(nodes_of "$dir")" || all=0; done
    [ "$all" -eq 1 ] && return 0
    die "$dir holds a cluster that is not fully running; stop it first"
  fi
  mkdir -p "$dir"
  chmod 755 "$dir"  # the web server's user (CGIs) must reach the sockets
  echo "$n" >"$dir/nodes"
  choose_base_port "$n" >"$dir/base_port"
  make_sst_wrappers "$dir"
  # Node 1 gets the system tables; the joiners receive everything by SST.
  local n1; n1="$(node_dir "$dir" 1)"
  mkdir -p "$n1/tmp"
  # shellcheck disable=SC2046
  mariadb-install-db --no-defaults --datadir="$n1/data" --tmpdir="$n1/tmp" $(user_args) \
    --auth-root-authentication-method=normal --skip-test-db --skip-name-resolve \
    >"$dir/install.log" 2>&1 ||
    die "mariadb-install-db failed for $n1/data; last lines of $dir/install.log:
$(tail -n 20 "$dir/install.log")"
  launch_node "$dir" 1 bootstrap
  wait_ready "$dir" 1 1
  # root over TCP from 127.0.0.1 too (host:port entries in config.xml); replicated by
  # Galera to every joiner.
  sql "$dir" 1 "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY '';
GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;" ||
    die "could not create root@127.0.0.1 on node 1"
  # One joiner at a time: two simultaneous SSTs from one donor would fight for it.
  for i in $(seq 2 "$n"); do
    launch_node "$dir" "$i"
    wait_ready "$dir" "$i" "$i"
  done
  for i in $(seq 1 "$n"); do wait_ready "$dir" "$i" "$n" 30; done
}

node_pid() {
  local pidfile; pidfile="$(node_dir "$1" "$2")/launcher.pid"
  [ -f "$pidfile" ] && cat "$pidfile" || true
}

check_node() {
  local dir="$1" i="$2"
  [ -f "$dir/nodes" ] || die "$dir holds no private Galera cluster"
  [[ "$i" =~ ^[0-9]+$ ]] && [ "$i" -ge 1 ] && [ "$i" -le "$(nodes_of "$dir")" ] ||
    die "node must be 1..$(nodes_of "$dir"), got '$i'"
}

kill_node() {
  local dir; dir="$(realpath -m "$1")"
  check_node "$dir" "$2"
  local pid; pid="$(node_pid "$dir" "$2")"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || die "node $2 is not running"
  kill -9 "$pid"
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
}

halt_node() {
  local dir="$1" i="$2"
  local pid; pid="$(node_pid "$dir" "$i")"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  mariadb-admin --no-defaults --socket="$(socket_of "$dir" "$i")" --user=root shutdown \
    >/dev/null 2>&1 || kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    echo "private_galera: node $i (mariadbd $pid) did not stop within 30 s; killing it" >&2
    kill -9 "$pid" 2>/dev/null || true
  fi
}

restart_node() {
  local dir; dir="$(realpath -m "$1")"
  local i="$2"
  check_node "$dir" "$i"
  local pid; pid="$(node_pid "$dir" "$i")"
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then die "node $i is running; kill or halt it first"; fi
  local running; running="$(running_nodes "$dir")"
  [ "$running" -ge 1 ] || die "no node is running: nothing to rejoin (stop and start the cluster)"
  launch_node "$dir" "$i"
  wait_ready "$dir" "$i" $((running + 1))
}

stop() {
  local dir; dir="$(realpath -m "$1")"
  [ -d "$dir" ] || return 0
  [ -f "$dir/nodes" ] || {
    [ -z "$(ls -A "$dir")" ] && { rmdir "$dir"; return 0; }
    die "not removing $dir: it holds no private Galera cluster"
  }
  local n; n="$(nodes_of "$dir")"
  # Joiners first, the bootstrap node last (the one that would be safe to bootstrap).
  for i in $(seq "$n" -1 1); do halt_node "$dir" "$i"; done
  rm -rf "$dir"
}

status() {
  local dir; dir="$(realpath -m "$1")"
  [ -f "$dir/nodes" ] || { echo "not running"; return 1; }
  local n all=0; n="$(nodes_of "$dir")"
  for i in $(seq 1 "$n"); do
    if answers "$dir" "$i"; then
      echo "$i $(socket_of "$dir" "$i") $(sql_port "$dir" "$i") \
$(wsrep_status "$dir" "$i" wsrep_local_state_comment) ready=$(wsrep_status "$dir" "$i" wsrep_ready) \
size=$(wsrep_status "$dir" "$i" wsrep_cluster_size)"
      node_ready "$dir" "$i" "$n" || all=1
    else
      echo "$i $(socket_of "$dir" "$i") $(sql_port "$dir" "$i") down"
      all=1
    fi
  done
  return $all
}

usage="usage: $0 {start DIR [N]|stop DIR|kill DIR I|restart DIR I|halt DIR I|status DIR|socket DIR I|port DIR I}"
[ $# -ge 2 ] || die "$usage"
case "$1" in
  start) [ $# -le 3 ] || die "$usage"; start "$2" "${3:-3}" ;;
  stop) [ $# -eq 2 ] || die "$usage"; stop "$2" ;;
  status) [ $# -eq 2 ] || die "$usage"; status "$2" ;;
  kill) [ $# -eq 3 ] || die "$usage"; kill_node "$2" "$3" ;;
  restart) [ $# -eq 3 ] || die "$usage"; restart_node "$2" "$3" ;;
  halt) [ $# -eq 3 ] || die "$usage"; d="$(realpath -m "$2")"; check_node "$d" "$3"; halt_node "$d" "$3" ;;
  socket) [ $# -eq 3 ] || die "$usage"; d="$(realpath -m "$2")"; check_node "$d" "$3"; socket_of "$d" "$3" ;;
  port) [ $# -eq 3 ] || die "$usage"; d="$(realpath -m "$2")"; check_node "$d" "$3"; sql_port "$d" "$3" ;;
  *) die "$usage" ;;
esac
