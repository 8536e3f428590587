#!/usr/bin/env bash
# Runs `redsim difftest ARGS...` against a redis-server 7.0 started here on a
# free loopback port (debug commands on, persistence off) and stopped on exit.
# Usage: difftest_against_redis.sh <redsim binary> [difftest options]
set -euo pipefail
redsim=$1
shift
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
"$redsim" difftest --port "$port" "$@"
