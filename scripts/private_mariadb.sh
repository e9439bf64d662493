#!/usr/bin/env bash
# A private MariaDB for tests, benchmarks and the demo: its own datadir and Unix socket
# under DIR, no TCP (--skip-networking), started as the current user. It never reads
# /etc/mysql or ~/.my.cnf (--no-defaults everywhere) and never touches a system service.
#   private_mariadb.sh start DIR    initialise DIR if new, start, wait until it answers
#   private_mariadb.sh stop DIR     shut down cleanly (kill after 30 s) and remove DIR
#   private_mariadb.sh halt DIR     shut down but keep DIR (a later start resumes it)
#   private_mariadb.sh status DIR   exit 0 and print "running" when it answers
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

start() {
  local dir; dir="$(realpath -m "$1")"
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
  mariadbd --no-defaults --datadir="$dir/data" --tmpdir="$dir/tmp" --socket="$sock" --skip-networking \
    --pid-file="$dir/mysqld.pid" --log-error="$dir/mysqld.log" $(user_args) \
    --innodb-buffer-pool-size=64M --innodb-log-file-size=16M \
    --innodb-flush-log-at-trx-commit=2 --skip-log-bin --max-connections=500 \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci \
    --skip-name-resolve ${THARSIS_MARIADB_ARGS:-} \
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

[ $# -eq 2 ] || die "usage: $0 {start|stop|halt|status} DIR"
case "$1" in
  start) start "$2" ;;
  stop) stop "$2" ;;
  halt) halt "$2" ;;
  status) status "$2" ;;
  *) die "usage: $0 {start|stop|halt|status} DIR" ;;
esac
