#include "tools/difftest/difftest.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tools/testing/redis_server_process.h"

namespace redsim::difftest {
namespace {

// One real redis-server for the whole binary.
testing::RedisServerProcess* g_redis = nullptr;

class RedisEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { g_redis = new testing::RedisServerProcess(); }
  void TearDown() override {
    delete g_redis;
    g_redis = nullptr;
  }
};
const auto* const kEnv = ::testing::AddGlobalTestEnvironment(new RedisEnvironment);

Endpoint endpoint() { return Endpoint{g_redis->host(), g_redis->port()}; }

TEST(Generate, SameSeedSameSteps) {
  GenOptions g;
  g.seed = 9;
  g.commands = 300;
  const auto a = generate(g), b = generate(g);
  ASSERT_EQ(a.size(), 300u);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].argv, b[i].argv) << i;
  g.seed = 10;
  EXPECT_NE(generate(g)[0].argv, a[0].argv);
}

TEST(Generate, CoversEveryFamily) {
  GenOptions g;
  g.commands = 5000;
  std::set<std::string> names;
  for (const Step& s : generate(g)) names.insert(s.argv[0]);
  for (const char* n :
       {"SET",       "HSET",    "EXPIRE",     "PTTL",    "MULTI",  "EXEC",    "WATCH",
        "SUBSCRIBE", "PUBLISH", "EVAL",       "EVALSHA", "SCRIPT", "DEBUG",   "LPUSH",
        "LMOVE",     "SADD",    "SPOP",       "ZADD",    "ZRANGE", "KEYS",    "SCAN",
        "COPY",      "GETEX",   "HRANDFIELD", "OBJECT",  "PFADD",  "PFCOUNT", "PFMERGE"}) {
    EXPECT_TRUE(names.contains(n)) << n;
  }
}

// The CI-sized run: three seeds of 1500 steps, zero mismatches.
TEST(Difftest, NoMismatchAgainstRedis) {
  size_t steps = 0;
  for (uint64_t seed : {1, 2, 3}) {
    GenOptions g;
    g.seed = seed;
    g.commands = 1500;
    const std::vector<Step> all = generate(g);
    const Result r = run(all, endpoint());
    steps += r.steps_run;
    EXPECT_FALSE(r.mismatch) << "seed " << seed << ":\n"
                             << describe(shrink(all, endpoint()), r)
                             << "replay: build/redsim difftest --seed " << seed
                             << " --commands 1500";
  }
  EXPECT_EQ(steps, 4500u);
}

// A planted difference (the fake's STRLEN answers one more) is found and
// shrunk to a few steps that end in STRLEN of an existing key.
TEST(Difftest, FindsAndShrinksAPlantedDifference) {
  RunOptions tamper;
  tamper.tamper = [](const std::vector<std::string>& argv, resp::Reply& reply) {
    if (argv[0] == "STRLEN" && reply.is_integer() && reply.integer() > 0) {
      reply = resp::Reply::integer(reply.integer() + 1);
    }
  };
  GenOptions g;
  g.seed = 4;
  g.commands = 2000;
  g.families = {"string", "keys"};
  const std::vector<Step> all = generate(g);
  const Result r = run(all, endpoint(), tamper);
  ASSERT_TRUE(r.mismatch) << "the planted difference was not found";
  size_t runs = 0;
  const std::vector<Step> small = shrink(all, endpoint(), &runs, tamper);
  const Result again = run(small, endpoint(), tamper);
  ASSERT_TRUE(again.mismatch);
  EXPECT_LE(small.size(), 3u) << describe(small, again);
  EXPECT_EQ(small.back().argv[0], "STRLEN") << describe(small, again);
  EXPECT_GT(runs, 1u);
}

}  // namespace
}  // namespace redsim::difftest
