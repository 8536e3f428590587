// Test harness: the same lock test body in both worlds. A LockWorld runs N
// client processes concurrently, each with its own lock::Env, and waits for
// them all:
//   SimLockWorld   world::World, fibers, virtual time, 1 ms one-way latency;
//   RealLockWorld  one std::thread and one HiredisEnv per client, against the
//                  test binary's redis-server (FLUSHALLed per world).
// Bodies coordinate through Redis itself (signal()/await()), which works the
// same in virtual and real time. An exception escaping a body fails the test.
//
//   TYPED_TEST(LockSuite, X) {
//     TypeParam world;
//     world.run({[](lock::Env& env) { ... }, [](lock::Env& env) { ... }});
//   }
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "lock/env.h"
#include "lock/hiredis/hiredis_env.h"
#include "lock/hiredis/real_redis_test_util.h"
#include "sim/world/world.h"

namespace redsim::lock::testing_util {

using Body = std::function<void(Env&)>;

// Marks `name` reached (SET name 1).
inline void signal(Env& env, const std::string& name) { env.connection().call({"SET", name, "1"}); }

// Waits until signal(name) happened (polls GET every 2 ms on the Env's
// clock); false after `limit`.
inline bool await(Env& env, const std::string& name,
                  std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  const auto deadline = env.now() + limit;
  while (env.now() < deadline) {
    if (env.connection().call({"GET", name}).is_bulk()) return true;
    env.sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

class SimLockWorld {
 public:
  static constexpr const char* kName = "sim";

  SimLockWorld() {
    world::WorldOptions o;
    o.seed = 1;
    o.faults.latency_min = world::Micros{1000};
    o.faults.latency_max = world::Micros{1000};
    world_ = std::make_unique<world::World>(o);
  }

  void run(std::vector<Body> clients) {
    for (size_t i = 0; i < clients.size(); ++i) {
      world_->spawn_process("client-" + std::to_string(i),
                            [body = clients[i]](world::ProcessEnv& env) { body(env); });
    }
    world_->run();
    for (const auto& e : world_->history().events()) {
      if (e.kind == world::EventKind::kTaskError) {
        ADD_FAILURE() << "client c" << e.process << " ended by an exception: " << e.text;
      }
    }
  }

  Reply redis(const Argv& argv) {
    auto session = world_->server().connect();
    return world_->server().execute(*session, argv);
  }

 private:
  std::unique_ptr<world::World> world_;
};

class RealLockWorld {
 public:
  static constexpr const char* kName = "real";

  RealLockWorld() : admin_(shared_redis_options()) { admin_.connection().call({"FLUSHALL"}); }

  void run(std::vector<Body> clients) {
    std::vector<std::thread> threads;
    for (auto& body : clients) {
      threads.emplace_back([body] {
        try {
          HiredisEnv env(shared_redis_options());
          body(env);
        } catch (const std::exception& e) {
          ADD_FAILURE() << "client thread ended by an exception: " << e.what();
        }
      });
    }
    for (auto& t : threads) t.join();
  }

  Reply redis(const Argv& argv) { return admin_.connection().call(argv); }

 private:
  HiredisEnv admin_;
};

}  // namespace redsim::lock::testing_util
