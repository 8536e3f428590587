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

// Redis 7.0 RESTOREs the encodings of Redis 6.2 and before (RDB 9): ziplist
// hashes and sorted sets, quicklists of ziplists. The values are those of
// Redis's tests/assets hash-ziplist.rdb, zset-ziplist.rdb and
// list-quicklist.rdb, each framed as a DUMP payload (RDB version 9, CRC-64);
// redis-server 7.0.15 restores each to what the assertions say.
const std::string kHashZiplistDump(
    "\x0d\x1b\x1b\x00\x00\x00\x16\x00\x00\x00\x04\x00\x00\x02\x66\x31\x04\x02\x76\x31\x04\x02\x66"
    "\x32\x04\x02\x76\x32\xff\x09\x00\x77\x7d\x2e\x23\xe1\x32\x52\x1f",
    39);
const std::string kZsetZiplistDump(
    "\x0c\x19\x19\x00\x00\x00\x16\x00\x00\x00\x04\x00\x00\x03\x6f\x6e\x65\x05\xf2\x02\x03\x74\x77"
    "\x6f\x05\xf3\xff\x09\x00\xb0\x1b\x5a\x5a\x78\x92\x69\x7b",
    37);
const std::string kListQuicklistDump(
    "\x0e\x01\x0d\x0d\x00\x00\x00\x0a\x00\x00\x00\x01\x00\x00\xf8\xff\x09\x00\x79\x34\x65\x72\x20"
    "\x83\xa4\x04",
    26);

TEST_F(DumpTest, RestoresRdb9ZiplistEncodings) {
  EXPECT_EQ(run({"RESTORE", "h", "0", kHashZiplistDump}), Ok());
  EXPECT_EQ(run({"HGETALL", "h"}), Bulks({"f1", "v1", "f2", "v2"}));
  EXPECT_EQ(run({"OBJECT", "ENCODING", "h"}), Bulk("listpack"));
  EXPECT_EQ(run({"RESTORE", "z", "0", kZsetZiplistDump}), Ok());
  EXPECT_EQ(run({"ZRANGE", "z", "0", "-1", "WITHSCORES"}), Bulks({"one", "1", "two", "2"}));
  EXPECT_EQ(run({"RESTORE", "l", "0", kListQuicklistDump}), Ok());
  EXPECT_EQ(run({"LRANGE", "l", "0", "-1"}), Bulks({"7"}));
}

// The value of `name` in a flat name/value reply (XINFO).
resp::Reply field(const resp::Reply& r, std::string_view name) {
  const auto& e = r.elements();
  for (size_t i = 0; i + 1 < e.size(); i += 2) {
    if (e[i].is_bulk() && e[i].str() == name) return e[i + 1];
  }
  return resp::Reply::error("no field " + std::string(name));
}

// stream-cgroups.tcl "Loading from legacy (Redis <= v6.2.x, rdb_ver < 10)
// persistence": a Redis 5 DUMP (RDB_TYPE_STREAM_LISTPACKS) of six entries,
// 3-0 deleted, groups g1 (c11 read four) and g2, trimmed to two entries.
// redis-server 7.0.15 reads it as the assertions say.
TEST_F(DumpTest, RestoresRedis62Streams) {
  const std::string kLegacy(
      "\x0F\x01\x10\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\xC3\x40\x4A"
      "\x40\x57\x16\x57\x00\x00\x00\x23\x00\x02\x01\x04\x01\x01\x01\x84\x64\x61\x74\x61\x05\x00"
      "\x01\x03\x01\x00\x20\x01\x03\x81\x61\x02\x04\x20\x0A\x00\x01\x40\x0A\x00\x62\x60\x0A\x00"
      "\x02\x40\x0A\x00\x63\x60\x0A\x40\x22\x01\x81\x64\x20\x0A\x40\x39\x20\x0A\x00\x65\x60\x0A"
      "\x00\x05\x40\x0A\x00\x66\x20\x0A\x00\xFF\x02\x06\x00\x02\x02\x67\x31\x05\x00\x04\x00\x00"
      "\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x3E\xF7\x83\x43\x7A\x01\x00\x00"
      "\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x3E\xF7\x83\x43\x7A"
      "\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x3E\xF7"
      "\x83\x43\x7A\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00"
      "\x00\x3E\xF7\x83\x43\x7A\x01\x00\x00\x01\x01\x03\x63\x31\x31\x3E\xF7\x83\x43\x7A\x01\x00"
      "\x00\x04\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
      "\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00"
      "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00\x00"
      "\x02\x67\x32\x00\x00\x00\x00\x09\x00\x3D\x52\xEF\x68\x67\x52\x1D\xFA",
      303);
  ASSERT_EQ(run({"RESTORE", "x", "0", kLegacy}), Ok());
  EXPECT_EQ(run({"XRANGE", "x", "-", "+"}), Arr({Arr({Bulk("5-0"), Bulks({"data", "e"})}),
                                                 Arr({Bulk("6-0"), Bulks({"data", "f"})})}));
  resp::Reply full = run({"XINFO", "STREAM", "x", "FULL"});
  EXPECT_EQ(field(full, "last-generated-id"), Bulk("6-0"));
  EXPECT_EQ(field(full, "max-deleted-entry-id"), Bulk("0-0"));
  EXPECT_EQ(field(full, "entries-added"), Int(2));
  const resp::Reply groups = field(full, "groups");
  ASSERT_EQ(groups.elements().size(), 2u);
  EXPECT_EQ(field(groups.elements()[0], "entries-read"), Int(1));
  EXPECT_EQ(field(groups.elements()[0], "lag"), Int(1));
  EXPECT_EQ(field(groups.elements()[0], "pel-count"), Int(4));
  EXPECT_EQ(field(groups.elements()[1], "entries-read"), Int(0));
  EXPECT_EQ(field(groups.elements()[1], "lag"), Int(2));
  // The PEL, with the delivery time the payload holds (1624630359870).
  EXPECT_EQ(run({"XINFO", "CONSUMERS", "x", "g1"}).elements().size(), 1u);
  resp::Reply pending = run({"XPENDING", "x", "g1"});
  EXPECT_EQ(pending, Arr({Int(4), Bulk("1-0"), Bulk("5-0"), Arr({Bulks({"c11", "4"})})}));
  // The stream takes new entries after what it restored.
  EXPECT_EQ(run({"XADD", "x", "*", "k", "v"}).is_bulk(), true);
  EXPECT_EQ(run({"XLEN", "x"}), Int(3));
}

// A Redis 7.0 DUMP (RDB_TYPE_STREAM_LISTPACKS_2) after XADD s 1-1 a 1,
// XADD s 2-0 b 2 c 3, XADD s 3-0 a 4, XADD s 4-0 a 5, XDEL s 2-0,
// XGROUP CREATE s g 0, XGROUP CREATE s h $ and XREADGROUP GROUP g alice
// COUNT 1 STREAMS s > on redis-server 7.0.15.
TEST_F(DumpTest, RestoresRedis70Streams) {
  const std::string kStream7(
      "\x13\x01\x10\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x40\x47\x47"
      "\x00\x00\x00\x1d\x00\x03\x01\x01\x01\x01\x01\x81\x61\x02\x00\x01\x02\x01\x00\x01\x00\x01"
      "\x01\x01\x04\x01\x01\x01\x01\x01\xdf\xff\x02\x02\x01\x81\x62\x02\x02\x01\x81\x63\x02\x03"
      "\x01\x08\x01\x02\x01\x02\x01\xdf\xff\x02\x04\x01\x04\x01\x02\x01\x03\x01\xdf\xff\x02\x05"
      "\x01\x04\x01\xff\x03\x04\x00\x01\x01\x02\x00\x04\x02\x01\x67\x01\x01\x81\xff\xff\xff\xff"
      "\xff\xff\xff\xff\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00"
      "\x70\x7c\x0d\xa2\x01\x00\x00\x01\x01\x05\x61\x6c\x69\x63\x65\x00\x70\x7c\x0d\xa2\x01\x00"
      "\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x01\x68\x04\x00"
      "\x81\xff\xff\xff\xff\xff\xff\xff\xff\x00\x00\x0a\x00\x23\xfd\x32\xee\x3f\xa0\xe4\xfd",
      197);
  ASSERT_EQ(run({"RESTORE", "s", "0", kStream7}), Ok());
  EXPECT_EQ(run({"XRANGE", "s", "-", "+"}),
            Arr({Arr({Bulk("1-1"), Bulks({"a", "1"})}), Arr({Bulk("3-0"), Bulks({"a", "4"})}),
                 Arr({Bulk("4-0"), Bulks({"a", "5"})})}));
  resp::Reply full = run({"XINFO", "STREAM", "s", "FULL"});
  EXPECT_EQ(field(full, "max-deleted-entry-id"), Bulk("2-0"));
  EXPECT_EQ(field(full, "entries-added"), Int(4));
  const resp::Reply groups = field(full, "groups");
  ASSERT_EQ(groups.elements().size(), 2u);
  EXPECT_EQ(field(groups.elements()[0], "last-delivered-id"), Bulk("1-1"));
  EXPECT_EQ(field(groups.elements()[0], "entries-read"), Nil());
  EXPECT_EQ(field(groups.elements()[0], "lag"), Nil());
  EXPECT_EQ(field(groups.elements()[1], "last-delivered-id"), Bulk("4-0"));
  EXPECT_EQ(field(groups.elements()[1], "lag"), Int(0));
  EXPECT_EQ(run({"XPENDING", "s", "g"}),
            Arr({Int(1), Bulk("1-1"), Bulk("1-1"), Arr({Bulks({"alice", "1"})})}));
}

// unit/dump's "MIGRATE cached connections are released after some time"
// reads this INFO field.
TEST_F(DumpTest, InfoReportsNoCachedMigrateSockets) {
  resp::Reply info = run({"INFO", "stats"});
  EXPECT_NE(info.str().find("migrate_cached_sockets:0\r\n"), std::string::npos);
}

}  // namespace
}  // namespace redsim::sim
