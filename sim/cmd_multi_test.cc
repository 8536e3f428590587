// MULTI EXEC DISCARD WATCH UNWATCH. Expected replies are what
// redis-server 7.0.15 answered to the same sequences (two connections, key
// expiry by waiting).
#include <gtest/gtest.h>

#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

resp::Reply Queued() { return Status("QUEUED"); }
const char* kExecAbort = "EXECABORT Transaction discarded because of previous errors.";

class MultiTest : public ServerTest {
 protected:
  explicit MultiTest(ServerOptions options = {}) : ServerTest(options) {}
  // WATCH `key`, let `between` run, then MULTI / GET z / EXEC.
  resp::Reply watch_then_exec(const std::string& key, const std::function<void()>& between) {
    EXPECT_EQ(run({"WATCH", key}), Ok());
    between();
    EXPECT_EQ(run({"MULTI"}), Ok());
    EXPECT_EQ(run({"GET", "z"}), Queued());
    return run({"EXEC"});
  }
  std::unique_ptr<Session> other_ = server_->connect();
};

TEST_F(MultiTest, QueuesAndRunsInOrder) {
  EXPECT_EQ(run({"MULTI"}), Ok());
  EXPECT_TRUE(s_->in_multi());
  EXPECT_EQ(run({"SET", "a", "abc"}), Queued());
  EXPECT_EQ(run({"INCR", "a"}), Queued());
  EXPECT_EQ(run({"GET", "a"}), Queued());
  EXPECT_EQ(run(*other_, {"GET", "a"}), Nil());  // nothing ran yet
  // A runtime error is just one element.
  EXPECT_EQ(run({"EXEC"}), Arr({Ok(), Err(kNotInt), Bulk("abc")}));
  EXPECT_FALSE(s_->in_multi());
}

TEST_F(MultiTest, EmptyTransaction) {
  run({"MULTI"});
  EXPECT_EQ(run({"EXEC"}), Arr({}));
}

TEST_F(MultiTest, StateErrors) {
  EXPECT_EQ(run({"EXEC"}), Err("ERR EXEC without MULTI"));
  EXPECT_EQ(run({"DISCARD"}), Err("ERR DISCARD without MULTI"));
  EXPECT_EQ(run({"MULTI"}), Ok());
  EXPECT_EQ(run({"MULTI"}), Err("ERR MULTI calls can not be nested"));
  EXPECT_EQ(run({"SET", "a", "1"}), Queued());
  EXPECT_EQ(run({"WATCH", "x"}), Err("ERR WATCH inside MULTI is not allowed"));
  // Neither error aborts the transaction.
  EXPECT_EQ(run({"EXEC"}), Arr({Ok()}));
}

TEST_F(MultiTest, QueueingErrorsAbortTheTransaction) {
  run({"MULTI"});
  EXPECT_EQ(run({"SET", "a"}), Err("ERR wrong number of arguments for 'set' command"));
  EXPECT_EQ(run({"EXEC"}), Err(kExecAbort));
  EXPECT_FALSE(s_->in_multi());
  run({"MULTI"});
  EXPECT_EQ(run({"nosuch"}), Err("ERR unknown command 'nosuch', with args beginning with: "));
  EXPECT_EQ(run({"INCR", "a"}), Queued());
  EXPECT_EQ(run({"EXEC"}), Err(kExecAbort));
  EXPECT_EQ(run({"GET", "a"}), Nil());
  run({"MULTI"});
  EXPECT_EQ(run({"MULTI", "x"}), Err("ERR wrong number of arguments for 'multi' command"));
  EXPECT_EQ(run({"EXEC"}), Err(kExecAbort));
}

TEST_F(MultiTest, Discard) {
  run({"MULTI"});
  run({"SET", "a", "1"});
  EXPECT_EQ(run({"DISCARD"}), Ok());
  EXPECT_FALSE(s_->in_multi());
  EXPECT_EQ(run({"GET", "a"}), Nil());
}

TEST_F(MultiTest, SelectInsideExecSticks) {
  run({"MULTI"});
  run({"SELECT", "1"});
  run({"SET", "z", "1"});
  EXPECT_EQ(run({"EXEC"}), Arr({Ok(), Ok()}));
  EXPECT_EQ(run({"GET", "z"}), Bulk("1"));
  EXPECT_EQ(s_->db(), 1);
}

TEST_F(MultiTest, WatchedKeyWrittenByAnotherSessionFailsExec) {
  run({"SET", "k", "v"});
  EXPECT_EQ(watch_then_exec("k",
                            [&] {
                              run(*other_, {"SET", "k", "v"});
                            }),
            resp::Reply::nil_array());
  // EXEC unwatches: the next transaction runs.
  run({"MULTI"});
  EXPECT_EQ(run({"EXEC"}), Arr({}));
}

TEST_F(MultiTest, OwnWriteAlsoCounts) {
  run({"SET", "k", "v"});
  EXPECT_EQ(watch_then_exec("k", [&] { run({"SET", "k", "w"}); }), resp::Reply::nil_array());
}

TEST_F(MultiTest, WritesThatTouch) {
  auto fails = [&](const std::string& key, Argv cmd) {
    return watch_then_exec(key, [&] { server_->execute(*other_, cmd); }).is_nil_array();
  };
  run({"SET", "s", "1"});
  EXPECT_TRUE(fails("s", {"INCRBY", "s", "0"}));
  EXPECT_TRUE(fails("s", {"APPEND", "s", ""}));
  EXPECT_TRUE(fails("s", {"EXPIRE", "s", "100"}));
  EXPECT_TRUE(fails("s", {"PERSIST", "s"}));
  EXPECT_TRUE(fails("s", {"GETDEL", "s"}));
  run({"HSET", "h", "f", "1"});
  EXPECT_TRUE(fails("h", {"HSET", "h", "f", "1"}));
  EXPECT_TRUE(fails("h", {"HINCRBY", "h", "f", "0"}));
  run({"HSET", "h", "g", "1"});
  EXPECT_TRUE(fails("h", {"HDEL", "h", "f"}));
  EXPECT_TRUE(fails("h", {"DEL", "h"}));
}

TEST_F(MultiTest, NoOpCommandsDoNotTouch) {
  auto fails = [&](const std::string& key, Argv cmd) {
    return watch_then_exec(key, [&] { server_->execute(*other_, cmd); }).is_nil_array();
  };
  run({"SET", "k", "v"});
  EXPECT_FALSE(fails("k", {"GET", "k"}));
  EXPECT_FALSE(fails("k", {"SET", "k", "v", "NX"}));
  EXPECT_FALSE(fails("k", {"EXPIRE", "k", "10", "GT"}));
  EXPECT_FALSE(fails("k", {"PERSIST", "k"}));
  EXPECT_FALSE(fails("nokey", {"DEL", "nokey"}));
  EXPECT_FALSE(fails("k", {"SET", "k", "v", "XX", "PX", "0"}));  // refused: invalid time
  run({"HSET", "h", "f", "v"});
  EXPECT_FALSE(fails("h", {"HDEL", "h", "nofield"}));
  EXPECT_FALSE(fails("h", {"HSETNX", "h", "f", "v"}));
  EXPECT_FALSE(fails("k", [&] {
    run(*other_, {"SELECT", "1"});
    return Argv{"SET", "k", "other db"};
  }()));
}

TEST_F(MultiTest, FlushTouchesOnlyLiveWatchedKeys) {
  EXPECT_FALSE(watch_then_exec("nokey", [&] { run(*other_, {"FLUSHDB"}); }).is_nil_array());
  run({"SET", "k", "v"});
  EXPECT_TRUE(watch_then_exec("k", [&] { run(*other_, {"FLUSHDB"}); }).is_nil_array());
  run({"SET", "k", "v"});
  EXPECT_TRUE(watch_then_exec("k", [&] { run(*other_, {"FLUSHALL"}); }).is_nil_array());
  run({"SET", "k", "v"});
  EXPECT_FALSE(watch_then_exec("k", [&] {
                 run(*other_, {"SELECT", "1"});
                 run(*other_, {"FLUSHDB"});
               }).is_nil_array());
}

TEST_F(MultiTest, UnwatchAndDiscardForgetTheWatch) {
  run({"SET", "k", "v"});
  run({"WATCH", "k"});
  run(*other_, {"SET", "k", "1"});
  EXPECT_EQ(run({"UNWATCH"}), Ok());
  run({"MULTI"});
  EXPECT_EQ(run({"EXEC"}), Arr({}));
  run({"WATCH", "k"});
  run(*other_, {"SET", "k", "1"});
  run({"MULTI"});
  run({"DISCARD"});
  run({"MULTI"});
  EXPECT_EQ(run({"EXEC"}), Arr({}));
}

TEST_F(MultiTest, WatchArity) {
  EXPECT_EQ(run({"WATCH"}), Err("ERR wrong number of arguments for 'watch' command"));
}

// redis-server 7.0.15: expiry alone never fails EXEC (checked with active
// expiry off and on, with and without another client reading the key).
TEST_F(MultiTest, KeyExpiredAtWatchThenWrittenFailsExec) {
  run({"SET", "p", "v", "PX", "100"});
  advance_ms(300);
  EXPECT_EQ(watch_then_exec("p",
                            [&] {
                              run(*other_, {"SET", "p", "2"});
                            }),
            resp::Reply::nil_array());
  run({"SET", "p", "v", "PX", "100"});
  advance_ms(300);
  EXPECT_EQ(watch_then_exec("p", [&] { run(*other_, {"FLUSHDB"}); }), Arr({Nil()}));
}

// A watched key that was live at WATCH and expires before EXEC fails the
// transaction, however it goes (lazily, actively, or not yet deleted).
// Verified on redis-server 7.0.15 with real expiry (no DEBUG SLEEP).
TEST_F(MultiTest, KeyExpiringAfterWatchFailsExec) {
  run({"SET", "p", "v", "PX", "100"});
  EXPECT_EQ(watch_then_exec("p", [&] { advance_ms(101); }), resp::Reply::nil_array());
  run({"SET", "p", "v", "PX", "100"});
  EXPECT_EQ(watch_then_exec("p", [&] { advance_ms(100); }), Arr({Nil()}));  // at the deadline
}

TEST_F(MultiTest, LazyOrActiveDeletionAfterWatchFailsExec) {
  run({"SET", "p", "v", "PX", "100"});
  EXPECT_EQ(watch_then_exec("p",
                            [&] {
                              advance_ms(101);
                              run(*other_, {"GET", "p"});
                            }),
            resp::Reply::nil_array());
  run({"SET", "p", "v", "PX", "100"});
  EXPECT_EQ(watch_then_exec("p",
                            [&] {
                              advance_ms(101);
                              EXPECT_EQ(server_->active_expire_cycle(), 1u);
                            }),
            resp::Reply::nil_array());
}

TEST_F(MultiTest, KeyAlreadyExpiredAtWatchDoesNotCount) {
  run({"SET", "p", "v", "PX", "100"});
  advance_ms(101);
  EXPECT_EQ(watch_then_exec("p", [&] { run(*other_, {"GET", "p"}); }), Arr({Nil()}));
  run({"SET", "p", "v", "PX", "100"});
  advance_ms(101);
  EXPECT_EQ(watch_then_exec("p", [&] { advance_ms(1000); }), Arr({Nil()}));
}

}  // namespace
}  // namespace redsim::sim
