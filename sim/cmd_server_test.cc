// PING ECHO SELECT FLUSHDB FLUSHALL DBSIZE TIME DEBUG QUIT RESET. Expected
// texts are what redis-server 7.0.15 answered to the same commands.
#include <gtest/gtest.h>

#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class ServerCommandsTest : public ServerTest {};

TEST_F(ServerCommandsTest, PingEcho) {
  EXPECT_EQ(run({"PING"}), Status("PONG"));
  EXPECT_EQ(run({"ping", "hello"}), Bulk("hello"));
  EXPECT_EQ(run({"PING", "a", "b"}), Err("ERR wrong number of arguments for 'ping' command"));
  EXPECT_EQ(run({"ECHO", "hi"}), Bulk("hi"));
  EXPECT_EQ(run({"ECHO"}), Err("ERR wrong number of arguments for 'echo' command"));
  EXPECT_EQ(run({"ECHO", "a", "b"}), Err("ERR wrong number of arguments for 'echo' command"));
}

TEST_F(ServerCommandsTest, SelectSwitchesDatabases) {
  run({"SET", "k", "zero"});
  EXPECT_EQ(run({"SELECT", "1"}), Ok());
  EXPECT_EQ(s_->db(), 1);
  EXPECT_EQ(run({"GET", "k"}), Nil());
  run({"SET", "k", "one"});
  EXPECT_EQ(run({"SELECT", "15"}), Ok());
  EXPECT_EQ(run({"SELECT", "0"}), Ok());
  EXPECT_EQ(run({"GET", "k"}), Bulk("zero"));
  auto other = server_->connect();
  EXPECT_EQ(other->db(), 0);  // per connection
}

TEST_F(ServerCommandsTest, SelectErrors) {
  EXPECT_EQ(run({"SELECT", "x"}), Err(kNotInt));
  EXPECT_EQ(run({"SELECT", "01"}), Err(kNotInt));
  EXPECT_EQ(run({"SELECT", "16"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(run({"SELECT", "-1"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(run({"SELECT", "99999999999999"}),
            Err("ERR value is out of range, value must between -2147483648 and 2147483647"));
  EXPECT_EQ(run({"SELECT"}), Err("ERR wrong number of arguments for 'select' command"));
  EXPECT_EQ(s_->db(), 0);
}

TEST_F(ServerCommandsTest, DatabaseCountIsAnOption) {
  ServerOptions options;
  options.databases = 2;
  Server small(clock_, options);
  auto s = small.connect();
  EXPECT_EQ(small.execute(*s, {"SELECT", "1"}), Ok());
  EXPECT_EQ(small.execute(*s, {"SELECT", "2"}), Err("ERR DB index is out of range"));
}

TEST_F(ServerCommandsTest, FlushdbFlushallDbsize) {
  run({"SET", "a", "1"});
  run({"HSET", "h", "f", "v"});
  run({"SELECT", "1"});
  run({"SET", "b", "1"});
  EXPECT_EQ(run({"DBSIZE"}), Int(1));
  EXPECT_EQ(run({"FLUSHDB"}), Ok());
  EXPECT_EQ(run({"DBSIZE"}), Int(0));
  run({"SELECT", "0"});
  EXPECT_EQ(run({"DBSIZE"}), Int(2));
  EXPECT_EQ(run({"FLUSHDB", "async"}), Ok());
  EXPECT_EQ(run({"DBSIZE"}), Int(0));
  run({"SET", "a", "1"});
  run({"SELECT", "3"});
  run({"SET", "a", "1"});
  EXPECT_EQ(run({"FLUSHALL", "SYNC"}), Ok());
  EXPECT_EQ(run({"DBSIZE"}), Int(0));
  run({"SELECT", "0"});
  EXPECT_EQ(run({"DBSIZE"}), Int(0));
  EXPECT_EQ(run({"FLUSHDB", "foo"}), Err(kSyntax));
  EXPECT_EQ(run({"FLUSHDB", "async", "sync"}), Err(kSyntax));
  EXPECT_EQ(run({"FLUSHALL", "foo"}), Err(kSyntax));
  EXPECT_EQ(run({"DBSIZE", "x"}), Err("ERR wrong number of arguments for 'dbsize' command"));
}

TEST_F(ServerCommandsTest, DbsizeCountsExpiredKeysNotYetDeleted) {
  run({"SET", "k", "v", "PX", "10"});
  advance_ms(11);
  EXPECT_EQ(run({"DBSIZE"}), Int(1));
  EXPECT_EQ(run({"EXISTS", "k"}), Int(0));
  EXPECT_EQ(run({"DBSIZE"}), Int(0));
}

TEST_F(ServerCommandsTest, TimeComesFromTheClock) {
  clock_.set_us(1767225600LL * 1000000 + 123456);
  EXPECT_EQ(run({"TIME"}), Bulks({"1767225600", "123456"}));
  EXPECT_EQ(run({"TIME", "x"}), Err("ERR wrong number of arguments for 'time' command"));
}

TEST_F(ServerCommandsTest, DebugSleepAdvancesTheClock) {
  int64_t before = clock_.now_us();
  EXPECT_EQ(run({"DEBUG", "SLEEP", "0.25"}), Ok());
  EXPECT_EQ(clock_.now_us() - before, 250000);
  EXPECT_EQ(run({"debug", "sleep", "2"}), Ok());
  EXPECT_EQ(clock_.now_us() - before, 2250000);
  EXPECT_EQ(run({"DEBUG", "SLEEP", "0"}), Ok());
  EXPECT_EQ(run({"DEBUG", "SLEEP", "abc"}), Ok());  // strtod: 0
  EXPECT_EQ(run({"DEBUG", "SLEEP", "-1"}), Ok());
  EXPECT_EQ(clock_.now_us() - before, 2250000);
}

// Issue 15, item 2: redis-server 7.0.15 answers +OK at once when seconds
// * 1e6 does not fit a long long (its nanosleep gets a negative time).
TEST_F(ServerCommandsTest, DebugSleepOfAnUnrepresentableTimeDoesNotSleep) {
  int64_t before = clock_.now_us();
  for (const char* v : {"1e300", "inf", "-inf", "nan", "9223372036854.775807", "9300000000000"}) {
    EXPECT_EQ(run({"DEBUG", "SLEEP", v}), Ok()) << v;
    EXPECT_EQ(clock_.now_us(), before) << v;
  }
  // The largest that fits sleeps; a virtual clock saturates instead of wrapping.
  EXPECT_EQ(run({"DEBUG", "SLEEP", "9223372036854"}), Ok());
  EXPECT_EQ(clock_.now_us(), INT64_MAX);
  EXPECT_EQ(run({"DEBUG", "SLEEP", "1"}), Ok());
  EXPECT_EQ(clock_.now_us(), INT64_MAX);
}

// Issue 15, item 4. Texts from redis-server 7.0.15 (started with --save '').
TEST_F(ServerCommandsTest, ShutdownParsesAsRedisAndRequestsTheStop) {
  EXPECT_EQ(run({"SHUTDOWN", "ABORT"}), Err("ERR No shutdown in progress."));
  for (std::initializer_list<std::string> argv :
       {std::initializer_list<std::string>{"SHUTDOWN", "nosave", "save"},
        {"SHUTDOWN", "foo"},
        {"SHUTDOWN", "abort", "now"},
        {"SHUTDOWN", "now", "abort"}}) {
    EXPECT_EQ(run(argv), Err(kSyntax));
  }
  EXPECT_FALSE(server_->shutdown_requested());
  EXPECT_EQ(run({"MULTI"}), Ok());
  EXPECT_EQ(run({"SHUTDOWN", "NOSAVE", "FOO"}),
            Err("ERR Command not allowed inside a transaction"));
  EXPECT_EQ(run({"EXEC"}), Err("EXECABORT Transaction discarded because of previous errors."));
  EXPECT_EQ(run({"EVAL", "return redis.pcall('shutdown')", "0"}),
            Err("ERR This Redis command is not allowed from script"));
  EXPECT_FALSE(server_->shutdown_requested());
  EXPECT_EQ(run({"SHUTDOWN", "SAVE", "NOW", "FORCE"}), Ok());
  EXPECT_TRUE(server_->shutdown_requested());
}

TEST_F(ServerCommandsTest, DebugSleepExpiresKeys) {
  run({"SET", "k", "v", "PX", "500"});
  run({"DEBUG", "SLEEP", "0.501"});
  EXPECT_EQ(run({"GET", "k"}), Nil());
}

TEST_F(ServerCommandsTest, DebugOtherSubcommands) {
  EXPECT_EQ(run({"DEBUG"}), Err("ERR wrong number of arguments for 'debug' command"));
  EXPECT_EQ(run({"DEBUG", "foo"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'foo'. Try DEBUG HELP."));
  EXPECT_EQ(run({"DEBUG", "FOO", "bar"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'FOO'. Try DEBUG HELP."));
  EXPECT_EQ(run({"DEBUG", "sleep"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'sleep'. Try DEBUG "
                "HELP."));
  EXPECT_EQ(run({"DEBUG", "sleep", "0", "extra"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'sleep'. Try DEBUG "
                "HELP."));
}

TEST_F(ServerCommandsTest, QuitAndReset) {
  EXPECT_EQ(run({"QUIT", "x"}), Ok());
  EXPECT_EQ(run({"RESET", "x"}), Err("ERR wrong number of arguments for 'reset' command"));
  run({"SELECT", "2"});
  run({"WATCH", "k"});
  run({"MULTI"});
  run({"SET", "a", "1"});
  EXPECT_EQ(run({"RESET"}), Status("RESET"));
  EXPECT_EQ(s_->db(), 0);
  EXPECT_FALSE(s_->in_multi());
  auto other = server_->connect();
  run(*other, {"SET", "k", "changed"});  // no longer watched
  run({"MULTI"});
  EXPECT_EQ(run({"EXEC"}), Arr({}));
  run({"SUBSCRIBE", "ch"});
  EXPECT_EQ(run({"RESET"}), Status("RESET"));
  EXPECT_EQ(s_->subscription_count(), 0u);
  EXPECT_TRUE(s_->take_pushes().empty());  // no unsubscribe confirmations
  EXPECT_EQ(run(*other, {"PUBLISH", "ch", "m"}), Int(0));
}

}  // namespace
}  // namespace redsim::sim
