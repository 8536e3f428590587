#!/usr/bin/env bash
# redis-benchmark against `redsim server` and against a real redis-server,
# in one run, on the same machine; prints a Markdown table with the ratio
# (redsim / Redis requests per second). Both servers listen on free loopback
# ports and are stopped on exit.
#
#   bench/redis_benchmark.sh [path/to/redsim] [requests per run] [runs per row]
#
# Rows: SET, GET, and EVALSHA of scripts/reentrant_acquire.lua (random lock
# keys lock:<0..9999>, one owner: first holds and re-entries); 1 and 50
# clients; without pipelining and with -P 16. Each row alternates redsim and
# Redis runs (default 3 each) and keeps each server's best, so both see the
# same machine load and a busy moment does not decide a row.
set -euo pipefail
cd "$(dirname "$0")/.."
redsim=${1:-build/redsim}
requests=${2:-100000}
runs=${3:-3}
tmp=$(mktemp -d)
redsim_pid=""
redis_pid=""
cleanup() {
  [[ -n $redsim_pid ]] && kill "$redsim_pid" 2>/dev/null && wait "$redsim_pid" 2>/dev/null
  [[ -n $redis_pid ]] && kill "$redis_pid" 2>/dev/null && wait "$redis_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

"$redsim" server --port 0 --clock real >"$tmp/redsim.log" 2>&1 &
redsim_pid=$!
for _ in $(seq 100); do
  grep -q "Ready to accept" "$tmp/redsim.log" && break
  sleep 0.05
done
redsim_port=$(sed -n 's/.*Ready to accept connections tcp .*:\([0-9]*\)$/\1/p' "$tmp/redsim.log")
[[ -n $redsim_port ]] || { echo "redsim server did not start" >&2; cat "$tmp/redsim.log" >&2; exit 1; }

redis_port=$(free_port)
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
  --dir "$tmp" --logfile "$tmp/redis.log" &
redis_pid=$!
for _ in $(seq 100); do
  redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break
  sleep 0.05
done

script=$(cat scripts/reentrant_acquire.lua)
sha=$(redis-cli -p "$redsim_port" script load "$script")
[[ $(redis-cli -p "$redis_port" script load "$script") == "$sha" ]]

# rps PORT CLIENTS PIPELINE TEST: requests per second of one redis-benchmark run.
rps() {
  local port=$1 clients=$2 pipeline=$3 test=$4 n=$requests
  local args=(-p "$port" -c "$clients" -P "$pipeline" -n "$n" --csv)
  case $test in
    SET | GET) args+=(-t "$test") ;;
    EVALSHA) args+=(-r 10000 evalsha "$sha" 1 "lock:__rand_int__" 30000 owner:1) ;;
  esac
  redis-benchmark "${args[@]}" 2>/dev/null | tail -n +2 | head -1 | cut -d, -f2 | tr -d '"'
}

echo "requests per run: $requests, best of $runs runs per server and row; $(nproc) cores; $(uname -sr)"
echo
echo "| command | clients | pipeline | redsim server req/s | redis-server 7.0 req/s | ratio |"
echo "|---|---|---|---|---|---|"
for test in SET GET EVALSHA; do
  for clients in 1 50; do
    for pipeline in 1 16; do
      a=0
      b=0
      for _ in $(seq "$runs"); do
        a=$(python3 -c "print(max($a, $(rps "$redsim_port" "$clients" "$pipeline" "$test")))")
        b=$(python3 -c "print(max($b, $(rps "$redis_port" "$clients" "$pipeline" "$test")))")
      done
      ratio=$(python3 -c "print(f'{$a / $b:.2f}')")
      echo "| $test | $clients | $pipeline | ${a%.*} | ${b%.*} | $ratio |"
    done
  done
done
