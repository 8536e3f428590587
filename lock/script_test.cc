#include "lock/script.h"

#include <gtest/gtest.h>

#include <string>

#include "lock/embedded_scripts.h"
#include "lock/errors.h"
#include "lock/lock_test_util.h"
#include "lock/reentrant_lock.h"

namespace redsim::lock {
namespace {

using namespace testing_util;

TEST(Sha1Hex, MatchesRedisScriptLoad) {
  // SCRIPT LOAD "return 'hello moto'" (seed 004, and redis-server 7.0.15).
  EXPECT_EQ(sha1_hex("return 'hello moto'"), "232fd51614574cf0867b83d384a5e898cfd24e5a");
  EXPECT_EQ(sha1_hex(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
}

TEST(Script, EveryLockScriptIsEmbedded) {
  for (const char* name : {"simple_unlock", "reentrant_acquire", "reentrant_unlock",
                           "reentrant_renew", "reentrant_force_unlock"}) {
    const Script& script = Script::get(name);
    EXPECT_EQ(script.name(), name);
    EXPECT_NE(script.text().find("redis.call"), std::string::npos) << name;
    EXPECT_EQ(script.sha1_hex(), sha1_hex(script.text())) << name;
    EXPECT_EQ(&Script::get(name), &script) << "looked up once, cached";
  }
  EXPECT_GE(kEmbeddedScriptCount, 5);
}

TEST(Script, UnknownNameThrows) { EXPECT_THROW(Script::get("no_such_script"), Error); }

TEST(RunScript, SendsEvalshaAndFallsBackToEvalOnNoscript) {
  DirectWorld world;
  DirectEnv env(world, "client-a");
  const Script& script = Script::get("simple_unlock");

  // A fresh server has an empty script cache: EVALSHA, NOSCRIPT, then EVAL.
  Reply reply = run_script(env.connection(), script, {"k"}, {"token"});
  EXPECT_EQ(reply, Reply::integer(0));
  ASSERT_EQ(env.calls.size(), 2u);
  EXPECT_EQ(env.calls[0], (Argv{"EVALSHA", script.sha1_hex(), "1", "k", "token"}));
  EXPECT_EQ(env.calls[1], (Argv{"EVAL", script.text(), "1", "k", "token"}));

  // The EVAL cached it: EVALSHA alone now.
  env.calls.clear();
  world.server.execute(*world.server.connect(), {"SET", "k", "token"});
  EXPECT_EQ(run_script(env.connection(), script, {"k"}, {"token"}), Reply::integer(1));
  ASSERT_EQ(env.calls.size(), 1u);
  EXPECT_EQ(env.calls[0][0], "EVALSHA");

  // SCRIPT FLUSH empties the cache: the fallback runs again.
  world.server.execute(*world.server.connect(), {"SCRIPT", "FLUSH"});
  env.calls.clear();
  EXPECT_EQ(run_script(env.connection(), script, {"k"}, {"token"}), Reply::integer(0));
  ASSERT_EQ(env.calls.size(), 2u);
  EXPECT_EQ(env.calls[0][0], "EVALSHA");
  EXPECT_EQ(env.calls[1][0], "EVAL");
}

TEST(RunScript, LockWorksAcrossScriptFlush) {
  DirectWorld world;
  DirectEnv env(world, "client-a");
  ReentrantLock lock(env, "k", {.default_lease = std::chrono::seconds(10)});
  lock.lock();
  lock.unlock();
  world.server.execute(*world.server.connect(), {"SCRIPT", "FLUSH"});
  env.calls.clear();
  lock.lock();
  ASSERT_EQ(env.calls.size(), 2u);
  EXPECT_EQ(env.calls[0][0], "EVALSHA");
  EXPECT_EQ(env.calls[1][0], "EVAL");
  EXPECT_EQ(lock.hold_count(), 1);
}

TEST(RunScript, OtherErrorsAreReturnedNotRetried) {
  DirectWorld world;
  DirectEnv env(world, "client-a");
  world.server.execute(*world.server.connect(), {"HSET", "k", "f", "v"});
  const Reply reply = run_script(env.connection(), Script::get("simple_unlock"), {"k"}, {"t"});
  ASSERT_TRUE(reply.is_error());
  EXPECT_EQ(reply.error_code(), "WRONGTYPE");
  EXPECT_EQ(env.calls.back()[0], "EVAL");  // after the first NOSCRIPT only
  EXPECT_EQ(env.calls.size(), 2u);
}

}  // namespace
}  // namespace redsim::lock
