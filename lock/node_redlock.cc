#include "lock/node_redlock.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "lock/errors.h"
#include "lock/quorum_reads.h"
#include "lock/script.h"

namespace redsim::lock {

namespace {

// How long a wait on an Event lasts before the state is looked at again; the
// state is re-checked on every signal anyway.
constexpr Micros kLongWait = std::chrono::hours(1);

const char* kQuorumError =
    "ExecutionError: The operation was unable to achieve a quorum during its retry window.";

// The votes of one attempt, shared with the per-server tasks, which may
// outlive the attempt (and the lock object).
struct Tally {
  std::mutex mu;
  size_t votes_for = 0;
  size_t votes_against = 0;
  std::unique_ptr<Event> changed;
};

}  // namespace

struct AbortSignal::State {
  std::mutex mu;
  bool aborted = false;
  std::string error;
};

bool AbortSignal::aborted() const {
  std::lock_guard<std::mutex> guard(state_->mu);
  return state_->aborted;
}

std::string AbortSignal::error() const {
  std::lock_guard<std::mutex> guard(state_->mu);
  return state_->error;
}

NodeRedlock::NodeRedlock(Env& env, std::string key, NodeRedlockOptions options)
    : DistributedLock(env), env_(&env), key_(std::move(key)), options_(options) {
  if (options_.duration.count() <= 0) {
    throw std::invalid_argument("node-redlock '" + key_ + "': duration must be > 0 ms");
  }
  if (options_.retry_count < -1) {
    throw std::invalid_argument("node-redlock '" + key_ + "': retry_count must be >= -1");
  }
  if (options_.retry_delay.count() < 0 || options_.retry_jitter.count() < 0) {
    throw std::invalid_argument("node-redlock '" + key_ + "': retry delay and jitter must be >= 0");
  }
}

std::chrono::milliseconds NodeRedlock::drift(std::chrono::milliseconds duration) const {
  const double scaled = options_.drift_factor * static_cast<double>(duration.count());
  return std::chrono::milliseconds(static_cast<int64_t>(std::floor(scaled + 0.5)) + 2);
}

// randomBytes(16) as hex. The first half is also XORed with an FNV-1a hash
// of "<client-id>:<task-id>" (still uniform), so two tasks never draw the
// same value even when their random streams agree (as DirectEnv's do).
std::string NodeRedlock::new_value() {
  uint64_t who = 14695981039346656037ull;
  for (const char c : env_->client_id() + ":" + std::to_string(env_->task_id())) {
    who = (who ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  }
  char hex[33];
  std::snprintf(hex, sizeof hex, "%016llx%016llx",
                static_cast<unsigned long long>(env_->random_u64() ^ who),
                static_cast<unsigned long long>(env_->random_u64()));
  return hex;
}

std::string NodeRedlock::owner() {
  std::lock_guard<std::mutex> guard(mu_.mu);
  return value_;
}

std::optional<EnvTime> NodeRedlock::expiration() {
  std::lock_guard<std::mutex> guard(mu_.mu);
  if (value_.empty() && expiration_ == EnvTime{}) return std::nullopt;
  return expiration_;
}

namespace {

// One server's vote: the script answered the number of resources.
bool vote(Env& env, size_t server, const Script& script, const Argv& keys, const Argv& args) {
  try {
    const Reply reply = run_script(env.connection(server), script, keys, args);
    return reply.is_integer() && reply.integer() == static_cast<int64_t>(keys.size());
  } catch (const ConnectionError& e) {
    env.trace("node-redlock: server " + std::to_string(server) + ": " + e.what());
    return false;
  }
}

}  // namespace

bool NodeRedlock::attempt(const char* script_name, const Argv& args) {
  const Script& script = Script::get(script_name);
  // One server decides alone: no task needed to wait for it.
  if (env_->server_count() == 1) return vote(*env_, 0, script, {key_}, args);
  auto tally = std::make_shared<Tally>();
  tally->changed = env_->make_event();
  const size_t n = env_->server_count();
  for (size_t i = 0; i < n; ++i) {
    Env* env = env_;
    const Argv keys = {key_};
    env_->spawn("node-redlock " + script.name() + " on server " + std::to_string(i),
                [env, tally, &script, keys, args, i] {
                  const bool vote_for = vote(*env, i, script, keys, args);
                  {
                    std::lock_guard<std::mutex> guard(tally->mu);
                    ++(vote_for ? tally->votes_for : tally->votes_against);
                  }
                  tally->changed->signal();
                });
  }
  const size_t q = quorum();
  for (;;) {
    {
      std::lock_guard<std::mutex> guard(tally->mu);
      if (tally->votes_for >= q) return true;
      if (tally->votes_against >= q) return false;
    }
    tally->changed->wait_for(kLongWait);
  }
}

NodeRedlock::Outcome NodeRedlock::execute(const char* script, const Argv& args, int retry_count,
                                          std::optional<EnvTime> deadline) {
  Outcome out;
  for (int64_t attempts = 1;; ++attempts) {
    const EnvTime start = env_->now();
    if (attempts == 1) out.first_start = start;
    if (attempt(script, args)) {
      out.voted_for = true;
      out.start = start;
      return out;
    }
    if (retry_count != -1 && attempts >= static_cast<int64_t>(retry_count) + 1) return out;
    // Math.random() * 2 - 1 in [-1, 1), times the jitter, floored to whole ms.
    const double r = static_cast<double>(env_->random_u64() >> 11) * 0x1.0p-53;
    const double jitter_ms = static_cast<double>(options_.retry_jitter.count()) / 1000.0;
    const auto offset_ms = static_cast<int64_t>(std::floor((r * 2 - 1) * jitter_ms));
    Micros pause = std::max(Micros(0), options_.retry_delay + std::chrono::milliseconds(offset_ms));
    if (deadline) {  // try_lock_for: no pause past the caller's wait
      const EnvTime now = env_->now();
      if (now >= *deadline) return out;
      pause = std::min(pause, *deadline - now);
    }
    env_->sleep_for(pause);
  }
}

bool NodeRedlock::acquire_until(std::chrono::milliseconds duration, int retry_count,
                                std::optional<EnvTime> deadline) {
  if (duration.count() <= 0) {
    throw std::invalid_argument("node-redlock acquire: duration must be > 0 ms");
  }
  const std::string value = new_value();
  const Outcome out = execute("node_redlock_acquire", {value, std::to_string(duration.count())},
                              retry_count, deadline);
  if (!out.voted_for) {
    // Best effort: clean what a minority of servers may hold; votes ignored.
    execute(
        options_.release_counts_missing ? "node_redlock_release_missing" : "node_redlock_release",
        {value}, 0, std::nullopt);
    env_->trace("node-redlock acquire of " + key_ + " failed: no quorum");
    return false;
  }
  const EnvTime start = options_.expiration_from_first_attempt ? out.first_start : out.start;
  std::lock_guard<std::mutex> guard(mu_.mu);
  value_ = value;
  expiration_ = start + duration - drift(duration);
  env_->trace("node-redlock acquired " + key_ + " value=" + value);
  return true;
}

bool NodeRedlock::acquire(std::chrono::milliseconds duration, int retry_count) {
  return acquire_until(duration, retry_count, std::nullopt);
}

void NodeRedlock::lock() { acquire_until(options_.duration, -1, std::nullopt); }

bool NodeRedlock::try_lock() { return acquire_until(options_.duration, 0, std::nullopt); }

bool NodeRedlock::try_lock_wait(Micros wait) {
  if (wait.count() <= 0) return try_lock();
  return acquire_until(options_.duration, options_.retry_count, env_->now() + wait);
}

UnlockResult NodeRedlock::extend(std::chrono::milliseconds duration) {
  if (duration.count() <= 0) {
    throw std::invalid_argument("node-redlock extend: duration must be > 0 ms");
  }
  std::string value;
  EnvTime expiration;
  {
    std::lock_guard<std::mutex> guard(mu_.mu);
    value = value_;
    expiration = expiration_;
  }
  if (value.empty()) {
    return std::unexpected(UnlockError{UnlockError::Reason::kNotHeld,
                                       "node-redlock '" + key_ + "': no acquisition to extend"});
  }
  if (expiration < env_->now()) {
    return std::unexpected(UnlockError{
        UnlockError::Reason::kNotHeld,
        "ExecutionError: Cannot extend an already-expired lock. (node-redlock '" + key_ + "')"});
  }
  const Outcome out = execute("node_redlock_extend", {value, std::to_string(duration.count())},
                              options_.retry_count, std::nullopt);
  if (!out.voted_for) {
    return std::unexpected(
        UnlockError{UnlockError::Reason::kNotHeld,
                    std::string(kQuorumError) + " (extend of node-redlock '" + key_ + "')"});
  }
  std::lock_guard<std::mutex> guard(mu_.mu);
  if (value_ == value) expiration_ = out.start + duration - drift(duration);
  env_->trace("node-redlock extended " + key_);
  return {};
}

UnlockResult NodeRedlock::release_hold() {
  std::string value;
  {
    std::lock_guard<std::mutex> guard(mu_.mu);
    value = std::exchange(value_, std::string());
    expiration_ = EnvTime{};  // `lock.expiration = 0`
  }
  if (value.empty()) {
    return std::unexpected(UnlockError{
        UnlockError::Reason::kNotHeld,
        "attempt to unlock node-redlock '" + key_ + "', not locked by this object (node id: " +
            env_->client_id() + " thread-id: " + std::to_string(env_->task_id()) + ")"});
  }
  const Outcome out = execute(
      options_.release_counts_missing ? "node_redlock_release_missing" : "node_redlock_release",
      {value}, options_.retry_count, std::nullopt);
  if (out.voted_for) {
    env_->trace("node-redlock released " + key_);
    return {};
  }
  return std::unexpected(
      UnlockError{UnlockError::Reason::kNotHeld,
                  std::string(kQuorumError) + " (release of node-redlock '" + key_ + "')"});
}

bool NodeRedlock::run_using(std::chrono::milliseconds duration,
                            const std::function<void(const AbortSignal&)>& routine) {
  if (options_.automatic_extension_threshold > Micros(duration) - std::chrono::milliseconds(100)) {
    throw std::invalid_argument(
        "A lock `duration` must be at least 100ms greater than the "
        "`automaticExtensionThreshold` setting.");
  }
  if (!acquire(duration, options_.retry_count)) return false;

  struct Extender {
    std::mutex mu;
    bool stop = false;
    bool done = false;
    std::unique_ptr<Event> wake;      // stop asked
    std::unique_ptr<Event> finished;  // the extender returned
  };
  auto ext = std::make_shared<Extender>();
  ext->wake = env_->make_event();
  ext->finished = env_->make_event();
  AbortSignal signal;
  signal.state_ = std::make_shared<AbortSignal::State>();
  auto stopped = [ext] {
    std::lock_guard<std::mutex> guard(ext->mu);
    return ext->stop;
  };
  // The `queue()`/`extend()` pair of Redlock.using, as one background task.
  env_->spawn("node-redlock auto-extension of " + key_, [this, ext, signal, duration, stopped] {
    for (;;) {
      const std::optional<EnvTime> expiry = expiration();
      if (!expiry) break;
      const Micros until = *expiry - env_->now() - options_.automatic_extension_threshold;
      if (until.count() > 0 && ext->wake->wait_for(until)) {
        if (stopped()) break;
        continue;
      }
      if (stopped()) break;
      UnlockResult r = extend(duration);
      // A failure is tried again at once while the lock has not expired.
      while (!r && !stopped()) {
        const std::optional<EnvTime> now_expiry = expiration();
        if (!now_expiry || *now_expiry <= env_->now()) break;
        r = extend(duration);
      }
      if (!r) {
        if (!stopped()) {
          std::lock_guard<std::mutex> guard(signal.state_->mu);
          signal.state_->aborted = true;
          signal.state_->error = r.error().message;
        }
        env_->trace("node-redlock auto-extension of " + key_ + " failed: " + r.error().message);
        break;
      }
    }
    {
      std::lock_guard<std::mutex> guard(ext->mu);
      ext->done = true;
    }
    ext->finished->signal();
  });
  auto finish = [&] {
    {
      std::lock_guard<std::mutex> guard(ext->mu);
      ext->stop = true;
    }
    ext->wake->signal();
    for (;;) {
      {
        std::lock_guard<std::mutex> guard(ext->mu);
        if (ext->done) break;
      }
      ext->finished->wait_for(kLongWait);
    }
    release();
  };
  try {
    routine(signal);
  } catch (...) {
    finish();
    throw;
  }
  finish();
  return true;
}

bool NodeRedlock::is_locked() {
  return quorum_reads::is_locked(*env_, key_, quorum(), std::nullopt);
}

bool NodeRedlock::is_held_by_current_thread() {
  return quorum_reads::holds(*env_, key_, owner(), quorum(), std::nullopt);
}

RemainingLease NodeRedlock::remaining_lease() {
  return quorum_reads::remaining_lease(*env_, key_, quorum(), std::nullopt);
}

}  // namespace redsim::lock
