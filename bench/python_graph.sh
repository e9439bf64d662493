#!/usr/bin/env bash
# Python client speed (issue 15): build a graph of 10,000 chunk operands with
# tharsis.tensor and submit it to a live project over HTTP, whole processes: a private
# MariaDB, the project served by a private Apache (submit_rpc as Apache runs it), the
# package from the tree on Debian's python3. The graph is a chain x_i = x_(i-1) + rand_i of
# one-chunk tensors ending in + ones: 5,000 rand, one ones and 5,000 add nodes, each one
# chunk operand that fusion cannot merge, so the client builds 10,001 nodes and the server
# makes 10,001 operands.
# Printed: the client-side time to build the tensors, to write the JSON graph, the submit
# round trip (the server compiles and stores the graph inside it), the bytes sent, and
# the operand count the server reports. No volunteers: the graph is aborted afterwards.
#   bench/python_graph.sh BUILD_DIR [NODES]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:?usage: python_graph.sh BUILD_DIR [NODES]}" && pwd)"
nodes="${2:-10000}"
for program in make_project add_app create_account grant_submit submit_rpc operand_app; do
  [ -x "$build/$program" ] || { echo "python_graph: $build/$program is missing; build it first" >&2; exit 2; }
done
base="$(mktemp -d "${TMPDIR:-/tmp}/tharsis-pybench-XXXXXX")"
chmod 755 "$base"
cleanup() {
  "$here/scripts/private_apache.sh" stop "$base/apache" >/dev/null 2>&1 || true
  "$here/scripts/private_mariadb.sh" stop "$base/db" >/dev/null 2>&1 || true
  rm -rf "$base"
}
trap cleanup EXIT
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$here/scripts/private_mariadb.sh" start "$base/db" >/dev/null
p="$base/project"
"$build/make_project" --project_dir "$p" --name bench --url_base "http://127.0.0.1:$port/" \
  --db_socket "$base/db/mysqld.sock" --db_user root --db_name bench --key_bits 1024 >/dev/null
"$here/scripts/install_programs.sh" "$build" "$p" >/dev/null
"$here/scripts/private_apache.sh" start "$base/apache" "$port" "$p/bench.httpd.conf" >/dev/null
"$build/add_app" --project_dir "$p" --app operand --comparator numeric --file "$build/operand_app" >/dev/null
key="$("$build/create_account" --project_dir "$p" --name scientist --email s@example.org 2>/dev/null)"
"$build/grant_submit" --project_dir "$p" --email s@example.org --all >/dev/null
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

PYTHONPATH="$here/python" /usr/bin/python3 - "http://127.0.0.1:$port/bench/" "$key" "$nodes" <<'PY'
import sys, time
import tharsis, tharsis.tensor as tt
url, key, nodes = sys.argv[1], sys.argv[2], int(sys.argv[3])
session = tharsis.Session(url, key)
session.client.ping()  # the connection is warm before timing
t0 = time.perf_counter()
x = tt.random.rand(10, 10, seed=0)
for i in range(1, nodes // 2):
    x = x + tt.random.rand(10, 10, seed=i)
x = x + tt.ones((10, 10))
t1 = time.perf_counter()
text = x.to_json()
t2 = time.perf_counter()
sent_before = session.client.transport.bytes_sent
future = session.submit(x, name="pybench")
t3 = time.perf_counter()
sent = session.client.transport.bytes_sent - sent_before
print(f"nodes built {nodes}: build {t1 - t0:.3f} s, JSON {t2 - t1:.3f} s ({len(text)} bytes), "
      f"submit round trip {t3 - t2:.3f} s ({sent} bytes sent); client-side total {t3 - t0:.3f} s")
print(f"server: graph {future.graph_id}, {future.graph.operand_count} chunk operands after fusion")
future.cancel()
PY
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
