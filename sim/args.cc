#include "sim/args.h"

#include <cstdlib>
#include <limits>

namespace redsim::sim {

bool parse_int64(std::string_view s, int64_t* out) {
  // Same acceptance as string2ll: at most 20 characters, canonical digits only.
  if (s.empty() || s.size() > 20) return false;
  if (s.size() == 1 && s[0] == '0') {
    *out = 0;
    return true;
  }
  size_t i = 0;
  bool negative = false;
  if (s[0] == '-') {
    negative = true;
    i = 1;
    if (s.size() == 1) return false;
  }
  if (s[i] < '1' || s[i] > '9') return false;
  uint64_t v = 0;
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c < '0' || c > '9') return false;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (kMax - d) / 10) return false;
    v = v * 10 + d;
  }
  constexpr uint64_t kPosLimit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (negative) {
    if (v > kPosLimit + 1) return false;
    *out = v == kPosLimit + 1 ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(v);
  } else {
    if (v > kPosLimit) return false;
    *out = static_cast<int64_t>(v);
  }
  return true;
}

double parse_double_prefix(const std::string& s) { return std::strtod(s.c_str(), nullptr); }

bool equals_ci(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    unsigned char x = static_cast<unsigned char>(a[i]);
    unsigned char y = static_cast<unsigned char>(b[i]);
    if (x >= 'A' && x <= 'Z') x = static_cast<unsigned char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<unsigned char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

std::string one_line(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  return out;
}

resp::Reply help_reply(std::string_view command, std::initializer_list<const char*> body) {
  std::vector<resp::Reply> lines;
  lines.push_back(resp::Reply::status(std::string(command) +
                                      " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
  for (const char* line : body) lines.push_back(resp::Reply::status(line));
  lines.push_back(resp::Reply::status("HELP"));
  lines.push_back(resp::Reply::status("    Prints this help."));
  return resp::Reply::array(std::move(lines));
}

namespace errors {

resp::Reply wrong_type() {
  return resp::Reply::error("WRONGTYPE Operation against a key holding the wrong kind of value");
}
resp::Reply syntax() { return resp::Reply::error("ERR syntax error"); }
resp::Reply not_integer() {
  return resp::Reply::error("ERR value is not an integer or out of range");
}
resp::Reply overflow() { return resp::Reply::error("ERR increment or decrement would overflow"); }
resp::Reply arity(std::string_view name) {
  std::string text = "ERR wrong number of arguments for '";
  text += name;
  text += "' command";
  return resp::Reply::error(std::move(text));
}
resp::Reply invalid_expire(std::string_view name) {
  std::string text = "ERR invalid expire time in '";
  text += name;
  text += "' command";
  return resp::Reply::error(std::move(text));
}

}  // namespace errors

}  // namespace redsim::sim
