// FencedResource: the storage service of Kleppmann's "How to do distributed
// locking" (2016), which checks fencing tokens. It remembers the highest
// token it has accepted and rejects a write whose token is lower; a write
// with a token equal to or above it is accepted (the current holder may
// write more than once). Each verdict is recorded in the writer's history
// (kFencedWrite: resource, token, accepted/rejected), which check_fencing
// reads.
//
//   world::FencedResource storage("storage");     // shared by the processes
//   w.spawn_process("c", [&](world::ProcessEnv& env) {
//     lock::FencedLock lock(env, "orders:42", {.default_lease = 100ms});
//     const int64_t token = lock.lock_and_get_token();
//     env.sleep_for(work);                        // may be paused past the lease
//     if (!storage.write(env, token)) ...         // stale: rejected
//   });
//   auto v = world::check_fencing(w.history());
//
// A write takes no virtual time and cannot fail otherwise: the resource sits
// outside the simulated network, so the only thing under test is the token
// order the lock hands out. Not thread-safe; the world runs one fiber at a time.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "sim/world/world.h"

namespace redsim::world {

class FencedResource {
 public:
  explicit FencedResource(std::string name) : name_(std::move(name)) {}

  // Accepts the write (true) unless `token` is below the highest accepted so
  // far (false). Records the verdict through `env`.
  bool write(ProcessEnv& env, int64_t token) {
    const bool accepted = token >= max_token_;
    if (accepted) max_token_ = token;
    env.record_fenced_write(name_, token, accepted);
    return accepted;
  }

  const std::string& name() const { return name_; }
  // The highest token accepted so far; 0 before the first write.
  int64_t max_token() const { return max_token_; }

 private:
  std::string name_;
  int64_t max_token_ = 0;
};

}  // namespace redsim::world
