// Test helpers for lock/*_test.cc over the fake server (world::DirectWorld):
// the names every lock test uses, run() to look at the server from outside
// the lock clients, and the cast of the articles' races. Test-only, not
// installed (*_test_util.h); links redsim::world.
//
//   namespace redsim::lock {
//   namespace {
//   using namespace testing_util;
//
//   TEST(SimpleLock, Example) {
//     DirectWorld world;
//     DirectEnv a(world, "client-a");
//     SimpleLock lock(a, "k", {.lease = 10s});
//     lock.lock();
//     EXPECT_EQ(run(world, {"PTTL", "k"}), Reply::integer(10000));
//   }
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <optional>

#include "lock/env.h"
#include "lock/errors.h"
#include "lock/lock.h"
#include "sim/world/direct_env.h"

namespace redsim::lock::testing_util {

using namespace std::chrono_literals;
using world::DirectEnv;
using world::DirectWorld;

// argv on the fake, on a session of its own: what an observer such as
// redis-cli sees, not one of the clients (their calls are not recorded).
inline Reply run(DirectWorld& world, const Argv& argv) {
  return world.server.execute(*world.server.connect(), argv);
}

// Three processes ("client-a", "client-b", "client-c") with a lock of type L
// each on key "k", all made with the same options: the expire-then-delete
// races of the articles. Take the parts by name:
//   Race<GetDelLock> race(world, {.lease = 1000ms});
//   auto& [a, b, c, la, lb, lc] = race;
template <class L>
struct Race {
  Race(DirectWorld& world, const LockOptions& options)
      : a(world, "client-a"),
        b(world, "client-b"),
        c(world, "client-c"),
        la(a, "k", options),
        lb(b, "k", options),
        lc(c, "k", options) {}

  DirectEnv a, b, c;
  L la, lb, lc;
};

// Makes every DEL of an unlock latch that `env` sends fail as if lost, so
// the latch stays for its TTL and a test can read what the unlock stored
// there (Env::call_detached drops the error, as Redisson's unawaited DEL).
inline void lose_unlock_latch_dels(DirectEnv& env) {
  env.before_call = [](const Argv& argv) {
    if (argv.size() == 2 && argv[0] == "DEL" && argv[1].starts_with("redisson_unlock_latch:")) {
      throw TimeoutError("DEL of the unlock latch lost (test)");
    }
  };
}

// The unlock latches left on `world` (KEYS redisson_unlock_latch:*).
inline size_t unlock_latches(DirectWorld& world) {
  return run(world, {"KEYS", "redisson_unlock_latch:*"}).elements().size();
}

// Why `result` failed; nullopt when it succeeded. For expectations such as
//   EXPECT_EQ(failure_of(lock.release()), UnlockError::Reason::kNotHeld);
inline std::optional<UnlockError::Reason> failure_of(const UnlockResult& result) {
  if (result) return std::nullopt;
  return result.error().reason;
}

// For a reentrant lock held three times by the caller: releases the holds
// one at a time, checking the hold count and lock state after the first and
// the last, and that one release more answers kNotHeld.
template <class L>
void expect_three_holds_unwind(L& lock) {
  lock.unlock();
  EXPECT_EQ(lock.hold_count(), 2);
  EXPECT_TRUE(lock.is_locked());
  lock.unlock();
  lock.unlock();
  EXPECT_EQ(lock.hold_count(), 0);
  EXPECT_FALSE(lock.is_locked());
  EXPECT_FALSE(lock.is_held_by_current_thread());
  EXPECT_EQ(failure_of(lock.release()), UnlockError::Reason::kNotHeld) << "one unlock too many";
}

}  // namespace redsim::lock::testing_util
