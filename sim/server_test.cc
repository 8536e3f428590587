// Server::execute / execute_from_script: lookup, arity, the subscribed-state
// and MULTI rules, frozen time. Expected texts are what redis-server 7.0.15
// answered (for scripts: its error with the " script: ..." suffix removed).
#include "sim/server.h"

#include <gtest/gtest.h>

#include "sim/internal.h"
#include "sim/keyspace.h"
#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class DispatchTest : public ServerTest {};

TEST_F(DispatchTest, UnknownCommandText) {
  EXPECT_EQ(run({"foo", "a", "b"}),
            Err("ERR unknown command 'foo', with args beginning with: 'a' 'b' "));
  EXPECT_EQ(run({"foo"}), Err("ERR unknown command 'foo', with args beginning with: "));
  EXPECT_EQ(run({"FOO", "Bar"}),
            Err("ERR unknown command 'FOO', with args beginning with: 'Bar' "));
  EXPECT_EQ(run({"", "x"}), Err("ERR unknown command '', with args beginning with: 'x' "));
  EXPECT_EQ(run({"fo\no", "a\r\nb"}),
            Err("ERR unknown command 'fo o', with args beginning with: 'a  b' "));
}

TEST_F(DispatchTest, UnknownCommandTextIsCutAt128Bytes) {
  std::string x(200, 'x');
  EXPECT_EQ(run({"foo", x, "b"}), Err("ERR unknown command 'foo', with args beginning with: '" +
                                      std::string(128, 'x') + "' "));
  Argv many = {"foo"};
  std::string expected = "ERR unknown command 'foo', with args beginning with: ";
  for (int i = 0; i < 20; ++i) many.push_back("abcdefghij");
  for (int i = 0; i < 10; ++i) expected += "'abcdefghij' ";  // stops once past 128
  EXPECT_EQ(server_->execute(*s_, many), Err(expected));
  std::string long_name(140, 'F');
  EXPECT_EQ(run({long_name, "a"}), Err("ERR unknown command '" + std::string(128, 'F') +
                                       "', with args beginning with: 'a' "));
}

TEST_F(DispatchTest, NamesAreCaseInsensitiveAndArityUsesTheLowerCaseName) {
  EXPECT_EQ(run({"SeT", "k", "v"}), Ok());
  EXPECT_EQ(run({"GET"}), Err("ERR wrong number of arguments for 'get' command"));
  EXPECT_EQ(run({"HgEt", "k"}), Err("ERR wrong number of arguments for 'hget' command"));
}

TEST_F(DispatchTest, SubscribedSessionMayOnlyRunPubSubCommands) {
  EXPECT_EQ(run({"SUBSCRIBE", "ch"}), Arr({Bulk("subscribe"), Bulk("ch"), Int(1)}));
  const std::string tail =
      "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this "
      "context";
  EXPECT_EQ(run({"GET", "x"}), Err("ERR Can't execute 'get" + tail));
  EXPECT_EQ(run({"set", "x", "y"}), Err("ERR Can't execute 'set" + tail));
  EXPECT_EQ(run({"MULTI"}), Err("ERR Can't execute 'multi" + tail));
  EXPECT_EQ(run({"PUBLISH", "ch", "m"}), Err("ERR Can't execute 'publish" + tail));
  // Unknown and arity errors come first.
  EXPECT_EQ(run({"nosuch"}), Err("ERR unknown command 'nosuch', with args beginning with: "));
  EXPECT_EQ(run({"GET"}), Err("ERR wrong number of arguments for 'get' command"));
  EXPECT_EQ(run({"PING"}), Arr({Bulk("pong"), Bulk("")}));
  EXPECT_EQ(run({"PING", "hi"}), Arr({Bulk("pong"), Bulk("hi")}));
  EXPECT_EQ(run({"QUIT"}), Ok());
  EXPECT_EQ(run({"PSUBSCRIBE", "p*"}), Arr({Bulk("psubscribe"), Bulk("p*"), Int(2)}));
  EXPECT_EQ(run({"UNSUBSCRIBE"}), Arr({Bulk("unsubscribe"), Bulk("ch"), Int(1)}));
  EXPECT_EQ(run({"GET", "x"}), Err("ERR Can't execute 'get" + tail));  // still a pattern
  EXPECT_EQ(run({"PUNSUBSCRIBE"}), Arr({Bulk("punsubscribe"), Bulk("p*"), Int(0)}));
  EXPECT_EQ(run({"GET", "x"}), Nil());
  EXPECT_EQ(run({"PING"}), Status("PONG"));
}

TEST_F(DispatchTest, RejectedExecAbortsWithTheReason) {
  EXPECT_EQ(run({"EXEC", "x"}), Err("EXECABORT Transaction discarded because of: wrong number of "
                                    "arguments for 'exec' command"));
  run({"MULTI"});
  run({"SET", "a", "1"});
  EXPECT_EQ(run({"EXEC", "x"}), Err("EXECABORT Transaction discarded because of: wrong number of "
                                    "arguments for 'exec' command"));
  EXPECT_FALSE(s_->in_multi());
  EXPECT_EQ(run({"EXEC"}), Err("ERR EXEC without MULTI"));
  run({"SUBSCRIBE", "ch"});
  EXPECT_EQ(run({"EXEC"}),
            Err("EXECABORT Transaction discarded because of: Can't execute 'exec': only "
                "(P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this "
                "context"));
}

TEST_F(DispatchTest, TimeIsFrozenForTheWholeCommand) {
  // Inside EXEC, DEBUG SLEEP moves the clock but not the command's time.
  run({"SET", "k", "v", "PX", "500"});
  run({"MULTI"});
  run({"DEBUG", "SLEEP", "1"});
  run({"GET", "k"});
  run({"PTTL", "k"});
  EXPECT_EQ(run({"EXEC"}), Arr({Ok(), Bulk("v"), Int(500)}));
  EXPECT_EQ(run({"GET", "k"}), Nil());
}

TEST_F(DispatchTest, NowMsFollowsTheClockBetweenCommands) {
  EXPECT_EQ(server_->now_ms(), now_ms());
  advance_ms(7);
  EXPECT_EQ(server_->now_ms(), now_ms());
}

TEST_F(DispatchTest, CountsProcessedCommands) {
  uint64_t before = server_->commands_processed();
  run({"SET", "a", "1"});
  run({"nosuch"});  // rejected: not processed
  run({"MULTI"});
  run({"GET", "a"});  // queued: processed by EXEC
  run({"EXEC"});
  EXPECT_EQ(server_->commands_processed() - before, 4u);
}

TEST_F(DispatchTest, ScriptPathErrors) {
  auto call = [&](Argv argv, bool ro = false) {
    return ServerAccess::execute_from_script(*server_, *s_, argv, ro);
  };
  EXPECT_EQ(call({"nosuchcmd"}), Err("ERR Unknown Redis command called from script"));
  EXPECT_EQ(call({"get"}), Err("ERR Wrong number of args calling Redis command from script"));
  // Arity is checked before the no-script flag, as on Redis.
  EXPECT_EQ(call({"multi", "x"}),
            Err("ERR Wrong number of args calling Redis command from script"));
  for (Argv argv : std::vector<Argv>{{"multi"},
                                     {"exec"},
                                     {"discard"},
                                     {"watch", "x"},
                                     {"unwatch"},
                                     {"subscribe", "x"},
                                     {"unsubscribe", "x"},
                                     {"psubscribe", "x"},
                                     {"punsubscribe", "x"},
                                     {"debug", "sleep", "0"},
                                     {"quit"},
                                     {"reset"}}) {
    EXPECT_EQ(call(argv), Err("ERR This Redis command is not allowed from script")) << argv[0];
  }
  const char* ro = "ERR Write commands are not allowed from read-only scripts.";
  EXPECT_EQ(call({"set", "a", "b"}, true), Err(ro));
  EXPECT_EQ(call({"SET", "a", "b", "c"}, true), Err(ro));  // before the syntax check
  EXPECT_EQ(call({"flushall"}, true), Err(ro));
  EXPECT_EQ(call({"publish", "a", "b"}, true), Err(ro));
  EXPECT_EQ(call({"multi"}, true), Err("ERR This Redis command is not allowed from script"));
  EXPECT_EQ(call({"get", "a"}, true), Nil());
  EXPECT_EQ(call({"publish", "a", "b"}), Int(0));
  EXPECT_EQ(call({"ping", "x"}), Bulk("x"));
  EXPECT_EQ(call({"select", "x"}), Err(kNotInt));
}

TEST_F(DispatchTest, ScriptPathIgnoresMultiAndSubscribedState) {
  run({"MULTI"});
  EXPECT_EQ(ServerAccess::execute_from_script(*server_, *s_, {"set", "a", "1"}, false), Ok());
  EXPECT_EQ(ServerAccess::execute_from_script(*server_, *s_, {"get", "a"}, false), Bulk("1"));
  run({"DISCARD"});
}

TEST_F(DispatchTest, DestroyingASessionUnsubscribesAndUnwatches) {
  auto sub = server_->connect();
  run(*sub, {"SUBSCRIBE", "ch"});
  run(*sub, {"PSUBSCRIBE", "c*"});
  run(*sub, {"WATCH", "k"});
  EXPECT_EQ(run({"PUBLISH", "ch", "m"}), Int(2));
  sub.reset();
  EXPECT_EQ(run({"PUBLISH", "ch", "m"}), Int(0));
  EXPECT_EQ(run({"SET", "k", "v"}), Ok());  // no dangling watcher to touch
}

TEST_F(DispatchTest, ScriptSelectDoesNotLeakToTheCaller) {
  // Needs the Lua engine (sim/lua): a script's SELECT lasts for the script.
  run({"SELECT", "0"});
  EXPECT_EQ(run({"EVAL", "redis.call('select', '1') return redis.call('set', 'k', 'v')", "0"}),
            Ok());
  EXPECT_EQ(s_->db(), 0);
  EXPECT_EQ(run({"GET", "k"}), Nil());
  run({"SELECT", "1"});
  EXPECT_EQ(run({"GET", "k"}), Bulk("v"));
}

// Issue 15, item 6: maxmemory with noeviction. Texts and which commands are
// refused from redis-server 7.0.15 with `CONFIG SET maxmemory 1`.
TEST_F(DispatchTest, MaxmemoryNoevictionRefusesDenyoomCommands) {
  constexpr const char* kOom = "OOM command not allowed when used memory > 'maxmemory'.";
  EXPECT_EQ(run({"SET", "a", "1"}), Ok());
  EXPECT_EQ(run({"CONFIG", "SET", "maxmemory", "1"}), Ok());
  EXPECT_GT(server_->used_memory_bytes(), 1);
  EXPECT_EQ(run({"SET", "b", "1"}), Err(kOom));
  EXPECT_EQ(run({"INCR", "a"}), Err(kOom));
  EXPECT_EQ(run({"GET", "a"}), Bulk("1"));
  EXPECT_EQ(run({"EVAL", "return redis.call('set','x','1')", "0"}),
            Err(std::string(kOom) +
                " script: 8b2ae6dd76cda7fc3e27f97431ae27d7b08a221d, on @user_script:1."));
  EXPECT_EQ(run({"EVAL", "return redis.pcall('set','x','1')", "0"}), Err(kOom));
  EXPECT_EQ(run({"EVAL", "#!lua\nreturn redis.call('set','x','1')", "0"}), Err(kOom));
  EXPECT_EQ(run({"EVAL", "#!lua flags=allow-oom\nreturn redis.call('set','x','1')", "0"}), Ok());
  EXPECT_EQ(run({"DEL", "a", "x"}), Int(2));  // not denyoom
  // Inside MULTI everything but EXEC/DISCARD/QUIT/RESET is refused.
  EXPECT_EQ(run({"MULTI"}), Ok());
  EXPECT_EQ(run({"GET", "a"}), Err(kOom));
  EXPECT_EQ(run({"EXEC"}), Err("EXECABORT Transaction discarded because of previous errors."));
  // Other policies evict first; below the fixed base nothing is ever
  // enough, so denyoom commands are refused as under noeviction.
  EXPECT_EQ(run({"CONFIG", "SET", "maxmemory-policy", "allkeys-lru"}), Ok());
  EXPECT_EQ(run({"SET", "b", "1"}), Err(kOom));
  EXPECT_EQ(run({"GET", "b"}), Nil());
  EXPECT_EQ(run({"CONFIG", "SET", "maxmemory-policy", "noeviction"}), Ok());
  EXPECT_EQ(run({"SET", "b", "2"}), Err(kOom));
  // A limit above what is used: writes pass until the data outgrows it.
  int64_t limit = server_->used_memory_bytes() + 1000;
  EXPECT_EQ(run({"CONFIG", "SET", "maxmemory", std::to_string(limit)}), Ok());
  EXPECT_EQ(run({"SET", "big", std::string(900, 'x')}), Ok());
  EXPECT_EQ(run({"SET", "more", std::string(200, 'x')}), Ok());  // was under before
  EXPECT_EQ(run({"SET", "again", "x"}), Err(kOom));
  EXPECT_EQ(run({"CONFIG", "SET", "maxmemory", "0"}), Ok());
  EXPECT_EQ(run({"SET", "again", "x"}), Ok());
  EXPECT_EQ(run({"EVAL", "return redis.call('set','x','1')", "0"}), Ok());
}

// execute_consuming: SET takes the value string itself (a transport's big
// argument is stored without a copy); elsewhere the argv is only read.
TEST_F(DispatchTest, ExecuteConsumingMovesSetsValueAndQueuesTheArgvItself) {
  const std::string big(100000, 'v');
  Argv set{"SET", "k", big, "PX", "100000"};
  const char* bytes = set[2].data();
  EXPECT_EQ(server_->execute_consuming(*s_, set), Ok());
  EXPECT_EQ(set[1], "k");  // only the value was taken
  EXPECT_TRUE(set[2].empty());
  Entry* e = ServerAccess::keyspace(*server_).db(0).peek("k");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->str().data(), bytes);  // the very buffer, not a copy
  EXPECT_EQ(e->str(), big);
  EXPECT_EQ(run({"PTTL", "k"}), Int(100000));
  // A GET with consumption allowed leaves its argv alone.
  Argv get{"GET", "k"};
  EXPECT_EQ(server_->execute_consuming(*s_, get), Bulk(big));
  EXPECT_EQ(get, (Argv{"GET", "k"}));
  // Inside MULTI the argv is queued (moved); EXEC's SET copies from the queue.
  EXPECT_EQ(run({"MULTI"}), Ok());
  Argv queued{"SET", "k2", "v2"};
  EXPECT_EQ(server_->execute_consuming(*s_, queued), resp::Reply::status("QUEUED"));
  EXPECT_EQ(run({"EXEC"}), Arr({Ok()}));
  EXPECT_EQ(run({"GET", "k2"}), Bulk("v2"));
  // execute() never moves.
  Argv plain{"SET", "k3", "v3"};
  EXPECT_EQ(server_->execute(*s_, plain), Ok());
  EXPECT_EQ(plain[2], "v3");
}

// FLUSHALL leaves the keyspace empty, its memory accounting at the empty
// server's, and gives back the key table's buckets.
TEST_F(DispatchTest, FlushallEmptiesTheAccountingAndTheKeyTable) {
  const int64_t empty = server_->used_memory_bytes();
  EXPECT_EQ(empty, Server::kBaseUsedMemoryBytes);
  for (int i = 0; i < 20000; ++i) run({"SET", "key:" + std::to_string(i), "xxx"});
  run({"SELECT", "3"});
  run({"HSET", "h", "f", "v"});
  run({"PEXPIRE", "h", "100000"});
  EXPECT_GT(server_->used_memory_bytes(), empty + 20000 * Server::kKeyOverheadBytes);
  EXPECT_GE(ServerAccess::keyspace(*server_).db(0).bucket_count(), 20000u);
  EXPECT_EQ(run({"FLUSHALL"}), Ok());
  EXPECT_EQ(server_->used_memory_bytes(), empty);
  for (int i = 0; i < ServerAccess::keyspace(*server_).databases(); ++i) {
    const Db& db = ServerAccess::keyspace(*server_).db(i);
    EXPECT_EQ(db.size(), 0u);
    EXPECT_EQ(db.volatile_count(), 0u);
    EXPECT_LT(db.bucket_count(), 100u) << "db " << i;
    EXPECT_EQ(db.inconsistency(), "");
  }
}

}  // namespace
}  // namespace redsim::sim
