#!/usr/bin/env bash
# Builds redsim_bench and runs it once: the benchmarks (fake and real side by
# side; the binary starts and stops its own redis-server), then the table of
# bench/README.md with the ratio fake/real per row, and the machine it ran on.
#
#   bench/run.sh                       # min time 1 s, 5 repetitions interleaved, medians in the table
#   MIN_TIME=0.2 REPETITIONS=1 bench/run.sh     # a quick look
#   bench/run.sh --benchmark_filter=OneClient   # extra flags go to the binary
#   REDSIM_BENCH_WINDOW_MS=1000 bench/run.sh    # longer real contention windows
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
jobs="${JOBS:-2}"

if [[ ! -f "$build/build.ninja" ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
ninja -C "$build" -j"$jobs" redsim_bench >/dev/null

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')," \
  "$(free -g | awk '/^Mem:/ {print $2 " GiB"}')"
echo "load before: $(uptime | sed 's/.*load average: //')"
"$build/bench/redsim_bench" --benchmark_min_time="${MIN_TIME:-1}" \
  --benchmark_repetitions="${REPETITIONS:-5}" --benchmark_enable_random_interleaving=true \
  --benchmark_display_aggregates_only=true "$@"
echo "load after: $(uptime | sed 's/.*load average: //')"
