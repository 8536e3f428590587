#!/usr/bin/env bash
# Feeds the same session to `redis-cli --no-raw` against a real redis-server
# (started here on a free loopback port, stopped on exit) and to
# `redsim repl`, and requires byte-identical output.
# Usage: repl_matches_redis_cli_test.sh <redsim binary> <session file>
set -euo pipefail
redsim=$1
session=$2
command -v redis-server >/dev/null || { echo "redis-server not installed (tools/setup.sh installs it)"; exit 1; }

dir=$(mktemp -d)
pid=""
cleanup() {
  [[ -n $pid ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
  --enable-debug-command yes --dir "$dir" --logfile "$dir/redis.log" &
pid=$!
for _ in $(seq 100); do
  redis-cli -p "$port" PING 2>/dev/null | grep -q PONG && break
  sleep 0.05
done

redis-cli -p "$port" --no-raw < "$session" > "$dir/real.txt"
"$redsim" repl < "$session" > "$dir/fake.txt"
if ! diff -u "$dir/real.txt" "$dir/fake.txt"; then
  echo "FAIL: redsim repl differs from redis-cli against redis-server $(redis-server --version | awk '{print $3}')"
  exit 1
fi
echo "ok: $(wc -l < "$session") commands, identical output"
