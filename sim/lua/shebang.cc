// The "#!lua flags=..." first line Redis 7.0 accepts in EVAL scripts.
// Error texts are Redis 7.0.15's (checked against a real server).
#include <string>

#include "sim/lua/internal.h"

namespace redsim::sim::lua {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

uint32_t flag_bit(std::string_view name) {
  if (name == "no-writes") return kScriptFlagNoWrites;
  if (name == "allow-oom") return kScriptFlagAllowOom;
  if (name == "allow-stale") return kScriptFlagAllowStale;
  if (name == "no-cluster") return kScriptFlagNoCluster;
  if (name == "allow-cross-slot-keys") return kScriptFlagAllowCrossSlot;
  return 0;
}

}  // namespace

Shebang parse_shebang(std::string_view body) {
  Shebang out;
  if (body.substr(0, 2) != "#!") return out;
  out.present = true;
  size_t nl = body.find('\n');
  if (nl == std::string_view::npos) {
    out.error = "ERR Invalid script shebang";
    return out;
  }
  std::vector<std::string_view> words = split_words(body.substr(0, nl));
  if (words.empty() || words[0] != "#!lua") {
    out.error = "ERR Unexpected engine in script shebang: ";
    out.error.append(words.empty() ? std::string_view("#!") : words[0]);
    return out;
  }
  for (size_t i = 1; i < words.size(); ++i) {
    std::string_view word = words[i];
    if (word.substr(0, 6) != "flags=") {
      out.error = "ERR Unknown lua shebang option: ";
      out.error.append(word);
      return out;
    }
    std::string_view list = word.substr(6);
    if (list.empty()) continue;
    size_t pos = 0;
    while (true) {
      size_t comma = list.find(',', pos);
      std::string_view flag =
          list.substr(pos, comma == std::string_view::npos ? list.npos : comma - pos);
      uint32_t bit = flag_bit(flag);
      if (bit == 0) {
        out.error = "ERR Unexpected flag in script shebang: ";
        out.error.append(flag);
        return out;
      }
      out.flags |= bit;
      if (comma == std::string_view::npos) break;
      pos = comma + 1;
    }
  }
  // The code compiles from the newline on, so line numbers stay those of
  // the whole body, as in Redis.
  out.code_offset = nl;
  return out;
}

}  // namespace redsim::sim::lua
