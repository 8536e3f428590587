#!/usr/bin/env bash
# The installed headers are the public API and nothing else: installs the
# build BUILD_DIR into a temporary prefix (cmake --install), then checks
#   - that no internal header is installed (the list below: library
#     internals, the fiber runtime, test utilities);
#   - that every #include "..." of an installed header is installed too;
#   - that every installed header compiles on its own (-fsyntax-only, with
#     our warnings) against the installed tree and the system's packages.
# Usage: installed_headers_test.sh CMAKE BUILD_DIR CXX_COMPILER
set -euo pipefail
cmake=$1 build=$2 cxx=$3

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cmake" --install "$build" --prefix "$tmp/prefix" >/dev/null
inc=$tmp/prefix/include
status=0

internal=(sim/internal.h sim/lua/internal.h sim/cmd_util.h sim/cmd_admin.h sim/keyspace.h
  sim/pubsub.h sim/lua/script_engine.h sim/world/runtime.h sim/world/lifecycle.h
  sim/world/network.h sim/world/nodes.h sim/world/processes.h sim/world/fiber.h
  sim/world/scheduler.h sim/world/drift_clock.h sim/world/checker_util.h
  sim/world/scenarios/scenarios_internal.h sim/world/explore/explore_internal.h lock/wakeup.h
  lock/lock_entry.h lock/embedded_scripts.h
  lock/hiredis/reply_conversion.h lock/hiredis/two_worlds_test_util.h)
for h in "${internal[@]}"; do
  if [[ -e $inc/$h ]]; then
    echo "internal header installed: $h"
    status=1
  fi
done
while IFS= read -r h; do
  case $h in *_test_util.h) echo "test utility installed: $h"; status=1 ;; esac
done < <(cd "$inc" && find . -name '*.h' | sed 's|^\./||')

cflags=$(pkg-config --cflags lua5.4-c++ hiredis 2>/dev/null || true)
count=0
while IFS= read -r h; do
  count=$((count + 1))
  while IFS= read -r dep; do
    if [[ ! -e $inc/$dep ]]; then
      echo "$h includes $dep, which is not installed"
      status=1
    fi
  done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$inc/$h")
  # shellcheck disable=SC2086  # cflags is a list of flags
  if ! echo "#include \"$h\"" |
    "$cxx" -std=c++23 -fsyntax-only -Wall -Wextra -Werror -I"$inc" $cflags -x c++ - 2> "$tmp/err"; then
    echo "$h does not compile on its own:"
    head -20 "$tmp/err"
    status=1
  fi
done < <(cd "$inc" && find . -name '*.h' | sed 's|^\./||' | sort)
echo "$count installed headers checked"
exit $status
