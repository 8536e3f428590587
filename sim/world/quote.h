// quote_escaped(): a byte string as a double-quoted, escaped literal, in the
// three forms redsim prints: the history's C-style quoting, redis-cli's
// (sdscatrepr in Redis's sds.c), and a JSON string (RFC 8259).
//
//   quote_escaped("a\"b\n", QuoteStyle::kC);        // "a\"b\n"
//   quote_escaped("\a", QuoteStyle::kRedisCli);     // "\a"
//   quote_escaped("\x01\xc3\xa9", QuoteStyle::kJson);  // "\u0001é"
#pragma once

#include <string>
#include <string_view>

namespace redsim::world {

enum class QuoteStyle {
  // \" \\ \n \r \t; every other byte below 0x20 or from 0x7f up as \xhh.
  kC,
  // kC plus \a and \b: how redis-cli prints a bulk reply.
  kRedisCli,
  // \" \\ \n \r \t; other bytes below 0x20 as \u00hh; bytes from 0x7f up
  // as they are, so valid UTF-8 stays valid.
  kJson,
};

// `s` between double quotes, escaped as `style` says.
std::string quote_escaped(std::string_view s, QuoteStyle style);

}  // namespace redsim::world
