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
          clang-19 libclang-rt-19-dev)  # the fuzz targets: libFuzzer, ASan, UBSan
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
launcher=()
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$PWD")}
  export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" "$@" >/dev/null
read -ra targets <<< "${REDSIM_BUILD_TARGETS:-all}"
cmake --build "$build_dir" -j "$(nproc)" --target "${targets[@]}"
