#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/hash.h"
#include "base/ppm.h"
#include "base/sha1.h"
#include "base/split_args.h"

namespace redsim::base {
namespace {

TEST(Sha1, MatchesTheStandardTestVectors) {
  // FIPS 180 examples, and what Redis prints for SCRIPT LOAD "return 1".
  EXPECT_EQ(sha1_hex(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(sha1_hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(sha1_hex("return 1"), "e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
  EXPECT_EQ(sha1_hex(std::string("a\0b", 3)).size(), 40u);
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("123"), "a665a45920422f9d417e4867efdc4fb8a04a1f3fff1fa07e998e86f7f7a27ae3");
}

TEST(Hash, FnvAndMixAreTheSpecifiedFunctions) {
  EXPECT_EQ(fnv1a64(""), kFnvOffset);
  EXPECT_EQ(fnv1a64("a"), 0xAF63DC4C8601EC8CULL);  // FNV-1a 64 test vector
  uint64_t state = 0;
  EXPECT_EQ(splitmix64(state), 0xE220A8397B1DCDAFULL);  // splitmix64(0)'s first output
  EXPECT_EQ(state, 0x9E3779B97F4A7C15ULL);
}

TEST(Hash, LemireBelowStaysInRangeAndDrawsNothingForZero) {
  int calls = 0;
  auto next = [&calls] { return ++calls, ~uint64_t{0}; };
  EXPECT_EQ(lemire_below(0, next), 0u);
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(lemire_below(10, next), 9u);  // the largest word maps to n - 1
  EXPECT_EQ(calls, 1);
}

TEST(Ppm, ConvertsFromAProbabilityAndCompares) {
  EXPECT_EQ(Ppm::from_probability(0.001).parts(), 1000u);
  EXPECT_EQ(Ppm::from_probability(-1).parts(), 0u);
  EXPECT_EQ(Ppm::from_probability(2.0), Ppm::always());
  EXPECT_DOUBLE_EQ(Ppm(250'000).probability(), 0.25);
  EXPECT_DOUBLE_EQ(Ppm(3'000'000).probability(), 1.0);
  EXPECT_LT(Ppm(1), Ppm(2));
  EXPECT_FALSE(Ppm());
  EXPECT_TRUE(Ppm(1));
}

TEST(SplitArgs, FollowsRedisCliQuoting) {
  using V = std::vector<std::string>;
  EXPECT_EQ(split_args("  SET  k v "), (V{"SET", "k", "v"}));
  EXPECT_EQ(split_args(R"(SET k "a b\x41")"), (V{"SET", "k", "a bA"}));
  EXPECT_EQ(split_args(R"(x 'it\'s')"), (V{"x", "it's"}));
  EXPECT_EQ(split_args(""), V{});
  EXPECT_FALSE(split_args(R"(SET "k)"));
  EXPECT_FALSE(split_args(R"("a"b)")) << "a closing quote must be followed by a blank";
}

}  // namespace
}  // namespace redsim::base
