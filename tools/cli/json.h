// A minimal JSON string escaper for the CLI's --json output.
#pragma once

#include <string>
#include <string_view>

namespace redsim::cli {

// `s` as a JSON string literal, quotes included (RFC 8259 escapes; bytes
// >= 0x80 pass through, so valid UTF-8 stays valid).
std::string json_string(std::string_view s);

}  // namespace redsim::cli
