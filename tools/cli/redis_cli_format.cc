#include "tools/cli/redis_cli_format.h"

#include <cctype>
#include <cstdio>

#include "sim/world/quote.h"

namespace redsim::cli {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_blank(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\0'; }

// Reads one double-quoted argument starting after the opening quote.
bool read_double_quoted(std::string_view line, size_t& i, std::string& arg) {
  while (i < line.size()) {
    char c = line[i];
    if (c == '\\' && i + 3 < line.size() && line[i + 1] == 'x' && hex_value(line[i + 2]) >= 0 &&
        hex_value(line[i + 3]) >= 0) {
      arg += static_cast<char>(hex_value(line[i + 2]) * 16 + hex_value(line[i + 3]));
      i += 4;
    } else if (c == '\\' && i + 1 < line.size()) {
      char e = line[i + 1];
      switch (e) {
        case 'n':
          arg += '\n';
          break;
        case 'r':
          arg += '\r';
          break;
        case 't':
          arg += '\t';
          break;
        case 'b':
          arg += '\b';
          break;
        case 'a':
          arg += '\a';
          break;
        default:
          arg += e;
          break;
      }
      i += 2;
    } else if (c == '"') {
      ++i;
      return i == line.size() || is_blank(line[i]);
    } else {
      arg += c;
      ++i;
    }
  }
  return false;  // unterminated
}

bool read_single_quoted(std::string_view line, size_t& i, std::string& arg) {
  while (i < line.size()) {
    char c = line[i];
    if (c == '\\' && i + 1 < line.size() && line[i + 1] == '\'') {
      arg += '\'';
      i += 2;
    } else if (c == '\'') {
      ++i;
      return i == line.size() || is_blank(line[i]);
    } else {
      arg += c;
      ++i;
    }
  }
  return false;
}

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
      break;
  }
  const auto& elements = r.elements();
  if (elements.empty()) {
    out += "(empty array)\n";
    return;
  }
  int width = static_cast<int>(std::to_string(elements.size()).size());
  // Nested arrays are indented by the width of this level's "N) " prefix.
  std::string nested_prefix = prefix + std::string(static_cast<size_t>(width) + 2, ' ');
  for (size_t i = 0; i < elements.size(); ++i) {
    char index[32];
    std::snprintf(index, sizeof index, "%*zu) ", width, i + 1);
    // The first element follows the parent's own index on the same line.
    if (i > 0) out += prefix;
    out += index;
    format_into(out, elements[i], nested_prefix);
  }
}

}  // namespace

std::optional<std::vector<std::string>> split_args(std::string_view line) {
  std::vector<std::string> args;
  size_t i = 0;
  while (true) {
    while (i < line.size() && is_blank(line[i])) ++i;
    if (i == line.size()) return args;
    std::string arg;
    // A token may mix plain characters and one quoted part (as in a"b c"):
    // redis-cli enters the quoted state on a quote anywhere in a token.
    while (i < line.size() && !is_blank(line[i])) {
      char c = line[i++];
      if (c == '"') {
        if (!read_double_quoted(line, i, arg)) return std::nullopt;
        break;
      }
      if (c == '\'') {
        if (!read_single_quoted(line, i, arg)) return std::nullopt;
        break;
      }
      arg += c;
    }
    args.push_back(std::move(arg));
  }
}

std::string quote_bulk(std::string_view s) {
  return world::quote_escaped(s, world::QuoteStyle::kRedisCli);
}

std::string format_reply(const resp::Reply& reply) {
  std::string out;
  format_into(out, reply, "");
  return out;
}

}  // namespace redsim::cli
