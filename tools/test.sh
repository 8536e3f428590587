#!/usr/bin/env bash
# The whole test suite: set up, then build and run ctest in
#   build/        the optimised build (RelWithDebInfo), every test;
#   build-asan/   ASan+UBSan (gcc, -O1), every test but the long random
#                 searches below;
#   build-fuzz/   the libFuzzer targets' short runs (clang-19, only the
#                 libraries they test; docs/fuzzing.md);
#   build-tsan/   the threaded parts under ThreadSanitizer (only three small
#                 test binaries: the hiredis Env, redsim server and the
#                 real-time runner);
#   build-libcxx/ clang-19 with libc++ instead of libstdc++, only the golden
#                 history hashes (golden_test), which must match the same
#                 checked-in list as under libstdc++.
# REDSIM_SKIP_ASAN=1, REDSIM_SKIP_FUZZ=1, REDSIM_SKIP_TSAN=1 and
# REDSIM_SKIP_LIBCXX=1 leave a pass out. The ASan pass leaves out the long
# random searches (RapidCheck's two get-del race hunts, `check`'s seed sweep
# and the bug zoo's 20-seed hunts): under ASan's ucontext fibers they take
# minutes, and the code they drive is covered under ASan by the other tests
# (the zoo's correct locks and the checkers' own tests among them).
# Each build prints its configure and build times (tools/setup.sh); a table
# of every phase's wall time ends the run.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

phases=()
# phase NAME COMMAND...: runs COMMAND and records its wall time.
phase() {
  local name=$1 start end
  shift
  start=$(date +%s.%N)
  "$@"
  end=$(date +%s.%N)
  phases+=("$(printf '%-28s %7.1f s' "$name" "$(awk -v s="$start" -v e="$end" 'BEGIN { print e - s }')")")
}
# Every test of a build carries one of the README's labels.
labelled() {
  local unlabelled
  unlabelled=$(ctest --test-dir "$1" -N -LE '^(unit|property|slow|real-redis|tcl-suite|fuzz|tsan)$' |
               sed -n 's/^Total Tests: //p')
  if [[ $unlabelled != 0 ]]; then
    echo "test.sh: $unlabelled tests in $1 have no label:" >&2
    ctest --test-dir "$1" -N -LE '^(unit|property|slow|real-redis|tcl-suite|fuzz|tsan)$' >&2
    return 1
  fi
}

phase "build/ setup" tools/setup.sh build
labelled build
phase "build/ ctest" ctest --test-dir build --output-on-failure -j "$jobs"

if [[ ${REDSIM_SKIP_ASAN:-0} != 1 ]]; then
  phase "build-asan/ setup" \
    tools/setup.sh build-asan -DREDSIM_SANITIZE=ON -DREDSIM_BENCH=OFF -DCMAKE_BUILD_TYPE=None
  labelled build-asan
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    phase "build-asan/ ctest" ctest --test-dir build-asan --output-on-failure -j "$jobs" -LE '^tcl-suite$' \
      -E 'RapidCheckFindsAndShrinksTheExpireThenDeleteRace|Check\.FindsTheGetDelRace|FindAndShrinkAUsersGetThenDelRace|Zoo/BuggyLock'
fi

if [[ ${REDSIM_SKIP_FUZZ:-0} != 1 ]]; then
  REDSIM_BUILD_TARGETS=fuzz phase "build-fuzz/ setup" \
    tools/setup.sh build-fuzz -DREDSIM_FUZZ=ON -DREDSIM_TESTS=OFF \
    -DREDSIM_BENCH=OFF -DCMAKE_BUILD_TYPE=None -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19
  phase "build-fuzz/ ctest" ctest --test-dir build-fuzz --output-on-failure -j "$jobs" -L fuzz
fi

if [[ ${REDSIM_SKIP_TSAN:-0} != 1 ]]; then
  REDSIM_BUILD_TARGETS="hiredis_tsan_test server_tsan_test cli_tsan_test" phase "build-tsan/ setup" \
    tools/setup.sh build-tsan -DREDSIM_TSAN=ON -DREDSIM_BENCH=OFF -DCMAKE_BUILD_TYPE=None
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    phase "build-tsan/ ctest" ctest --test-dir build-tsan --output-on-failure -j "$jobs" -L tsan
fi

if [[ ${REDSIM_SKIP_LIBCXX:-0} != 1 ]]; then
  # -O1 without debug info: the cheapest build that still runs the worlds.
  REDSIM_BUILD_TARGETS=golden_test phase "build-libcxx/ setup" \
    tools/setup.sh build-libcxx -DREDSIM_LIBCXX=ON -DREDSIM_BENCH=OFF -DCMAKE_BUILD_TYPE=None \
    -DCMAKE_CXX_FLAGS=-O1 -DCMAKE_C_FLAGS=-O1 -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19
  phase "build-libcxx/ ctest" ctest --test-dir build-libcxx --output-on-failure -R '^GoldenHistory\.'
fi

echo "test.sh: wall time per phase (load average now: $(cut -d' ' -f1-3 /proc/loadavg))"
printf '  %s\n' "${phases[@]}"
