#include "sim/world/quote.h"

#include <cstdio>

namespace redsim::world {

std::string quote_escaped(std::string_view s, QuoteStyle style) {
  const bool redis_cli = style == QuoteStyle::kRedisCli;
  const bool json = style == QuoteStyle::kJson;
  std::string out = "\"";
  for (unsigned char c : s) {
    char buf[8];
    if (c == '"') {
      out += "\\\"";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (redis_cli && c == '\a') {
      out += "\\a";
    } else if (redis_cli && c == '\b') {
      out += "\\b";
    } else if (c < 0x20 || (c >= 0x7f && !json)) {
      std::snprintf(buf, sizeof buf, json ? "\\u%04x" : "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
  return out;
}

}  // namespace redsim::world
