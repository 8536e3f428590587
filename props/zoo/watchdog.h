// What the zoo's watchdog locks share: the state a watchdog task and its
// lock object both see, and the body of a section that relies on a
// watchdog (it works longer than the lease).
#pragma once

#include <cstdint>
#include <memory>

#include "props/zoo/user_lock.h"

namespace redsim::zoo {

// Bumped by every acquire and release: a watchdog whose generation is gone
// belongs to a lock that was released.
struct WatchState {
  uint64_t generation = 0;
};

// The section of a watchdog lock: five times the plan's work, up to two
// leases: only a watchdog that keeps renewing keeps it inside its lease.
struct WorkPastTheLease {
  template <class L>
  void operator()(harness::Section& s, L&) const {
    for (int i = 0; i < 5; ++i) s.do_work();
  }
};

// A SET NX PX lock that starts `Watchdog` (a callable run as
// watchdog(env, key, token, lease, state, generation)) on each acquisition
// and stops it (by generation) on release, which is compare-and-delete.
template <class Watchdog>
class WatchdogLock : public SetNxLock {
 public:
  using SetNxLock::SetNxLock;
  bool try_lock_for(Micros wait) {
    token_ = random_token(env_);
    if (!poll(env_, wait, [this] { return set_nx(token_); })) return false;
    const uint64_t generation = ++state_->generation;
    env_.spawn("watchdog",
               [env = &env_, key = key_, token = token_, lease = lease_, state = state_,
                generation] { Watchdog{}(*env, key, token, lease, *state, generation); });
    return true;
  }
  bool unlock() {
    ++state_->generation;
    return compare_and_delete(token_);
  }

 private:
  std::shared_ptr<WatchState> state_ = std::make_shared<WatchState>();
};

}  // namespace redsim::zoo
