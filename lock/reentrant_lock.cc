#include "lock/reentrant_lock.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "lock/errors.h"
#include "lock/lock_entry.h"
#include "lock/script.h"

namespace redsim::lock {

using std::chrono::milliseconds;

// The watchdog's half of the state: owned jointly by the OwnerState and the
// background task, so either may go first.
struct ReentrantLock::Watchdog {
  explicit Watchdog(std::unique_ptr<Event> event) : stop_event(std::move(event)) {}

  // Idempotent; wakes the task at once (the Event remembers the signal).
  void stop() {
    if (!stopped.exchange(true)) stop_event->signal();
  }

  std::unique_ptr<Event> stop_event;
  std::atomic<bool> stopped{false};
};

milliseconds redisson_unlock_latch_ttl(const RedissonRetrySettings& settings, uint64_t random) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const int64_t base = settings.delay_base.count();
  const int64_t max = settings.delay_max.count();
  const int n = settings.attempts;
  // EqualJitterDelay.calcDelay(n): the exponential delay, capped at max.
  int64_t exponential = max;
  if (n < 63 && base < max && base > 0 && (int64_t{1} << n) <= max / base) {
    exponential = std::min(base << n, max);
  }
  const int64_t half = exponential / 2;
  const int64_t jitter =
      half == 0 ? 0 : static_cast<int64_t>(random % (static_cast<uint64_t>(half) + 1));
  int64_t combined = 0;
  int64_t ttl = 0;
  if (__builtin_add_overflow(settings.timeout.count(), half + jitter, &combined) ||
      __builtin_mul_overflow(combined, static_cast<int64_t>(n), &ttl)) {
    ttl = kMax;
  }
  return milliseconds{std::max<int64_t>(ttl, 1)};
}

namespace {

const Script& acquire_script() {
  static const Script& script = Script::get("reentrant_acquire");
  return script;
}
const Script& unlock_script() {
  static const Script& script = Script::get("reentrant_unlock");
  return script;
}
const Script& renew_script() {
  static const Script& script = Script::get("reentrant_renew");
  return script;
}
const Script& unlock_latch_script() {
  static const Script& script = Script::get("reentrant_unlock_latch");
  return script;
}
const Script& force_unlock_script() {
  static const Script& script = Script::get("reentrant_force_unlock");
  return script;
}

std::string ms_arg(milliseconds ms) { return std::to_string(ms.count()); }

// `s` = `v`, reusing s's buffer (no general replace, no allocation when it
// fits). The length is v's: g++ 12's resize_and_overwrite hands a growing
// string's new capacity as the size.
void assign_view(std::string& s, std::string_view v) {
  s.resize_and_overwrite(v.size(), [v](char* p, size_t) {
    std::memcpy(p, v.data(), v.size());
    return v.size();
  });
}

// Makes `argv` exactly {first, second, numkeys, keys..., args...}, where
// `first` is EVALSHA or EVAL and `second` the SHA1 or the body. Every
// element is assigned, so whatever `argv` held before does not matter; its
// strings' buffers are reused.
void fill_cycle_argv(Argv& argv, std::string_view first, std::string_view second,
                     std::initializer_list<std::string_view> keys,
                     std::initializer_list<std::string_view> args) {
  argv.resize(3 + keys.size() + args.size());
  assign_view(argv[0], first);
  assign_view(argv[1], second);
  char numkeys[24];
  const auto end = std::to_chars(numkeys, numkeys + sizeof numkeys, keys.size()).ptr;
  assign_view(argv[2], std::string_view(numkeys, static_cast<size_t>(end - numkeys)));
  size_t i = 3;
  for (std::string_view k : keys) assign_view(argv[i++], k);
  for (std::string_view a : args) assign_view(argv[i++], a);
}

// The argvs of this thread's cycle scripts, kept between calls: a
// connection that does not keep the argv it is handed (DirectEnv, a real
// client, the simulation, which reads it in place while the call waits)
// leaves it as it was, and the next cycle refills the same strings without
// allocating. Each call takes one and gives it back when it returns, so the
// tasks of a simulated world (fibers on one thread, several calls under
// way at once) each refill one of their own. At most kCycleArgvsKept wait.
constexpr size_t kCycleArgvsKept = 64;
thread_local std::vector<std::unique_ptr<Argv>> t_cycle_argvs;

// The same commands as run_script() (lock/script.h) for the acquire and
// unlock of every cycle: EVALSHA, then EVAL if and only if the EVALSHA
// answered NOSCRIPT (its argv filled again from the same views). The argv
// is handed over as an rvalue (a Connection may keep it; none does now).
Reply run_cycle_script(Connection& connection, const Script& script,
                       std::initializer_list<std::string_view> keys,
                       std::initializer_list<std::string_view> args) {
  struct Borrowed {
    std::unique_ptr<Argv> argv;
    Borrowed() {
      auto& kept = t_cycle_argvs;
      if (kept.empty()) {
        argv = std::make_unique<Argv>();
      } else {
        argv = std::move(kept.back());
        kept.pop_back();
      }
    }
    ~Borrowed() {
      auto& kept = t_cycle_argvs;
      if (kept.size() < kCycleArgvsKept) kept.push_back(std::move(argv));
    }
    Borrowed(const Borrowed&) = delete;
    Borrowed& operator=(const Borrowed&) = delete;
  } borrowed;
  Argv& argv = *borrowed.argv;
  fill_cycle_argv(argv, "EVALSHA", script.sha1_hex(), keys, args);
  Reply reply = connection.call(std::move(argv));
  if (reply.is_error() && reply.error_code() == "NOSCRIPT") {
    fill_cycle_argv(argv, "EVAL", script.text(), keys, args);
    reply = connection.call(std::move(argv));
  }
  return reply;
}

}  // namespace

ReentrantLock::ReentrantLock(Env& env, std::string key, ReentrantLockOptions options)
    : ReentrantLock(env, key, options,
                    Flavor{.channel = channel_name(key),
                           .field_suffix = "",
                           .unlock = &unlock_script(),
                           .renew = &renew_script(),
                           .latch_by_default = true}) {}

ReentrantLock::ReentrantLock(Env& env, std::string key, ReentrantLockOptions options, Flavor flavor)
    : DistributedLock(env),
      env_(&env),
      key_(std::move(key)),
      channel_(std::move(flavor.channel)),
      field_suffix_(std::move(flavor.field_suffix)),
      renew_keys_(std::move(flavor.renew_keys)),
      unlock_script_(*flavor.unlock),
      renew_script_(*flavor.renew),
      options_(options) {
  if (options_.lock_watchdog_timeout.count() <= 0) {
    throw std::invalid_argument("reentrant lock '" + key_ +
                                "': lock_watchdog_timeout must be > 0 ms");
  }
  if (!options_.unlock_latch) options_.unlock_latch = flavor.latch_by_default;
  if (*options_.unlock_latch && !flavor.has_latch && &unlock_script_ != &unlock_script()) {
    throw std::invalid_argument("lock '" + key_ + "': this kind has no unlock_latch");
  }
  if (options_.recheck_without_ttl && options_.recheck_without_ttl->count() <= 0) {
    throw std::invalid_argument("lock '" + key_ + "': recheck_without_ttl must be > 0 ms");
  }
  if (options_.default_lease && options_.default_lease->count() <= 0) {
    throw std::invalid_argument("lock '" + key_ + "': default_lease must be > 0 ms (or kWatchdog)");
  }
  if (options_.unlock_retries < 0) {
    throw std::invalid_argument("lock '" + key_ + "': unlock_retries must be >= 0");
  }
  if (options_.unlock_latch_ttl && options_.unlock_latch_ttl->count() <= 0) {
    throw std::invalid_argument("lock '" + key_ + "': unlock_latch_ttl must be > 0 ms");
  }
  const RedissonRetrySettings& r = options_.retry;
  if (r.attempts < 0 || r.timeout.count() < 0 || r.delay_base.count() <= 0 ||
      r.delay_max.count() < 0) {
    throw std::invalid_argument("lock '" + key_ +
                                "': retry needs attempts >= 0, timeout >= 0, delay_base > 0 "
                                "and delay_max >= 0");
  }
}

ReentrantLock::~ReentrantLock() = default;

std::string ReentrantLock::channel_name(std::string_view key) {
  // Redisson's prefixName(): a key that already carries a hash tag is not wrapped again.
  if (key.find('{') != std::string_view::npos) {
    return "redisson_lock__channel:" + std::string(key);
  }
  return "redisson_lock__channel:{" + std::string(key) + "}";
}

std::string ReentrantLock::owner() {
  // Built in place: this runs on every lock and unlock.
  char task[24];
  const auto end = std::to_chars(task, task + sizeof task, env_->task_id()).ptr;
  const std::string& client = env_->client_id();
  std::string id;
  id.reserve(client.size() + 1 + static_cast<size_t>(end - task));
  id.append(client).append(1, ':').append(task, end);
  return id;
}

void ReentrantLock::lock() { acquire(std::nullopt, options_.default_lease); }

void ReentrantLock::lock(Lease lease) { acquire(std::nullopt, lease); }

milliseconds ReentrantLock::effective(Lease lease) const {
  return lease ? *lease : options_.lock_watchdog_timeout;
}

bool ReentrantLock::try_lock() {
  const std::string me = owner();
  if (try_acquire(me, options_.default_lease, Attempt{})) return false;
  on_acquired(me, options_.default_lease);
  return true;
}

bool ReentrantLock::try_lock_wait(Micros wait) {
  return acquire(std::max(wait, Micros(0)), options_.default_lease);
}

std::optional<int64_t> ReentrantLock::run_acquire(const std::string& owner, milliseconds lease,
                                                  const Attempt& /*attempt*/) {
  const Reply reply =
      run_cycle_script(env_->connection(), acquire_script(), {key_}, {ms_arg(lease), owner});
  if (reply.is_nil()) return std::nullopt;
  if (!reply.is_integer()) {
    throw UnexpectedReply("reentrant_acquire on '" + key_ + "' answered " + reply.debug_string());
  }
  return reply.integer();
}

std::optional<int64_t> ReentrantLock::try_acquire(const std::string& owner, Lease lease,
                                                  const Attempt& attempt) {
  milliseconds effective = this->effective(lease);
  if (!lease && options_.lease_carried_before_4818) {
    std::lock_guard<std::mutex> guard(mu_.mu);
    if (last_lease_) effective = *last_lease_;  // RedissonLock's internalLockLeaseTime
  }
  std::optional<int64_t> pttl = run_acquire(owner, effective, attempt);
  if (pttl || options_.sync_replicas <= 0) return pttl;

  // The replica check: WAIT on the connection that ran the acquire, so it
  // counts the replicas that have our write.
  const Reply acked = env_->connection().call(
      {"WAIT", std::to_string(options_.sync_replicas), ms_arg(options_.sync_timeout)});
  if (acked.is_integer() && acked.integer() >= options_.sync_replicas) return std::nullopt;
  const std::string seen = acked.is_integer() ? std::to_string(acked.integer()) + " of "
                                              : "(" + acked.debug_string() + ") of ";
  std::string released = "the hold was released";
  try {
    const Reply undo = run_unlock(owner, effective, UnlockLatch{});
    if (!undo.is_integer()) released = "releasing the hold answered " + undo.debug_string();
  } catch (const ConnectionError& e) {
    released = std::string("releasing the hold failed: ") + e.what();
  }
  env_->trace("replica check failed for " + key_ + ": " + seen +
              std::to_string(options_.sync_replicas) + " replicas; " + released);
  throw ReplicaSyncError("lock '" + key_ + "': only " + seen +
                         std::to_string(options_.sync_replicas) +
                         " replicas acknowledged the acquisition within " +
                         ms_arg(options_.sync_timeout) + " ms; " + released);
}

bool ReentrantLock::acquire(std::optional<Micros> wait, Lease lease) {
  if (lease && lease->count() <= 0) {
    throw std::invalid_argument("lock '" + key_ + "': a lease must be > 0 ms (or kWatchdog)");
  }
  const std::string me = owner();
  const EnvTime start = env_->now();
  const Attempt attempt{.waiting = true, .wait = wait};
  // Whether the latest attempt's round trip took no time on our clock (only
  // in a simulated world without latency); see the pause of 0 below.
  EnvTime attempt_began = start;
  std::optional<int64_t> hint = try_acquire(me, lease, attempt);
  bool instant = env_->now() == attempt_began;
  if (!hint) {
    on_acquired(me, lease);
    return true;
  }
  if (wait && env_->now() - start >= *wait) {
    stop_waiting(me, attempt);
    env_->trace(gave_up_trace(*hint));
    return false;
  }

  // Subscribe (or join the process's subscription) before the next attempt:
  // an unlock published after this returns wakes a wait, even one that
  // lands before we wait. Message 0 wakes one waiter of the process.
  // A spin lock subscribes to nothing and backs off instead.
  const std::optional<Backoff> spin = backoff();
  std::optional<LockEntry> wakeup;
  if (!spin) {
    wakeup.emplace(*env_, wait_channel(me), LockEntry::WakePolicy::kLock,
                   options_.keep_early_message);
  }
  int64_t next_sleep_ms = spin ? spin->initial.count() : 0;
  int64_t fails = 0;

  bool acquired = false;
  // After subscribing, attempt again at once; a spin lock sleeps first
  // (RedissonSpinLock.tryLock: sleep, then tryAcquire).
  bool attempt_now = !spin;
  try {
    while (true) {
      if (attempt_now) {
        // No attempt once the wait is over (after subscribing, after a
        // pause): RedissonLock.tryLock returns false as soon as the time
        // left is <= 0, it never tries once more at the deadline.
        if (wait && env_->now() - start >= *wait) break;
        attempt_began = env_->now();
        hint = try_acquire(me, lease, attempt);
        instant = env_->now() == attempt_began;
        if (!hint) {
          acquired = true;
          break;
        }
      }
      attempt_now = true;
      std::optional<Micros> pause = pause_after(*hint);
      // A pause of 0 (PTTL 0; FairLock: the place ahead is not taken yet) is
      // Redisson's latch.tryAcquire(0): take a waiting message, if any, and
      // try again at once; the round trip is what lets time pass. A round
      // trip that took no time (a world without latency) would make that a
      // loop at one instant, so then the waiter waits for its message at
      // most kInstantRoundTripPause.
      if (pause && pause->count() == 0 && instant) pause = kInstantRoundTripPause;
      if (spin) {
        // ExponentialBackOffPolicy.getNextSleepPeriod.
        pause = milliseconds(next_sleep_ms);
        if (next_sleep_ms != spin->max.count()) {
          ++fails;
          next_sleep_ms = std::min<int64_t>(
              spin->max.count(),
              next_sleep_ms * spin->multiplier +
                  static_cast<int64_t>(env_->random_u64() % static_cast<uint64_t>(fails)));
        }
      }
      if (wait) {
        const auto elapsed = env_->now() - start;
        if (elapsed >= *wait) break;
        pause = std::min(pause.value_or(*wait - elapsed), *wait - elapsed);
      }
      env_->trace(waiting_trace(*hint));
      if (!wakeup) {
        env_->sleep_for(*pause);
      } else if (pause) {
        wakeup->wait_for(*pause);
      } else {
        // Only a message ends this wait (RedissonLock.lock:
        // entry.getLatch().acquire()); the day is a slice, not a re-check.
        while (!wakeup->wait_for(std::chrono::hours(24))) {
        }
      }
    }
  } catch (const Error&) {
    if (wakeup) wakeup->close();
    stop_waiting(me, attempt);
    throw;
  }
  if (acquired) on_acquired(me, lease);
  if (wakeup) wakeup->close();
  if (!acquired) {
    stop_waiting(me, attempt);
    env_->trace(gave_up_trace(*hint));
  }
  return acquired;
}

std::string ReentrantLock::wait_channel(const std::string& /*owner*/) const { return channel_; }

std::optional<Micros> ReentrantLock::pause_after(int64_t hint) const {
  if (hint >= 0) return Micros(milliseconds(hint));
  // A lock without expiry (PTTL -1) frees only by an unlock message.
  if (options_.recheck_without_ttl) return Micros(*options_.recheck_without_ttl);
  return std::nullopt;
}

std::string ReentrantLock::waiting_trace(int64_t hint) const {
  // Built in one buffer: every wait of every contended acquire traces it.
  char pttl[24];
  const auto end = std::to_chars(pttl, pttl + sizeof pttl, hint).ptr;
  const std::string_view number(pttl, static_cast<size_t>(end - pttl));
  std::string line;
  line.reserve(18 + number.size() + key_.size());
  line.append("waiting pttl=").append(number).append(" for ").append(key_);
  return line;
}

std::string ReentrantLock::gave_up_trace(int64_t hint) const {
  return "gave up on " + key_ + " pttl=" + std::to_string(hint);
}

void ReentrantLock::stop_waiting(const std::string& /*owner*/, const Attempt& /*attempt*/) {}

void ReentrantLock::on_acquired(const std::string& owner, Lease lease) {
  const bool use_watchdog = !lease;
  const milliseconds effective = this->effective(lease);
  std::shared_ptr<Watchdog> candidate;
  if (use_watchdog) candidate = std::make_shared<Watchdog>(env_->make_event());

  const uint64_t task = env_->task_id();
  bool start = false;
  {
    std::lock_guard<std::mutex> guard(mu_.mu);
    if (lease) last_lease_ = *lease;
    auto it = owners_.find(task);
    if (it == owners_.end() && spare_owner_.empty()) {
      it = owners_.try_emplace(task).first;
    } else if (it == owners_.end()) {
      spare_owner_.key() = task;
      it = owners_.insert(std::move(spare_owner_)).position;  // absent: always inserted
    }
    OwnerState& state = it->second;
    state.lease = effective;
    if (use_watchdog && (!state.watchdog || state.watchdog->stopped)) {
      state.watchdog = candidate;
      start = true;
    }
  }
  if (env_->tracing()) {
    // Every acquisition in a recording world: one buffer, sized once.
    const std::string lease = ms_arg(effective);
    std::string line;
    line.reserve(32 + key_.size() + owner.size() + lease.size());
    line.append("acquired ").append(key_).append(" as ").append(owner).append(" lease=");
    line.append(lease).append("ms").append(use_watchdog ? " (watchdog)" : "");
    env_->trace(line);
  }
  if (!start) return;

  // Everything the task needs is copied: it must not touch `this`.
  std::vector<std::string> renew_keys{key_};
  renew_keys.insert(renew_keys.end(), renew_keys_.begin(), renew_keys_.end());
  env_->spawn("watchdog " + key_ + " " + owner,
              [&env = *env_, dog = candidate, key = key_, keys = std::move(renew_keys),
               owner = field(owner), lease = effective, &renew = renew_script_,
               stops_on_error = options_.watchdog_stops_on_error] {
                const Micros interval = std::chrono::ceil<Micros>(lease) / 3;
                while (true) {
                  if (dog->stop_event->wait_for(interval) || dog->stopped) {
                    env.trace("watchdog stopped for " + key);
                    break;
                  }
                  Reply reply;
                  try {
                    reply = run_script(env.connection(), renew, keys, {ms_arg(lease), owner});
                  } catch (const ClosedError&) {
                    throw;  // the process is gone
                  } catch (const ConnectionError& e) {
                    if (stops_on_error) {
                      env.trace("watchdog could not renew " + key + ": " + e.what() +
                                "; stopping (watchdog_stops_on_error)");
                      break;
                    }
                    env.trace("watchdog could not renew " + key + ": " + e.what() +
                              "; trying again in lease/3");
                    continue;
                  }
                  if (reply.is_integer() && reply.integer() == 1) {
                    env.trace("watchdog renewed " + key + " for " + owner);
                    continue;
                  }
                  env.trace("watchdog found " + key + " no longer held by " + owner + " (" +
                            reply.debug_string() + "); stopping");
                  break;
                }
                // Through stop(): a watchdog that stops on its own signals its
                // Event as it sets `stopped`, so the write the lock task may
                // read comes with a signal (the exhaustive reduction's case 6).
                dog->stop();
              });
}

void ReentrantLock::stop_watchdog(uint64_t task) {
  std::shared_ptr<Watchdog> dog;
  {
    std::lock_guard<std::mutex> guard(mu_.mu);
    auto it = owners_.find(task);
    if (it == owners_.end()) return;
    dog = std::move(it->second.watchdog);
    auto node = owners_.extract(it);
    if (spare_owner_.empty()) {
      node.mapped() = OwnerState{};
      spare_owner_ = std::move(node);
    }
  }
  if (dog) dog->stop();
}

milliseconds ReentrantLock::lease_of(uint64_t task) {
  {
    std::lock_guard<std::mutex> guard(mu_.mu);
    auto it = owners_.find(task);
    if (it != owners_.end() && it->second.lease.count() > 0) return it->second.lease;
  }
  // Held through another object (or before a restart): the lease this
  // object would have used, as Redisson's internalLockLeaseTime.
  return effective(options_.default_lease);
}

Reply ReentrantLock::run_unlock(const std::string& owner, milliseconds lease,
                                const UnlockLatch& latch) {
  if (latch.empty()) {
    return run_cycle_script(env_->connection(), unlock_script_, {key_, channel_},
                            {kUnlockMessage, ms_arg(lease), field(owner)});
  }
  return run_cycle_script(env_->connection(), unlock_latch_script(), {key_, channel_, latch.key},
                          {kUnlockMessage, ms_arg(lease), field(owner), ms_arg(latch.ttl)});
}

Reply ReentrantLock::send_unlock(const std::string& me, uint64_t task, const UnlockLatch& latch) {
  return run_unlock(me, lease_of(task), latch);
}

ReentrantLock::UnlockLatch ReentrantLock::new_unlock_latch() {
  if (!*options_.unlock_latch) return {};
  char id[17];
  std::snprintf(id, sizeof id, "%016llx", static_cast<unsigned long long>(env_->random_u64()));
  const std::string tagged = key_.find('{') != std::string::npos ? key_ : "{" + key_ + "}";
  const milliseconds ttl = options_.unlock_latch_ttl
                               ? *options_.unlock_latch_ttl
                               : redisson_unlock_latch_ttl(options_.retry, env_->random_u64());
  return {"redisson_unlock_latch:" + tagged + ":" + id, ttl};
}

UnlockResult ReentrantLock::release_hold() {
  const uint64_t task = env_->task_id();
  const std::string me = owner();
  const UnlockLatch latch = new_unlock_latch();
  Reply reply;
  for (int attempt = 0;; ++attempt) {
    try {
      reply = send_unlock(me, task, latch);
      break;
    } catch (const Error& e) {
      // Whatever went wrong, the renewal ends here (RedissonBaseLock.unlockAsync0
      // cancels it in handle() before looking at the outcome): a lock whose
      // unlock is in doubt expires after its lease instead of living on.
      const bool retry = dynamic_cast<const ConnectionError*>(&e) != nullptr &&
                         dynamic_cast<const ClosedError*>(&e) == nullptr &&
                         attempt < options_.unlock_retries;
      if (!retry) {
        stop_watchdog(task);
        env_->trace("unlock of " + key_ + " by " + me + " failed (" + e.what() +
                    "); watchdog stopped");
        throw;
      }
      env_->trace("unlock of " + key_ + " failed (" + e.what() + "); sending it again" +
                  (latch.empty() ? "" : " with request id " + latch.key));
    }
  }
  // The script answered: its latch has served (a retry of this call is
  // over), so it goes, without waiting for the DEL's reply.
  if (!latch.empty()) env_->call_detached({"DEL", latch.key});
  if (reply.is_nil()) {
    stop_watchdog(task);  // nothing of ours left to renew
    env_->trace("unlock of " + key_ + " by " + me + ": not held");
    return std::unexpected(UnlockError{
        UnlockError::Reason::kNotHeld,
        "attempt to unlock lock, not locked by current thread by node id: " + env_->client_id() +
            " thread-id: " + std::to_string(task)});
  }
  if (!reply.is_integer()) {
    stop_watchdog(task);
    throw UnexpectedReply(unlock_script_.name() + " on '" + key_ + "' answered " +
                          reply.debug_string());
  }
  if (reply.integer() == 1) {
    stop_watchdog(task);
    if (env_->tracing()) {
      std::string line;
      line.reserve(16 + key_.size() + me.size());
      line.append("released ").append(key_).append(" by ").append(me);
      env_->trace(line);
    }
  } else if (env_->tracing()) {
    env_->trace("unlocked one hold of " + key_ + " by " + me + "; still held");
  }
  return {};
}

bool ReentrantLock::run_force_unlock() {
  const Reply reply = run_script(env_->connection(), force_unlock_script(), {key_, channel_},
                                 {std::string(kUnlockMessage)});
  if (!reply.is_integer()) {
    throw UnexpectedReply("reentrant_force_unlock on '" + key_ + "' answered " +
                          reply.debug_string());
  }
  return reply.integer() == 1;
}

bool ReentrantLock::force_unlock() {
  const bool deleted = run_force_unlock();
  std::vector<std::shared_ptr<Watchdog>> dogs;
  {
    std::lock_guard<std::mutex> guard(mu_.mu);
    for (auto& [task, state] : owners_) {
      if (state.watchdog) dogs.push_back(std::move(state.watchdog));
    }
    owners_.clear();
  }
  for (auto& dog : dogs) dog->stop();
  env_->trace("force_unlock " + key_ + (deleted ? ": deleted" : ": no lock"));
  return deleted;
}

Reply ReentrantLock::call(const Argv& argv) {
  Reply reply = env_->connection().call(argv);
  if (reply.is_error()) {
    throw UnexpectedReply(argv.front() + " on '" + key_ + "' failed: " + reply.str());
  }
  return reply;
}

bool ReentrantLock::is_locked() {
  const Reply reply = call({"EXISTS", key_});
  if (!reply.is_integer()) {
    throw UnexpectedReply("EXISTS '" + key_ + "' answered " + reply.debug_string());
  }
  return reply.integer() > 0;
}

bool ReentrantLock::is_held_by_current_thread() {
  const Reply reply = call({"HEXISTS", key_, field(owner())});
  if (!reply.is_integer()) {
    throw UnexpectedReply("HEXISTS '" + key_ + "' answered " + reply.debug_string());
  }
  return reply.integer() == 1;
}

int64_t ReentrantLock::hold_count() {
  return integer_of(call({"HGET", key_, field(owner())}), "HGET '" + key_ + "' hold count");
}

RemainingLease ReentrantLock::remaining_lease() {
  const Reply reply = call({"PTTL", key_});
  if (!reply.is_integer()) {
    throw UnexpectedReply("PTTL '" + key_ + "' answered " + reply.debug_string());
  }
  return RemainingLease::from_pttl(reply.integer());
}

}  // namespace redsim::lock
