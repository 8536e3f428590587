// Redis's server.dirty as INFO persistence's rdb_changes_since_last_save
// shows it: what each command adds (Redis 7.0.15 t_*.c, db.c, bitops.c),
// and what FLUSHALL and DEBUG RELOAD do to it. The figures are what
// redis-server 7.0.15 reports for the same commands (Tcl units bitops
// "SETBIT/BITFIELD only increase dirty when the value changed" and other
// "FLUSHALL should ... the dirty counter").
#include <gtest/gtest.h>

#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class DirtyTest : public ServerTest {
 protected:
  int64_t dirty() {
    resp::Reply info = run({"INFO", "persistence"});
    const std::string& text = info.str();
    const std::string field = "rdb_changes_since_last_save:";
    size_t at = text.find(field);
    EXPECT_NE(at, std::string::npos);
    if (at == std::string::npos) return -1;
    EXPECT_EQ(server_->dirty(), std::stoll(text.substr(at + field.size())));
    return std::stoll(text.substr(at + field.size()));
  }
  // The change one command makes to the counter.
  int64_t delta(const Argv& argv) {
    int64_t before = dirty();
    server_->execute(*s_, argv);
    return dirty() - before;
  }
};

TEST_F(DirtyTest, OnePerModifiedKeyByDefault) {
  EXPECT_EQ(dirty(), 0);
  EXPECT_EQ(delta({"SET", "a", "1"}), 1);
  EXPECT_EQ(delta({"GET", "a"}), 0);
  EXPECT_EQ(delta({"MSET", "a", "1", "b", "2", "c", "3"}), 3);
  EXPECT_EQ(delta({"DEL", "a", "b", "nope"}), 2);
  EXPECT_EQ(delta({"INCR", "n"}), 1);
  EXPECT_EQ(delta({"RENAME", "n", "m"}), 1);
  EXPECT_EQ(delta({"EXPIRE", "m", "100"}), 1);
  EXPECT_EQ(delta({"PERSIST", "m"}), 1);
  EXPECT_EQ(delta({"PERSIST", "m"}), 0);
  EXPECT_EQ(delta({"SET", "x", "1", "NX"}), 1);
  EXPECT_EQ(delta({"SET", "x", "1", "NX"}), 0);
  resp::Reply dump = run({"DUMP", "x"});
  EXPECT_EQ(delta({"RESTORE", "x", "0", dump.str(), "REPLACE"}), 1);
  EXPECT_EQ(delta({"SMOVE", "nope", "x", "m"}), 0);
}

TEST_F(DirtyTest, PerElementWhereRedisCountsElements) {
  EXPECT_EQ(delta({"RPUSH", "l", "a", "b", "a", "c"}), 4);
  EXPECT_EQ(delta({"LREM", "l", "0", "a"}), 2);
  EXPECT_EQ(delta({"LPOP", "l", "5"}), 2);  // the list is gone
  EXPECT_EQ(delta({"RPUSH", "l", "1", "2", "3", "4", "5"}), 5);
  EXPECT_EQ(delta({"LTRIM", "l", "1", "2"}), 3);
  EXPECT_EQ(delta({"HSET", "h", "f", "1", "g", "2"}), 2);
  EXPECT_EQ(delta({"HSET", "h", "f", "1"}), 1);  // every pair, new or not
  EXPECT_EQ(delta({"HDEL", "h", "f", "g", "x"}), 2);
  EXPECT_EQ(delta({"SADD", "s", "a", "b", "a"}), 2);
  EXPECT_EQ(delta({"SADD", "s", "a"}), 0);
  EXPECT_EQ(delta({"SREM", "s", "a", "b"}), 2);
  EXPECT_EQ(delta({"ZADD", "z", "1", "a", "2", "b"}), 2);
  EXPECT_EQ(delta({"ZADD", "z", "1", "a", "3", "b"}), 1);  // added + updated
  EXPECT_EQ(delta({"ZREM", "z", "a", "b", "c"}), 2);
  run({"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"});
  EXPECT_EQ(delta({"ZPOPMIN", "z", "2"}), 2);
  EXPECT_EQ(delta({"ZREMRANGEBYSCORE", "z", "3", "4"}), 2);
  EXPECT_EQ(delta({"ZREMRANGEBYRANK", "z", "0", "-1"}), 1);
  run({"SADD", "s", "a", "b", "c"});
  EXPECT_EQ(delta({"SPOP", "s", "2"}), 2);
  EXPECT_EQ(delta({"SPOP", "s", "5"}), 1);
  run({"RPUSH", "src", "a", "b"});
  EXPECT_EQ(delta({"LMOVE", "src", "dst", "LEFT", "RIGHT"}), 1);  // one for both keys
  EXPECT_EQ(delta({"LMOVE", "src", "dst", "LEFT", "RIGHT"}), 1);
}

// bitops.tcl "SETBIT/BITFIELD only increase dirty when the value changed".
TEST_F(DirtyTest, SetbitAndBitfieldCountOnlyChanges) {
  EXPECT_EQ(delta({"SETBIT", "foo", "0", "0"}), 1);  // created
  EXPECT_EQ(delta({"BITFIELD", "foo2", "SET", "i5", "0", "0"}), 1);
  EXPECT_EQ(delta({"SETBIT", "foo", "0", "0"}), 0);
  EXPECT_EQ(delta({"BITFIELD", "foo2", "SET", "i5", "0", "0"}), 0);
  EXPECT_EQ(delta({"SETBIT", "foo", "0", "1"}), 1);
  EXPECT_EQ(delta({"SETBIT", "foo", "0", "1"}), 0);
  EXPECT_EQ(delta({"BITFIELD", "foo2", "SET", "i5", "0", "1", "SET", "i5", "8", "1"}), 2);
  EXPECT_EQ(delta({"BITFIELD", "foo3", "INCRBY", "i5", "0", "1"}), 1);
  EXPECT_EQ(delta({"BITFIELD", "foo3", "INCRBY", "i5", "0", "1"}), 1);
  EXPECT_EQ(delta({"SETBIT", "foo", "90", "0"}), 1);  // grown only
  EXPECT_EQ(delta({"BITFIELD_RO", "foo3", "GET", "i5", "0"}), 0);
}

TEST_F(DirtyTest, ScriptsAndTransactionsCountTheirCommands) {
  EXPECT_EQ(
      delta({"EVAL", "redis.call('SET','a','1') redis.call('RPUSH','l','x','y') return 1", "0"}),
      3);
  const int64_t before = dirty();
  run({"MULTI"});
  run({"SADD", "s", "a", "b"});
  run({"DEL", "a"});
  run({"EXEC"});
  EXPECT_EQ(dirty() - before, 3);
}

// other.tcl: FLUSHALL keeps the count without save parameters and resets it
// to 0 with them; DEBUG RELOAD (a save) resets it.
TEST_F(DirtyTest, FlushallAndReload) {
  run({"CONFIG", "SET", "save", ""});
  run({"MSET", "a", "1", "b", "2"});
  EXPECT_EQ(delta({"FLUSHDB"}), 2);
  run({"SET", "key", "value"});
  EXPECT_EQ(delta({"FLUSHALL"}), 1);
  EXPECT_GT(dirty(), 0);
  run({"CONFIG", "SET", "save", "3600 1 300 100 60 10000"});
  run({"SET", "key", "value"});
  run({"FLUSHALL"});
  EXPECT_EQ(dirty(), 0);
  run({"SET", "key", "value"});
  EXPECT_EQ(dirty(), 1);
  EXPECT_EQ(run({"DEBUG", "RELOAD"}), Ok());
  EXPECT_EQ(dirty(), 0);
}

// rdbSave empties the count: SAVE, and BGSAVE whose "child" finishes at
// once (bgsaveDoneHandler: dirty -= dirty_before_bgsave, nothing changed
// meanwhile).
TEST_F(DirtyTest, SaveAndBgsaveResetIt) {
  run({"MSET", "a", "1", "b", "2"});
  EXPECT_EQ(dirty(), 2);
  EXPECT_EQ(run({"SAVE"}), Ok());
  EXPECT_EQ(dirty(), 0);
  run({"SET", "a", "2"});
  EXPECT_EQ(dirty(), 1);
  run({"BGSAVE"});
  EXPECT_EQ(dirty(), 0);
}

}  // namespace
}  // namespace redsim::sim
