#!/usr/bin/env bash
# A private Apache httpd for tests, benchmarks and the demo: listens on 127.0.0.1 only,
# keeps all its state under DIR, and never touches the system apache2 service.
#   private_apache.sh start DIR PORT [INCLUDE...]   write DIR/httpd.conf, start, wait
#   private_apache.sh stop DIR                      stop and wait for the processes to end
# Each INCLUDE is an httpd config file (e.g. the one make_project writes for a project);
# a project's include sets mod_fcgid's FcgidMaxRequestLen itself and sends larger or
# chunked bodies to the CGI build (tools/lib/make_project.h), so it is not set here.
# Modules loaded: those a project's include needs (alias, cgid, fcgid, mime, dir,
# authz_core; its <If> sections are Apache core), mpm_event, env, and proxy with proxy_fcgi
# (to reach FastCGI pools: sched/lib/fastcgi_pool.h).
# When run as root, Apache's workers and CGIs run as www-data (Apache refuses root);
# the caller makes the project's files readable and upload/ writable for that user.
set -euo pipefail
modules=/usr/lib/apache2/modules

die() { echo "private_apache: $*" >&2; exit 1; }

start() {
  local dir="$1" port="$2"; shift 2
  [[ "$port" =~ ^[0-9]+$ ]] || die "expected a port number, found '$port'"
  mkdir -p "$dir/fcgid"
  dir="$(cd "$dir" && pwd)"
  local user_lines=""
  if [ "$(id -u)" -eq 0 ]; then
    user_lines=$'User www-data\nGroup www-data'
    chown www-data: "$dir/fcgid"
    chmod 755 "$dir"
  fi
  {
    echo "ServerRoot $dir"
    echo "ServerName 127.0.0.1"
    echo "Listen 127.0.0.1:$port"
    echo "PidFile $dir/httpd.pid"
    echo "ErrorLog $dir/error.log"
    echo "LogLevel warn"
    echo 'LogFormat "%h %t \"%r\" %>s %b %D" timed'
    echo "CustomLog $dir/access.log timed"
    for m in mpm_event authz_core alias mime dir cgid fcgid env proxy proxy_fcgi; do
      echo "LoadModule ${m}_module $modules/mod_${m}.so"
    done
    echo "$user_lines"
    echo "TypesConfig /etc/mime.types"
    echo "ScriptSock $dir/cgid.sock"
    echo "FcgidIPCDir $dir/fcgid"
    echo "FcgidProcessTableFile $dir/fcgid/shm"
    echo "FcgidMaxRequestsPerProcess 0"
    echo "FcgidMaxProcessesPerClass 4"
    echo "Timeout 30"
    echo "KeepAlive On"
    echo "MaxRequestWorkers 64"
    echo "ThreadsPerChild 32"
    # A sanitizer build's options (docs/reliability.md#sanitizers) reach the CGIs too, so
    # their reports land where the test run collects them.
    for v in ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS; do
      if [ -n "${!v:-}" ]; then echo "PassEnv $v"; echo "FcgidInitialEnv $v \"${!v}\""; fi
    done
    echo "<Directory />"
    echo "  Require all denied"
    echo "  AllowOverride None"
    echo "</Directory>"
    for inc in "$@"; do echo "Include $(realpath "$inc")"; done
  } > "$dir/httpd.conf"
  /usr/sbin/apache2 -t -f "$dir/httpd.conf" 2> "$dir/configtest.log" ||
    die "config test failed: $(cat "$dir/configtest.log")"
  /usr/sbin/apache2 -f "$dir/httpd.conf" -k start
  for _ in $(seq 1 100); do
    if [ -s "$dir/httpd.pid" ] && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      return 0
    fi
    sleep 0.1
  done
  die "httpd did not answer on 127.0.0.1:$port within 10 s; error log: $(tail -5 "$dir/error.log" 2>/dev/null)"
}

stop() {
  local dir="$1"
  [ -f "$dir/httpd.pid" ] || return 0
  local pid
  pid="$(cat "$dir/httpd.pid")"
  /usr/sbin/apache2 -f "$dir/httpd.conf" -k stop 2>/dev/null || kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null || true
}

case "${1:-}" in
  start) [ $# -ge 3 ] || die "usage: start DIR PORT [INCLUDE...]"; shift; start "$@" ;;
  stop) [ $# -eq 2 ] || die "usage: stop DIR"; stop "$2" ;;
  *) die "usage: $0 {start DIR PORT [INCLUDE...]|stop DIR}" ;;
esac
