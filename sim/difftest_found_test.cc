// The differences the differential tester's data-model families found
// between the fake and redis-server 7.0.15, one test each, with the bytes
// the real server answered (RESP2 encodings: a null bulk and a null array
// differ there).
#include <gtest/gtest.h>

#include "sim/resp/codec.h"
#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class DifftestFound : public ServerTest {
 protected:
  std::string wire(std::initializer_list<std::string> argv) { return resp::encode(run(argv)); }
};

TEST_F(DifftestFound, BlmoveTimesOutWithANullArrayButANullBulkInMulti) {
  EXPECT_EQ(wire({"MULTI"}), "+OK\r\n");
  EXPECT_EQ(wire({"BLMOVE", "nokey", "x", "LEFT", "LEFT", "0.01"}), "+QUEUED\r\n");
  EXPECT_EQ(wire({"BRPOPLPUSH", "nokey", "x", "0.01"}), "+QUEUED\r\n");
  EXPECT_EQ(wire({"EXEC"}), "*2\r\n$-1\r\n$-1\r\n");
  run({"BRPOPLPUSH", "nokey", "x", "0.01"});
  advance_ms(20);
  server_->time_out_blocked();
  const auto unblocked = server_->take_unblocked();
  ASSERT_EQ(unblocked.size(), 1u);
  EXPECT_EQ(resp::encode(unblocked[0].reply), "*-1\r\n");
}

TEST_F(DifftestFound, LexCountAndRemoveWalkAsTheListpackDoes) {
  // Mixed scores: the run from the first member >= min ends at the first
  // member past max ("c", at score 1, sits between "a" and "aa").
  run({"ZADD", "z", "0", "a", "1", "c", "3", "aa"});
  EXPECT_EQ(run({"ZLEXCOUNT", "z", "-", "(b"}), Int(1));
  EXPECT_EQ(run({"ZREMRANGEBYLEX", "z", "-", "(b"}), Int(1));
  EXPECT_EQ(run({"ZCARD", "z"}), Int(2));
}

TEST_F(DifftestFound, StoredNegativeZeroScoresReadBackAsZero) {
  run({"ZADD", "k2", "0", "10", "0", "a"});
  EXPECT_EQ(run({"ZUNIONSTORE", "k0", "2", "k1", "k2", "WEIGHTS", "1", "-1.5"}), Int(2));
  EXPECT_EQ(run({"ZRANGE", "k0", "0", "-1", "WITHSCORES"}), Bulks({"10", "0", "a", "0"}));
  // Not stored: ZUNION answers -0.
  EXPECT_EQ(run({"ZUNION", "2", "k1", "k2", "WEIGHTS", "1", "-1.5", "WITHSCORES"}),
            Bulks({"10", "-0", "a", "-0"}));
}

TEST_F(DifftestFound, StreamOrderOfChecksAndReplies) {
  const std::string bad = "-ERR Invalid stream ID specified as stream command argument\r\n";
  EXPECT_EQ(wire({"XACK", "nokey", "g", "3-*"}), ":0\r\n");
  EXPECT_EQ(wire({"XDEL", "nokey", "3-*"}), ":0\r\n");
  run({"XADD", "s", "1-1", "f", "v"});
  EXPECT_EQ(wire({"XDEL", "s", "3-*"}), bad);
  EXPECT_EQ(wire({"XRANGE", "s", "-", "+", "COUNT", "0"}), "*-1\r\n");
  EXPECT_EQ(wire({"XRANGE", "nokey", "-", "+", "COUNT", "0"}), "*0\r\n");
  EXPECT_EQ(wire({"XGROUP", "SETID", "s", "nogroup", "x"}),
            "-NOGROUP No such consumer group 'nogroup' for key name 's'\r\n");
  run({"XGROUP", "CREATE", "s", "g", "0"});
  EXPECT_EQ(wire({"XACK", "s", "g", "3-*"}), bad);
  // XAUTOCLAIM creates its consumer only when it claims something.
  run({"XAUTOCLAIM", "s", "g", "c2", "0", "0"});
  EXPECT_EQ(run({"XINFO", "CONSUMERS", "s", "g"}), Arr({}));
  // A deleted pending entry: its id and a null array; its NACK unchanged.
  run({"XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", ">"});
  run({"XDEL", "s", "1-1"});
  EXPECT_EQ(wire({"XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", "0"}),
            "*1\r\n*2\r\n$1\r\ns\r\n*1\r\n*2\r\n$3\r\n1-1\r\n*-1\r\n");
  const resp::Reply pending = run({"XPENDING", "s", "g", "-", "+", "10"});
  ASSERT_EQ(pending.elements().size(), 1u);
  EXPECT_EQ(pending.elements()[0].elements()[3], Int(1));
}

TEST_F(DifftestFound, StreamLagAndXsetidChecks) {
  run({"XADD", "s", "4", "f", "1"});
  run({"XSETID", "s", "12-3", "ENTRIESADDED", "2", "MAXDELETEDID", "1-0"});
  run({"XGROUP", "CREATE", "s", "g1", "0", "ENTRIESREAD", "2"});
  // The latest tombstone (1-0) is before the first entry: no tombstone.
  const resp::Reply groups = run({"XINFO", "GROUPS", "s"});
  ASSERT_EQ(groups.elements().size(), 1u);
  EXPECT_EQ(groups.elements()[0].elements()[11], Int(0));
  run({"XADD", "s", "13-0", "f", "1"});
  EXPECT_EQ(wire({"XSETID", "s", "5-0", "ENTRIESADDED", "1"}),
            "-ERR The ID specified in XSETID is smaller than the target stream top item\r\n");
}

TEST_F(DifftestFound, ConsumerGroupCommandsLeaveAWatchAlone) {
  run({"XADD", "s", "1-1", "f", "v"});
  auto other = server_->connect();
  auto watch_then = [&](std::initializer_list<std::string> argv) {
    run({"WATCH", "s"});
    run(*other, argv);
    run({"MULTI"});
    return resp::encode(run({"EXEC"}));
  };
  EXPECT_EQ(watch_then({"XGROUP", "CREATE", "s", "g", "0"}), "*0\r\n");
  EXPECT_EQ(watch_then({"XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", ">"}), "*0\r\n");
  EXPECT_EQ(watch_then({"XCLAIM", "s", "g", "c2", "0", "1-1"}), "*0\r\n");
  EXPECT_EQ(watch_then({"XAUTOCLAIM", "s", "g", "c3", "0", "0"}), "*0\r\n");
  EXPECT_EQ(watch_then({"XACK", "s", "g", "1-1"}), "*0\r\n");
  EXPECT_EQ(watch_then({"XGROUP", "SETID", "s", "g", "0"}), "*0\r\n");
  EXPECT_EQ(watch_then({"XGROUP", "CREATECONSUMER", "s", "g", "c9"}), "*0\r\n");
  EXPECT_EQ(watch_then({"XGROUP", "DELCONSUMER", "s", "g", "c9"}), "*0\r\n");
  EXPECT_EQ(watch_then({"XSETID", "s", "5-0"}), "*0\r\n");
  EXPECT_EQ(watch_then({"XGROUP", "DESTROY", "s", "g"}), "*0\r\n");
  // Writes to the entries do.
  EXPECT_EQ(watch_then({"XDEL", "s", "1-1"}), "*-1\r\n");
  EXPECT_EQ(watch_then({"XGROUP", "CREATE", "t", "g", "0", "MKSTREAM"}), "*0\r\n");
  run({"WATCH", "u"});
  run(*other, {"XGROUP", "CREATE", "u", "g", "0", "MKSTREAM"});
  run({"MULTI"});
  EXPECT_EQ(resp::encode(run({"EXEC"})), "*-1\r\n");
}

TEST_F(DifftestFound, FunctionListFlagsAreStatusReplies) {
  run({"FUNCTION", "LOAD",
       "#!lua name=one\nredis.register_function{function_name='f', callback=function() return "
       "1 end, flags={'no-writes'}}"});
  const std::string list = wire({"FUNCTION", "LIST"});
  EXPECT_NE(list.find("$5\r\nflags\r\n*1\r\n+no-writes\r\n"), std::string::npos) << list;
}

}  // namespace
}  // namespace redsim::sim
