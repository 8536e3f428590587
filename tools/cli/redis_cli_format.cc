#include "tools/cli/redis_cli_format.h"

#include <cctype>
#include <cstdio>

#include "sim/world/quote.h"

namespace redsim::cli {

namespace {

void format_into(std::string& out, const resp::Reply& r, const std::string& prefix) {
  using resp::Kind;
  switch (r.kind()) {
    case Kind::kStatus:
      out += r.str();
      out += '\n';
      return;
    case Kind::kError:
      out += "(error) ";
      out += r.str();
      out += '\n';
      return;
    case Kind::kInteger:
      out += "(integer) " + std::to_string(r.integer()) + "\n";
      return;
    case Kind::kBulk:
      out += quote_bulk(r.str());
      out += '\n';
      return;
    case Kind::kNil:
      out += "(nil)\n";
      return;
    case Kind::kArray:
    case Kind::kSet:
    case Kind::kPush:
      break;
    // redis-cli -3's forms (cliFormatReplyTTY).
    case Kind::kDouble:
      out += "(double) " + r.str() + "\n";
      return;
    case Kind::kBoolean:
      out += r.integer() ? "(true)\n" : "(false)\n";
      return;
    case Kind::kVerbatim:
      out += std::string(r.verbatim_text()) + "\n";
      return;
    case Kind::kBigNumber:
      out += "(big number) " + r.str() + "\n";
      return;
    case Kind::kMap: {
      const auto& kv = r.elements();
      if (kv.empty()) {
        out += "(empty hash)\n";
        return;
      }
      const size_t pairs = kv.size() / 2;
      int width = static_cast<int>(std::to_string(pairs).size());
      std::string nested_prefix = prefix + std::string(static_cast<size_t>(width) + 2, ' ');
      for (size_t i = 0; i < pairs; ++i) {
        char index[32];
        std::snprintf(index, sizeof index, "%*zu# ", width, i + 1);
        if (i > 0) out += prefix;
        out += index;
        std::string key;
        format_into(key, kv[2 * i], nested_prefix);
        if (!key.empty() && key.back() == '\n') key.pop_back();
        out += key + " => ";
        format_into(out, kv[2 * i + 1], nested_prefix);
      }
      return;
    }
  }
  const auto& elements = r.elements();
  if (elements.empty()) {
    out += r.is_set() ? "(empty set)\n" : "(empty array)\n";
    return;
  }
  const char mark = r.is_set() ? '~' : ')';
  int width = static_cast<int>(std::to_string(elements.size()).size());
  // Nested arrays are indented by the width of this level's "N) " prefix.
  std::string nested_prefix = prefix + std::string(static_cast<size_t>(width) + 2, ' ');
  for (size_t i = 0; i < elements.size(); ++i) {
    char index[32];
    std::snprintf(index, sizeof index, "%*zu%c ", width, i + 1, mark);
    // The first element follows the parent's own index on the same line.
    if (i > 0) out += prefix;
    out += index;
    format_into(out, elements[i], nested_prefix);
  }
}

}  // namespace

std::string quote_bulk(std::string_view s) {
  return world::quote_escaped(s, world::QuoteStyle::kRedisCli);
}

std::string format_reply(const resp::Reply& reply) {
  std::string out;
  format_into(out, reply, "");
  return out;
}

}  // namespace redsim::cli
