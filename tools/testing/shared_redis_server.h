// SharedRedisServer: a GoogleTest Environment that holds one real
// redis-server (RedisServerProcess, tools/testing/redis_server_process.h)
// for a whole test binary: started in the environment's SetUp (before the
// first test, on the main thread, so PR_SET_PDEATHSIG keeps it tied to the
// process) and stopped in its TearDown. Including this header registers the
// environment, once per binary however many of its files include it (an
// inline variable), so they all share the one server. Internal to the
// build, header only; a binary that includes it links GTest and
// redsim_redis_server_process.
//
//   #include "tools/testing/shared_redis_server.h"
//   // in a test:
//   const auto& redis = redsim::testing::SharedRedisServer::server();
//   Endpoint ep{redis.host(), redis.port()};
//
// Errors: SetUp lets RedisServerError through (missing binary, no PING), as
// a test environment that fails to start; server() is only valid between
// SetUp and TearDown, that is inside tests.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "tools/testing/redis_server_process.h"

namespace redsim::testing {

class SharedRedisServer final : public ::testing::Environment {
 public:
  void SetUp() override { server_ = std::make_unique<RedisServerProcess>(); }
  void TearDown() override { server_.reset(); }

  // The binary's server; valid only while the environment is set up.
  static RedisServerProcess& server() { return *server_; }

 private:
  static inline std::unique_ptr<RedisServerProcess> server_;
};

// The registration (gtest owns the environment).
inline ::testing::Environment* const kSharedRedisServerEnvironment =
    ::testing::AddGlobalTestEnvironment(new SharedRedisServer);

}  // namespace redsim::testing
