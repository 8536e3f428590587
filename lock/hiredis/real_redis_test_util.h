// Test helper: one redis-server per test binary, started on first use and
// stopped at exit (also when a test fails; PR_SET_PDEATHSIG covers a crash).
#pragma once

#include "lock/hiredis/hiredis_env.h"
#include "tools/testing/redis_server_process.h"

namespace redsim::lock::testing_util {

inline redsim::testing::RedisServerProcess& shared_redis() {
  static redsim::testing::RedisServerProcess server;
  return server;
}

inline HiredisOptions shared_redis_options() {
  HiredisOptions o;
  o.host = shared_redis().host();
  o.port = shared_redis().port();
  return o;
}

// FLUSHALL on the shared server (the start of every test that uses it).
inline void flush_shared_redis() {
  HiredisEnv env(shared_redis_options());
  env.connection().call({"FLUSHALL"});
}

}  // namespace redsim::lock::testing_util
