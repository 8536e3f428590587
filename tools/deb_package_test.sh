#!/bin/bash
# Builds the .deb with CPack from this build tree, installs it with
# `dpkg -i` into a scratch root with its own dpkg database (nothing is
# installed on the machine) and runs what it holds: redsim --version,
# redsim server (PING over a socket), the redis-server name, the Python
# fixture's tests, and a program built with the package's redsim.pc; then
# removes it with `dpkg -r`.
# Usage: deb_package_test.sh <cpack> <build dir> <version> <c++ compiler> <python3>
set -euo pipefail
cpack=$1 build=$2 version=$3 cxx=$4 python=$5
here=$(cd "$(dirname "$0")" && pwd)
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

# A scratch dpkg database that knows only the packages the .deb depends on,
# with their status copied from this machine's: `dpkg -i` then checks the
# Depends line as it would on the machine, and installs under $root.
root=$scratch/root admin=$scratch/dpkg
mkdir -p "$root" "$admin"/{info,updates,triggers}
dep_names=$(sed 's/([^)]*)//g; s/,/ /g' <<<"$depends")
make_admin() {  # make_admin <package to leave out>...
  local names=$dep_names
  for leave_out in "$@"; do names=$(tr ' ' '\n' <<<"$names" | grep -vx "$leave_out" | tr '\n' ' '); done
  # shellcheck disable=SC2086
  dpkg-query -s $names >"$admin/status"
  rm -f "$admin"/info/*.list
  # shellcheck disable=SC2086
  for p in $(dpkg-query -W -f='${binary:Package}\n' $names); do : >"$admin/info/$p.list"; done
}
dpkg_scratch() { dpkg --admindir="$admin" --instdir="$root" --force-not-root --log=/dev/null "$@"; }
# Without one of its dependencies the package does not configure.
make_admin liblua5.4-0
if dpkg_scratch -i "$deb" >"$scratch/dpkg.log" 2>&1; then fail "installed without liblua5.4-0"; fi
grep -q "depends on liblua5.4-0" "$scratch/dpkg.log" || fail "no dependency error: $(cat "$scratch/dpkg.log")"
dpkg_scratch --purge redsim >/dev/null 2>&1 || true
make_admin
dpkg_scratch -i "$deb" >"$scratch/dpkg.log" 2>&1 || { cat "$scratch/dpkg.log"; fail "dpkg -i"; }
[ "$(dpkg-query --admindir="$admin" -W -f='${Status} ${Version}' redsim)" = "install ok installed $version" ] ||
  fail "dpkg status: $(dpkg-query --admindir="$admin" -W redsim)"
for f in usr/bin/redsim usr/include/sim/server.h usr/include/lock/lock.h \
  usr/lib/redsim/bin/redis-server usr/lib/python3/dist-packages/redsim_fixture.py; do
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

# The Python fixture as installed, with the installed binary; its tests are
# copied out of the source tree so that pytest cannot import the source copy.
export PYTHONPATH=$root/usr/lib/python3/dist-packages
[ "$("$python" -c 'import redsim_fixture; print(redsim_fixture.__file__)')" = "$PYTHONPATH/redsim_fixture.py" ] ||
  fail "redsim_fixture is not imported from the package"
mkdir "$scratch/pytest"
cp "$here/python/redsim_fixture_test.py" "$scratch/pytest/"
(cd "$scratch/pytest" && REDSIM_BINARY=$root/usr/bin/redsim \
  "$python" -m pytest -q -p redsim_fixture -p no:cacheprovider redsim_fixture_test.py) ||
  fail "the installed redsim_fixture's tests"
unset PYTHONPATH

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

dpkg_scratch -r redsim >"$scratch/dpkg.log" 2>&1 || { cat "$scratch/dpkg.log"; fail "dpkg -r"; }
[ ! -e "$root/usr/bin/redsim" ] || fail "dpkg -r left /usr/bin/redsim"
left=$(find "$root" -type f) || true
[ -z "$left" ] || fail "dpkg -r left files: $left"
echo "deb package: ok"
