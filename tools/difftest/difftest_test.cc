#include "tools/difftest/difftest.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tools/testing/shared_redis_server.h"

namespace redsim::difftest {
namespace {

// The binary's real redis-server (SharedRedisServer).
Endpoint endpoint() {
  const auto& redis = testing::SharedRedisServer::server();
  return Endpoint{redis.host(), redis.port()};
}

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

// The data-model families (generator_data_model.cc) reach every command
// issue 13 added, and a blocking pop follows a push to its key.
TEST(Generate, CoversTheDataModelFamilies) {
  GenOptions g;
  g.commands = 20000;
  std::set<std::string> names;
  const std::vector<Step> steps = generate(g);
  for (const Step& s : steps) {
    names.insert(s.argv[0] == "FUNCTION" || s.argv[0] == "XGROUP" ? s.argv[0] + " " + s.argv[1]
                                                                  : s.argv[0]);
  }
  for (const char* n :
       {"LTRIM",        "LMPOP",          "LPOS",        "LMOVE",       "SINTER",
        "SUNIONSTORE",  "SDIFFSTORE",     "SINTERCARD",  "SMOVE",       "SMISMEMBER",
        "ZUNION",       "ZINTERSTORE",    "ZDIFFSTORE",  "ZINTERCARD",  "ZRANGESTORE",
        "ZLEXCOUNT",    "ZREMRANGEBYLEX", "ZRANDMEMBER", "ZMPOP",       "BITCOUNT",
        "BITPOS",       "BITOP",          "BITFIELD",    "BITFIELD_RO", "GEOADD",
        "GEODIST",      "GEOHASH",        "GEOPOS",      "GEOSEARCH",   "GEOSEARCHSTORE",
        "GEORADIUS",    "GEORADIUS_RO",   "SORT",        "SORT_RO",     "LCS",
        "SUBSTR",       "XADD",           "XRANGE",      "XREVRANGE",   "XLEN",
        "XDEL",         "XTRIM",          "XREADGROUP",  "XREAD",       "XACK",
        "XPENDING",     "XCLAIM",         "XAUTOCLAIM",  "XSETID",      "XGROUP CREATE",
        "XGROUP SETID", "FUNCTION LOAD",  "FCALL",       "FCALL_RO",    "FUNCTION FLUSH",
        "BLPOP",        "BRPOP",          "BLMOVE",      "BRPOPLPUSH",  "BLMPOP",
        "BZPOPMIN",     "BZPOPMAX",       "BZMPOP"}) {
    EXPECT_TRUE(names.contains(n)) << n;
  }
  size_t pushed_first = 0, blocking = 0;
  for (size_t i = 1; i < steps.size(); ++i) {
    const std::string& n = steps[i].argv[0];
    if (n != "BLPOP" && n != "BRPOP" && n != "BZPOPMIN") continue;
    ++blocking;
    if (steps[i - 1].argv.size() > 1 && steps[i - 1].argv[1] == steps[i].argv[1]) ++pushed_first;
  }
  EXPECT_GT(blocking, 0u);
  EXPECT_GT(pushed_first * 10, blocking * 7) << pushed_first << " of " << blocking;
}

// Only the data-model families, against Redis: zero mismatches.
TEST(Difftest, DataModelFamiliesMatchRedis) {
  GenOptions g;
  g.seed = 7;
  g.commands = 3000;
  g.families = {"lists", "blocking", "algebra", "bits", "geo", "sort", "stream", "function"};
  const std::vector<Step> all = generate(g);
  const Result r = run(all, endpoint());
  EXPECT_EQ(r.steps_run, 3000u);
  EXPECT_FALSE(r.mismatch) << describe(shrink(all, endpoint()), r)
                           << "replay: build/redsim difftest --seed 7 --commands 3000 --family "
                              "lists --family blocking ...";
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
