// Stream commands. Expected texts and shapes are what redis-server 7.0.15
// answered to the same commands.
#include <gtest/gtest.h>

#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

constexpr const char* kBadId = "ERR Invalid stream ID specified as stream command argument";

class StreamTest : public ServerTest {
 protected:
  resp::Reply Entry(std::string id, std::initializer_list<std::string> fields) {
    return Arr({Bulk(std::move(id)), Bulks(fields)});
  }
};

TEST_F(StreamTest, AddIdsOnTheServerClock) {
  advance_ms(1000);
  EXPECT_EQ(run({"XADD", "s", "*", "a", "1"}), Bulk(std::to_string(now_ms()) + "-0"));
  EXPECT_EQ(run({"XADD", "s", "*", "a", "2"}), Bulk(std::to_string(now_ms()) + "-1"));
  EXPECT_EQ(run({"XADD", "s", "99999999999999-*", "a", "3"}), Bulk("99999999999999-0"));
  EXPECT_EQ(run({"XADD", "s", "99999999999999-*", "a", "4"}), Bulk("99999999999999-1"));
  // The clock is behind the top id: the top id's sequence goes on.
  EXPECT_EQ(run({"XADD", "s", "*", "a", "5"}), Bulk("99999999999999-2"));
  EXPECT_EQ(
      run({"XADD", "s", "5-5", "a", "1"}),
      Err("ERR The ID specified in XADD is equal or smaller than the target stream top item"));
  EXPECT_EQ(run({"XADD", "t", "0-0", "a", "1"}),
            Err("ERR The ID specified in XADD must be greater than 0-0"));
  EXPECT_EQ(run({"XADD", "t", "0-*", "a", "1"}), Bulk("0-1"));
  EXPECT_EQ(run({"XADD", "t", "abc", "a", "1"}), Err(kBadId));
  EXPECT_EQ(run({"XADD", "t", "5-5", "a"}),
            Err("ERR wrong number of arguments for 'xadd' command"));
  EXPECT_EQ(run({"XADD", "nos", "NOMKSTREAM", "*", "a", "1"}), Nil());
  EXPECT_EQ(run({"EXISTS", "nos"}), Int(0));
  EXPECT_EQ(run({"XLEN", "s"}), Int(5));
  EXPECT_EQ(run({"TYPE", "s"}), Status("stream"));
  EXPECT_EQ(run({"OBJECT", "ENCODING", "s"}), Bulk("stream"));
}

TEST_F(StreamTest, TrimOptionsAndErrors) {
  EXPECT_EQ(run({"XADD", "s", "MAXLEN", "-1", "*", "a", "1"}),
            Err("ERR The MAXLEN argument must be >= 0."));
  EXPECT_EQ(run({"XADD", "s", "MAXLEN", "1", "MINID", "1", "*", "a", "1"}),
            Err("ERR syntax error, MAXLEN and MINID options at the same time are not compatible"));
  EXPECT_EQ(run({"XADD", "s", "MAXLEN", "5", "LIMIT", "10", "*", "a", "1"}),
            Err("ERR syntax error, LIMIT cannot be used without the special ~ option"));
  EXPECT_EQ(run({"XADD", "s", "LIMIT", "10", "*", "a", "1"}),
            Err("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy"));
  EXPECT_EQ(run({"XADD", "s", "MAXLEN", "~", "5", "LIMIT", "-1", "*", "a", "1"}),
            Err("ERR The LIMIT argument must be >= 0."));
  for (int i = 1; i <= 10; ++i) run({"XADD", "s", std::to_string(i) + "-0", "f", "v"});
  EXPECT_EQ(run({"XADD", "s", "MAXLEN", "=", "3", "11-0", "f", "v"}), Bulk("11-0"));
  EXPECT_EQ(run({"XLEN", "s"}), Int(3));
  EXPECT_EQ(run({"XTRIM", "s", "MINID", "11"}), Int(2));
  EXPECT_EQ(run({"XRANGE", "s", "-", "+"}), Arr({Entry("11-0", {"f", "v"})}));
  // `~` drops whole nodes only: one node of 100 entries is never cut.
  for (int i = 12; i < 62; ++i) run({"XADD", "s", std::to_string(i) + "-0", "f", "v"});
  EXPECT_EQ(run({"XTRIM", "s", "MAXLEN", "~", "10"}), Int(0));
  EXPECT_EQ(run({"XTRIM", "s", "MAXLEN", "10"}), Int(41));
  EXPECT_EQ(run({"XTRIM", "s", "FOO", "1"}), Err(kSyntax));
}

TEST_F(StreamTest, RangesAndDeletes) {
  for (int i = 1; i <= 5; ++i) run({"XADD", "s", std::to_string(i) + "-1", "n", std::to_string(i)});
  EXPECT_EQ(run({"XRANGE", "s", "(2-1", "4", "COUNT", "5"}),
            Arr({Entry("3-1", {"n", "3"}), Entry("4-1", {"n", "4"})}));
  EXPECT_EQ(run({"XREVRANGE", "s", "+", "-", "COUNT", "2"}),
            Arr({Entry("5-1", {"n", "5"}), Entry("4-1", {"n", "4"})}));
  EXPECT_EQ(run({"XRANGE", "s", "-", "+", "COUNT", "0"}), resp::Reply::nil_array());
  EXPECT_EQ(run({"XRANGE", "s", "(-", "+"}), Err(kBadId));
  EXPECT_EQ(run({"XRANGE", "s", "-", "(0-0"}), Err("ERR invalid end ID for the interval"));
  EXPECT_EQ(run({"XRANGE", "s", "-", "+", "foo"}), Err(kSyntax));
  EXPECT_EQ(run({"XDEL", "s", "2-1", "9-9", "3-1"}), Int(2));
  EXPECT_EQ(run({"XDEL", "s", "abc"}), Err(kBadId));
  EXPECT_EQ(run({"XLEN", "s"}), Int(3));
  resp::Reply info = run({"XINFO", "STREAM", "s"});
  ASSERT_TRUE(info.is_array());
  EXPECT_EQ(info.elements()[8], Bulk("max-deleted-entry-id"));
  EXPECT_EQ(info.elements()[9], Bulk("3-1"));
  EXPECT_EQ(info.elements()[11], Int(5));  // entries-added
}

TEST_F(StreamTest, ReadAndBlockingRead) {
  run({"XADD", "s", "1-1", "a", "1"});
  EXPECT_EQ(run({"XREAD", "STREAMS", "s", "0"}),
            Arr({Arr({Bulk("s"), Arr({Entry("1-1", {"a", "1"})})})}));
  EXPECT_EQ(run({"XREAD", "STREAMS", "s", "$"}), resp::Reply::nil_array());
  EXPECT_EQ(run({"XREAD", "STREAMS", "s", ">"}),
            Err("ERR The > ID can be specified only when calling XREADGROUP using the GROUP "
                "<group> <consumer> option."));
  EXPECT_EQ(run({"XREAD", "BLOCK", "x", "STREAMS", "s", "0"}),
            Err("ERR timeout is not an integer or out of range"));
  // Redis 7.0 refuses BLOCK from scripts, naming the command as the script did.
  EXPECT_EQ(run({"EVAL", "return redis.pcall('xread','BLOCK',0,'STREAMS','s','$')", "0"}),
            Err("ERR xread command is not allowed with BLOCK option from scripts"));
  EXPECT_EQ(run({"XREAD", "STREAMS", "s", "t", "0"}),
            Err("ERR Unbalanced 'xread' list of streams: for each stream key an ID or '$' must "
                "be specified."));
  auto b = server_->connect();
  run(*b, {"XREAD", "BLOCK", "0", "STREAMS", "s", "$"});
  EXPECT_TRUE(b->blocked());
  run({"XADD", "s", "2-1", "b", "2"});
  auto got = server_->take_unblocked();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].reply, Arr({Arr({Bulk("s"), Arr({Entry("2-1", {"b", "2"})})})}));
  // BLOCK with a timeout on the server clock.
  run(*b, {"XREAD", "BLOCK", "100", "STREAMS", "s", "$"});
  advance_ms(101);
  EXPECT_EQ(server_->time_out_blocked(), 1u);
  EXPECT_EQ(server_->take_unblocked()[0].reply, resp::Reply::nil_array());
}

TEST_F(StreamTest, GroupsPendingAndClaims) {
  EXPECT_EQ(run({"XGROUP", "CREATE", "s", "g", "$"}),
            Err("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you "
                "may want to use the MKSTREAM option to create an empty stream automatically."));
  EXPECT_EQ(run({"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"}), Ok());
  EXPECT_EQ(run({"XGROUP", "CREATE", "s", "g", "$"}),
            Err("BUSYGROUP Consumer Group name already exists"));
  EXPECT_EQ(run({"XGROUP", "SETID", "s", "nog", "0"}),
            Err("NOGROUP No such consumer group 'nog' for key name 's'"));
  EXPECT_EQ(run({"XREADGROUP", "GROUP", "nog", "c", "STREAMS", "s", ">"}),
            Err("NOGROUP No such key 's' or consumer group 'nog' in XREADGROUP with GROUP option"));
  run({"XADD", "s", "1-1", "a", "1"});
  run({"XADD", "s", "2-1", "b", "2"});
  EXPECT_EQ(run({"XREADGROUP", "GROUP", "g", "alice", "COUNT", "1", "STREAMS", "s", ">"}),
            Arr({Arr({Bulk("s"), Arr({Entry("1-1", {"a", "1"})})})}));
  advance_ms(50);
  EXPECT_EQ(run({"XREADGROUP", "GROUP", "g", "bob", "STREAMS", "s", ">"}),
            Arr({Arr({Bulk("s"), Arr({Entry("2-1", {"b", "2"})})})}));
  EXPECT_EQ(run({"XPENDING", "s", "g"}), Arr({Int(2), Bulk("1-1"), Bulk("2-1"),
                                              Arr({Bulks({"alice", "1"}), Bulks({"bob", "1"})})}));
  EXPECT_EQ(run({"XPENDING", "s", "g", "-", "+", "10"}),
            Arr({Arr({Bulk("1-1"), Bulk("alice"), Int(50), Int(1)}),
                 Arr({Bulk("2-1"), Bulk("bob"), Int(0), Int(1)})}));
  EXPECT_EQ(run({"XPENDING", "s", "g", "IDLE", "10", "-", "+", "10"}),
            Arr({Arr({Bulk("1-1"), Bulk("alice"), Int(50), Int(1)})}));
  EXPECT_EQ(run({"XCLAIM", "s", "g", "carol", "20", "1-1", "2-1", "JUSTID"}), Bulks({"1-1"}));
  EXPECT_EQ(run({"XPENDING", "s", "g", "-", "+", "10", "carol"}),
            Arr({Arr({Bulk("1-1"), Bulk("carol"), Int(0), Int(1)})}));
  EXPECT_EQ(run({"XCLAIM", "s", "g", "c", "x", "1-1"}),
            Err("ERR Invalid min-idle-time argument for XCLAIM"));
  EXPECT_EQ(run({"XCLAIM", "s", "g", "c", "0", "1-1", "foo"}),
            Err("ERR Unrecognized XCLAIM option 'foo'"));
  // A deleted pending entry leaves the PEL through XAUTOCLAIM.
  run({"XDEL", "s", "2-1"});
  EXPECT_EQ(run({"XAUTOCLAIM", "s", "g", "dave", "0", "0"}),
            Arr({Bulk("0-0"), Arr({Entry("1-1", {"a", "1"})}), Bulks({"2-1"})}));
  EXPECT_EQ(run({"XAUTOCLAIM", "s", "g", "c", "0", "0", "COUNT", "0"}),
            Err("ERR COUNT must be > 0"));
  EXPECT_EQ(run({"XAUTOCLAIM", "nokey", "g", "c", "0", "0", "COUNT", "0"}),
            Err("ERR COUNT must be > 0"));
  EXPECT_EQ(run({"XACK", "s", "g", "1-1", "9-9"}), Int(1));
  EXPECT_EQ(run({"XPENDING", "s", "g"}), Arr({Int(0), Nil(), Nil(), resp::Reply::nil_array()}));
  // History of a consumer: its pending entries only.
  run({"XADD", "s", "3-1", "c", "3"});
  run({"XREADGROUP", "GROUP", "g", "erin", "STREAMS", "s", ">"});
  EXPECT_EQ(run({"XREADGROUP", "GROUP", "g", "erin", "STREAMS", "s", "0"}),
            Arr({Arr({Bulk("s"), Arr({Entry("3-1", {"c", "3"})})})}));
  EXPECT_EQ(run({"XGROUP", "DELCONSUMER", "s", "g", "erin"}), Int(1));
  EXPECT_EQ(run({"XGROUP", "CREATECONSUMER", "s", "g", "frank"}), Int(1));
  EXPECT_EQ(run({"XGROUP", "CREATECONSUMER", "s", "g", "frank"}), Int(0));
  resp::Reply groups = run({"XINFO", "GROUPS", "s"});
  ASSERT_TRUE(groups.is_array());
  ASSERT_EQ(groups.elements().size(), 1u);
  EXPECT_EQ(groups.elements()[0],
            Arr({Bulk("name"), Bulk("g"), Bulk("consumers"), Int(5), Bulk("pending"), Int(0),
                 Bulk("last-delivered-id"), Bulk("3-1"), Bulk("entries-read"), Int(3), Bulk("lag"),
                 Int(0)}));
  EXPECT_EQ(run({"XGROUP", "DESTROY", "s", "g"}), Int(1));
  EXPECT_EQ(run({"XGROUP", "DESTROY", "s", "g"}), Int(0));
}

TEST_F(StreamTest, BlockedReadGroupServedByXadd) {
  run({"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"});
  auto b = server_->connect();
  run(*b, {"XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"});
  EXPECT_TRUE(b->blocked());
  run({"XADD", "s", "1-1", "a", "1"});
  auto got = server_->take_unblocked();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].reply, Arr({Arr({Bulk("s"), Arr({Entry("1-1", {"a", "1"})})})}));
  EXPECT_EQ(run({"XPENDING", "s", "g"}),
            Arr({Int(1), Bulk("1-1"), Bulk("1-1"), Arr({Bulks({"c", "1"})})}));
}

// A key of another type does not serve a blocked XREAD (unit/type/stream
// "XREAD: XADD + DEL + LPUSH should not awake client").
TEST_F(StreamTest, ListAtTheKeyDoesNotWakeXread) {
  auto b = server_->connect();
  run(*b, {"XREAD", "BLOCK", "0", "STREAMS", "s", "$"});
  run({"MULTI"});
  run({"XADD", "s", "1-1", "old", "x"});
  run({"DEL", "s"});
  run({"LPUSH", "s", "foo"});
  run({"EXEC"});
  EXPECT_TRUE(server_->take_unblocked().empty());
  EXPECT_TRUE(b->blocked());
  run({"DEL", "s"});
  run({"XADD", "s", "2-1", "new", "y"});
  auto got = server_->take_unblocked();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].reply, Arr({Arr({Bulk("s"), Arr({Entry("2-1", {"new", "y"})})})}));
}

// Redis 7.0 ends a blocked XREADGROUP whose stream goes away with an error,
// and one whose group is destroyed with NOGROUP; a blocked command counts
// once in commandstats.
TEST_F(StreamTest, BlockedReadGroupEndsWhenTheStreamOrGroupGoes) {
  run({"XADD", "s", "666", "f", "v"});
  run({"XGROUP", "CREATE", "s", "g", "$"});
  auto b = server_->connect();
  run(*b, {"XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">"});
  run({"SET", "s", "v"});
  auto got = server_->take_unblocked();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].reply, Err("UNBLOCKED the stream key no longer exists"));
  run({"DEL", "s"});
  run({"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"});
  run({"CONFIG", "RESETSTAT"});
  run(*b, {"XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">"});
  EXPECT_EQ(run({"XGROUP", "DESTROY", "s", "g"}), Int(1));
  got = server_->take_unblocked();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(got[0].reply.is_error());
  EXPECT_EQ(got[0].reply.str().rfind("NOGROUP", 0), 0u);
  const auto& stats = server_->command_stats().at("xreadgroup");
  EXPECT_EQ(stats.calls, 1u);
  EXPECT_EQ(stats.failed_calls, 1u);
}

// unit/type/stream-cgroups "XAUTOCLAIM with XDEL and count": a deleted
// entry leaves the PEL and uses up the COUNT.
TEST_F(StreamTest, AutoclaimCountsDeletedEntries) {
  run({"XADD", "x", "1-0", "f", "v"});
  run({"XADD", "x", "2-0", "f", "v"});
  run({"XADD", "x", "3-0", "f", "v"});
  run({"XGROUP", "CREATE", "x", "grp", "0"});
  run({"XREADGROUP", "GROUP", "grp", "Alice", "STREAMS", "x", ">"});
  run({"XDEL", "x", "1-0", "2-0"});
  EXPECT_EQ(run({"XAUTOCLAIM", "x", "grp", "Bob", "0", "0-0", "COUNT", "1"}),
            Arr({Bulk("2-0"), Arr({}), Bulks({"1-0"})}));
  EXPECT_EQ(run({"XAUTOCLAIM", "x", "grp", "Bob", "0", "2-0", "COUNT", "1"}),
            Arr({Bulk("3-0"), Arr({}), Bulks({"2-0"})}));
  EXPECT_EQ(run({"XAUTOCLAIM", "x", "grp", "Bob", "0", "3-0", "COUNT", "1"}),
            Arr({Bulk("0-0"), Arr({Entry("3-0", {"f", "v"})}), Arr({})}));
  EXPECT_EQ(run({"XPENDING", "x", "grp", "-", "+", "10", "Alice"}), Arr({}));
}

TEST_F(StreamTest, SetId) {
  run({"XADD", "s", "5-5", "a", "1"});
  EXPECT_EQ(run({"XSETID", "s", "1-1"}),
            Err("ERR The ID specified in XSETID is smaller than the target stream top item"));
  EXPECT_EQ(run({"XSETID", "s", "9-0", "ENTRIESADDED", "0"}),
            Err("ERR The entries_added specified in XSETID is smaller than the target stream "
                "length"));
  EXPECT_EQ(run({"XSETID", "nos", "1-1"}), Err("ERR no such key"));
  EXPECT_EQ(run({"XSETID", "s", "9-0"}), Ok());
  EXPECT_EQ(
      run({"XADD", "s", "9-0", "a", "1"}),
      Err("ERR The ID specified in XADD is equal or smaller than the target stream top item"));
}

}  // namespace
}  // namespace redsim::sim
