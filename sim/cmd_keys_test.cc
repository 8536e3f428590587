// Generic key commands and the EXPIRE family. Expected texts and values are
// what redis-server 7.0.15 answered to the same commands.
#include <gtest/gtest.h>

#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class KeysTest : public ServerTest {};

TEST_F(KeysTest, TypeExistsDelUnlink) {
  run({"SET", "k", "v"});
  run({"HSET", "h", "f", "v"});
  EXPECT_EQ(run({"TYPE", "k"}), Status("string"));
  EXPECT_EQ(run({"TYPE", "h"}), Status("hash"));
  EXPECT_EQ(run({"TYPE", "nokey"}), Status("none"));
  EXPECT_EQ(run({"EXISTS", "k", "k", "nokey", "h"}), Int(3));  // duplicates count
  EXPECT_EQ(run({"DEL", "k", "k", "nokey", "h"}), Int(2));
  EXPECT_EQ(run({"EXISTS", "k", "h"}), Int(0));
  run({"SET", "u", "1"});
  EXPECT_EQ(run({"UNLINK", "u", "u"}), Int(1));
  EXPECT_EQ(run({"UNLINK", "nokey"}), Int(0));
}

TEST_F(KeysTest, DelDoesNotCountAnExpiredKey) {
  run({"SET", "k", "v", "PX", "5"});
  advance_ms(6);
  EXPECT_EQ(run({"DEL", "k"}), Int(0));
  EXPECT_EQ(run({"DBSIZE"}), Int(0));
}

TEST_F(KeysTest, ExpireOptionErrors) {
  run({"SET", "k", "v"});
  const char* nx = "ERR NX and XX, GT or LT options at the same time are not compatible";
  const char* gtlt = "ERR GT and LT options at the same time are not compatible";
  EXPECT_EQ(run({"EXPIRE", "k", "10", "nx", "xx"}), Err(nx));
  EXPECT_EQ(run({"EXPIRE", "k", "10", "xx", "nx"}), Err(nx));
  EXPECT_EQ(run({"EXPIRE", "k", "10", "nx", "gt"}), Err(nx));
  EXPECT_EQ(run({"PEXPIRE", "k", "10", "lt", "nx"}), Err(nx));
  EXPECT_EQ(run({"EXPIRE", "k", "10", "gt", "lt"}), Err(gtlt));
  EXPECT_EQ(run({"EXPIRE", "k", "10", "foo"}), Err("ERR Unsupported option foo"));
  EXPECT_EQ(run({"EXPIRE", "k", "10", "nx", "foo"}), Err("ERR Unsupported option foo"));
  // Options are checked before the time.
  EXPECT_EQ(run({"EXPIRE", "k", "abc", "nx", "xx"}), Err(nx));
  EXPECT_EQ(run({"EXPIRE", "k", "abc", "foo"}), Err("ERR Unsupported option foo"));
  EXPECT_EQ(run({"EXPIRE", "k", "abc"}), Err(kNotInt));
  EXPECT_EQ(run({"TTL", "k"}), Int(-1));
}

TEST_F(KeysTest, ExpireConditions) {
  EXPECT_EQ(run({"EXPIRE", "nokey", "10"}), Int(0));
  run({"SET", "k", "v"});
  EXPECT_EQ(run({"EXPIRE", "k", "10", "xx"}), Int(0));  // no TTL yet
  EXPECT_EQ(run({"EXPIRE", "k", "10", "gt"}), Int(0));  // no TTL = infinite
  EXPECT_EQ(run({"EXPIRE", "k", "10", "lt"}), Int(1));
  EXPECT_EQ(run({"TTL", "k"}), Int(10));
  EXPECT_EQ(run({"EXPIRE", "k", "10", "NX"}), Int(0));
  EXPECT_EQ(run({"EXPIRE", "k", "20", "gt"}), Int(1));
  EXPECT_EQ(run({"EXPIRE", "k", "5", "gt"}), Int(0));
  EXPECT_EQ(run({"EXPIRE", "k", "5", "lt"}), Int(1));
  EXPECT_EQ(run({"EXPIRE", "k", "50", "lt"}), Int(0));
  EXPECT_EQ(run({"EXPIRE", "k", "50", "xx"}), Int(1));
  EXPECT_EQ(run({"TTL", "k"}), Int(50));
}

TEST_F(KeysTest, ExpireInThePastDeletes) {
  for (auto argv : std::vector<Argv>{{"EXPIRE", "k", "-1"},
                                     {"PEXPIRE", "k", "0"},
                                     {"PEXPIREAT", "k", "1"},
                                     {"EXPIREAT", "k", "0"}}) {
    run({"SET", "k", "v"});
    EXPECT_EQ(server_->execute(*s_, argv), Int(1)) << argv[0];
    EXPECT_EQ(run({"EXISTS", "k"}), Int(0)) << argv[0];
  }
  // PEXPIREAT exactly now: already expired (deadline <= now), deleted.
  run({"SET", "k", "v"});
  EXPECT_EQ(run({"PEXPIREAT", "k", std::to_string(now_ms())}), Int(1));
  EXPECT_EQ(run({"DBSIZE"}), Int(0));
}

TEST_F(KeysTest, ExpireOverflowIsInvalid) {
  run({"SET", "k", "v"});
  EXPECT_EQ(run({"EXPIRE", "k", "9223372036854775807"}),
            Err("ERR invalid expire time in 'expire' command"));
  EXPECT_EQ(run({"EXPIRE", "k", "9223372036854775"}),
            Err("ERR invalid expire time in 'expire' command"));
  EXPECT_EQ(run({"PEXPIRE", "k", "9223372036854775807"}),
            Err("ERR invalid expire time in 'pexpire' command"));
  EXPECT_EQ(run({"EXPIREAT", "k", "9223372036854776"}),
            Err("ERR invalid expire time in 'expireat' command"));
  EXPECT_EQ(run({"PEXPIREAT", "k", "9223372036854775807"}), Int(1));  // fits exactly
  EXPECT_EQ(run({"EXPIREAT", "k", "9223372036854775"}), Int(1));
  EXPECT_EQ(run({"EXPIRE", "k", "92233720368547"}), Int(1));
}

TEST_F(KeysTest, TtlPttlExpiretime) {
  EXPECT_EQ(run({"TTL", "nokey"}), Int(-2));
  EXPECT_EQ(run({"PTTL", "nokey"}), Int(-2));
  EXPECT_EQ(run({"EXPIRETIME", "nokey"}), Int(-2));
  EXPECT_EQ(run({"PEXPIRETIME", "nokey"}), Int(-2));
  run({"SET", "k", "v"});
  EXPECT_EQ(run({"TTL", "k"}), Int(-1));
  EXPECT_EQ(run({"PTTL", "k"}), Int(-1));
  EXPECT_EQ(run({"EXPIRETIME", "k"}), Int(-1));
  EXPECT_EQ(run({"PEXPIRETIME", "k"}), Int(-1));
  EXPECT_EQ(run({"EXPIREAT", "k", "4000000000"}), Int(1));
  EXPECT_EQ(run({"EXPIRETIME", "k"}), Int(4000000000));
  EXPECT_EQ(run({"PEXPIRETIME", "k"}), Int(4000000000000));
  EXPECT_EQ(run({"PEXPIREAT", "k", "4000000000999"}), Int(1));
  EXPECT_EQ(run({"EXPIRETIME", "k"}), Int(4000000001));  // rounded
  EXPECT_EQ(run({"PEXPIRE", "k", "1499"}), Int(1));
  EXPECT_EQ(run({"TTL", "k"}), Int(1));
  EXPECT_EQ(run({"PEXPIRE", "k", "1500"}), Int(1));
  EXPECT_EQ(run({"TTL", "k"}), Int(2));
  advance_ms(1500);
  EXPECT_EQ(run({"PTTL", "k"}), Int(0));
  EXPECT_EQ(run({"TTL", "k"}), Int(0));
  advance_ms(1);
  EXPECT_EQ(run({"PTTL", "k"}), Int(-2));
}

TEST_F(KeysTest, Persist) {
  EXPECT_EQ(run({"PERSIST", "nokey"}), Int(0));
  run({"SET", "k", "v", "EX", "100"});
  EXPECT_EQ(run({"PERSIST", "k"}), Int(1));
  EXPECT_EQ(run({"PERSIST", "k"}), Int(0));
  EXPECT_EQ(run({"TTL", "k"}), Int(-1));
  advance_ms(200 * 1000);
  EXPECT_EQ(run({"GET", "k"}), Bulk("v"));
}

TEST_F(KeysTest, ExpireWorksOnHashes) {
  run({"HSET", "h", "a", "1"});
  EXPECT_EQ(run({"PEXPIRE", "h", "100"}), Int(1));
  EXPECT_EQ(run({"HINCRBY", "h", "a", "1"}), Int(2));
  EXPECT_EQ(run({"PTTL", "h"}), Int(100));  // HINCRBY keeps it
  run({"HSET", "h", "b", "2"});
  EXPECT_EQ(run({"PTTL", "h"}), Int(100));
  advance_ms(101);
  EXPECT_EQ(run({"HGET", "h", "a"}), Nil());
  EXPECT_EQ(run({"TYPE", "h"}), Status("none"));
}

TEST_F(KeysTest, ArityErrors) {
  for (auto [argv, name] :
       std::vector<std::pair<Argv, std::string>>{{{"EXPIRE"}, "expire"},
                                                 {{"EXPIRE", "k"}, "expire"},
                                                 {{"PEXPIRE", "k"}, "pexpire"},
                                                 {{"EXPIREAT", "k"}, "expireat"},
                                                 {{"PEXPIREAT", "k"}, "pexpireat"},
                                                 {{"TTL"}, "ttl"},
                                                 {{"TTL", "a", "b"}, "ttl"},
                                                 {{"PTTL"}, "pttl"},
                                                 {{"PERSIST"}, "persist"},
                                                 {{"EXISTS"}, "exists"},
                                                 {{"DEL"}, "del"},
                                                 {{"UNLINK"}, "unlink"},
                                                 {{"TYPE"}, "type"},
                                                 {{"EXPIRETIME"}, "expiretime"},
                                                 {{"PEXPIRETIME"}, "pexpiretime"}}) {
    EXPECT_EQ(server_->execute(*s_, argv),
              Err("ERR wrong number of arguments for '" + name + "' command"))
        << name;
  }
}

TEST_F(KeysTest, MoveAndSwapdb) {
  run({"SET", "k", "v"});
  run({"PEXPIRE", "k", "100000"});
  EXPECT_EQ(run({"MOVE", "k", "1"}), Int(1));
  EXPECT_EQ(run({"EXISTS", "k"}), Int(0));
  EXPECT_EQ(run({"MOVE", "k", "1"}), Int(0));
  EXPECT_EQ(run({"MOVE", "k", "0"}), Err("ERR source and destination objects are the same"));
  EXPECT_EQ(run({"MOVE", "k", "16"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(run({"MOVE", "k", "x"}), Err(kNotInt));
  EXPECT_EQ(run({"SWAPDB", "0", "1"}), Ok());
  EXPECT_EQ(run({"GET", "k"}), Bulk("v"));
  EXPECT_GT(run({"PTTL", "k"}).integer(), 0);  // the deadline moved along
  EXPECT_EQ(run({"SWAPDB", "0", "16"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(run({"SWAPDB", "x", "1"}), Err("ERR invalid first DB index"));
  EXPECT_EQ(run({"SWAPDB", "0", "x"}), Err("ERR invalid second DB index"));
}

TEST_F(KeysTest, SwapdbFailsAWatchOnAKeyPresentInEitherDb) {
  auto other = server_->connect();
  run({"SELECT", "1"});
  run({"SET", "w", "1"});
  run({"SELECT", "0"});
  EXPECT_EQ(run({"WATCH", "w"}), Ok());
  EXPECT_EQ(run(*other, {"SWAPDB", "0", "1"}), Ok());
  EXPECT_EQ(run({"MULTI"}), Ok());
  run({"GET", "w"});
  EXPECT_EQ(run({"EXEC"}), resp::Reply::nil_array());
}

}  // namespace
}  // namespace redsim::sim
