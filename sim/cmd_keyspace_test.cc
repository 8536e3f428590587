// KEYS SCAN RENAME RENAMENX RANDOMKEY COPY TOUCH OBJECT. Expected texts and
// values are what redis-server 7.0.15 answered to the same commands.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "sim/internal.h"
#include "sim/keyspace.h"
#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class KeyspaceCmdTest : public ServerTest {};

resp::Reply bulks_of(const std::vector<std::string>& items) {
  std::vector<resp::Reply> out;
  for (const std::string& i : items) out.push_back(resp::Reply::bulk(i));
  return resp::Reply::array(std::move(out));
}

std::set<std::string> as_set(const resp::Reply& r) {
  std::set<std::string> out;
  for (const auto& e : r.elements()) out.insert(e.str());
  return out;
}

TEST_F(KeyspaceCmdTest, KeysSkipsExpired) {
  EXPECT_EQ(run({"MSET", "a1", "1", "a2", "2", "b", "3"}), Ok());
  EXPECT_EQ(run({"PEXPIRE", "a2", "5"}), Int(1));
  EXPECT_EQ(as_set(run({"KEYS", "a*"})), (std::set<std::string>{"a1", "a2"}));
  advance_ms(6);
  EXPECT_EQ(as_set(run({"KEYS", "*"})), (std::set<std::string>{"a1", "b"}));
  EXPECT_EQ(run({"KEYS"}), Err("ERR wrong number of arguments for 'keys' command"));
}

TEST_F(KeyspaceCmdTest, ScanReturnsEveryKeyOnceWithoutChanges) {
  for (int i = 0; i < 50; ++i) run({"SET", "k" + std::to_string(i), "v"});
  run({"HSET", "h", "f", "v"});
  std::multiset<std::string> seen;
  std::string cursor = "0";
  int calls = 0;
  do {
    resp::Reply r = run({"SCAN", cursor, "COUNT", "4"});
    cursor = r.elements()[0].str();
    for (const auto& e : r.elements()[1].elements()) seen.insert(e.str());
    ++calls;
    if (calls == 3) {
      // Keys added or removed mid-scan may or may not show; the others must.
      run({"DEL", "k0"});
      run({"SET", "late", "v"});
    }
  } while (cursor != "0" && calls < 1000);
  EXPECT_GT(calls, 5);
  for (int i = 1; i < 50; ++i) EXPECT_EQ(seen.count("k" + std::to_string(i)), 1u) << i;
  EXPECT_EQ(seen.count("h"), 1u);
  EXPECT_EQ(run({"SCAN", "0", "COUNT", "1000", "TYPE", "HASH"}), Arr({Bulk("0"), Bulks({"h"})}));
  EXPECT_EQ(run({"SCAN", "0", "COUNT", "1000", "TYPE", "foo"}), Arr({Bulk("0"), Arr({})}));
  EXPECT_EQ(run({"SCAN", "0", "COUNT", "1000", "MATCH", "k1?"}).elements()[1].elements().size(),
            10u);
  EXPECT_EQ(run({"SCAN", "0x"}), Err("ERR invalid cursor"));
  EXPECT_EQ(run({"SCAN", "18446744073709551616"}), Err("ERR invalid cursor"));
  EXPECT_EQ(run({"SCAN", "0", "COUNT", "0"}), Err(kSyntax));
  EXPECT_EQ(run({"SCAN", "0", "COUNT", "x"}), Err(kNotInt));
  EXPECT_EQ(run({"SCAN", "0", "MATCH"}), Err(kSyntax));
  EXPECT_EQ(run({"HSCAN", "h", "0", "TYPE", "string"}), Err(kSyntax));
}

// Redis 7.0.15: HSCAN, SSCAN and ZSCAN look the key up before reading the
// options; a missing key is an empty scan, another type is WRONGTYPE.
TEST_F(KeyspaceCmdTest, CollectionScansLookUpTheKeyBeforeTheOptions) {
  const resp::Reply empty = Arr({Bulk("0"), Arr({})});
  EXPECT_EQ(run({"HSCAN", "nokey", "0", "COUNT", "0"}), empty);
  EXPECT_EQ(run({"HSCAN", "nokey", "0", "FOO"}), empty);
  EXPECT_EQ(run({"SSCAN", "nokey", "0", "MATCH"}), empty);
  EXPECT_EQ(run({"ZSCAN", "nokey", "0", "COUNT", "-1"}), empty);
  EXPECT_EQ(run({"HSCAN", "nokey", "x"}), Err("ERR invalid cursor"));
  EXPECT_EQ(run({"SET", "s", "v"}), Ok());
  EXPECT_EQ(run({"HSCAN", "s", "0", "COUNT", "0"}), Err(kWrongType));
  EXPECT_EQ(run({"SSCAN", "s", "0", "FOO"}), Err(kWrongType));
  EXPECT_EQ(run({"ZSCAN", "s", "0"}), Err(kWrongType));
  EXPECT_EQ(run({"HSET", "h", "a", "1"}), Int(1));
  EXPECT_EQ(run({"HSCAN", "h", "0", "COUNT", "0"}), Err(kSyntax));
  EXPECT_EQ(run({"HSCAN", "h", "0", "FOO"}), Err(kSyntax));
}

TEST_F(KeyspaceCmdTest, RenameKeepsDeadlineAndTouches) {
  EXPECT_EQ(run({"SET", "a", "1", "PX", "1000"}), Ok());
  EXPECT_EQ(run({"RENAME", "a", "a"}), Ok());
  EXPECT_EQ(run({"RENAME", "nok", "b"}), Err("ERR no such key"));
  EXPECT_EQ(run({"RENAMENX", "a", "a"}), Int(0));
  EXPECT_EQ(run({"RENAMENX", "nok", "b"}), Err("ERR no such key"));
  EXPECT_EQ(run({"SET", "b", "2"}), Ok());
  EXPECT_EQ(run({"RENAMENX", "a", "b"}), Int(0));
  EXPECT_EQ(run({"WATCH", "b"}), Ok());
  EXPECT_EQ(run({"RENAME", "a", "b"}), Ok());
  EXPECT_EQ(run({"GET", "b"}), Bulk("1"));
  EXPECT_EQ(run({"PTTL", "b"}), Int(1000));
  EXPECT_EQ(run({"EXISTS", "a"}), Int(0));
  EXPECT_EQ(run({"MULTI"}), Ok());
  EXPECT_EQ(run({"GET", "b"}), Status("QUEUED"));
  EXPECT_EQ(run({"EXEC"}), resp::Reply::nil_array());
  EXPECT_EQ(run({"RENAMENX", "b", "c"}), Int(1));
  advance_ms(1001);
  EXPECT_EQ(run({"EXISTS", "c"}), Int(0));
}

TEST_F(KeyspaceCmdTest, Copy) {
  EXPECT_EQ(run({"RPUSH", "l", "a", "b"}), Int(2));
  EXPECT_EQ(run({"PEXPIRE", "l", "500"}), Int(1));
  EXPECT_EQ(run({"COPY", "l", "c"}), Int(1));
  EXPECT_EQ(run({"COPY", "l", "c"}), Int(0));
  EXPECT_EQ(run({"COPY", "l", "c", "REPLACE"}), Int(1));
  EXPECT_EQ(run({"PTTL", "c"}), Int(500));
  EXPECT_EQ(run({"RPUSH", "c", "z"}), Int(3));
  EXPECT_EQ(run({"LLEN", "l"}), Int(2));  // a deep copy
  EXPECT_EQ(run({"COPY", "l", "c", "DB", "1", "DB", "2"}), Int(1));
  EXPECT_EQ(run({"COPY", "l", "c", "DB", "16"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(run({"COPY", "l", "c", "DB", "-1"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(run({"COPY", "l", "c", "DB", "x"}), Err(kNotInt));
  EXPECT_EQ(run({"COPY", "l", "l"}), Err("ERR source and destination objects are the same"));
  EXPECT_EQ(run({"COPY", "nok", "nok"}), Err("ERR source and destination objects are the same"));
  EXPECT_EQ(run({"COPY", "l", "l", "DB", "1"}), Int(1));
  EXPECT_EQ(run({"COPY", "nok", "c"}), Int(0));
  EXPECT_EQ(run({"COPY", "l", "c", "foo"}), Err(kSyntax));
  EXPECT_EQ(run({"COPY", "l", "c", "DB"}), Err(kSyntax));
  EXPECT_EQ(run({"SELECT", "2"}), Ok());
  EXPECT_EQ(run({"LRANGE", "c", "0", "-1"}), Bulks({"a", "b"}));
  EXPECT_EQ(run({"PTTL", "c"}), Int(500));
}

TEST_F(KeyspaceCmdTest, TouchAndRandomkey) {
  EXPECT_EQ(run({"RANDOMKEY"}), Nil());
  EXPECT_EQ(run({"MSET", "a", "1", "b", "2"}), Ok());
  EXPECT_EQ(run({"TOUCH", "a", "b", "nok"}), Int(2));
  std::set<std::string> drawn;
  for (int i = 0; i < 50; ++i) drawn.insert(run({"RANDOMKEY"}).str());
  EXPECT_EQ(drawn, (std::set<std::string>{"a", "b"}));
  EXPECT_EQ(run({"PEXPIRE", "a", "1"}), Int(1));
  advance_ms(2);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(run({"RANDOMKEY"}), Bulk("b"));
}

TEST_F(KeyspaceCmdTest, ObjectEncoding) {
  EXPECT_EQ(run({"SET", "i", "123"}), Ok());
  EXPECT_EQ(run({"OBJECT", "ENCODING", "i"}), Bulk("int"));
  EXPECT_EQ(run({"SET", "e", "hello"}), Ok());
  EXPECT_EQ(run({"OBJECT", "ENCODING", "e"}), Bulk("embstr"));
  EXPECT_EQ(run({"SET", "r", std::string(45, 'x')}), Ok());
  EXPECT_EQ(run({"OBJECT", "ENCODING", "r"}), Bulk("raw"));
  EXPECT_EQ(run({"SET", "big", "123456789012345678901"}), Ok());
  EXPECT_EQ(run({"OBJECT", "ENCODING", "big"}), Bulk("embstr"));
  EXPECT_EQ(run({"INCRBYFLOAT", "f", "3"}), Bulk("3"));
  EXPECT_EQ(run({"OBJECT", "ENCODING", "f"}), Bulk("embstr"));
  EXPECT_EQ(run({"APPEND", "i", "1"}), Int(4));
  EXPECT_EQ(run({"OBJECT", "ENCODING", "i"}), Bulk("raw"));
  EXPECT_EQ(run({"INCR", "i"}), Int(1232));
  EXPECT_EQ(run({"OBJECT", "ENCODING", "i"}), Bulk("int"));
  EXPECT_EQ(run({"SETRANGE", "s", "0", "1"}), Int(1));
  EXPECT_EQ(run({"OBJECT", "ENCODING", "s"}), Bulk("raw"));
  EXPECT_EQ(run({"HSET", "h", "a", "1"}), Int(1));
  EXPECT_EQ(run({"OBJECT", "ENCODING", "h"}), Bulk("listpack"));
  EXPECT_EQ(run({"HSET", "h", "b", std::string(65, 'x')}), Int(1));
  EXPECT_EQ(run({"OBJECT", "ENCODING", "h"}), Bulk("hashtable"));
  EXPECT_EQ(run({"OBJECT", "ENCODING", "nokey"}), Nil());
  EXPECT_EQ(run({"OBJECT", "REFCOUNT", "i"}), Int(2147483647));  // 1232 is a shared integer
  EXPECT_EQ(run({"OBJECT", "REFCOUNT", "s"}), Int(1));
  EXPECT_EQ(run({"OBJECT", "REFCOUNT", "f"}), Int(1));
  EXPECT_EQ(run({"SET", "small", "12"}), Ok());
  EXPECT_EQ(run({"OBJECT", "REFCOUNT", "small"}), Int(2147483647));
  EXPECT_EQ(run({"OBJECT", "FREQ", "nokey"}), Nil());
  EXPECT_EQ(run({"OBJECT", "FREQ", "small"}),
            Err("ERR An LFU maxmemory policy is not selected, access frequency not tracked. "
                "Please note that when switching between policies at runtime LRU and LFU data "
                "will take some time to adjust."));
  EXPECT_EQ(run({"OBJECT"}), Err("ERR wrong number of arguments for 'object' command"));
  EXPECT_EQ(run({"OBJECT", "foo"}), Err("ERR unknown subcommand 'foo'. Try OBJECT HELP."));
  EXPECT_EQ(run({"OBJECT", "encoding"}),
            Err("ERR wrong number of arguments for 'object|encoding' command"));
  EXPECT_EQ(run({"OBJECT", "help", "x"}),
            Err("ERR wrong number of arguments for 'object|help' command"));
  EXPECT_EQ(run({"OBJECT", "HELP"}).elements().size(), 15u);
}

// The key order (KEYS, a full SCAN, RANDOMKEY's draw) is (scan_hash, key):
// computed here from the keys alone, so it cannot depend on the standard
// library's hash tables.
TEST_F(KeyspaceCmdTest, KeysAndRandomkeyFollowTheScanHashOrder) {
  std::vector<std::string> keys;
  for (int i = 0; i < 200; ++i) keys.push_back("key:" + std::to_string(i));
  for (const std::string& k : keys) run({"SET", k, "v"});
  std::sort(keys.begin(), keys.end(), [](const std::string& a, const std::string& b) {
    return scan_hash(a) != scan_hash(b) ? scan_hash(a) < scan_hash(b) : a < b;
  });
  EXPECT_EQ(run({"KEYS", "*"}), bulks_of(keys));
  const resp::Reply full = run({"SCAN", "0", "COUNT", "1000"});
  EXPECT_EQ(full, Arr({Bulk("0"), bulks_of(keys)}));
  Db& db = ServerAccess::keyspace(*server_).db(0);
  for (size_t r : {size_t{0}, size_t{17}, size_t{199}, size_t{200 + 5}}) {
    ASSERT_NE(db.key_at(r), nullptr);
    EXPECT_EQ(*db.key_at(r), keys[r % keys.size()]);
  }
}

// SCAN over 100k keys with COUNT 10 steps over about 10 keys per call (a
// counter in Db::scan), not every key: no sort of the db per page.
TEST_F(KeyspaceCmdTest, ScanCostIsProportionalToCount) {
  Db& db = ServerAccess::keyspace(*server_).db(0);
  for (int i = 0; i < 100000; ++i) db.set_string("k" + std::to_string(i), "v", false);
  std::string cursor = "0";
  size_t returned = 0;
  for (int call = 0; call < 50; ++call) {
    const uint64_t before = db.scan_keys_visited();
    const resp::Reply r = run({"SCAN", cursor, "COUNT", "10"});
    const uint64_t visited = db.scan_keys_visited() - before;
    cursor = r.elements()[0].str();
    returned += r.elements()[1].elements().size();
    ASSERT_NE(cursor, "0");
    // 10 keys, any sharing the 10th's hash, and the one that ends the page.
    EXPECT_LE(visited, 12u) << "call " << call;
    EXPECT_GE(visited, 10u) << "call " << call;
  }
  EXPECT_GE(returned, 500u);
  EXPECT_LE(returned, 550u);
}

// SCAN's guarantee while keys come and go between calls: every key present
// for the whole scan is returned (the fake returns it exactly once), and a
// key deleted before the scan began never is. Seeded; the seed is printed.
TEST_F(KeyspaceCmdTest, ScanReturnsEveryStableKeyUnderConcurrentInsertsAndDeletes) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    run({"FLUSHALL"});
    uint64_t x = seed * 0x9E3779B97F4A7C15ULL;
    auto next = [&x] {  // splitmix64
      uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
      return z ^ (z >> 31);
    };
    for (int i = 0; i < 2000; ++i) run({"SET", "stable:" + std::to_string(i), "v"});
    for (int i = 0; i < 500; ++i) run({"SET", "churn:" + std::to_string(i), "v"});
    for (int i = 0; i < 100; ++i) run({"DEL", "churn:" + std::to_string(i)});  // gone before
    std::multiset<std::string> seen;
    std::string cursor = "0";
    int calls = 0;
    int added = 0;
    do {
      const resp::Reply r = run({"SCAN", cursor, "COUNT", "7"});
      cursor = r.elements()[0].str();
      for (const auto& e : r.elements()[1].elements()) seen.insert(e.str());
      ++calls;
      for (int n = 0; n < 5; ++n) {  // churn: adds, deletes, re-adds
        const std::string k = "churn:" + std::to_string(next() % 600 + 100);
        if (next() % 2) {
          run({"SET", k, "v"});
        } else {
          run({"DEL", k});
        }
        run({"SET", "new:" + std::to_string(added++), "v"});
      }
    } while (cursor != "0" && calls < 100000);
    ASSERT_EQ(cursor, "0") << "seed " << seed;
    for (int i = 0; i < 2000; ++i) {
      ASSERT_EQ(seen.count("stable:" + std::to_string(i)), 1u) << "seed " << seed << " key " << i;
    }
    for (int i = 0; i < 100; ++i) {
      EXPECT_EQ(seen.count("churn:" + std::to_string(i)), 0u) << "seed " << seed;
    }
    for (const std::string& k : seen) EXPECT_EQ(seen.count(k), 1u) << "seed " << seed << " " << k;
  }
}

}  // namespace
}  // namespace redsim::sim
