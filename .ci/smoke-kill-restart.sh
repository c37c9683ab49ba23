#!/usr/bin/env bash
# kill -9 with webhook work pending, then restart: every event committed before the kill is delivered
# after the restart, exactly once. The receiver is down during the first run, so no delivery can land
# before the kill and a duplicate afterwards would be a real one. Loopback only. Needs dist/ (npm start built it).
set -euo pipefail
data=$(mktemp -d)
received="$data/received.txt"
port=$((20000 + RANDOM % 20000))
receiver_port=$((port + 1))
env_vars=(DATA_DIR="$data/db" PORT="$port" HOST=127.0.0.1 ADMIN_EMAIL=ci@example.com ADMIN_PASSWORD=ci-password-123
  WEBHOOK_ALLOW_PRIVATE_URLS=true WEBHOOK_RETRY_SCHEDULE=1s,1s,1s,1s,1s,1s,1s,1s LOG_LEVEL=warn)
service_pid=""
receiver_pid=""
cleanup() { kill -9 $service_pid $receiver_pid 2>/dev/null || true; rm -rf "$data"; }
trap cleanup EXIT
wait_for() { for _ in $(seq 1 120); do curl -fsS "$1" >/dev/null 2>&1 && return 0; sleep 0.5; done; echo "no answer from $1"; return 1; }

env -u DATABASE_URL -u REDIS_URL "${env_vars[@]}" node dist/src/main.js >"$data/first.log" 2>&1 &
service_pid=$!
wait_for "http://127.0.0.1:$port/api/health"
token=$(curl -fsS -X POST "http://127.0.0.1:$port/api/v1/auth/login" -H 'content-type: application/json' \
  -d '{"email":"ci@example.com","password":"ci-password-123"}' | node -pe 'JSON.parse(require("fs").readFileSync(0)).token')
curl -fsS -X POST "http://127.0.0.1:$port/api/v1/webhooks" -H "authorization: Bearer $token" -H 'content-type: application/json' \
  -d "{\"url\":\"http://127.0.0.1:$receiver_port/hook\",\"events\":[\"contact.created\"],\"secret\":\"ci-webhook-secret-123456\"}" >/dev/null
for i in $(seq 10 39); do
  curl -fsS -X POST "http://127.0.0.1:$port/api/v1/contacts" -H "authorization: Bearer $token" -H 'content-type: application/json' \
    -d "{\"phone\":\"+1415555$((1000 + i))\"}" >/dev/null
done
kill -9 "$service_pid"
wait "$service_pid" 2>/dev/null || true
echo "killed with 30 events committed; the receiver was down, so none was delivered"

node -e '
  const { appendFileSync } = require("node:fs");
  require("node:http").createServer((req, res) => {
    req.resume();
    req.on("end", () => { appendFileSync(process.argv[1], req.headers["webhook-id"] + "\n"); res.end("ok"); });
  }).listen(Number(process.argv[2]), "127.0.0.1");
' "$received" "$receiver_port" &
receiver_pid=$!
touch "$received"

env -u DATABASE_URL -u REDIS_URL "${env_vars[@]}" node dist/src/main.js >"$data/second.log" 2>&1 &
service_pid=$!
wait_for "http://127.0.0.1:$port/api/health"
for _ in $(seq 1 60); do [ "$(sort -u "$received" | wc -l)" -ge 30 ] && break; sleep 1; done
sleep 3
unique=$(sort -u "$received" | wc -l)
total=$(wc -l < "$received")
echo "after the restart: $total deliveries of $unique distinct events"
[ "$unique" -eq 30 ] && [ "$total" -eq 30 ]
