// A minimal JSON string escaper for the CLI's --json output.
#pragma once

#include <string>
#include <string_view>

#include "sim/world/quote.h"

namespace redsim::cli {

// `s` as a JSON string literal, quotes included (RFC 8259 escapes; bytes
// >= 0x7f pass through, so valid UTF-8 stays valid).
inline std::string json_string(std::string_view s) {
  return world::quote_escaped(s, world::QuoteStyle::kJson);
}

}  // namespace redsim::cli
