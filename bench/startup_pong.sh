#!/usr/bin/env bash
# Start-up time to the first PONG, and memory at idle, of a Redis server
# command: starts it N times on a free loopback port, connects as soon as
# the port accepts (bash's /dev/tcp, no sleeping between tries), sends PING
# and stops the clock at +PONG; after the last run it waits 1 s and reads
# the server's resident set (VmRSS). Prints the median and best times.
# Usage: bench/startup_pong.sh <runs> <command...>   (the word PORT in the
#        command is replaced by the port)
# e.g.   bench/startup_pong.sh 20 redis-server --port PORT --save '' --appendonly no
#        bench/startup_pong.sh 20 redsim server --port PORT --clock virtual
set -euo pipefail
runs=$1
shift
free_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 20000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
}
times_us=()
rss_kib=
for ((i = 0; i < runs; i++)); do
  port=$(free_port)
  cmd=("${@//PORT/$port}")
  start=$(date +%s%N)
  "${cmd[@]}" >/dev/null 2>&1 &
  pid=$!
  until exec 3<>"/dev/tcp/127.0.0.1/$port"; do
    kill -0 "$pid" 2>/dev/null || { echo "startup_pong: the server exited" >&2; exit 1; }
  done 2>/dev/null
  printf '%s\r\n' '*1' '$4' PING >&3
  read -r reply <&3
  end=$(date +%s%N)
  exec 3>&-
  [ "$reply" = $'+PONG\r' ] || { echo "startup_pong: PING answered '$reply'" >&2; kill "$pid"; exit 1; }
  times_us+=($(((end - start) / 1000)))
  if ((i == runs - 1)); then
    sleep 1
    rss_kib=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")
  fi
  kill "$pid"
  wait "$pid" 2>/dev/null || true
done
mapfile -t sorted < <(printf "%s\n" "${times_us[@]}" | sort -n)
median=${sorted[$((runs / 2))]}
printf 'first PONG: median %d.%d ms, best %d.%d ms (%d runs); idle RSS %d KiB\n' \
  $((median / 1000)) $((median % 1000 / 100)) $((sorted[0] / 1000)) $((sorted[0] % 1000 / 100)) \
  "$runs" "$rss_kib"
