#!/usr/bin/env bash
# Redis's own Tcl test suite as a measuring tool: runs each unit in external
# mode against a real redis-server and against `redsim server`, with the
# same flags and tags, and prints per-unit counts side by side and the tests
# that pass on Redis but not on redsim.
#
# The suite is Redis's code, not ours: it is fetched from Debian's source
# package `redis` of the installed redis-server's version (apt-get source
# through a private apt configuration, so the machine's sources are left
# alone) and cached in $REDSIM_CACHE (default ~/.cache/redsim), never in
# the repository. Needs tclsh (Debian: tcl), dpkg-dev and redis-server.
#
# Usage: tools/redis_test_suite.sh [--redsim BIN] [--check] [--started] [--all | UNIT...]
#   UNIT is a path under tests/ without .tcl (unit/type/string, unit/expire);
#   the default is issue 12's units; --all runs every unit/ and unit/type/ one.
#   --check: exit 1 when, in any unit, redsim passes fewer tests than Redis
#   or Redis passes none (a broken run must not look like a match); ctest's
#   RedisTestSuiteFastUnits runs the fast units this way.
#   --started: the suite starts each server itself, as in Redis's own CI
#   (units tagged external:skip run: auth, acl, info, limits, pubsubshard):
#   each run's private copy of the suite gets a src/redis-server shim that
#   execs the real redis-server, or a symlink to redsim (which runs as
#   redis-server under that name: the config file the suite writes, then
#   --name value options). Without the suite
#   (no network for apt-get source) the script fails, whatever the mode.
# Environment: REDSIM_SUITE_TIMEOUT_S (per unit and server, default 600),
#   REDSIM_SUITE_TAGS (default: the tags below), REDSIM_CACHE.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
redsim=$repo/build/redsim
units=()
all=0
check=0
started=0
while (($#)); do
  case $1 in
    --redsim) redsim=$2; shift 2 ;;
    --all) all=1; shift ;;
    --check) check=1; shift ;;
    --started) started=1; shift ;;
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    *) units+=("$1"); shift ;;
  esac
done
# Excluded, as redis-server needs them too in external mode: DEBUG
# (needs:debug), replication, SAVE/BGSAVE, maxmemory, RESET, CONFIG
# RESETSTAT, and the slow tests.
tags=${REDSIM_SUITE_TAGS:-"-needs:debug -needs:repl -needs:save -needs:config-maxmemory -needs:reset -needs:config-resetstat -slow"}
timeout_s=${REDSIM_SUITE_TIMEOUT_S:-600}
cache=${REDSIM_CACHE:-$HOME/.cache/redsim}

for tool in tclsh redis-server dpkg-source; do
  command -v "$tool" >/dev/null || { echo "redis_test_suite: needs $tool" >&2; exit 2; }
done
[ -x "$redsim" ] || { echo "redis_test_suite: no redsim binary at $redsim (--redsim)" >&2; exit 2; }

# ---- the suite of the installed redis-server's version ---------------------
src_version=$(dpkg-query -W -f='${source:Version}' redis-server)
upstream=${src_version#*:}
upstream=${upstream%%-*}
suite=$cache/redis-$upstream
if [ ! -x "$suite/runtest" ]; then
  echo "redis_test_suite: fetching Debian's source package redis $src_version into $cache" >&2
  apt_dir=$cache/apt
  mkdir -p "$apt_dir"/{lists/partial,cache/archives/partial,parts,prefs} "$cache/src"
  # shellcheck disable=SC1091
  codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
  cat >"$apt_dir/sources.list" <<EOF
deb-src http://deb.debian.org/debian $codename main
deb-src http://deb.debian.org/debian $codename-updates main
deb-src http://deb.debian.org/debian-security $codename-security main
EOF
  apt_private=(-o Dir::Etc::SourceList="$apt_dir/sources.list" -o Dir::Etc::SourceParts="$apt_dir/parts"
               -o Dir::Etc::PreferencesParts="$apt_dir/prefs"
               -o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache="$apt_dir/cache"
               -o Dir::Cache::pkgcache="" -o Dir::Cache::srcpkgcache="")
  [ "$(id -u)" = 0 ] && apt_private+=(-o APT::Sandbox::User=root)  # _apt cannot write to $cache
  fetch_failed() {
    echo "redis_test_suite: FAILED to obtain Redis's test suite ($1); it needs network access" \
         "to deb.debian.org once, then runs from $suite" >&2
    exit 3
  }
  apt-get -qq "${apt_private[@]}" update || fetch_failed "apt-get update"
  (cd "$cache/src" && apt-get -qq "${apt_private[@]}" source --download-only "redis=$src_version") ||
    fetch_failed "apt-get source redis=$src_version"
  dsc=$(find "$cache/src" -maxdepth 1 -name "redis_*.dsc" | head -1)
  [ -n "$dsc" ] || fetch_failed "no .dsc downloaded"
  rm -rf "$cache/src/extracted"
  dpkg-source --no-check -x "$dsc" "$cache/src/extracted" >/dev/null
  rm -rf "$suite"
  mkdir -p "$suite"
  cp -r "$cache/src/extracted/runtest" "$cache/src/extracted/tests" "$suite/"
  rm -rf "$cache/src/extracted"
fi

if ((all)); then
  mapfile -t units < <(cd "$suite/tests" && find unit -maxdepth 2 -name '*.tcl' -not -path '*/moduleapi/*' \
                         -not -path '*/cluster/*' | sed 's/\.tcl$//' | sort)
elif ((${#units[@]} == 0 && started)); then
  units=(unit/auth unit/acl unit/info unit/limits unit/pubsubshard unit/other unit/quit)
elif ((${#units[@]} == 0)); then
  units=(unit/type/string unit/type/incr unit/type/hash unit/expire unit/pubsub unit/pubsubshard
         unit/multi unit/keyspace unit/scripting unit/functions unit/tracking unit/introspection
         unit/introspection-2 unit/info unit/info-command unit/latency-monitor unit/slowlog
         unit/protocol unit/quit unit/auth unit/acl unit/other unit/limits)
fi

# ---- servers and runs ------------------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/redsim-suite.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT

free_port() {
  tclsh <<'TCL'
set s [socket -server {} -myaddr 127.0.0.1 0]
puts [lindex [fconfigure $s -sockname] 2]
close $s
TCL
}

# start_server <name> <port> <log>: redis-server or redsim server with the
# same command line (redsim takes redis-server's options).
start_server() {
  local name=$1 port=$2 log=$3
  local args=(--port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work")
  if [ "$name" = redis ]; then
    redis-server "${args[@]}" >"$log" 2>&1 &
  else
    "$redsim" redis-server "${args[@]}" >"$log" 2>&1 &
  fi
  pids+=($!)
  for _ in $(seq 200); do
    grep -qs "Ready to accept connections" "$log" && return 0
    kill -0 "${pids[-1]}" 2>/dev/null || return 2  # exited: the port was taken
    sleep 0.05
  done
  echo "redis_test_suite: $name did not start: $(cat "$log")" >&2
  return 1
}

# run_unit <name> <unit>: a fresh server, then the unit in external mode in
# a private copy of the suite (runs of the two servers share no tmp files).
run_unit() {
  local name=$1 unit=$2
  local dir=$work/$name port out baseport rc attempt
  [ -d "$dir" ] || cp -r "$suite" "$dir"
  out=$work/${name}_${unit//\//_}
  if ((started)); then
    run_unit_started "$name" "$unit" "$dir" "$out"
    return
  fi
  # A free port may be taken by another run before the server binds it: the
  # server then exits, and a new port is drawn.
  for attempt in 1 2 3; do
    port=$(free_port)
    rc=0
    start_server "$name" "$port" "$out.server.log" || rc=$?
    ((rc == 2)) || break
  done
  ((rc == 0)) || { echo "[exception]: server did not start" >"$out.log"; return; }
  server_pid=${pids[-1]}  # global: the EXIT trap below reads it after run_unit returns
  trap 'kill "$server_pid" 2>/dev/null' EXIT  # run_unit runs in its own subshell
  # The test client listens on a port just below --baseport, found by a
  # probe that other runs on the machine (another checkout's ctest) may
  # race: each try takes a random range of its own (below 55535: the suite
  # also probes port + 10000), and a lost race is tried again (CI once lost
  # three in a row: six tries, a short random wait between them).
  for attempt in 1 2 3 4 5 6; do
    ((attempt == 1)) || sleep "0.$((RANDOM % 9 + 1))"
    baseport=$((12000 + (RANDOM % 600) * 64))
    (cd "$dir" && TERM=dumb timeout "$timeout_s" tclsh tests/test_helper.tcl --host 127.0.0.1 --port "$port" \
       --baseport "$baseport" --portcount 32 --singledb --clients 1 --tags "$tags" --single "$unit" \
       --dont-clean >"$out.log" 2>&1) ||
      { rc=$?; if ((rc == 124)); then echo "[timeout]: after $timeout_s s" >>"$out.log"; fi; }
    grep -q "^couldn't open socket: address already in use" "$out.log" || break
  done
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
}

# run_unit_started <name> <unit> <dir> <out>: the suite starts the servers
# through <dir>/src/redis-server, a shim in this run's private copy (never in
# the repository).
run_unit_started() {
  local name=$1 unit=$2 dir=$3 out=$4 baseport attempt rc
  mkdir -p "$dir/src"
  rm -f "$dir/src/redis-server"
  if [ "$name" = redis ]; then
    printf '#!/bin/sh\nexec %q "$@"\n' "$(command -v redis-server)" >"$dir/src/redis-server"
    chmod +x "$dir/src/redis-server"
  else
    # A symlink: redsim runs as redis-server, its argv[0] ending in
    # /redis-server as Redis's own (the process title's {title}).
    ln -s "$redsim" "$dir/src/redis-server"
  fi
  for attempt in 1 2 3 4 5 6; do
    ((attempt == 1)) || sleep "0.$((RANDOM % 9 + 1))"
    baseport=$((12000 + (RANDOM % 600) * 64))
    (cd "$dir" && TERM=dumb timeout "$timeout_s" tclsh tests/test_helper.tcl \
       --baseport "$baseport" --portcount 32 --clients 1 --tags "$tags" --single "$unit" \
       >"$out.log" 2>&1) ||
      { rc=$?; if ((rc == 124)); then echo "[timeout]: after $timeout_s s" >>"$out.log"; fi; }
    grep -q "^couldn't open socket: address already in use" "$out.log" || break
  done
}

# Test names of one outcome in a run's log ("[ok]: name (12 ms)"), sorted
# with repeats (a unit may run a test twice, as scripting does for EVAL and
# FUNCTION), so that `comm` takes a multiset difference.
names() { sed -n "s/^\[$1\]: \(.*\) ([0-9]* ms)\$/\1/p; s/^\[$1\]: \(.*[^)]\)\$/\1/p" "$2" | sort; }
count() { grep -c "^\[$1\]: " "$2" || true; }

total_redis=0 total_redsim=0 total_missing=0
short_units=()  # --check: units where redsim passes fewer than Redis, or Redis none
printf '%-20s %13s %14s %9s\n' unit "redis ok/err" "redsim ok/err" "missing"
missing_report=$work/missing.txt
: >"$missing_report"
for unit in "${units[@]}"; do
  [ -f "$suite/tests/$unit.tcl" ] || { echo "redis_test_suite: no unit $unit" >&2; short_units+=("$unit"); continue; }
  run_unit redis "$unit" &
  a=$!
  run_unit redsim "$unit" &
  b=$!
  wait "$a" "$b" || true
  r=$work/redis_${unit//\//_}.log s=$work/redsim_${unit//\//_}.log
  r_ok=$(count ok "$r") r_err=$(($(count err "$r") + $(count exception "$r")))
  s_ok=$(count ok "$s") s_err=$(($(count err "$s") + $(count exception "$s")))
  missing=$(comm -23 <(names ok "$r") <(names ok "$s"))
  n_missing=$(grep -c . <<<"$missing" || true)
  note=""
  grep -q '^\[exception\]' "$s" && note=" (redsim: stopped by an exception)"
  grep -q '^\[timeout\]' "$s" && note=" (redsim: timed out)"
  grep -q '^\[timeout\]' "$r" && note="$note (redis: timed out)"
  printf '%-20s %7d/%-5d %8d/%-5d %9d%s\n' "${unit#unit/}" "$r_ok" "$r_err" "$s_ok" "$s_err" "$n_missing" "$note"
  if ((s_ok < r_ok || r_ok == 0 || n_missing)); then short_units+=("${unit#unit/}"); fi
  total_redis=$((total_redis + r_ok)) total_redsim=$((total_redsim + s_ok))
  total_missing=$((total_missing + n_missing))
  if ((n_missing)); then
    {
      echo "== ${unit#unit/}: passes on Redis, not on redsim"
      sed 's/^/  /' <<<"$missing"
      first=$(grep -m1 -A3 -E '^\[(err|exception)\]' "$s" || true)
      [ -n "$first" ] && echo "  first failure on redsim:" && sed 's/^/    | /' <<<"$first"
    } >>"$missing_report"
  fi
done
printf '%-20s %7d       %8d       %9d\n' total "$total_redis" "$total_redsim" "$total_missing"
echo
cat "$missing_report"
echo "logs: $work"
trap - EXIT
cleanup
if ((check)); then
  if ((${#units[@]} == 0)) || ((${#short_units[@]})); then
    echo "redis_test_suite: FAILED: redsim passes fewer tests than Redis (or Redis none) in:" \
         "${short_units[*]:-no unit ran}" >&2
    exit 1
  fi
  echo "redis_test_suite: redsim passes every test Redis passes in ${#units[@]} units"
fi
