#!/usr/bin/env bash
# node-redis (@redis/client, from the npm registry) with RESP: 3 against
# `redsim server`: tools/server/node_redis_test.js does the checks.
#
# The package is installed at test time with `npm install --prefix` into
# $REDSIM_CACHE/node-redis (default ~/.cache/redsim/node-redis), never into
# the repository, and reused while its version matches. When it is not there
# and npm cannot reach the registry (`npm ping` fails), the test prints why
# and exits 77, which ctest reports as skipped (SKIP_RETURN_CODE), never as
# passed; any other failure (no node or npm, a failed install while the
# registry answers, a failed check) fails it.
#
# Usage: node_redis_test.sh <redsim binary>
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
redsim=$(realpath "$1")
version=5.10.0  # @redis/client, node-redis v5: RESP3, emitInvalidate, clientSideCache
cache=${REDSIM_CACHE:-$HOME/.cache/redsim}/node-redis
for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "FAIL: node_redis_test needs $tool" >&2; exit 1; }
done

installed=$(node -p "try { require('$cache/node_modules/@redis/client/package.json').version } catch (e) { '' }")
if [ "$installed" != "$version" ]; then
  mkdir -p "$cache"
  if ! npm install --prefix "$cache" --no-audit --no-fund --no-save "@redis/client@$version" >"$cache/install.log" 2>&1; then
    if ! npm ping >/dev/null 2>&1; then
      echo "SKIPPED: npm cannot reach its registry ($(npm config get registry)), so @redis/client@$version" \
           "could not be installed into $cache; this is not a pass" >&2
      exit 77
    fi
    echo "FAIL: npm install @redis/client@$version failed although the registry answers:" >&2
    cat "$cache/install.log" >&2
    exit 1
  fi
fi

log=$(mktemp)
pid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -f "$log"
}
trap cleanup EXIT
"$redsim" server --port 0 >"$log" 2>&1 &
pid=$!
port=""
for _ in $(seq 200); do
  port=$(sed -n 's/.*Ready to accept connections tcp [^ ]*:\([0-9]*\)$/\1/p' "$log" | head -1)
  [ -n "$port" ] && break
  sleep 0.05
done
[ -n "$port" ] || { echo "FAIL: redsim server did not start: $(cat "$log")" >&2; exit 1; }
node "$here/node_redis_test.js" "$port" "$cache"
