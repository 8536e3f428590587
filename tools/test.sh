#!/usr/bin/env bash
# The whole test suite: set up, then build and run ctest twice, once in the
# optimised build (build/) and once with ASan+UBSan (build-asan/).
# REDSIM_SKIP_ASAN=1 runs only the first. The sanitized pass leaves out the
# long random searches (RapidCheck's two get-del race hunts, `check`'s seed
# sweep and the bug zoo's 20-seed hunts): under ASan's ucontext fibers they
# take minutes, and the code they drive is covered under ASan by the other
# tests (the zoo's correct locks and the checkers' own tests among them).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

tools/setup.sh build
ctest --test-dir build --output-on-failure -j "$jobs"

if [[ ${REDSIM_SKIP_ASAN:-0} != 1 ]]; then
  tools/setup.sh build-asan -DREDSIM_SANITIZE=ON -DREDSIM_BENCH=OFF -DCMAKE_BUILD_TYPE=None
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan --output-on-failure -j "$jobs" \
      -E 'RapidCheckFindsAndShrinksTheExpireThenDeleteRace|Check\.FindsTheGetDelRace|FindAndShrinkAUsersGetThenDelRace|Zoo/BuggyLock'
fi
