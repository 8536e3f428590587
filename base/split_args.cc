#include "base/split_args.h"

namespace redsim::base {

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

}  // namespace redsim::base
