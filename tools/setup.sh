#!/usr/bin/env bash
# Installs what redsim needs from Debian's packages (only what is missing),
# then configures and builds. Usage: tools/setup.sh [build-dir] [extra cmake args...]
# REDSIM_BUILD_TARGETS="a b" builds only those targets (default: all).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake g++ ninja-build pkg-config
          liblua5.4-dev lua-cjson lua-cjson-dev
          libgtest-dev libgmock-dev librapidcheck-dev libbenchmark-dev
          libssl-dev libboost-context-dev libcli11-dev nlohmann-json3-dev
          libhiredis-dev redis-server redis-tools python3-redis python3-pytest ccache
          zookeeper libzookeeper-mt-dev  # the real side of the ZooKeeper contrast (ZkMutexReal)
          clang-19 libclang-rt-19-dev   # the fuzz targets: libFuzzer, ASan, UBSan
          libc++-19-dev libc++abi-19-dev  # the libc++ build of the golden history hashes
          lld                           # the linker of every build (far faster than ld.bfd)
          tcl dpkg-dev                  # Redis's Tcl test suite (tools/redis_test_suite.sh)
          nodejs)                       # node-redis against redsim server (NodeRedisResp3)
# npm installs node-redis at test time; nodesource's nodejs package carries
# its own npm, Debian's does not.
command -v npm >/dev/null || packages+=(npm)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

build_dir=${1:-build}
shift || true
# ccache (when installed) makes a rebuild, or a fresh clone on a machine that
# built before, recompile only what changed; paths are taken relative to the
# checkout so that clones in other directories share the cache. With -g,
# ccache also hashes the build directory's absolute path (hash_dir) unless
# told not to: CCACHE_NOHASHDIR lets a clone elsewhere hit too (the cost: a
# cached object's debug info names the directory it was first built in).
# The test targets compile with a precompiled header (redsim_test); ccache
# caches such compiles only with these sloppiness settings (ccache manual,
# "Precompiled headers"; clang's side, -fno-pch-timestamp, is set in
# redsim_test). Without them every test file was a ccache miss ("could not
# use precompiled header"), so a warm rebuild compiled all the tests again.
launcher=()
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$PWD")}
  export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
  export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
# lld links the test binaries several times faster than Debian's default
# ld.bfd (REDSIM_LINKER in CMakeLists.txt); without it, the default linker.
linker=()
command -v ld.lld >/dev/null 2>&1 && linker=(-DREDSIM_LINKER=lld)
t0=$(date +%s.%N)
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" "${linker[@]}" "$@" >/dev/null
t1=$(date +%s.%N)
read -ra targets <<< "${REDSIM_BUILD_TARGETS:-all}"
log_lines=0
[[ -f $build_dir/.ninja_log ]] && log_lines=$(wc -l < "$build_dir/.ninja_log")
cmake --build "$build_dir" -j "$(nproc)" --target "${targets[@]}"
t2=$(date +%s.%N)
# Where the time went: wall times, and the CPU time of this build's steps
# by kind from ninja's log (its lines after $log_lines; compile and link
# steps overlap under -j, so their sum exceeds the wall time).
tail -n +"$((log_lines + 1))" "$build_dir/.ninja_log" | awk -v dir="$build_dir" -v c="$t0" -v b="$t1" -v e="$t2" '
  !/^#/ { d = ($2 - $1) / 1000; k = $1 " " $2 " " $5
          if ($4 ~ /\.(o|gch|pch)$/) { if (!cs[k]++) { nc++; cc += d } }
          else if ($4 !~ /\.(cmake|stamp|cc|dict)$|^\/|\[/) { if (!ls[k]++) { nl++; lc += d } } }
  END { printf "setup: %s: configure %.1f s, build %.1f s wall (%d compiles %.0f s CPU, %d links and archives %.1f s CPU)\n",
               dir, b - c, e - b, nc, cc, nl, lc }' >&2
