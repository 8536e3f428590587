#include "sim/args.h"

#include <gtest/gtest.h>

#include <limits>

namespace redsim::sim {
namespace {

TEST(ParseInt64, AcceptsCanonicalIntegers) {
  int64_t v = 1;
  EXPECT_TRUE(parse_int64("0", &v));
  EXPECT_EQ(v, 0);
  EXPECT_TRUE(parse_int64("42", &v));
  EXPECT_EQ(v, 42);
  EXPECT_TRUE(parse_int64("-17", &v));
  EXPECT_EQ(v, -17);
  EXPECT_TRUE(parse_int64("9223372036854775807", &v));
  EXPECT_EQ(v, std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(parse_int64("-9223372036854775808", &v));
  EXPECT_EQ(v, std::numeric_limits<int64_t>::min());
}

TEST(ParseInt64, RejectsWhatRedisString2llRejects) {
  int64_t v = 0;
  for (const char* bad :
       {"", "-", "+1", " 1", "1 ", "01", "007", "-0", "1.5", "abc", "1e3", "9223372036854775808",
        "-9223372036854775809", "99999999999999999999", "123456789012345678901", "0x10"}) {
    EXPECT_FALSE(parse_int64(bad, &v)) << bad;
  }
}

TEST(ParseDoublePrefix, TakesTheNumericPrefixLikeStrtod) {
  EXPECT_DOUBLE_EQ(parse_double_prefix("0.25"), 0.25);
  EXPECT_DOUBLE_EQ(parse_double_prefix("2abc"), 2.0);
  EXPECT_DOUBLE_EQ(parse_double_prefix("abc"), 0.0);
  EXPECT_DOUBLE_EQ(parse_double_prefix("-1"), -1.0);
}

TEST(EqualsCi, IgnoresAsciiCaseOnly) {
  EXPECT_TRUE(equals_ci("PxAt", "pxat"));
  EXPECT_FALSE(equals_ci("px", "pxat"));
  EXPECT_FALSE(equals_ci("nx", "ny"));
}

TEST(OneLine, ReplacesCrAndLf) { EXPECT_EQ(one_line("a\r\nb\nc"), "a  b c"); }

TEST(Errors, TextsAreRedis70s) {
  EXPECT_EQ(errors::wrong_type().str(),
            "WRONGTYPE Operation against a key holding the wrong kind of value");
  EXPECT_EQ(errors::syntax().str(), "ERR syntax error");
  EXPECT_EQ(errors::not_integer().str(), "ERR value is not an integer or out of range");
  EXPECT_EQ(errors::overflow().str(), "ERR increment or decrement would overflow");
  EXPECT_EQ(errors::arity("get").str(), "ERR wrong number of arguments for 'get' command");
  EXPECT_EQ(errors::invalid_expire("set").str(), "ERR invalid expire time in 'set' command");
  EXPECT_TRUE(errors::syntax().is_error());
}

}  // namespace
}  // namespace redsim::sim
