#!/usr/bin/env bash
# A private MariaDB for tests, benchmarks and the demo: its own datadir and Unix socket
# under DIR, no TCP (--skip-networking), started as the current user. It never reads
# /etc/mysql or ~/.my.cnf (--no-defaults everywhere) and never touches a system service.
#   private_mariadb.sh start DIR    initialise DIR if new, start, wait until it answers
#   private_mariadb.sh stop DIR     shut down cleanly (kill after 30 s) and remove DIR
#   private_mariadb.sh halt DIR     shut down but keep DIR (a later start resumes it)
#   private_mariadb.sh status DIR   exit 0 and print "running" when it answers
#   private_mariadb.sh start-primary DIR [PORT]
#                                   like start, plus TCP on 127.0.0.1:PORT (a free one if
#                                   omitted; written to DIR/port), a row-format binlog with
#                                   GTIDs (server_id 1) and a user 'repl'@'127.0.0.1' (no
#                                   password) allowed to replicate
#   private_mariadb.sh start-replica DIR PRIMARY_DIR
#                                   start a read-only asynchronous replica of the primary
#                                   in PRIMARY_DIR (CHANGE MASTER TO 127.0.0.1:port, GTID
#                                   based, from the primary's first binlog: start it before
#                                   loading data, or load the replica the same way); waits
#                                   until both replication threads run
#   private_mariadb.sh replica-lag DIR  print Seconds_Behind_Master (NULL when stopped)
# Layout: DIR/data (datadir), DIR/mysqld.sock, DIR/mysqld.pid, DIR/mysqld.log.
# Access: user 'root' with an empty password over DIR/mysqld.sock, whoever started it.
# (--auth-root-authentication-method=normal: with 'socket', only an OS user named root
# could log in as root, so tests run by an ordinary user could not.)
# THARSIS_MARIADB_ARGS adds server options (bench: a bigger buffer pool).
set -euo pipefail

die() { echo "private_mariadb: $*" >&2; exit 1; }

socket_of() { echo "$1/mysqld.sock"; }

answers() {
  [ -S "$(socket_of "$1")" ] || return 1
  # ping exits 0 whenever the server is alive (even if access were denied).
  mariadb-admin --no-defaults --socket="$(socket_of "$1")" --user=root --connect-timeout=2 \
    ping >/dev/null 2>&1
}

log_tail() { tail -n 20 "$1/mysqld.log" 2>/dev/null || echo "(no log at $1/mysqld.log)"; }

user_args() { [ "$(id -u)" -eq 0 ] && echo "--user=root" || true; }

initialise() {
  local dir="$1"
  [ -d "$dir/data/mysql" ] && return 0
  rm -rf "$dir/data"
  # shellcheck disable=SC2046
  mkdir -p "$dir/tmp"
  # Its own tmpdir: two bootstraps sharing /tmp collide on temporary table names.
  mariadb-install-db --no-defaults --datadir="$dir/data" --tmpdir="$dir/tmp" $(user_args) \
    --auth-root-authentication-method=normal --skip-test-db --skip-name-resolve \
    >"$dir/install.log" 2>&1 ||
    die "mariadb-install-db failed for $dir/data; last lines of $dir/install.log:
$(tail -n 20 "$dir/install.log")"
}

# start DIR [server options...]: the options are added to mariadbd's command line.
start() {
  local dir; dir="$(realpath -m "$1")"
  shift
  local -a extra=("$@")
  local sock; sock="$(socket_of "$dir")"
  # sun_path holds 108 bytes including the terminating NUL.
  [ ${#sock} -lt 108 ] || die "socket path is ${#sock} bytes, a Unix socket allows 107: $sock"
  mkdir -p "$dir"
  chmod 755 "$dir"  # the web server's user (CGIs) must reach the socket
  if answers "$dir"; then return 0; fi
  initialise "$dir"
  # Small and fast, since this server holds throw-away test and demo data only: a 64 MiB
  # buffer pool and 16 MiB redo log start quickly on a shared 2-core machine, and
  # flush-at-commit=2 skips the fsync per commit (a crash of the OS, not of mariadbd,
  # could lose the last second — irrelevant for tests, and it makes them much faster).
  # shellcheck disable=SC2046,SC2086
  mkdir -p "$dir/tmp"
  local -a binlog=(--skip-log-bin)
  [[ " ${extra[*]} " == *" --log-bin"* ]] && binlog=()
  local networking="--skip-networking"
  [[ " ${extra[*]} " == *" --port="* ]] && networking="--bind-address=127.0.0.1"
  mariadbd --no-defaults --datadir="$dir/data" --tmpdir="$dir/tmp" --socket="$sock" "$networking" \
    --pid-file="$dir/mysqld.pid" --log-error="$dir/mysqld.log" $(user_args) \
    --innodb-buffer-pool-size=64M --innodb-log-file-size=16M \
    --innodb-flush-log-at-trx-commit=2 "${binlog[@]}" --max-connections=500 \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci \
    --skip-name-resolve ${THARSIS_MARIADB_ARGS:-} "${extra[@]}" \
    </dev/null >/dev/null 2>&1 &
  local server_pid=$!
  for _ in $(seq 1 300); do
    if answers "$dir"; then return 0; fi
    if ! kill -0 "$server_pid" 2>/dev/null; then
      die "mariadbd exited while starting on $sock; last lines of $dir/mysqld.log:
$(log_tail "$dir")"
    fi
    sleep 0.1
  done
  die "mariadbd did not answer on $sock within 30 s; last lines of $dir/mysqld.log:
$(log_tail "$dir")"
}

halt() {
  local dir="$1"
  [ -d "$dir" ] || return 0
  local pid=""
  [ -f "$dir/mysqld.pid" ] && pid="$(cat "$dir/mysqld.pid")"
  if answers "$dir"; then
    mariadb-admin --no-defaults --socket="$(socket_of "$dir")" --user=root shutdown \
      >/dev/null 2>&1 || true
  fi
  if [ -n "$pid" ]; then
    for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
      echo "private_mariadb: mariadbd $pid did not stop within 30 s; killing it" >&2
      kill -9 "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$(socket_of "$dir")" "$dir/mysqld.pid"
}

stop() {
  local dir="$1"
  [ -d "$dir" ] || return 0
  halt "$dir"
  # Remove only a directory this script made (or an empty one): a wrong argument must
  # never wipe anything else.
  if [ -d "$dir/data" ] || [ -z "$(ls -A "$dir")" ]; then
    rm -rf "$dir"
  else
    die "not removing $dir: it holds no private MariaDB data dir"
  fi
}

status() {
  if answers "$1"; then echo "running"; return 0; fi
  echo "not running"
  return 1
}

sql() {  # sql DIR STATEMENTS
  mariadb --no-defaults --socket="$(socket_of "$1")" --user=root --batch --skip-column-names \
    -e "$2"
}

port_free() { ! ss -Htln "sport = :$1" 2>/dev/null | grep -q .; }

start_primary() {
  local dir; dir="$(realpath -m "$1")"
  local port="${2:-}"
  if [ -z "$port" ]; then
    if [ -f "$dir/port" ]; then
      port="$(cat "$dir/port")"
    else
      for _ in $(seq 1 50); do
        port=$((30000 + RANDOM % 5000))
        port_free "$port" && break
      done
    fi
  fi
  [[ "$port" =~ ^[0-9]+$ ]] || die "PORT must be a number, got '$port'"
  start "$dir" --port="$port" --log-bin=binlog --server-id=1 --binlog-format=ROW \
    --log-slave-updates=OFF
  echo "$port" >"$dir/port"
  sql "$dir" "CREATE USER IF NOT EXISTS 'repl'@'127.0.0.1' IDENTIFIED BY '';
GRANT REPLICATION SLAVE ON *.* TO 'repl'@'127.0.0.1';" ||
    die "could not create the replication user on $dir"
}

start_replica() {
  local dir; dir="$(realpath -m "$1")"
  local primary; primary="$(realpath -m "$2")"
  [ -f "$primary/port" ] || die "$primary is not a primary started with start-primary"
  answers "$primary" || die "the primary in $primary is not running"
  # server_id from the path: two replicas of one primary must differ.
  local id=$((2 + $(cksum <<<"$dir" | cut -d' ' -f1) % 1000000))
  start "$dir" --server-id="$id" --read-only=ON --relay-log=relay
  sql "$dir" "STOP SLAVE; CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=$(cat "$primary/port"),
MASTER_USER='repl', MASTER_PASSWORD='', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1;
START SLAVE;" || die "CHANGE MASTER TO failed on $dir"
  for _ in $(seq 1 150); do
    local rows; rows="$(mariadb --no-defaults --socket="$(socket_of "$dir")" --user=root -e \
      'SHOW SLAVE STATUS\G' 2>/dev/null)"
    if grep -q 'Slave_IO_Running: Yes' <<<"$rows" && grep -q 'Slave_SQL_Running: Yes' <<<"$rows"; then
      return 0
    fi
    sleep 0.2
  done
  die "replica $dir did not start replicating within 30 s:
$(mariadb --no-defaults --socket="$(socket_of "$dir")" --user=root -e 'SHOW SLAVE STATUS\G' 2>&1 |
    grep -E 'Running|Error')"
}

replica_lag() {
  mariadb --no-defaults --socket="$(socket_of "$1")" --user=root -e 'SHOW SLAVE STATUS\G' |
    sed -n 's/^ *Seconds_Behind_Master: //p'
}

usage="usage: $0 {start|stop|halt|status|replica-lag} DIR | start-primary DIR [PORT] | start-replica DIR PRIMARY_DIR"
case "${1:-}" in
  start-primary) [ $# -eq 2 ] || [ $# -eq 3 ] || die "$usage"; start_primary "$2" "${3:-}"; exit ;;
  start-replica) [ $# -eq 3 ] || die "$usage"; start_replica "$2" "$3"; exit ;;
  replica-lag) [ $# -eq 2 ] || die "$usage"; replica_lag "$2"; exit ;;
esac
[ $# -eq 2 ] || die "usage: $0 {start|stop|halt|status} DIR"
case "$1" in
  start) start "$2" ;;
  stop) stop "$2" ;;
  halt) halt "$2" ;;
  status) status "$2" ;;
  *) die "usage: $0 {start|stop|halt|status} DIR" ;;
esac
