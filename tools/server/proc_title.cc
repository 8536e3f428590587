#include "tools/server/proc_title.h"

#include <algorithm>
#include <cstring>

extern char** environ;  // NOLINT: POSIX

namespace redsim::server {

namespace {

struct Area {
  char* base = nullptr;      // argv[0]
  char* argv_nul = nullptr;  // the NUL that ended the last argv string
  char* end = nullptr;       // one past the last byte that may be written
  std::string program;
};

Area& area() {
  static Area a;
  return a;
}

}  // namespace

void proc_title_init(int argc, char** argv) {
  Area& a = area();
  if (argc <= 0 || argv == nullptr || argv[0] == nullptr || a.base != nullptr) return;
  a.program = argv[0];
  char* end = argv[0] + std::strlen(argv[0]) + 1;
  for (int i = 1; i < argc; ++i) {
    if (argv[i] == end) end = argv[i] + std::strlen(argv[i]) + 1;
  }
  char* argv_end = end;
  // environ's strings, when they follow, join the area; they are copied
  // (and never freed: environ must stay valid for the process).
  size_t n = 0;
  while (environ != nullptr && environ[n] != nullptr) ++n;
  char** copy = new char*[n + 1];
  for (size_t i = 0; i < n; ++i) {
    if (environ[i] == end) end = environ[i] + std::strlen(environ[i]) + 1;
    copy[i] = strdup(environ[i]);
  }
  copy[n] = nullptr;
  environ = copy;
  a.base = argv[0];
  a.argv_nul = argv_end - 1;
  a.end = end;
}

const std::string& proc_title_program() { return area().program; }

bool proc_title_set(std::string_view title) {
  Area& a = area();
  if (a.base == nullptr) return false;
  const size_t room = static_cast<size_t>(a.end - a.base) - 1;  // keep a final NUL
  const size_t len = std::min(title.size(), room);
  std::memset(a.base, 0, static_cast<size_t>(a.end - a.base));
  std::memcpy(a.base, title.data(), len);
  if (a.base + len < a.argv_nul) *a.argv_nul = '.';
  return true;
}

}  // namespace redsim::server
