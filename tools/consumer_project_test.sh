#!/usr/bin/env bash
# The installed package works for a user: installs the build BUILD_DIR into a
# temporary prefix (cmake --install), configures and builds the consumer
# project CONSUMER_DIR against it with find_package(redsim), and runs the
# consumer's test binary. The prefix and the consumer's build are removed at
# the end, also on failure.
# Usage: consumer_project_test.sh CMAKE GENERATOR BUILD_DIR CONSUMER_DIR CXX_COMPILER
set -euo pipefail
cmake=$1 generator=$2 build=$3 consumer=$4 cxx=$5

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$cmake" --install "$build" --prefix "$tmp/prefix" >/dev/null
"$cmake" -S "$consumer" -B "$tmp/build" -G "$generator" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" >/dev/null
"$cmake" --build "$tmp/build"
"$tmp/build/my_lock_test"
