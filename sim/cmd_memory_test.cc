// MEMORY, OBJECT IDLETIME/FREQ on the server clock, INFO errorstats, CLUSTER
// without cluster support and min-replicas-to-write. Expected texts and the
// MEMORY USAGE figures are what redis-server 7.0.15 answered to the same
// commands (Debian's build, jemalloc; the sizes are documented estimates,
// see sim/cmd_memory.cc).
#include <gtest/gtest.h>

#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class MemoryCommandTest : public ServerTest {
 protected:
  int64_t usage(const std::string& key) {
    resp::Reply r = run({"MEMORY", "USAGE", key});
    EXPECT_TRUE(r.is_integer()) << key;
    return r.integer();
  }
  std::string info(const std::string& section) { return run({"INFO", section}).str(); }
};

TEST_F(MemoryCommandTest, UsageFollowsRedisPerEncodingCosts) {
  // Each figure is redis-server 7.0.15's MEMORY USAGE for the same key.
  run({"SET", "k", "v"});
  EXPECT_EQ(usage("k"), 64);  // embstr
  run({"SET", "i", "12345"});
  EXPECT_EQ(usage("i"), 48);  // int
  run({"SET", "r", std::string(50, 'x')});
  EXPECT_EQ(usage("r"), 112);  // raw
  run({"HSET", "h", "a", "1", "b", "2"});
  EXPECT_EQ(usage("h"), 80);  // listpack
  run({"SADD", "s", "1", "2", "3"});
  EXPECT_EQ(usage("s"), 64);  // intset
  run({"SADD", "s2", "a", "b", "c"});
  EXPECT_EQ(usage("s2"), 232);  // hashtable
  run({"ZADD", "z", "1", "a", "2", "b"});
  EXPECT_EQ(usage("z"), 80);  // listpack
  run({"RPUSH", "l", "a", "b", "c"});
  int64_t list = usage("l");  // Redis: 144 (quicklist)
  EXPECT_GE(list, 128);
  EXPECT_LE(list, 144);
  // A hashtable hash grows with its fields; SAMPLES 0 counts them all.
  run({"CONFIG", "SET", "hash-max-listpack-entries", "0"});
  run({"HSET", "big", "f", "v"});
  int64_t one = usage("big");
  run({"HSET", "big", "g", "w", "x", "y"});
  EXPECT_GT(usage("big"), one);
  EXPECT_EQ(run({"MEMORY", "USAGE", "big", "SAMPLES", "0"}), Int(usage("big")));
}

TEST_F(MemoryCommandTest, UsageErrorsAsRedis) {
  run({"SET", "k", "v"});
  EXPECT_EQ(run({"MEMORY", "USAGE", "nokey"}), Nil());
  EXPECT_EQ(run({"MEMORY", "USAGE", "k", "SAMPLES", "x"}), Err(kNotInt));
  EXPECT_EQ(run({"MEMORY", "USAGE", "k", "SAMPLES", "-1"}), Err(kSyntax));
  EXPECT_EQ(run({"MEMORY", "USAGE", "k", "SAMPLES"}), Err(kSyntax));
  EXPECT_EQ(run({"MEMORY", "USAGE", "k", "foo"}), Err(kSyntax));
  EXPECT_EQ(run({"MEMORY", "USAGE"}),
            Err("ERR wrong number of arguments for 'memory|usage' command"));
  EXPECT_EQ(run({"MEMORY", "STATS", "x"}),
            Err("ERR wrong number of arguments for 'memory|stats' command"));
  EXPECT_EQ(run({"MEMORY", "foo"}), Err("ERR unknown subcommand 'foo'. Try MEMORY HELP."));
}

TEST_F(MemoryCommandTest, OtherSubcommands) {
  EXPECT_EQ(run({"MEMORY", "PURGE"}), Ok());
  EXPECT_EQ(run({"MEMORY", "MALLOC-STATS"}), Bulk("Stats not supported for the current allocator"));
  EXPECT_EQ(run({"MEMORY", "DOCTOR"}).str().substr(0, 59),
            "Hi Sam, this instance is empty or is using very little memo");
  run({"SET", "k", "v"});
  resp::Reply stats = resp::to_resp2(run({"MEMORY", "STATS"}));
  ASSERT_TRUE(stats.is_array());
  const auto& e = stats.elements();
  ASSERT_GE(e.size(), 2u);
  EXPECT_EQ(e[0], Bulk("peak.allocated"));
  bool saw_keys = false;
  for (size_t i = 0; i + 1 < e.size(); i += 2) {
    if (e[i] == Bulk("keys.count")) {
      EXPECT_EQ(e[i + 1], Int(1));
      saw_keys = true;
    }
  }
  EXPECT_TRUE(saw_keys);
  EXPECT_EQ(run({"MEMORY", "HELP"}).elements().size(), 14u);
}

TEST_F(MemoryCommandTest, ObjectIdletimeOnTheServerClock) {
  run({"SET", "foo", "bar"});
  advance_ms(3000);
  // TYPE, TTL, EXISTS and OBJECT do not count as accesses (LOOKUP_NOTOUCH).
  run({"TTL", "foo"});
  run({"TYPE", "foo"});
  run({"EXISTS", "foo"});
  EXPECT_EQ(run({"OBJECT", "IDLETIME", "foo"}), Int(3));
  run({"TOUCH", "foo"});
  EXPECT_EQ(run({"OBJECT", "IDLETIME", "foo"}), Int(0));
  advance_ms(2000);
  run({"GET", "foo"});
  EXPECT_EQ(run({"OBJECT", "IDLETIME", "foo"}), Int(0));
  advance_ms(1000);
  EXPECT_EQ(run({"OBJECT", "IDLETIME", "foo"}), Int(1));
  run({"RENAME", "foo", "bar"});  // its lookup of the source is an access, as Redis's
  EXPECT_EQ(run({"OBJECT", "IDLETIME", "bar"}), Int(0));
  advance_ms(4000);
  run({"MOVE", "bar", "1"});
  run({"SELECT", "1"});
  EXPECT_EQ(run({"OBJECT", "IDLETIME", "bar"}), Int(0));
}

TEST_F(MemoryCommandTest, ObjectFreqNeedsAnLfuPolicy) {
  run({"SET", "foo", "bar"});
  EXPECT_EQ(run({"OBJECT", "FREQ", "foo"}),
            Err("ERR An LFU maxmemory policy is not selected, access frequency not tracked. "
                "Please note that when switching between policies at runtime LRU and LFU data "
                "will take some time to adjust."));
  EXPECT_EQ(run({"CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"}), Ok());
  EXPECT_EQ(run({"OBJECT", "IDLETIME", "foo"}),
            Err("ERR An LFU maxmemory policy is selected, idle time not tracked. Please note "
                "that when switching between policies at runtime LRU and LFU data will take some "
                "time to adjust."));
  run({"SET", "new", "v"});
  EXPECT_EQ(run({"OBJECT", "FREQ", "new"}), Int(5));  // LFU_INIT_VAL
  // The counter grows logarithmically: the first accesses after 5 count
  // with probability 1/11, 1/21, ...; 200 accesses get it well above 5.
  for (int i = 0; i < 200; ++i) run({"GET", "new"});
  resp::Reply freq = run({"OBJECT", "FREQ", "new"});
  EXPECT_GT(freq.integer(), 5);
  EXPECT_LT(freq.integer(), 20);
  // It decays by one per lfu-decay-time minutes without access.
  advance_ms(3 * 60 * 1000);
  EXPECT_EQ(run({"OBJECT", "FREQ", "new"}), Int(freq.integer() - 3));
  EXPECT_EQ(run({"CONFIG", "GET", "lfu-log-factor"}), Bulks({"lfu-log-factor", "10"}));
}

TEST_F(MemoryCommandTest, ErrorstatsCountReplyErrorsByCode) {
  run({"SET", "s", "x"});
  run({"LPUSH", "s", "a"});
  run({"INCR", "s"});
  run({"NOSUCHCMD"});
  EXPECT_NE(info("errorstats").find("errorstat_ERR:count=2\r\n"), std::string::npos);
  EXPECT_NE(info("errorstats").find("errorstat_WRONGTYPE:count=1\r\n"), std::string::npos);
  EXPECT_NE(info("stats").find("total_error_replies:3\r\n"), std::string::npos);
  EXPECT_NE(info("commandstats")
                .find("cmdstat_lpush:calls=1,usec=0,usec_per_call=0.00,"
                      "rejected_calls=0,failed_calls=1"),
            std::string::npos);
  // A script's redis.call error counts once, where it happened.
  run({"CONFIG", "RESETSTAT"});
  EXPECT_TRUE(run({"EVAL", "return redis.call('select', 99)", "0"}).is_error());
  EXPECT_NE(info("errorstats").find("errorstat_ERR:count=1\r\n"), std::string::npos);
  EXPECT_NE(info("stats").find("total_error_replies:1\r\n"), std::string::npos);
  // A refusal inside a script counts in the command's rejected_calls.
  run({"CONFIG", "RESETSTAT"});
  EXPECT_TRUE(run({"EVAL_RO", "return redis.call('set','x','y')", "1", "x"}).is_error());
  EXPECT_NE(info("commandstats")
                .find("cmdstat_set:calls=0,usec=0,usec_per_call=0.00,"
                      "rejected_calls=1,failed_calls=0"),
            std::string::npos);
  EXPECT_NE(info("stats").find("total_error_replies:1\r\n"), std::string::npos);
  // Each failed command of EXEC counts.
  run({"CONFIG", "RESETSTAT"});
  run({"MULTI"});
  run({"INCR", "s"});
  run({"INCR", "s"});
  run({"EXEC"});
  EXPECT_NE(info("errorstats").find("errorstat_ERR:count=2\r\n"), std::string::npos);
  // A block that ends in an error counts when the server hands it out.
  run({"XGROUP", "CREATE", "st", "g", "$", "MKSTREAM"});
  auto b = server_->connect();
  run(*b, {"XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "st", ">"});
  run({"XGROUP", "DESTROY", "st", "g"});
  ASSERT_EQ(server_->take_unblocked().size(), 1u);
  EXPECT_NE(info("errorstats").find("errorstat_NOGROUP:count=1\r\n"), std::string::npos);
  EXPECT_NE(info("stats").find("migrate_cached_sockets:0\r\n"), std::string::npos);
}

TEST_F(MemoryCommandTest, ClusterSupportDisabled) {
  EXPECT_EQ(run({"CLUSTER", "INFO"}), Err("ERR This instance has cluster support disabled"));
  EXPECT_EQ(run({"CLUSTER", "HELP"}), Err("ERR This instance has cluster support disabled"));
  EXPECT_EQ(run({"CLUSTER", "foo"}), Err("ERR unknown subcommand 'foo'. Try CLUSTER HELP."));
  EXPECT_EQ(run({"CLUSTER", "INFO", "x"}),
            Err("ERR wrong number of arguments for 'cluster|info' command"));
  EXPECT_EQ(run({"EVAL", "return redis.pcall('cluster','reset','hard')", "0"}),
            Err("ERR This Redis command is not allowed from script"));
  EXPECT_EQ(run({"EVAL", "return redis.pcall('cluster','info')", "0"}),
            Err("ERR This instance has cluster support disabled"));
}

TEST_F(MemoryCommandTest, MinReplicasToWriteRefusesWrites) {
  run({"SET", "x", "some value"});
  EXPECT_EQ(run({"CONFIG", "SET", "min-replicas-to-write", "1"}), Ok());
  EXPECT_EQ(run({"CONFIG", "GET", "min-slaves-to-write"}), Bulks({"min-slaves-to-write", "1"}));
  const std::string kNoReplicas = "NOREPLICAS Not enough good replicas to write.";
  EXPECT_EQ(run({"SET", "x", "1"}), Err(kNoReplicas));
  EXPECT_EQ(run({"GET", "x"}), Bulk("some value"));
  // A script without flags may read; a shebang script must say no-writes.
  EXPECT_EQ(run({"EVAL", "#!lua flags=no-writes\nreturn redis.call('get','x')", "1", "x"}),
            Bulk("some value"));
  EXPECT_EQ(run({"EVAL", "return redis.call('get','x')", "1", "x"}), Bulk("some value"));
  EXPECT_EQ(run({"EVAL", "#!lua\nreturn redis.call('get','x')", "1", "x"}), Err(kNoReplicas));
  EXPECT_EQ(run({"EVAL", "return redis.pcall('set','x',1)", "1", "x"}), Err(kNoReplicas));
  EXPECT_EQ(run({"CONFIG", "SET", "min-replicas-to-write", "0"}), Ok());
  EXPECT_EQ(run({"SET", "x", "1"}), Ok());
}

}  // namespace
}  // namespace redsim::sim
