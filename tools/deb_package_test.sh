#!/bin/bash
# Builds the .deb with CPack from this build tree, extracts it into a
# scratch root (nothing is installed on the machine) and runs what it holds:
# redsim --version, redsim server (PING over a socket), the redis-server
# name, and a program built with the package's redsim.pc.
# Usage: deb_package_test.sh <cpack> <build dir> <version> <c++ compiler>
set -euo pipefail
cpack=$1 build=$2 version=$3 cxx=$4
scratch=$(mktemp -d)
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null
  rm -rf "$scratch"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

start=$(date +%s)
"$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$scratch/out" >"$scratch/cpack.log" 2>&1 ||
  { cat "$scratch/cpack.log"; fail "cpack"; }
deb=$(ls "$scratch"/out/redsim_"$version"_*.deb) || fail "no redsim_${version}_*.deb"
echo "package: $(basename "$deb"), $(du -k "$deb" | cut -f1) KiB, built in $(($(date +%s) - start)) s"

dpkg-deb -f "$deb" Package Version Maintainer Depends
depends=$(dpkg-deb -f "$deb" Depends)
for p in liblua5.4-0 lua-cjson libhiredis0.14 libssl3 libboost-context1.74.0; do
  [[ ", $depends," == *", $p"[,\ ]* ]] || fail "Depends lacks $p: $depends"
done
[ -n "$(dpkg-deb -f "$deb" Maintainer)" ] || fail "no Maintainer"

root=$scratch/root
dpkg-deb -x "$deb" "$root"
for f in usr/bin/redsim usr/include/sim/server.h usr/include/lock/lock.h \
  usr/lib/redsim/bin/redis-server; do
  [ -e "$root/$f" ] || fail "missing /$f"
done
pc=$(find "$root/usr" -name redsim.pc) || true
[ -n "$pc" ] || fail "no redsim.pc"
config=$(find "$root/usr" -name redsimConfig.cmake) || true
[ -n "$config" ] || fail "no redsimConfig.cmake"
[ -n "$(find "$root/usr" -name libredsim_world.a)" ] || fail "no libredsim_world.a"
# The libraries are static: the binary needs only the Debian packages above.
if ldd "$root/usr/bin/redsim" | grep -q "not found"; then fail "unresolved: $(ldd "$root/usr/bin/redsim")"; fi

[ "$("$root/usr/bin/redsim" --version)" = "redsim $version" ] || fail "--version"
"$root/usr/bin/redsim" server --port 0 >"$scratch/server.log" 2>&1 &
server=$!
for _ in $(seq 100); do grep -q "Ready to accept connections" "$scratch/server.log" && break; sleep 0.05; done
port=$(sed -n 's/.*Ready to accept connections tcp [0-9.]*:\([0-9]*\).*/\1/p' "$scratch/server.log")
[ -n "$port" ] || fail "no ready line: $(cat "$scratch/server.log")"
reply=$(python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(b"*1\r\n$4\r\nPING\r\n")
print(s.recv(64).decode().strip())' "$port")
[ "$reply" = "+PONG" ] || fail "PING answered '$reply'"
kill -TERM "$server"
wait "$server" || fail "server exit code $?"
server=
[ "$("$root/usr/lib/redsim/bin/redis-server" --version | cut -d' ' -f3)" = "v=7.0.15" ] ||
  fail "the redis-server name"

# A consumer compiled and linked with nothing but redsim.pc.
cat >"$scratch/main.cc" <<'CC'
#include <iostream>
#include "sim/clock.h"
#include "sim/server.h"
int main() {
  redsim::sim::ManualClock clock(0);
  redsim::sim::Server server(clock);
  auto session = server.connect();
  server.execute(*session, {"SET", "k", "v"});
  std::cout << server.execute(*session, {"GET", "k"}).str() << "\n";
}
CC
export PKG_CONFIG_PATH=$(dirname "$pc")
[ "$(pkg-config --modversion redsim)" = "$version" ] || fail "pkg-config version"
# shellcheck disable=SC2046
"$cxx" -o "$scratch/consumer" "$scratch/main.cc" $(pkg-config --cflags --libs redsim) ||
  fail "build with redsim.pc"
[ "$("$scratch/consumer")" = v ] || fail "consumer output"
echo "deb package: ok"
