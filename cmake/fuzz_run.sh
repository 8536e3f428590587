#!/bin/sh
# fuzz_run.sh CORPUS_DIR FUZZER ARGS...: one run of a fuzz target (ctest's
# Fuzz.* tests, see redsim_fuzz in CMakeLists.txt) from an empty CORPUS_DIR,
# so that every run starts from the seeds in ARGS and takes the time it is
# given, not the time to replay what earlier runs kept.
set -eu
corpus=$1
shift
rm -rf "$corpus"
mkdir -p "$corpus"
exec "$@"
