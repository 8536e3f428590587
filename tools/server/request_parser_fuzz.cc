// libFuzzer target: the request parser of redsim server
// (tools/server/request_parser.h), inline and multibulk.
//
// Input: byte 0 picks proto-max-bulk-len (small values reach its limit),
// byte 1 seeds the read sizes, the rest is what a client sends. The bytes
// are parsed once as one read and once as reads of 1..32 bytes, the reader
// dropping consumed bytes between reads as redsim server's does. Both must
// give the same commands and the same error (if any). Every command must
// come back unchanged when sent again as a multibulk request. A failure
// aborts (libFuzzer keeps the input).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "tools/server/request_parser.h"

namespace {

using redsim::server::RequestParser;

struct Outcome {
  std::vector<std::vector<std::string>> commands;
  std::string error;  // empty: no protocol error
};

void check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "request_parser_fuzz: %s\n", what);
  std::abort();
}

// Parses what `buf` holds from *pos; false once the parser failed.
bool drain(RequestParser& p, std::string_view buf, size_t* pos, Outcome& out) {
  for (;;) {
    size_t before = *pos;
    RequestParser::Status s = p.parse(buf, pos);
    check(*pos >= before && *pos <= buf.size(), "the position moved back or past the end");
    if (s == RequestParser::Status::kNeedMore) return true;
    if (s == RequestParser::Status::kError) {
      check(!p.error().empty(), "an error without a text");
      out.error = p.error();
      return false;
    }
    out.commands.push_back(p.argv());
  }
}

Outcome parse_reads(std::string_view wire, int64_t max_bulk, uint8_t seed, bool one_read) {
  Outcome out;
  RequestParser p(max_bulk);
  std::string buf;
  size_t pos = 0;
  size_t fed = 0;
  uint32_t state = seed * 2246822519u + 7;
  while (fed < wire.size()) {
    size_t n = wire.size() - fed;
    if (!one_read) {
      state = state * 1664525u + 1013904223u;
      n = std::min<size_t>(n, 1 + (state >> 20) % 32);
    }
    buf.erase(0, pos);  // what the server's reader keeps: the unconsumed bytes
    pos = 0;
    buf.append(wire.substr(fed, n));
    fed += n;
    if (!drain(p, buf, &pos, out)) break;
  }
  return out;
}

std::string multibulk(const std::vector<std::string>& argv) {
  std::string s = "*" + std::to_string(argv.size()) + "\r\n";
  for (const std::string& a : argv) s += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Longer inputs could exceed the 64 KiB inline limit in one read but not
  // in several (as with Redis, where it depends on the read sizes).
  if (size < 2 || size > 32 * 1024) return 0;
  int64_t max_bulk = data[0] < 128 ? data[0] : RequestParser::kDefaultMaxBulkBytes;
  std::string_view wire(reinterpret_cast<const char*>(data) + 2, size - 2);
  Outcome whole = parse_reads(wire, max_bulk, data[1], true);
  Outcome split = parse_reads(wire, max_bulk, data[1], false);
  check(whole.error == split.error, "one read and several reads end with different errors");
  check(whole.commands == split.commands, "one read and several reads give different commands");
  for (const auto& argv : whole.commands) {
    check(!argv.empty(), "an empty command");
    std::string again = multibulk(argv);
    RequestParser p(RequestParser::kDefaultMaxBulkBytes);
    size_t pos = 0;
    check(p.parse(again, &pos) == RequestParser::Status::kCommand, "a command does not reparse");
    check(p.argv() == argv && pos == again.size(), "a command reparses differently");
  }
  return 0;
}
