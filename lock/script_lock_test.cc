#include "lock/script_lock.h"

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>

#include "lock/errors.h"
#include "lock/lock_test_util.h"
#include "sim/world/checkers.h"
#include "sim/world/world.h"

namespace redsim::lock {
namespace {

using namespace testing_util;

constexpr const char* kSetNxPx = "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])";
constexpr const char* kCompareAndDelete =
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end "
    "return 0";
constexpr const char* kCompareAndPexpire =
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], "
    "ARGV[2]) end return 0";
// Redisson's convention: nil when taken, else the holder's PTTL; the release
// publishes on a channel.
constexpr const char* kRedissonAcquire =
    "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return nil end "
    "return redis.call('PTTL', KEYS[1])";
constexpr const char* kPublishingRelease =
    "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]); "
    "redis.call('PUBLISH', KEYS[2], 'released'); return 1 end return 0";

std::shared_ptr<ScriptLockSpec> set_nx_px_spec(std::chrono::milliseconds lease) {
  auto spec = std::make_shared<ScriptLockSpec>();
  spec->name = "set-nx-px";
  spec->lease = lease;
  spec->acquire = {Script("acquire.lua", kSetNxPx),
                   {"{key}"},
                   {"{token}", "{lease_ms}"},
                   {ReplyMatch::status_text("OK")}};
  spec->release = {
      Script("release.lua", kCompareAndDelete), {"{key}"}, {"{token}"}, {ReplyMatch::integer(1)}};
  spec->wait = PollWait{std::chrono::milliseconds(5)};
  return spec;
}

TEST(ScriptLockTemplate, ExpandsPlaceholdersAndLiteralBraces) {
  const TemplateValues v{"orders", "00ff", "c1:7", "100"};
  EXPECT_EQ(expand_template("{key}:{token}:{owner}:{lease_ms}", v), "orders:00ff:c1:7:100");
  EXPECT_EQ(expand_template("lock:{{{key}}}", v), "lock:{orders}");
  EXPECT_EQ(expand_template("plain", v), "plain");
}

TEST(ScriptLockTemplate, RejectsUnknownAndUnbalancedBraces) {
  EXPECT_THROW(check_template("{tokn}"), std::invalid_argument);
  EXPECT_THROW(check_template("lock:{orders"), std::invalid_argument);
  EXPECT_THROW(check_template("lock:orders}"), std::invalid_argument);
  try {
    check_template("{tokn}");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown placeholder '{tokn}'; one of {key}, {token}"),
              std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(check_template("{{}}{key}"));
}

TEST(ScriptLockSpec, ProblemsNameTheManifestField) {
  auto spec = set_nx_px_spec(std::chrono::milliseconds(100));
  EXPECT_EQ(spec_problem(*spec), std::nullopt);
  spec->release.success.clear();
  EXPECT_EQ(spec_problem(*spec).value_or("").rfind("release.released: ", 0), 0u);
  spec = set_nx_px_spec(std::chrono::milliseconds(0));
  EXPECT_EQ(spec_problem(*spec), "lease_ms: must be > 0");
  spec = set_nx_px_spec(std::chrono::milliseconds(100));
  spec->acquire.argv[0] = "{nope}";
  EXPECT_EQ(spec_problem(*spec).value_or("").rfind("acquire.argv[0]: unknown placeholder", 0), 0u);
  DirectWorld world;
  DirectEnv a(world, "client-a");
  EXPECT_THROW(ScriptLock(a, "k", spec), std::invalid_argument);
}

TEST(ScriptLock, RunsTheScriptsWithExpandedTemplatesEvalshaFirst) {
  DirectWorld world;
  // Distinct seeds: DirectEnvs of one seed draw the same {token}s.
  DirectEnv a(world, "client-a", 1), b(world, "client-b", 2);
  auto spec = set_nx_px_spec(std::chrono::milliseconds(10000));
  ScriptLock la(a, "k", spec), lb(b, "k", spec);
  ASSERT_TRUE(la.try_lock());
  ASSERT_EQ(la.token().size(), 16u);
  // Nothing cached yet: EVALSHA answers NOSCRIPT, EVAL runs and caches it.
  ASSERT_EQ(a.calls.size(), 2u);
  EXPECT_EQ(a.calls[0],
            (Argv{"EVALSHA", spec->acquire.script.sha1_hex(), "1", "k", la.token(), "10000"}));
  EXPECT_EQ(a.calls[1].at(0), "EVAL");
  EXPECT_EQ(run(world, {"GET", "k"}), Reply::bulk(la.token()));
  EXPECT_EQ(run(world, {"PTTL", "k"}), Reply::integer(10000));

  EXPECT_FALSE(lb.try_lock());
  EXPECT_EQ(b.calls.size(), 1u) << "cached now: EVALSHA alone";
  EXPECT_FALSE(lb.believes_held());

  const std::string first = la.token();
  la.unlock();
  EXPECT_EQ(la.last_unlock().outcome, ScriptLock::UnlockOutcome::kReleased);
  EXPECT_EQ(run(world, {"EXISTS", "k"}), Reply::integer(0));
  ASSERT_TRUE(la.try_lock());
  EXPECT_NE(la.token(), first) << "a fresh token per acquisition";
}

TEST(ScriptLock, ReleaseAfterTheLeaseWasTakenOverReportsNotReleased) {
  DirectWorld world;
  // Distinct seeds: DirectEnvs of one seed draw the same {token}s.
  DirectEnv a(world, "client-a", 1), b(world, "client-b", 2);
  auto spec = set_nx_px_spec(std::chrono::milliseconds(1000));
  ScriptLock la(a, "k", spec), lb(b, "k", spec);
  ASSERT_TRUE(la.try_lock());
  world.clock.advance_ms(1001);
  ASSERT_TRUE(lb.try_lock());
  EXPECT_FALSE(la.release()) << "compare-and-delete answered 0";
  EXPECT_EQ(run(world, {"GET", "k"}), Reply::bulk(lb.token())) << "B's lock survives";
  EXPECT_FALSE(la.release()) << "nothing held any more: no call";
  la.unlock();
  EXPECT_EQ(la.last_unlock().outcome, ScriptLock::UnlockOutcome::kNotHeld);
}

TEST(ScriptLock, UnlockRecordsAScriptErrorInsteadOfThrowing) {
  DirectWorld world;
  DirectEnv a(world, "client-a");
  auto spec = set_nx_px_spec(std::chrono::milliseconds(1000));
  spec->release.script = Script("release.lua", "return redis.call('NOSUCHCOMMAND')");
  ScriptLock la(a, "k", spec);
  ASSERT_TRUE(la.try_lock());
  EXPECT_NO_THROW(la.unlock());
  EXPECT_EQ(la.last_unlock().outcome, ScriptLock::UnlockOutcome::kFailed);
  EXPECT_NE(la.last_unlock().error.find("release script release.lua on 'k' answered"),
            std::string::npos)
      << la.last_unlock().error;
  // The same error out of an acquire is thrown: a script that fails is a bug.
  spec->acquire.script = Script("acquire.lua", "return redis.call('NOSUCHCOMMAND')");
  ScriptLock broken(a, "k2", spec);
  EXPECT_THROW(broken.try_lock(), UnexpectedReply);
}

TEST(ScriptLock, AcquireThenStepsRunAfterASuccessfulAcquireOnly) {
  DirectWorld world;
  // Distinct seeds: DirectEnvs of one seed draw the same {token}s.
  DirectEnv a(world, "client-a", 1), b(world, "client-b", 2);
  auto spec = set_nx_px_spec(std::chrono::milliseconds(1000));
  spec->acquire = {Script("setnx.lua", "return redis.call('SETNX', KEYS[1], ARGV[1])"),
                   {"{key}"},
                   {"{owner}"},
                   {ReplyMatch::integer(1)}};
  spec->acquire_then = {{Script("pexpire.lua", "return redis.call('PEXPIRE', KEYS[1], ARGV[1])"),
                         {"{key}"},
                         {"{lease_ms}"},
                         {}}};
  spec->release.argv = {"{owner}"};
  ScriptLock la(a, "k", spec), lb(b, "k", spec);
  ASSERT_TRUE(la.try_lock());
  EXPECT_EQ(run(world, {"GET", "k"}), Reply::bulk("client-a:1")) << "{owner} = client:task";
  EXPECT_EQ(run(world, {"PTTL", "k"}), Reply::integer(1000));
  const size_t before = b.calls.size();
  EXPECT_FALSE(lb.try_lock());
  ASSERT_EQ(b.calls.size() - before, 1u) << "SETNX answered 0: no PEXPIRE";
  EXPECT_EQ(b.calls.back().at(1), spec->acquire.script.sha1_hex());
  EXPECT_TRUE(la.release());
}

// Two processes in the simulated world contend; pub/sub waiting wakes the
// waiter at the release, long before the Redisson-style PTTL it was told.
TEST(ScriptLock, PubSubWaiterWakesAtTheReleaseMessage) {
  world::WorldOptions options;
  options.seed = 3;
  options.faults.latency_min = Micros{1000};
  options.faults.latency_max = Micros{1000};
  world::World w(options);
  auto spec = set_nx_px_spec(std::chrono::milliseconds(10000));
  spec->acquire = {Script("acquire.lua", kRedissonAcquire),
                   {"{key}"},
                   {"{token}", "{lease_ms}"},
                   {ReplyMatch::nil()}};
  spec->acquire_replies_pttl = true;
  spec->release = {Script("release.lua", kPublishingRelease),
                   {"{key}", "unlock:{key}"},
                   {"{token}"},
                   {ReplyMatch::integer(1)}};
  spec->wait = PubSubWait{"unlock:{key}", "released"};
  int64_t released_at_us = -1, b_acquired_at_us = -1;
  w.spawn_process("a", [&](world::ProcessEnv& env) {
    ScriptLock lock(env, "k", spec);
    ASSERT_TRUE(lock.try_lock());
    env.sleep_for(std::chrono::milliseconds(50));
    ASSERT_TRUE(lock.release());
    released_at_us = w.now().count();
  });
  w.spawn_process(
      "b",
      [&](world::ProcessEnv& env) {
        ScriptLock lock(env, "k", spec);
        ASSERT_TRUE(lock.try_lock_for(std::chrono::seconds(5)));
        b_acquired_at_us = w.now().count();
        lock.unlock();
      },
      std::chrono::milliseconds(10));
  w.run();
  ASSERT_GT(released_at_us, 0);
  ASSERT_GT(b_acquired_at_us, 0);
  EXPECT_LT(b_acquired_at_us - released_at_us, 10000) << "woken by the message, not the 10 s PTTL";
  EXPECT_TRUE(world::check_mutual_exclusion(w.history()).empty());
}

// The watchdog keeps a holder's key alive past its lease; once another
// client's token is in the key, the compare-and-pexpire renew fails and the
// watchdog stops with lease_lost().
TEST(ScriptLock, WatchdogRenewsAndStopsWhenTheKeyIsNotOurs) {
  world::WorldOptions options;
  options.seed = 5;
  world::World w(options);
  auto spec = set_nx_px_spec(std::chrono::milliseconds(100));
  spec->renew = {Script("renew.lua", kCompareAndPexpire),
                 {"{key}"},
                 {"{token}", "{lease_ms}"},
                 {ReplyMatch::integer(1)}};
  bool other_got_it = true, lost = false;
  w.spawn_process("holder", [&](world::ProcessEnv& env) {
    ScriptLock lock(env, "k", spec);
    ASSERT_TRUE(lock.try_lock());
    env.sleep_for(std::chrono::milliseconds(350));  // 3.5 leases: renewed all along
    auto& c = env.connection();
    EXPECT_EQ(c.call({"GET", "k"}), Reply::bulk(lock.token()));
    EXPECT_FALSE(lock.lease_lost());
    c.call({"SET", "k", "intruder", "PX", "1000"});  // another owner's value
    env.sleep_for(std::chrono::milliseconds(100));
    lost = lock.lease_lost();
    EXPECT_FALSE(lock.release());
  });
  w.spawn_process(
      "other",
      [&](world::ProcessEnv& env) {
        ScriptLock lock(env, "k", spec);
        other_got_it = lock.try_lock();
      },
      std::chrono::milliseconds(200));
  w.run();
  EXPECT_FALSE(other_got_it) << "the renewed key was still held at 2 leases";
  EXPECT_TRUE(lost);
}

}  // namespace
}  // namespace redsim::lock
