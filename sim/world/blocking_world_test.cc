// Blocking commands in the simulated world: a blocked client's call stays
// pending on virtual time until another client's write serves it, or its
// timeout passes on the server clock (sim/blocking.h).
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "lock/errors.h"
#include "sim/world/world.h"

namespace redsim::world {
namespace {

using resp::Reply;
using std::chrono::milliseconds;

TEST(BlockingWorld, BlockedReplyArrivesAfterAnotherClientsPush) {
  World w;
  Reply popped;
  int64_t popped_at_us = -1;
  int64_t pushed_at_us = -1;
  w.spawn_process("consumer", [&](ProcessEnv& env) {
    popped = env.connection().call({"BLPOP", "queue", "0"});
    popped_at_us = env.now().time_since_epoch().count();
  });
  w.spawn_process(
      "producer",
      [&](ProcessEnv& env) {
        env.sleep_for(milliseconds(250));
        pushed_at_us = env.now().time_since_epoch().count();
        env.connection().call({"RPUSH", "queue", "job"});
      },
      milliseconds(0));
  w.run();
  EXPECT_EQ(popped, Reply::array({Reply::bulk("queue"), Reply::bulk("job")}));
  ASSERT_GE(pushed_at_us, 0);
  // Waited on virtual time for the push (the default latency is 0).
  EXPECT_GE(popped_at_us, pushed_at_us);
  EXPECT_GE(popped_at_us, 250'000);
  // The history holds the BLPOP with its reply, after the RPUSH.
  std::vector<std::string> order;
  for (const auto& e : w.history().events()) {
    if (e.kind == EventKind::kCommand) order.push_back(e.argv.at(0));
  }
  EXPECT_EQ(order, (std::vector<std::string>{"RPUSH", "BLPOP"}));
}

TEST(BlockingWorld, TimeoutOnTheVirtualServerClock) {
  World w;
  Reply popped = Reply::integer(0);
  int64_t waited_us = 0;
  w.spawn_process("consumer", [&](ProcessEnv& env) {
    const auto t0 = env.now();
    popped = env.connection().call({"BZPOPMIN", "z", "0.5"});
    waited_us = (env.now() - t0).count();
  });
  w.run();
  EXPECT_TRUE(popped.is_nil());  // a null array
  EXPECT_GE(waited_us, 500'000);
  EXPECT_LT(waited_us, 600'000);
}

TEST(BlockingWorld, ClientTimeoutGivesUpAndTheServerForgetsTheBlock) {
  World w;
  bool timed_out = false;
  Reply later;
  w.spawn_process("consumer", [&](ProcessEnv& env) {
    try {
      env.connection().call({"BLPOP", "queue", "0"}, milliseconds(100));
    } catch (const lock::TimeoutError&) {
      timed_out = true;
    }
  });
  w.spawn_process("producer", [&](ProcessEnv& env) {
    env.sleep_for(milliseconds(300));
    env.connection().call({"RPUSH", "queue", "job"});
    later = env.connection().call({"LLEN", "queue"});
  });
  w.run();
  EXPECT_TRUE(timed_out);
  EXPECT_EQ(later, Reply::integer(1));  // nobody popped it: the block went with the connection
}

}  // namespace
}  // namespace redsim::world
