// Keyspace notifications in the simulated world: the "expired" event of a
// key the world's active expiry (or a lazy lookup) deletes reaches a
// subscribed process like any PUBLISH (Redis 7.0 src/expire.c and db.c:
// deleteExpiredKeyAndPropagate notifies "expired", class x).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/world/world.h"

namespace redsim::world {
namespace {

using resp::Reply;
using std::chrono::milliseconds;

TEST(KeyspaceEvents, ActiveExpiryInTheWorldPublishesExpired) {
  World w;
  std::vector<std::string> expired;
  int64_t event_at_us = -1;
  w.spawn_process("p", [&](ProcessEnv& env) {
    EXPECT_EQ(env.connection().call({"CONFIG", "SET", "notify-keyspace-events", "Ex"}),
              Reply::ok());
    auto ev = env.make_event();
    env.subscribe("__keyevent@0__:expired", [&](const std::string& key) {
      expired.push_back(key);
      event_at_us = env.now().time_since_epoch().count();
      ev->signal();
    });
    EXPECT_EQ(env.connection().call({"SET", "lease", "v", "PX", "50"}), Reply::ok());
    // Nobody reads the key: only the active cycle can delete it.
    EXPECT_TRUE(ev->wait_for(milliseconds(1000)));
  });
  w.run();
  EXPECT_EQ(expired, std::vector<std::string>{"lease"});
  EXPECT_GT(event_at_us, 50'000);
}

TEST(KeyspaceEvents, LazyExpiryInTheWorldPublishesExpired) {
  WorldOptions o;
  World w(o);
  std::vector<std::string> expired;
  w.spawn_process("p", [&](ProcessEnv& env) {
    env.connection().call({"CONFIG", "SET", "notify-keyspace-events", "Ex"});
    env.connection().call({"DEBUG", "SET-ACTIVE-EXPIRE", "0"});
    auto ev = env.make_event();
    env.subscribe("__keyevent@0__:expired", [&](const std::string& key) {
      expired.push_back(key);
      ev->signal();
    });
    env.connection().call({"SET", "k", "v", "PX", "5"});
    env.sleep_for(milliseconds(10));
    EXPECT_EQ(env.connection().call({"GET", "k"}), Reply::nil());
    EXPECT_TRUE(ev->wait_for(milliseconds(100)));
  });
  w.run();
  EXPECT_EQ(expired, std::vector<std::string>{"k"});
}

}  // namespace
}  // namespace redsim::world
