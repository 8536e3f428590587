// ReadWriteLock's scripts on a real redis-server (7.0, Lua 5.1) against the
// fake: the same random sequence of read/write acquires, unlocks (with and
// without the unlock latch), renewals, force unlocks and is-locked checks of
// three owners must give the same replies and leave the same hash, timeout
// keys and expiries on both. Leases are long (100..1000 s) and varied, so
// the longest-live-hold arithmetic is exercised and nothing expires. The
// fake's clock follows the real server's TIME before each step, so PTTLs
// differ only by the few ms one step takes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "lock/read_write_lock.h"
#include "lock/script.h"
#include "sim/world/direct_env.h"
#include "sim/world/prng.h"
#include "tools/testing/blocking_redis_env.h"

namespace redsim::lock {
namespace {

using redsim::testing::RedisServerProcess;
using testing::SocketEnv;

bool close_enough(const Reply& a, const Reply& b, int64_t slack) {
  if (a.is_integer() && b.is_integer()) return std::llabs(a.integer() - b.integer()) <= slack;
  if (a.is_array() && b.is_array()) {
    if (a.elements().size() != b.elements().size()) return false;
    for (size_t i = 0; i < a.elements().size(); ++i) {
      if (!close_enough(a.elements()[i], b.elements()[i], slack)) return false;
    }
    return true;
  }
  return a == b;
}

// The timeout keys of "k" in name order, each with its PTTL: what both
// servers must agree on.
std::vector<std::pair<std::string, Reply>> timeout_keys(Connection& c) {
  std::vector<std::pair<std::string, Reply>> out;
  const Reply names = c.call({"KEYS", "{k}:*"});
  for (const Reply& name : names.elements()) {
    out.emplace_back(name.str(), c.call({"PTTL", name.str()}));
  }
  std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  return out;
}

TEST(RealRedis, ReadWriteLockScriptsMatchTheFake) {
  RedisServerProcess server;
  SocketEnv real({server.port()}, "client-r");
  world::DirectWorld fake_world;
  world::DirectEnv fake(fake_world, "client-f");
  const std::vector<std::string> owners = {"o:1", "o:2", "o:3"};
  const std::string channel = ReadWriteLock::channel_name("k");
  world::Prng rng(2026);
  int read_holds_seen = 0, shortened = 0;
  auto server_us = [&real] {
    const Reply t = real.connection().call({"TIME"});
    return std::stoll(t.elements()[0].str()) * 1000000 + std::stoll(t.elements()[1].str());
  };
  const int64_t start_us = server_us();
  int64_t followed_us = 0;
  for (int step = 0; step < 400; ++step) {
    const int64_t elapsed_us = server_us() - start_us;
    fake_world.clock.advance_us(elapsed_us - followed_us);
    followed_us = elapsed_us;
    const std::string owner = owners[rng.uniform(0, 2)];
    const std::string lease = std::to_string(rng.uniform(100, 1000) * 1000);
    const std::string prefix = "{k}:" + owner + ":rwlock_timeout";
    const std::string latch = "redisson_unlock_latch:{k}:" + std::to_string(rng.uniform(0, 5));
    const std::string latch_ttl = rng.uniform(0, 1) == 0 ? "0" : "10000000";
    const Script* script = nullptr;
    Argv keys, args;
    switch (rng.uniform(0, 11)) {
      case 0:
      case 1:
      case 2:
        script = &Script::get("rw_read_acquire");
        keys = {"k", prefix};
        args = {lease, owner, owner + ":write"};
        break;
      case 3:
      case 4:
        script = &Script::get("rw_write_acquire");
        keys = {"k"};
        args = {lease, owner + ":write", rng.uniform(0, 3) == 0 ? "1" : "0"};
        break;
      case 5:
      case 6:
        script = &Script::get("rw_read_unlock");
        keys = {"k", channel, prefix, "{k}", latch};
        args = {"0", owner, latch_ttl};
        break;
      case 7:
        script = &Script::get("rw_write_unlock");
        keys = {"k", channel, latch};
        args = {"1", lease, owner + ":write", latch_ttl};
        break;
      case 8:
        script = &Script::get("rw_read_renew");
        keys = {"k", "{k}"};
        args = {lease, owner};
        break;
      case 9:
        script = &Script::get("rw_read_is_locked");
        keys = {"k"};
        break;
      case 10:
        script = &Script::get("reentrant_renew");
        keys = {"k"};
        args = {lease, owner + ":write"};
        break;
      default:
        script = &Script::get("rw_force_unlock");
        keys = {"k", channel};
        args = rng.uniform(0, 1) == 0 ? Argv{"0", "read"} : Argv{"1", "write"};
        break;
    }
    const Reply pttl_before = real.connection().call({"PTTL", "k"});
    const Reply want = run_script(real.connection(), *script, keys, args);
    const Reply got = run_script(fake.connection(), *script, keys, args);
    ASSERT_TRUE(close_enough(want, got, 200))
        << "step " << step << ": " << script->name() << " " << owner
        << "\nreal: " << want.debug_string() << "\nfake: " << got.debug_string();
    const Reply pttl_after = real.connection().call({"PTTL", "k"});
    shortened += pttl_after.integer() > 0 && pttl_after.integer() + 1000 < pttl_before.integer();
    for (const Argv& read : std::vector<Argv>{{"HGETALL", "k"}, {"PTTL", "k"}}) {
      const Reply r = real.connection().call(read);
      const Reply f = fake.connection().call(read);
      ASSERT_TRUE(close_enough(r, f, 200))
          << "step " << step << ": " << read[0] << "\nreal: " << r.debug_string()
          << "\nfake: " << f.debug_string();
    }
    const auto r_keys = timeout_keys(real.connection());
    const auto f_keys = timeout_keys(fake.connection());
    ASSERT_EQ(r_keys.size(), f_keys.size()) << "step " << step;
    for (size_t i = 0; i < r_keys.size(); ++i) {
      ASSERT_EQ(r_keys[i].first, f_keys[i].first) << "step " << step;
      ASSERT_TRUE(close_enough(r_keys[i].second, f_keys[i].second, 200))
          << "step " << step << ": " << script->name() << " " << owner << " " << r_keys[i].first
          << "\nreal: " << r_keys[i].second.debug_string()
          << "\nfake: " << f_keys[i].second.debug_string();
    }
    read_holds_seen += r_keys.size() >= 2;
  }
  EXPECT_GT(read_holds_seen, 20) << "the sequence must build several read holds";
  EXPECT_GT(shortened, 3) << "some read releases must shorten the hash's expiry";
}

}  // namespace
}  // namespace redsim::lock
