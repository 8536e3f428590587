// Paths the CLI tests need: the source tree and the redsim binary of this
// build. Defined in a file CMake generates in the build directory
// (tools/CMakeLists.txt, redsim_test_paths.cc), not as -D macros holding
// absolute paths: those would differ between clones and make ccache miss on
// every file of the test binary in a fresh clone. Internal, not installed.
#pragma once

namespace redsim::testing {
const char* source_dir();     // the checkout's root, absolute
const char* redsim_binary();  // build/redsim, absolute
}  // namespace redsim::testing

#define REDSIM_SOURCE_DIR (::redsim::testing::source_dir())
#define REDSIM_BINARY (::redsim::testing::redsim_binary())
