#include "sim/glob.h"

namespace redsim::sim {

namespace {

// Deep '*' recursion is cut off as Redis does, so a hostile pattern cannot
// blow the stack: past this depth the match simply fails.
constexpr int kMaxNesting = 1000;

// Matches one bracket set starting just after '['. Advances `p` to the
// closing ']' (or to the last byte when the set is unterminated) and returns
// whether byte `c` is accepted.
bool match_set(std::string_view pattern, size_t& p, unsigned char c) {
  bool negate = p < pattern.size() && pattern[p] == '^';
  if (negate) ++p;
  bool matched = false;
  while (true) {
    if (p >= pattern.size()) {
      // Unterminated: the set ends with the pattern; stay on the last byte.
      --p;
      break;
    }
    if (pattern[p] == '\\' && pattern.size() - p >= 2) {
      ++p;
      if (static_cast<unsigned char>(pattern[p]) == c) matched = true;
    } else if (pattern[p] == ']') {
      break;
    } else if (pattern.size() - p >= 3 && pattern[p + 1] == '-') {
      unsigned char lo = static_cast<unsigned char>(pattern[p]);
      unsigned char hi = static_cast<unsigned char>(pattern[p + 2]);
      if (lo > hi) std::swap(lo, hi);
      p += 2;
      if (c >= lo && c <= hi) matched = true;
    } else if (static_cast<unsigned char>(pattern[p]) == c) {
      matched = true;
    }
    ++p;
  }
  return negate ? !matched : matched;
}

// `exhausted` is set once a '*' has tried every remaining suffix of the
// subject and failed: an enclosing '*' trying later starts only offers
// shorter suffixes, so it can stop too (Redis 7.0.9's fix for exponential
// patterns such as "*a*a*a*a*b").
bool match(std::string_view pattern, std::string_view s, int nesting, bool& exhausted) {
  if (nesting > kMaxNesting) return false;
  size_t p = 0;
  size_t i = 0;
  while (p < pattern.size() && i < s.size()) {
    switch (pattern[p]) {
      case '*': {
        while (p + 1 < pattern.size() && pattern[p + 1] == '*') ++p;
        if (p + 1 == pattern.size()) return true;
        for (; i < s.size(); ++i) {
          if (match(pattern.substr(p + 1), s.substr(i), nesting + 1, exhausted)) return true;
          if (exhausted) return false;
        }
        exhausted = true;
        return false;
      }
      case '?':
        ++i;
        break;
      case '[': {
        ++p;
        if (!match_set(pattern, p, static_cast<unsigned char>(s[i]))) return false;
        ++i;
        break;
      }
      case '\\':
        if (pattern.size() - p >= 2) ++p;
        [[fallthrough]];
      default:
        if (pattern[p] != s[i]) return false;
        ++i;
        break;
    }
    ++p;
    if (i == s.size()) {
      while (p < pattern.size() && pattern[p] == '*') ++p;
      break;
    }
  }
  return p == pattern.size() && i == s.size();
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view subject) {
  bool exhausted = false;
  return match(pattern, subject, 0, exhausted);
}

}  // namespace redsim::sim
