#!/usr/bin/env bash
# `npm start` on the embedded default: serves, answers health and the database probe, logs in with
# the one-time admin password it kept in DATA_DIR/admin-password.txt, serves the console at /, then stops cleanly on SIGTERM and releases DATA_DIR.
set -euo pipefail
out=$1
data=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
log="$out/embedded-start.out"
env -u DATABASE_URL -u REDIS_URL DATA_DIR="$data" PORT="$port" HOST=127.0.0.1 npm start >"$log" 2>&1 &
npm_pid=$!
node_pid=""
cleanup() { if [ -n "$node_pid" ]; then kill -9 "$node_pid" 2>/dev/null || true; fi; kill "$npm_pid" 2>/dev/null || true; rm -rf "$data"; }
trap cleanup EXIT

for _ in $(seq 1 120); do curl -fsS "http://127.0.0.1:$port/api/health" >/dev/null 2>&1 && break; sleep 1; done
curl -fsS "http://127.0.0.1:$port/api/health"; echo
curl -fsS "http://127.0.0.1:$port/api/health/db"; echo
# The generated password, where the first-start banner says it is: DATA_DIR/admin-password.txt, the owner's only.
grep -q 'First start: log in to the console' "$log"
[ "$(stat -c %a "$data/admin-password.txt")" = 600 ] || { echo "admin-password.txt is not mode 600"; exit 1; }
password=$(sed -n 2p "$data/admin-password.txt")
token=$(curl -fsS -X POST "http://127.0.0.1:$port/api/v1/auth/login" -H 'content-type: application/json' \
  -d "{\"email\":\"admin@localhost\",\"password\":\"$password\"}" | node -pe 'JSON.parse(require("fs").readFileSync(0)).token')
curl -fsS "http://127.0.0.1:$port/api/v1/me" -H "authorization: Bearer $token"; echo
# The console, built by npm start's build, at /.
curl -fsS "http://127.0.0.1:$port/" | grep -q '<div id="app"></div>' && echo "the console answers at /"

# npm runs the script through a shell: signal the node process that owns the port, as an orchestrator would.
node_pid=$(ss -ltnpH "sport = :$port" | grep -o 'pid=[0-9]*' | head -n1 | cut -d= -f2)
kill -TERM "$node_pid"
for _ in $(seq 1 20); do kill -0 "$node_pid" 2>/dev/null || break; sleep 0.5; done
if kill -0 "$node_pid" 2>/dev/null; then echo "still running 10 s after SIGTERM"; exit 1; fi
if [ -e "$data/team-inbox.lock" ]; then echo "DATA_DIR lock left behind"; exit 1; fi
echo "stopped cleanly"
