// ReentrantLock's replica check (ReentrantLockOptions::sync_replicas):
// WAIT after each acquisition, release and fail when too few replicas
// acknowledged. The fake has no WAIT on this branch, so the connection here
// answers WAIT itself with a chosen replica count (0 is what a primary
// without replicas answers once the timeout passes) and passes every other
// command to the fake server.
#include <gtest/gtest.h>

#include "lock/errors.h"
#include "lock/fenced_lock.h"
#include "lock/lock_test_util.h"
#include "lock/reentrant_lock.h"
#include "sim/world/world.h"

namespace redsim::lock {
namespace {

using namespace testing_util;

class WaitAnsweringEnv final : public Env {
 public:
  WaitAnsweringEnv(DirectWorld& world, std::string client_id)
      : inner_(world, std::move(client_id)) {
    connection_.env = this;
  }

  Connection& connection(size_t /*server*/ = 0) override { return connection_; }
  SubscriptionId subscribe(const std::string& channel,
                           std::function<void(const std::string&)> on_message,
                           size_t server = 0) override {
    return inner_.subscribe(channel, std::move(on_message), server);
  }
  void unsubscribe(SubscriptionId id) override { inner_.unsubscribe(id); }
  EnvTime now() override { return inner_.now(); }
  void sleep_for(Micros d) override { inner_.sleep_for(d); }
  std::unique_ptr<Event> make_event() override { return inner_.make_event(); }
  void spawn(std::string name, std::function<void()> fn) override {
    inner_.spawn(std::move(name), std::move(fn));
  }
  std::string client_id() override { return inner_.client_id(); }
  uint64_t task_id() override { return inner_.task_id(); }
  uint64_t random_u64() override { return inner_.random_u64(); }

  int64_t replicas_acking = 0;  // WAIT's answer
  std::vector<Argv> waits;      // every WAIT sent, in order
  DirectEnv& inner() { return inner_; }

 private:
  struct WaitConnection final : Connection {
    Reply do_call(const Argv& argv, std::optional<Micros> timeout) override {
      if (!argv.empty() && argv[0] == "WAIT") {
        env->waits.push_back(argv);
        return Reply::integer(env->replicas_acking);
      }
      return env->inner_.connection().call(argv, timeout);
    }
    WaitAnsweringEnv* env = nullptr;
  };
  DirectEnv inner_;
  WaitConnection connection_;
};

TEST(ReplicaCheck, OffByDefaultSendsNoWait) {
  DirectWorld world;
  WaitAnsweringEnv a(world, "client-a");
  ReentrantLock lock(a, "k", {.default_lease = 10s});
  lock.lock();
  EXPECT_TRUE(a.waits.empty());
}

TEST(ReplicaCheck, NoReplicaAcknowledgedReleasesAndFails) {
  DirectWorld world;
  WaitAnsweringEnv a(world, "client-a");
  ReentrantLock lock(a, "k", {.default_lease = 10s, .sync_replicas = 1, .sync_timeout = 250ms});
  EXPECT_THROW(lock.try_lock(), ReplicaSyncError);
  ASSERT_EQ(a.waits.size(), 1u);
  EXPECT_EQ(a.waits[0], (Argv{"WAIT", "1", "250"}));
  EXPECT_FALSE(lock.is_locked()) << "the hold taken before WAIT was released";
  EXPECT_EQ(world.server.execute(*world.server.connect(), {"EXISTS", "k"}), Reply::integer(0));
  EXPECT_THROW(lock.try_lock_for(1s), ReplicaSyncError);
  EXPECT_THROW(lock.lock(), ReplicaSyncError);
  EXPECT_FALSE(lock.is_locked());
  EXPECT_TRUE(a.inner().spawned.empty()) << "no watchdog for a failed acquisition";
}

TEST(ReplicaCheck, EnoughReplicasKeepTheLock) {
  DirectWorld world;
  WaitAnsweringEnv a(world, "client-a");
  a.replicas_acking = 2;
  ReentrantLock lock(a, "k", {.default_lease = 10s, .sync_replicas = 2});
  EXPECT_TRUE(lock.try_lock());
  EXPECT_EQ(lock.hold_count(), 1);
  lock.lock();  // a re-entry is checked too
  EXPECT_EQ(a.waits.size(), 2u);
  EXPECT_EQ(lock.hold_count(), 2);

  // A later re-entry that is not replicated gives back only its own hold.
  a.replicas_acking = 1;
  EXPECT_THROW(lock.lock(), ReplicaSyncError);
  EXPECT_EQ(lock.hold_count(), 2);
  EXPECT_EQ(lock.remaining_lease().ttl, 10000ms);
}

TEST(ReplicaCheck, ABusyLockSendsNoWait) {
  DirectWorld world;
  WaitAnsweringEnv a(world, "client-a"), b(world, "client-b");
  a.replicas_acking = b.replicas_acking = 1;
  ReentrantLock la(a, "k", {.default_lease = 10s, .sync_replicas = 1});
  ReentrantLock lb(b, "k", {.default_lease = 10s, .sync_replicas = 1});
  la.lock();
  EXPECT_FALSE(lb.try_lock());
  EXPECT_TRUE(b.waits.empty());
}

TEST(ReplicaCheck, FencedLockChecksToo) {
  DirectWorld world;
  WaitAnsweringEnv a(world, "client-a");
  FencedLock lock(a, "k", {.default_lease = 10s, .sync_replicas = 1});
  EXPECT_THROW(lock.lock_and_get_token(), ReplicaSyncError);
  EXPECT_FALSE(lock.is_locked());
  a.replicas_acking = 1;
  EXPECT_EQ(lock.lock_and_get_token(), 2) << "the unreplicated acquisition still used token 1";
}

// In the world, WAIT has Redis's semantics (a primary without replicas
// answers 0 when the timeout ends): the acquisition must fail after the WAIT
// timeout and leave no lock behind; a second client then takes it at once.
TEST(ReplicaCheck, InTheWorldWithoutReplicasFailsAndReleases) {
  world::WorldOptions options;
  options.faults.latency_max = Micros{500};
  world::World w(options);
  bool threw = false;
  int64_t failed_at_us = -1;
  bool second_took_it = false;
  w.spawn_process("checked", [&](world::ProcessEnv& env) {
    ReentrantLock lock(env, "k", {.default_lease = 10s, .sync_replicas = 1, .sync_timeout = 100ms});
    try {
      lock.try_lock();
    } catch (const ReplicaSyncError&) {
      threw = true;
      failed_at_us = env.now().time_since_epoch().count();
    }
  });
  w.spawn_process(
      "second",
      [&](world::ProcessEnv& env) {
        ReentrantLock lock(env, "k", {.default_lease = 10s});
        second_took_it = lock.try_lock();
      },
      Micros(200000));
  w.run();
  EXPECT_TRUE(threw);
  EXPECT_GE(failed_at_us, 100000) << "WAIT waited out its timeout";
  EXPECT_TRUE(second_took_it) << "the failed acquisition left no lock";
}

}  // namespace
}  // namespace redsim::lock
