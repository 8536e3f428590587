// Pieces the zoo's locks share, each what a user's lock would write itself:
// a token, a polling loop, the compare-and-delete and compare-and-pexpire
// scripts of the Redis SET page, and the parts of a plain SET NX PX lock.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "lock/env.h"
#include "lock/errors.h"
#include "props/zoo/zoo.h"

namespace redsim::zoo {

using namespace std::chrono_literals;
using Micros = std::chrono::microseconds;
using Millis = std::chrono::milliseconds;

// How often a waiting lock polls: well below lease/10 for the zoo's leases.
inline constexpr Millis kPoll{2};

// The Redis SET page's release script and its extend twin.
inline constexpr const char* kCompareAndDelete =
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) "
    "else return 0 end";
inline constexpr const char* kCompareAndPexpire =
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], "
    "ARGV[2]) else return 0 end";

// A random token: 16 hex digits from the process's random stream.
inline std::string random_token(lock::Env& env) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(env.random_u64()));
  return text;
}

inline std::string ms(Millis d) { return std::to_string(d.count()); }

// Calls `try_once` until it returns true (true) or `wait` has passed
// (false), sleeping kPoll between tries.
template <class F>
bool poll(lock::Env& env, Micros wait, F&& try_once) {
  const lock::EnvTime deadline = env.now() + wait;
  for (;;) {
    if (try_once()) return true;
    if (env.now() >= deadline) return false;
    env.sleep_for(kPoll);
  }
}

// The parts of the classic single-instance lock: SET key token NX PX lease,
// released by the compare-and-delete script. Buggy locks replace a part.
class SetNxLock {
 public:
  SetNxLock(lock::Env& env, std::string key, Millis lease)
      : env_(env), key_(std::move(key)), lease_(lease) {}
  SetNxLock(const SetNxLock&) = delete;
  SetNxLock& operator=(const SetNxLock&) = delete;

  const std::string& token() const { return token_; }

 protected:
  // One SET NX PX with `token`: true when it set the key.
  bool set_nx(const std::string& token, size_t server = 0) {
    return env_.connection(server).call({"SET", key_, token, "NX", "PX", ms(lease_)}).is_status();
  }
  // The compare-and-delete script: true when it deleted the key.
  bool compare_and_delete(const std::string& token, size_t server = 0) {
    const auto r = env_.connection(server).call({"EVAL", kCompareAndDelete, "1", key_, token});
    return r.is_integer() && r.integer() == 1;
  }
  // compare_and_delete(token_) on every server (a Redlock's release): false
  // when a server could not be reached (its key may live on).
  bool release_everywhere() {
    bool all = true;
    for (size_t i = 0; i < env_.server_count(); ++i) {
      try {
        compare_and_delete(token_, i);
      } catch (const lock::ConnectionError&) {
        all = false;
      }
    }
    return all;
  }

  lock::Env& env_;
  std::string key_;
  Millis lease_;
  std::string token_;
};

// A random token, polled SET NX PX, released by compare-and-delete: the
// correct core that most of the zoo's locks extend or break one part of.
// Source: the Redis SET command page's pattern.
class PollingSetNxLock : public SetNxLock {
 public:
  using SetNxLock::SetNxLock;
  bool try_lock_for(Micros wait) {
    token_ = random_token(env_);
    return poll(env_, wait, [this] { return set_nx(token_); });
  }
  bool unlock() { return compare_and_delete(token_); }
};

}  // namespace redsim::zoo
