#!/usr/bin/env bash
# The main job: set up, build, and run every lock scenario in the embedded
# simulator (no Redis server needed). Extra arguments go to `redsim scenario run`.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh build
exec build/redsim scenario run --all "$@"
