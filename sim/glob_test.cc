#include "sim/glob.h"

#include <gtest/gtest.h>

#include <string>

namespace redsim::sim {
namespace {

// Every expectation below was checked against redis-server 7.0.15 (KEYS
// uses the same matcher as PSUBSCRIBE).
TEST(GlobMatch, StarAndQuestionMark) {
  EXPECT_TRUE(glob_match("a*", "a"));
  EXPECT_TRUE(glob_match("a*", "abc"));
  EXPECT_TRUE(glob_match("*b", "aXb"));
  EXPECT_TRUE(glob_match("a**b", "ab"));
  EXPECT_FALSE(glob_match("*b", "ba"));
  EXPECT_TRUE(glob_match("a?b", "aXb"));
  EXPECT_FALSE(glob_match("a?b", "ab"));
  EXPECT_TRUE(glob_match("news.*", "news.art"));
  EXPECT_FALSE(glob_match("news.*", "news"));
}

TEST(GlobMatch, StarDoesNotMatchAnEmptySubject) {
  // Redis's loop never runs on an empty string, so "*" fails there
  // (PUBLISH "" reaches no "*" subscriber).
  EXPECT_FALSE(glob_match("*", ""));
  EXPECT_TRUE(glob_match("", ""));
  EXPECT_FALSE(glob_match("", "a"));
}

TEST(GlobMatch, Sets) {
  EXPECT_TRUE(glob_match("h[ae]llo", "hallo"));
  EXPECT_FALSE(glob_match("h[ae]llo", "hillo"));
  EXPECT_TRUE(glob_match("h[^e]llo", "hallo"));
  EXPECT_FALSE(glob_match("h[^e]llo", "hello"));
  EXPECT_TRUE(glob_match("[a-c]", "b"));
  EXPECT_TRUE(glob_match("[z-a]", "m"));  // reversed range
  EXPECT_FALSE(glob_match("[!a]", "b"));  // '!' is a plain member
  EXPECT_TRUE(glob_match("[!a]", "a"));
  EXPECT_TRUE(glob_match("[\\]]", "]"));
  EXPECT_TRUE(glob_match("[\\-]", "-"));
}

TEST(GlobMatch, OddSetsBehaveAsRedis) {
  EXPECT_FALSE(glob_match("[]]", "]"));  // ']' right after '[' closes an empty set
  EXPECT_FALSE(glob_match("a[]]b", "a]b"));
  EXPECT_TRUE(glob_match("[a-c", "b"));  // unterminated set ends with the pattern
  EXPECT_FALSE(glob_match("a[", "a"));
  EXPECT_FALSE(glob_match("[", "["));
  EXPECT_TRUE(glob_match("[^]", "x"));  // empty negated set: any byte
  // "[a-]" is the range ']'..'a' (0x5d..0x61).
  EXPECT_TRUE(glob_match("[a-]", "a"));
  EXPECT_TRUE(glob_match("[a-]", "]"));
  EXPECT_TRUE(glob_match("[a-]", "^"));
  EXPECT_FALSE(glob_match("[a-]", "-"));
}

TEST(GlobMatch, Escapes) {
  EXPECT_TRUE(glob_match("\\*", "*"));
  EXPECT_FALSE(glob_match("\\*", "a"));
  EXPECT_TRUE(glob_match("a\\", "a\\"));  // a trailing backslash is literal
  EXPECT_TRUE(glob_match("\\?x", "?x"));
}

TEST(GlobMatch, PathologicalPatternTerminates) {
  // Exponential without the "exhausted" cut-off.
  std::string pattern;
  for (int i = 0; i < 30; ++i) pattern += "*a";
  pattern += "*b";
  std::string subject(300, 'a');
  EXPECT_FALSE(glob_match(pattern, subject));
  EXPECT_TRUE(glob_match(pattern, subject + "b"));
}

}  // namespace
}  // namespace redsim::sim
