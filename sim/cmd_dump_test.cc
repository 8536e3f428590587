// DUMP and RESTORE. The byte strings are what redis-server 7.0.15 dumped.
#include <gtest/gtest.h>

#include <string>

#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class DumpTest : public ServerTest {};

// DUMP s1 after SET s1 bar, and DUMP s2 after SET s2 -300, on Redis.
const std::string kBarDump(
    "\x00\x03"
    "bar\x0a\x00\xe6\xbeI`\xee"
    "f\xfd\x17",
    15);
const std::string kMinus300Dump("\x00\xc1\xd4\xfe\x0a\x00\xc6\xc4\x86#\xfe\xbe\xde.", 14);
// DUMP hs after HSET hs a 1 b 2 (a listpack) on Redis.
const std::string kHashListpackDump(
    "\x10\x11\x11\x00\x00\x00\x04\x00\x81"
    "a\x02\x01\x01\x81"
    "b\x02\x02\x01\xff\x0a\x00>@cl\x8f]v\x9a",
    29);

TEST_F(DumpTest, StringsDumpAsRedisDoes) {
  run({"SET", "s1", "bar"});
  run({"SET", "s2", "-300"});
  EXPECT_EQ(run({"DUMP", "s1"}), Bulk(kBarDump));
  EXPECT_EQ(run({"DUMP", "s2"}), Bulk(kMinus300Dump));
  EXPECT_EQ(run({"DUMP", "nokey"}), Nil());
}

TEST_F(DumpTest, RestoresRedisPayloadsAndItsOwn) {
  run({"RESTORE", "h", "0", kHashListpackDump});
  EXPECT_EQ(run({"HGETALL", "h"}), Bulks({"a", "1", "b", "2"}));
  EXPECT_EQ(run({"OBJECT", "ENCODING", "h"}), Bulk("listpack"));
  run({"RPUSH", "l", "a", "12", "-70000"});
  run({"ZADD", "z", "1.5", "m", "-inf", "n"});
  run({"SADD", "s", "3", "1"});
  for (const char* key : {"l", "z", "s"}) {
    resp::Reply payload = run({"DUMP", key});
    ASSERT_TRUE(payload.is_bulk());
    EXPECT_EQ(run({"RESTORE", std::string(key) + "2", "0", payload.str()}), Ok());
  }
  EXPECT_EQ(run({"LRANGE", "l2", "0", "-1"}), Bulks({"a", "12", "-70000"}));
  EXPECT_EQ(run({"ZRANGE", "z2", "0", "-1", "WITHSCORES"}), Bulks({"n", "-inf", "m", "1.5"}));
  EXPECT_EQ(run({"SMEMBERS", "s2"}), Bulks({"1", "3"}));
  EXPECT_EQ(run({"OBJECT", "ENCODING", "s2"}), Bulk("intset"));
}

TEST_F(DumpTest, RestoreOptionsAndErrors) {
  run({"SET", "k", "bar"});
  EXPECT_EQ(run({"RESTORE", "k", "0", kBarDump}), Err("BUSYKEY Target key name already exists."));
  EXPECT_EQ(run({"RESTORE", "k", "0", kBarDump, "REPLACE"}), Ok());
  EXPECT_EQ(run({"RESTORE", "n", "-1", kBarDump}), Err("ERR Invalid TTL value, must be >= 0"));
  EXPECT_EQ(run({"RESTORE", "n", "0", "x"}), Err("ERR DUMP payload version or checksum are wrong"));
  std::string bad = kBarDump;
  bad[1] = '\x04';  // a length past the end, with the checksum left wrong too
  EXPECT_EQ(run({"RESTORE", "n", "0", bad}), Err("ERR DUMP payload version or checksum are wrong"));
  EXPECT_EQ(run({"RESTORE", "n", "0", kBarDump, "foo"}), Err(kSyntax));
  EXPECT_EQ(run({"RESTORE", "n", "0", kBarDump, "IDLETIME", "-1"}),
            Err("ERR Invalid IDLETIME value, must be >= 0"));
  EXPECT_EQ(run({"RESTORE", "n", "0", kBarDump, "FREQ", "256"}),
            Err("ERR Invalid FREQ value, must be >= 0 and <= 255"));
  EXPECT_EQ(run({"RESTORE", "t", "5000", kBarDump}), Ok());
  EXPECT_GT(run({"PTTL", "t"}).integer(), 4000);
  // An absolute deadline already past: OK, and nothing is created.
  EXPECT_EQ(run({"RESTORE", "gone", "1", kBarDump, "ABSTTL"}), Ok());
  EXPECT_EQ(run({"EXISTS", "gone"}), Int(0));
}

// unit/dump's "MIGRATE cached connections are released after some time"
// reads this INFO field.
TEST_F(DumpTest, InfoReportsNoCachedMigrateSockets) {
  resp::Reply info = run({"INFO", "stats"});
  EXPECT_NE(info.str().find("migrate_cached_sockets:0\r\n"), std::string::npos);
}

}  // namespace
}  // namespace redsim::sim
