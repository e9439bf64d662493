#!/usr/bin/env bash
# A private MariaDB for tests, benchmarks and the demo: its own datadir and Unix socket
# under DIR, no TCP (--skip-networking), started as the current user. It never reads
# /etc/mysql (--no-defaults) and never touches the system service.
#   private_mariadb.sh start DIR    initialise DIR if new, start, wait until it answers
#   private_mariadb.sh stop DIR     shut down cleanly (kill after 30 s) and remove DIR
#   private_mariadb.sh halt DIR     shut down but keep DIR (a later start resumes it)
#   private_mariadb.sh status DIR   exit 0 when it answers
# The server's root account is reachable over DIR/mysqld.sock by the user who started it
# (unix_socket authentication for root; plus an empty-password root for a non-root user,
# since the OS user then differs from 'root').
set -euo pipefail

die() { echo "private_mariadb: $*" >&2; exit 1; }

socket_of() { echo "$1/mysqld.sock"; }

answers() {
  mariadb-admin --no-defaults --socket="$(socket_of "$1")" --user=root --connect-timeout=2 \
    ping >/dev/null 2>&1
}

start() {
  local dir="$1"
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  local sock; sock="$(socket_of "$dir")"
  [ ${#sock} -lt 100 ] || die "socket path too long for a Unix socket: $sock"
  if answers "$dir"; then return 0; fi
  local user_args=()
  [ "$(id -u)" -eq 0 ] && user_args=(--user=root)
  if [ ! -d "$dir/data/mysql" ]; then
    mariadb-install-db --no-defaults --datadir="$dir/data" "${user_args[@]}" \
      --auth-root-authentication-method=socket --skip-test-db >"$dir/install.log" 2>&1 ||
      die "mariadb-install-db failed: $(tail -5 "$dir/install.log")"
  fi
  # Small buffers and relaxed flushing: this server holds test and demo data only.
  mariadbd --no-defaults --datadir="$dir/data" --socket="$sock" --skip-networking \
    --pid-file="$dir/mysqld.pid" --log-error="$dir/mysqld.log" "${user_args[@]}" \
    --innodb-buffer-pool-size=128M --innodb-log-file-size=48M \
    --innodb-flush-log-at-trx-commit=2 --skip-log-bin --max-connections=500 \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci \
    </dev/null >/dev/null 2>&1 &
  for _ in $(seq 1 300); do
    if answers "$dir"; then
      if [ "$(id -u)" -ne 0 ] && [ ! -e "$dir/.root-password-set" ]; then
        # A non-root OS user cannot use root's unix_socket login from programs that
        # connect as 'root'; give root an empty password on this private server.
        mariadb --no-defaults --socket="$sock" --user=root \
          -e "ALTER USER root@localhost IDENTIFIED VIA unix_socket OR mysql_native_password USING PASSWORD('')" &&
          touch "$dir/.root-password-set"
      fi
      return 0
    fi
    sleep 0.1
  done
  die "mariadbd did not answer on $sock within 30 s; log: $(tail -5 "$dir/mysqld.log" 2>/dev/null)"
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
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$(socket_of "$dir")"
}

stop() {
  halt "$1"
  rm -rf "$1"
}

case "${1:-}" in
  start) [ $# -eq 2 ] || die "usage: start DIR"; start "$2" ;;
  stop) [ $# -eq 2 ] || die "usage: stop DIR"; stop "$2" ;;
  halt) [ $# -eq 2 ] || die "usage: halt DIR"; halt "$2" ;;
  status) [ $# -eq 2 ] || die "usage: status DIR"; answers "$2" ;;
  *) die "usage: $0 {start|stop|halt|status} DIR" ;;
esac
