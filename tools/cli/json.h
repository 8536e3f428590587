// The CLI's --json output, built with nlohmann-json (Debian's
// nlohmann-json3-dev) and written on one line.
//
//   Json o;                          // keys keep their insertion order
//   o["lock"] = "simple";
//   o["violation"] = false;
//   out << dump_json(o) << "\n";     // {"lock":"simple","violation":false}
//
// Redis strings (keys, values, script-lock directories, timelines) are
// bytes; JSON text is Unicode. dump_json writes valid UTF-8 JSON for any
// bytes: valid UTF-8 passes through unchanged, control characters are
// escaped (\n, \u0001), and each byte that is not part of a valid UTF-8
// sequence (e.g. 0xff, a lone 0x80, a truncated sequence) becomes U+FFFD,
// the replacement character (nlohmann's error_handler_t::replace). The
// text output keeps the exact bytes, escaped as redis-cli does.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace redsim::cli {

using Json = nlohmann::ordered_json;

// `j` as compact JSON text (no newline), invalid UTF-8 replaced as above.
inline std::string dump_json(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace redsim::cli
