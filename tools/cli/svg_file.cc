#include "tools/cli/svg_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <ostream>

namespace redsim::cli {

bool write_svg_file(const std::string& path, const std::string& svg, std::ostream& out,
                    std::ostream& err) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (f) f << svg;
  if (f) f.close();
  if (!f) {
    err << "redsim: cannot write " << path << ": " << std::strerror(errno) << "\n";
    return false;
  }
  out << "timeline drawn to " << path << "\n";
  return true;
}

}  // namespace redsim::cli
