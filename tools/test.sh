#!/usr/bin/env bash
# The whole test suite: set up, then build and run ctest in the optimised
# build (build/), with ASan+UBSan (build-asan/), the fuzz targets' short runs
# (build-fuzz/: clang-19, only the libraries they test; docs/fuzzing.md) and
# the threaded parts under ThreadSanitizer (build-tsan/: only three small
# test binaries, the threaded tests of the hiredis Env, redsim server and the
# real-time runner).
# REDSIM_SKIP_ASAN=1, REDSIM_SKIP_FUZZ=1 and REDSIM_SKIP_TSAN=1 leave a pass
# out. The ASan pass leaves out the long random searches (RapidCheck's two
# get-del race hunts, `check`'s seed sweep and the bug zoo's 20-seed hunts):
# under ASan's ucontext fibers they take minutes, and the code they drive is
# covered under ASan by the other tests (the zoo's correct locks and the
# checkers' own tests among them).
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

if [[ ${REDSIM_SKIP_FUZZ:-0} != 1 ]]; then
  REDSIM_BUILD_TARGETS=fuzz tools/setup.sh build-fuzz -DREDSIM_FUZZ=ON -DREDSIM_TESTS=OFF \
    -DREDSIM_BENCH=OFF -DCMAKE_BUILD_TYPE=None -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19
  ctest --test-dir build-fuzz --output-on-failure -j "$jobs" -L fuzz
fi

if [[ ${REDSIM_SKIP_TSAN:-0} != 1 ]]; then
  REDSIM_BUILD_TARGETS="hiredis_tsan_test server_tsan_test cli_tsan_test" \
    tools/setup.sh build-tsan -DREDSIM_TSAN=ON -DREDSIM_BENCH=OFF -DCMAKE_BUILD_TYPE=None
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    ctest --test-dir build-tsan --output-on-failure -j "$jobs" -L tsan
fi
