// Writing a timeline picture for `--svg FILE`.
#pragma once

#include <iosfwd>
#include <string>

namespace redsim::cli {

// Writes `svg` to `path` and says so on `out`; on failure prints
// "redsim: cannot write PATH: reason" on `err` and returns false.
bool write_svg_file(const std::string& path, const std::string& svg, std::ostream& out,
                    std::ostream& err);

}  // namespace redsim::cli
