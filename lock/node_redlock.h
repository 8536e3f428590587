// NodeRedlock: node-redlock v5's `Redlock` (github mike-marcacci/node-redlock,
// src/index.ts, class Redlock; npm "redlock" 5.0.0-beta.2 and main) over the
// Env's servers 0..N-1, N = Env::server_count(), so a test can run the lock
// a Node.js service uses. One lock object is one resource, `key`, and holds
// at most one acquisition (node-redlock's `Lock`: value, expiration).
//
// One operation (Redlock._execute / _attemptOperation), for acquire, extend
// and release alike: start = Env::now(); the script runs on every server at
// once (one Env::spawn task per server, EVALSHA then EVAL on NOSCRIPT); a
// server votes "for" when the script answers the number of resources (1),
// "against" on any other answer, error reply or ConnectionError. The
// operation is decided by the first side to reach the quorum N/2 + 1; the
// other calls finish in the background. An operation voted against is tried
// again after max(0, retry_delay + floor((r*2-1) * retry_jitter)), r uniform in
// [0, 1), until retry_count retries were made (-1: forever); then it fails
// (ExecutionError "The operation was unable to achieve a quorum during its
// retry window.").
//
// acquire: scripts/node_redlock_acquire.lua (ACQUIRE_SCRIPT), value = 32 hex
//   digits (randomBytes(16)); taken when voted for, with no validity check:
//   expiration = start + duration - drift, drift = round(drift_factor *
//   duration) + 2 ms ("Redis expires precision, which is 1 ms"). `start` is
//   the start of the attempt that won (main, node-redlock#274 fixing #169);
//   NodeRedlockOptions::expiration_from_first_attempt measures it from the
//   first attempt, as the published 5.0.0-beta.2 does. A failed acquire
//   releases on every server once (retryCount 0), errors ignored.
// extend(duration): refused without a server call when expiration < now
//   ("Cannot extend an already-expired lock."); else
//   scripts/node_redlock_extend.lua (EXTEND_SCRIPT: the key must still hold the
//   value; SET value PX duration), with retries; voted for: a new expiration
//   from that attempt's start (#276). Voted against: the old expiration stays.
// release: expiration = 0 at once, then scripts/node_redlock_release.lua
//   (RELEASE_SCRIPT) with retries. A server where the key already expired
//   answers 0 and votes against, so releasing an expired lock fails the
//   quorum after every retry (node-redlock#65, #168; with retry_count -1 it
//   never returns, #313). NodeRedlockOptions::release_counts_missing uses
//   scripts/node_redlock_release_missing.lua instead (PR #362, open: a gone
//   key counts as released).
// run_using(duration, routine) (Redlock.using): acquire, then a background
//   task extends by `duration` when expiration - now reaches
//   automatic_extension_threshold; a failed extension is tried again at once
//   while expiration > now, else the AbortSignal is aborted with its error and
//   extension stops. The routine runs, then the timer stops, an extension in
//   flight is awaited and the lock released.
//
//   lock::NodeRedlock lock(env, "orders:42", {.duration = std::chrono::seconds(5)});
//   lock.run_using(std::chrono::seconds(5), [&](const lock::AbortSignal& signal) {
//     ...; if (signal.aborted()) return;   // exclusivity no longer guaranteed
//   });
//
// Mapping to DistributedLock: try_lock() is one attempt (retry_count 0);
// try_lock_for(wait) retries per retry_count but not past `wait`; lock()
// retries forever; each acquires for options().duration. release() answers
// kNotHeld when this object holds no acquisition or the release was voted
// against; the acquisition is forgotten either way (its keys expire).
// Not reentrant; one object per task, as the string kinds.
//
// Cost of the parallel calls: every attempt on more than one server spawns
// one task per server. In the simulation that is a fiber; with
// lock::HiredisEnv it is a std::thread with its own connections, joined only
// at HiredisEnv::close(), so a long-running real client pays a thread and a
// connection per server per attempt (node-redlock pays one promise each).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "lock/lock.h"

namespace redsim::lock {

struct NodeRedlockOptions {
  // The duration (ms, PX) of lock()/try_lock()/try_lock_for(); > 0.
  std::chrono::milliseconds duration{10000};
  double drift_factor = 0.01;                           // settings.driftFactor
  int retry_count = 10;                                 // settings.retryCount; -1 = forever
  Micros retry_delay{std::chrono::milliseconds(200)};   // settings.retryDelay
  Micros retry_jitter{std::chrono::milliseconds(100)};  // settings.retryJitter
  // settings.automaticExtensionThreshold, for run_using.
  Micros automatic_extension_threshold{std::chrono::milliseconds(500)};
  // true: 5.0.0-beta.2 as published: an acquisition's expiration counts from
  // its first attempt, so retries eat its validity (node-redlock#169, #283,
  // #296; fixed on main by #274, not released).
  bool expiration_from_first_attempt = false;
  // true: a key already gone counts as released (PR #362, not merged).
  bool release_counts_missing = false;
};

// Redlock.using's AbortSignal: aborted once an automatic extension failed
// and the lock's expiration passed; error() says why.
class AbortSignal {
 public:
  bool aborted() const;
  std::string error() const;

 private:
  friend class NodeRedlock;
  struct State;
  std::shared_ptr<State> state_;
};

class NodeRedlock final : public DistributedLock {
 public:
  // Throws std::invalid_argument for a duration <= 0, retry_count < -1, or a
  // negative delay or jitter.
  NodeRedlock(Env& env, std::string key, NodeRedlockOptions options = {});
  NodeRedlock(NodeRedlock&&) = default;

  // Redlock.acquire([key], duration) with retry_count retries (-1: forever);
  // true when taken. Throws std::invalid_argument for a duration <= 0.
  bool acquire(std::chrono::milliseconds duration, int retry_count);
  // Redlock.extend(lock, duration); kNotHeld "ExecutionError: ..." when
  // not held, already expired, or voted against.
  UnlockResult extend(std::chrono::milliseconds duration);
  // Redlock.using([key], duration, routine). False when the acquire failed
  // (the routine did not run); else true, with the release's outcome in
  // last_unlock(). Throws std::invalid_argument when
  // automatic_extension_threshold > duration - 100 ms. An exception from the
  // routine passes after the clean-up.
  bool run_using(std::chrono::milliseconds duration,
                 const std::function<void(const AbortSignal&)>& routine);

  void lock() override;
  bool try_lock() override;

  LockKind kind() const override { return LockKind::kNodeRedlock; }
  const std::string& key() const override { return key_; }
  std::string owner() override;               // the value; "" when not held
  bool is_locked() override;                  // a quorum has the key
  bool is_held_by_current_thread() override;  // a quorum has our value
  RemainingLease remaining_lease() override;  // the quorum-th largest PTTL
  // The acquisition's expiration on the client clock (nullopt: none; after
  // release it is the epoch, as node-redlock's `expiration = 0`).
  std::optional<EnvTime> expiration();
  // round(drift_factor * duration) + 2 ms.
  std::chrono::milliseconds drift(std::chrono::milliseconds duration) const;
  size_t quorum() const { return env_->server_count() / 2 + 1; }
  const NodeRedlockOptions& options() const { return options_; }

 protected:
  bool try_lock_wait(Micros wait) override;
  UnlockResult release_hold() override;

 private:
  struct Outcome {
    bool voted_for = false;
    EnvTime start{};        // of the deciding attempt
    EnvTime first_start{};  // of the first attempt
  };
  // Redlock._execute: attempts until voted for, retry_count retries (-1:
  // forever) or, when given, `deadline` passed.
  Outcome execute(const char* script, const Argv& args, int retry_count,
                  std::optional<EnvTime> deadline);
  // Redlock._attemptOperation: true when voted for.
  bool attempt(const char* script, const Argv& args);
  bool acquire_until(std::chrono::milliseconds duration, int retry_count,
                     std::optional<EnvTime> deadline);
  std::string new_value();

  Env* env_;  // a pointer, so the object can move
  std::string key_;
  NodeRedlockOptions options_;
  detail::FreshMutex mu_;  // guards value_ and expiration_ (run_using's extender)
  std::string value_;      // empty when not held
  EnvTime expiration_{};
};

}  // namespace redsim::lock
