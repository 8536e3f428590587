// FairLock's scripts on a real redis-server (7.0, Lua 5.1) against the fake:
// the same random sequence of acquire / try / unlock / cancel / force calls
// of four owners, with the scripts' clock (ARGV "now") moved by the test,
// must give the same replies and leave the same queue, reservations and
// hash on both. Leases are long (1000 s), so nothing expires on the server
// clocks; PTTL-based numbers may differ by the few ms the real run takes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "base/prng.h"
#include "lock/fair_lock.h"
#include "lock/script.h"
#include "sim/world/direct_env.h"
#include "tools/testing/blocking_redis_env.h"

namespace redsim::lock {
namespace {

using redsim::testing::RedisServerProcess;
using testing::SocketEnv;

// Equal, except that integers (and numeric bulk strings, the scores) may
// differ by up to `slack`.
bool close_enough(const Reply& a, const Reply& b, int64_t slack) {
  if (a.is_integer() && b.is_integer()) return std::llabs(a.integer() - b.integer()) <= slack;
  if (a.is_bulk() && b.is_bulk() && a.str() != b.str()) {
    char* end_a = nullptr;
    char* end_b = nullptr;
    const long long x = std::strtoll(a.str().c_str(), &end_a, 10);
    const long long y = std::strtoll(b.str().c_str(), &end_b, 10);
    return *end_a == '\0' && *end_b == '\0' && !a.str().empty() && !b.str().empty() &&
           std::llabs(x - y) <= slack;
  }
  if (a.is_array() && b.is_array()) {
    if (a.elements().size() != b.elements().size()) return false;
    for (size_t i = 0; i < a.elements().size(); ++i) {
      if (!close_enough(a.elements()[i], b.elements()[i], slack)) return false;
    }
    return true;
  }
  return a == b;
}

TEST(RealRedis, FairLockScriptsMatchTheFake) {
  RedisServerProcess server;
  SocketEnv real({server.port()}, "client-r");
  world::DirectWorld fake_world;
  world::DirectEnv fake(fake_world, "client-f");
  const std::vector<std::string> owners = {"o:1", "o:2", "o:3", "o:4"};
  const std::string queue = "redisson_lock_queue:{k}", timeouts = "redisson_lock_timeout:{k}",
                    prefix = "redisson_lock__channel:{k}";
  base::Prng rng(2026);
  int64_t now_ms = 1000;
  int queued_seen = 0;
  for (int step = 0; step < 400; ++step) {
    now_ms += static_cast<int64_t>(rng.uniform(0, 1500));
    const std::string owner = owners[rng.uniform(0, 3)];
    const std::string now = std::to_string(now_ms);
    const Script* script = nullptr;
    Argv keys, args;
    switch (rng.uniform(0, 9)) {
      case 0:
      case 1:
      case 2:
      case 3:
        script = &Script::get("fair_acquire");
        keys = {"k", queue, timeouts};
        args = {"1000000", owner, "2000", now, "1"};
        break;
      case 4:
        script = &Script::get("fair_acquire");
        keys = {"k", queue, timeouts};
        args = {"1000000", owner, "2000", now, "0"};
        break;
      case 5:
      case 6:
      case 7:
        script = &Script::get("fair_unlock");
        keys = {"k", queue, timeouts, prefix};
        args = {"0", "1000000", owner, now};
        break;
      case 8:
        script = &Script::get("fair_cancel");
        keys = {queue, timeouts};
        args = {owner, "2000"};
        break;
      default:
        script = &Script::get("fair_force_unlock");
        keys = {"k", queue, timeouts, prefix};
        args = {"0", now};
        break;
    }
    const Reply want = run_script(real.connection(), *script, keys, args);
    const Reply got = run_script(fake.connection(), *script, keys, args);
    ASSERT_TRUE(close_enough(want, got, 200))
        << "step " << step << ": " << script->name() << " " << owner << " now=" << now
        << "\nreal: " << want.debug_string() << "\nfake: " << got.debug_string();
    for (const Argv& read : std::vector<Argv>{{"LRANGE", queue, "0", "-1"},
                                              {"ZRANGE", timeouts, "0", "-1", "WITHSCORES"},
                                              {"HGETALL", "k"}}) {
      const Reply r = real.connection().call(read);
      const Reply f = fake.connection().call(read);
      ASSERT_TRUE(close_enough(r, f, 200))
          << "step " << step << ": " << read[0] << "\nreal: " << r.debug_string()
          << "\nfake: " << f.debug_string();
      if (read[0] == "LRANGE") queued_seen += r.elements().size() >= 2;
    }
  }
  EXPECT_GT(queued_seen, 20) << "the sequence must build queues";
}

}  // namespace
}  // namespace redsim::lock
