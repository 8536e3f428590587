// sim/replication.h: the RDB file (written, read back, a redis-server
// 7.0.15 file read), the replication stream's content, SYNC/PSYNC without
// a transport, and the read-only replica's refusal.
#include "sim/replication.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class ReplicationTest : public ServerTest {};

TEST_F(ReplicationTest, RdbFileRoundTripsEveryDbAndDeadline) {
  run({"SET", "s", "v"});
  run({"SET", "n", "12345"});
  run({"SET", "e", "x", "PX", "5000"});
  run({"RPUSH", "l", "a", "b", "c"});
  run({"HSET", "h", "f", "1", "g", "2"});
  run({"ZADD", "z", "1.5", "a", "-2", "b"});
  run({"SADD", "set", "x", "y"});
  run({"SELECT", "3"});
  run({"SET", "in3", "yes"});
  run({"SET", "gone", "x", "PX", "1"});
  advance_ms(2);  // "gone" expired, not yet deleted: not written
  const std::string replid = "9f3a1c7e5b2d8046afe13b97c2d5e8104b6a7f3c";  // no LZF run
  const std::string file = save_rdb(*server_, replid, 7);
  ASSERT_TRUE(file.starts_with("REDIS0010"));
  EXPECT_NE(file.find("redis-ver"), std::string::npos);
  EXPECT_NE(file.find(replid), std::string::npos);  // repl-id

  Server other(clock_);
  std::unique_ptr<Session> o = other.connect();
  other.execute(*o, {"SET", "old", "dropped"});
  ASSERT_EQ(load_rdb(other, file), "");
  EXPECT_EQ(other.execute(*o, {"GET", "old"}), Nil());
  EXPECT_EQ(other.execute(*o, {"GET", "s"}), Bulk("v"));
  EXPECT_EQ(other.execute(*o, {"GET", "n"}), Bulk("12345"));
  EXPECT_EQ(other.execute(*o, {"PTTL", "e"}), Int(4998));
  EXPECT_EQ(other.execute(*o, {"LRANGE", "l", "0", "-1"}),
            resp::Reply::array({Bulk("a"), Bulk("b"), Bulk("c")}));
  EXPECT_EQ(other.execute(*o, {"HGET", "h", "g"}), Bulk("2"));
  EXPECT_EQ(other.execute(*o, {"ZSCORE", "z", "b"}), Bulk("-2"));
  EXPECT_EQ(other.execute(*o, {"SCARD", "set"}), Int(2));
  EXPECT_EQ(other.execute(*o, {"DBSIZE"}), Int(7));
  other.execute(*o, {"SELECT", "3"});
  EXPECT_EQ(other.execute(*o, {"GET", "in3"}), Bulk("yes"));
  EXPECT_EQ(other.execute(*o, {"DBSIZE"}), Int(1));
}

TEST_F(ReplicationTest, LoadRefusesBadFilesAndKeepsTheData) {
  run({"SET", "k", "v"});
  std::string file = save_rdb(*server_, std::string(40, '0'), 0);
  std::string bad_crc = file;
  bad_crc.back() = static_cast<char>(bad_crc.back() ^ 1);
  EXPECT_EQ(load_rdb(*server_, bad_crc), "Wrong RDB checksum");
  EXPECT_EQ(load_rdb(*server_, "REDIS0011"), "Can't handle RDB format version 11");
  EXPECT_EQ(load_rdb(*server_, "NOTREDIS0"), "Wrong signature trying to load DB");
  EXPECT_EQ(load_rdb(*server_, file.substr(0, file.size() - 12)),
            "Bad data format loading key type 0");  // the value of k cut short
  EXPECT_EQ(load_rdb(*server_, file.substr(0, file.size() - 9)), "Short read or OOM loading DB");
  EXPECT_EQ(run({"GET", "k"}), Bulk("v"));
}

// redis-server 7.0.15's file of `SET a 1`, `RPUSH l x y` (a quicklist of
// one listpack) and `HSET h f v` (a listpack), saved with SAVE.
TEST_F(ReplicationTest, LoadsARedisFile) {
  std::string file = "REDIS0010";
  auto aux = [&](std::string_view k, std::string_view v) {
    file.push_back(static_cast<char>(0xFA));
    file.push_back(static_cast<char>(k.size()));
    file += k;
    file.push_back(static_cast<char>(v.size()));
    file += v;
  };
  aux("redis-ver", "7.0.15");
  file += std::string("\xFE\x00\xFB\x03\x00", 5);
  file += std::string(
      "\x00\x01"
      "a"
      "\xC0\x01",
      5);  // string, integer-encoded value
  // RDB_TYPE_LIST_QUICKLIST_2: 1 node, container 2 (packed), the listpack
  // of "x", "y": total 13 bytes, 2 entries, two 1-byte strings, end 0xFF.
  file += std::string(
      "\x12\x01"
      "l"
      "\x01\x02\x0D",
      6);
  file += std::string(
      "\x0D\x00\x00\x00\x02\x00\x81"
      "x"
      "\x02\x81"
      "y"
      "\x02\xFF",
      13);
  // RDB_TYPE_HASH_LISTPACK: "f", "v".
  file += std::string(
      "\x10\x01"
      "h"
      "\x0D",
      4);
  file += std::string(
      "\x0D\x00\x00\x00\x02\x00\x81"
      "f"
      "\x02\x81"
      "v"
      "\x02\xFF",
      13);
  file.push_back(static_cast<char>(0xFF));
  file += std::string(8, '\0');  // CRC-64 0: not checked (rdbchecksum no)
  ASSERT_EQ(load_rdb(*server_, file), "");
  EXPECT_EQ(run({"GET", "a"}), Bulk("1"));
  EXPECT_EQ(run({"LRANGE", "l", "0", "-1"}), resp::Reply::array({Bulk("x"), Bulk("y")}));
  EXPECT_EQ(run({"HGET", "h", "f"}), Bulk("v"));
}

class ReplStreamTest : public ServerTest {
 protected:
  ReplStreamTest() {
    ReplicationHooks hooks;
    hooks.propagate = [this](int db, const Argv& argv) { stream_.emplace_back(db, argv); };
    server_->set_replication_hooks(hooks);
  }
  // The stream so far as "db:CMD arg ..." lines, payloads shown by length.
  std::vector<std::string> take() {
    std::vector<std::string> out;
    for (auto& [db, argv] : stream_) {
      std::string line = std::to_string(db) + ":";
      for (size_t i = 0; i < argv.size(); ++i) {
        const bool payload = argv[0] == "RESTORE" && i == 3;
        line += (i ? " " : "") + (payload ? "<" + std::to_string(argv[i].size()) + ">" : argv[i]);
      }
      out.push_back(line);
    }
    stream_.clear();
    return out;
  }
  std::vector<std::pair<int, Argv>> stream_;
};

TEST_F(ReplStreamTest, WritesGoAsTheirEffects) {
  run({"GET", "k"});
  run({"SET", "k", "v"});
  EXPECT_EQ(take(), std::vector<std::string>({"0:RESTORE k 0 <13> REPLACE ABSTTL"}));
  run({"EXPIRE", "k", "100"});
  const std::string deadline = std::to_string(now_ms() + 100'000);
  EXPECT_EQ(take(), std::vector<std::string>({"0:RESTORE k " + deadline + " <13> REPLACE ABSTTL"}));
  run({"SET", "k", "v", "NX"});  // nothing changed
  EXPECT_TRUE(take().empty());
  run({"SELECT", "2"});
  run({"MSET", "a", "1", "b", "2"});
  EXPECT_EQ(take(), std::vector<std::string>({"-1:MULTI", "2:RESTORE a 0 <13> REPLACE ABSTTL",
                                              "2:RESTORE b 0 <13> REPLACE ABSTTL", "-1:EXEC"}));
  run({"EVAL", "redis.call('del','a'); redis.call('incr','b'); redis.call('incr','b')", "0"});
  EXPECT_EQ(take(), std::vector<std::string>(
                        {"-1:MULTI", "2:DEL a", "2:RESTORE b 0 <13> REPLACE ABSTTL", "-1:EXEC"}));
}

TEST_F(ReplStreamTest, ExpiryFlushesAndPublishGoAsRedisSendsThem) {
  run({"SET", "k", "v", "PX", "10"});
  take();
  advance_ms(11);
  run({"GET", "k"});  // lazy expiry: DEL
  EXPECT_EQ(take(), std::vector<std::string>({"0:DEL k"}));
  run({"SET", "j", "v", "PX", "10"});
  take();
  advance_ms(11);
  server_->active_expire_cycle();
  propagate_changes(*server_);
  EXPECT_EQ(take(), std::vector<std::string>({"0:DEL j"}));
  run({"SET", "a", "1"});
  take();
  run({"FLUSHDB"});
  run({"FLUSHALL", "SYNC"});
  run({"SWAPDB", "0", "1"});
  run({"PUBLISH", "c", "m"});
  run({"SPUBLISH", "c", "m"});
  run({"FUNCTION", "FLUSH"});
  run({"FUNCTION", "LIST"});
  EXPECT_EQ(take(),
            std::vector<std::string>({"0:FLUSHDB", "-1:FLUSHALL SYNC", "-1:SWAPDB 0 1",
                                      "-1:PUBLISH c m", "-1:SPUBLISH c m", "-1:FUNCTION FLUSH"}));
}

TEST_F(ReplicationTest, SyncNeedsATransportAndIsCounted) {
  EXPECT_EQ(run({"SYNC"}), Err("ERR redsim: SYNC and PSYNC need a transport (redsim server)"));
  EXPECT_EQ(run({"PSYNC", "?", "-1"}),
            Err("ERR redsim: SYNC and PSYNC need a transport (redsim server)"));
  EXPECT_EQ(run({"PSYNC", "?"}), Err("ERR wrong number of arguments for 'psync' command"));
  run({"MULTI"});
  EXPECT_EQ(run({"SYNC"}), Err("ERR Command not allowed inside a transaction"));
  run({"DISCARD"});
  // Redis 7.0.15's 240 commands and redsim's REDSIM.ADVANCE.
  EXPECT_EQ(run({"COMMAND", "COUNT"}), Int(241));
}

TEST_F(ReplicationTest, ReadOnlyReplicaRefusesWrites) {
  bool read_only = true;
  ReplicationHooks hooks;
  hooks.read_only = [&] { return read_only; };
  server_->set_replication_hooks(hooks);
  const resp::Reply refused = Err("READONLY You can't write against a read only replica.");
  EXPECT_EQ(run({"SET", "k", "v"}), refused);
  EXPECT_EQ(run({"GET", "k"}), Nil());
  run({"MULTI"});
  EXPECT_EQ(run({"INCR", "k"}), refused);  // refused before it is queued
  EXPECT_EQ(run({"EXEC"}), Err("EXECABORT Transaction discarded because of previous errors."));
  read_only = false;
  EXPECT_EQ(run({"SET", "k", "v"}), Ok());
}

}  // namespace
}  // namespace redsim::sim
