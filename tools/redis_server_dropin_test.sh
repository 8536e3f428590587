#!/bin/bash
# A harness of the usual shape for redis-server, run unchanged against
# redsim through a `redis-server` symlink: a config file plus --port, wait
# for the ready line in the logfile, PING, SET/GET, CONFIG GET, SHUTDOWN;
# then --daemonize yes with a pidfile, stopped by SIGTERM; then options the
# fake refuses (exit 1, Redis's message).
# Usage: redis_server_dropin_test.sh <redsim binary>
set -euo pipefail
redsim=$(realpath "$1")
scratch=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$scratch"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
wait_for() {  # file pattern
  for _ in $(seq 100); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    sleep 0.05
  done
  fail "no '$2' in $1: $(cat "$1" 2>/dev/null)"
}
mkdir -p "$scratch/bin" "$scratch/data"
ln -s "$redsim" "$scratch/bin/redis-server"
export PATH="$scratch/bin:$PATH"

# 1. Config file + --port, the logfile carries the ready line; SHUTDOWN ends it.
port=$(free_port)
cat > "$scratch/redis.conf" <<CONF
# written by a test harness
port 1
bind 127.0.0.1
daemonize no
save ""
appendonly no
dir $scratch/data
logfile "server.log"
enable-debug-command yes
hz 50
CONF
redis-server "$scratch/redis.conf" --port "$port" --save '' --appendonly no &
pids+=($!)
server_pid=$!
wait_for "$scratch/data/server.log" "Ready to accept connections"
cli() { redis-cli -p "$port" "$@"; }
[ "$(cli PING)" = PONG ] || fail "PING"
[ "$(cli SET k v)" = OK ] || fail "SET"
[ "$(cli GET k)" = v ] || fail "GET"
[ "$(cli CONFIG GET hz | tail -1)" = 50 ] || fail "hz from the config file: $(cli CONFIG GET hz)"
[ "$(cli CONFIG GET port | tail -1)" = "$port" ] || fail "CONFIG GET port"
[ "$(cli CONFIG GET save | tail -1)" = "" ] || fail "CONFIG GET save"
cli DEBUG SLEEP 0 >/dev/null || fail "DEBUG"
cli SHUTDOWN NOSAVE >/dev/null 2>&1 || true
wait "$server_pid" || fail "exit code $? after SHUTDOWN"
cli PING >/dev/null 2>&1 && fail "still answering after SHUTDOWN"

# 2. --daemonize yes with a pidfile: the command returns, the pidfile names
# the server, SIGTERM stops it and removes the pidfile.
port=$(free_port)
redis-server --port "$port" --daemonize yes --pidfile "$scratch/redis.pid" \
  --logfile "$scratch/daemon.log" --save --appendonly no
wait_for "$scratch/daemon.log" "Ready to accept connections"
daemon=$(cat "$scratch/redis.pid")
pids+=("$daemon")
[ "$(redis-cli -p "$port" PING)" = PONG ] || fail "PING the daemon"
kill -TERM "$daemon"
for _ in $(seq 100); do kill -0 "$daemon" 2>/dev/null || break; sleep 0.05; done
kill -0 "$daemon" 2>/dev/null && fail "the daemon survived SIGTERM"
[ ! -e "$scratch/redis.pid" ] || fail "pidfile left behind"

# 3. The same through `redsim server` with Redis's syntax (stdout ready line).
port=$(free_port)
"$redsim" server --port "$port" --save "" --appendonly no >"$scratch/out.log" 2>&1 &
pids+=($!)
server_pid=$!
wait_for "$scratch/out.log" "Ready to accept connections"
[ "$(redis-cli -p "$port" PING)" = PONG ] || fail "PING via redsim server"
kill -TERM "$server_pid"
wait "$server_pid" || fail "exit code after SIGTERM"

# 4. Refused: exit 1 with Redis's banner and a reason.
for bad in "--user alice nosuchrule" "--requirepass a b" "--port abc" "--no-such-option 1"; do
  # shellcheck disable=SC2086
  if redis-server --port 0 $bad >"$scratch/bad.log" 2>&1; then fail "accepted $bad"; fi
  grep -q "FATAL CONFIG FILE ERROR" "$scratch/bad.log" || fail "no banner for $bad"
done
grep -q "does not support 'no-such-option'" "$scratch/bad.log" || fail "reason"
redis-server "$scratch/missing.conf" >"$scratch/bad.log" 2>&1 && fail "missing config file"
grep -q "can't open config file" "$scratch/bad.log" || fail "missing config file message"
# Harmless but not honoured: accepted, with a warning.
port=$(free_port)
redis-server --port "$port" --appendonly yes --logfile "$scratch/warn.log" &
pids+=($!)
server_pid=$!
wait_for "$scratch/warn.log" "Ready to accept connections"
grep -q "WARNING redsim: appendonly yes" "$scratch/warn.log" || fail "no warning"
kill -TERM "$server_pid"
wait "$server_pid" || true
[ "$(redis-server --version | cut -d' ' -f1-3)" = "Redis server v=7.0.15" ] || fail "--version"
echo "redis-server drop-in: ok"
