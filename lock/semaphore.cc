#include "lock/semaphore.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <utility>

#include "lock/errors.h"
#include "lock/lock_entry.h"
#include "lock/script.h"

namespace redsim::lock {

Semaphore::Semaphore(Env& env, std::string name, SemaphoreOptions options)
    : env_(env), name_(std::move(name)), channel_(channel_name(name_)), options_(options) {
  if (options_.recheck_interval && options_.recheck_interval->count() <= 0) {
    throw std::invalid_argument("semaphore '" + name_ + "': recheck_interval must be > 0");
  }
}

std::string Semaphore::channel_name(std::string_view name) {
  if (name.find('{') != std::string_view::npos) return "redisson_sc:" + std::string(name);
  return "redisson_sc:{" + std::string(name) + "}";
}

void Semaphore::require_positive(int64_t permits, const char* what) {
  if (permits <= 0) {
    throw std::invalid_argument(std::string("semaphore ") + what + ": permits must be > 0, got " +
                                std::to_string(permits));
  }
}

bool Semaphore::try_set_permits(int64_t permits) {
  if (permits < 0) {
    throw std::invalid_argument("semaphore try_set_permits: permits must be >= 0, got " +
                                std::to_string(permits));
  }
  static const Script& script = Script::get("semaphore_try_set");
  const Reply reply =
      run_script(env_.connection(), script, {name_, channel_}, {std::to_string(permits)});
  return integer_of(reply, "semaphore_try_set on '" + name_ + "'") == 1;
}

int64_t Semaphore::add_permits(int64_t permits) {
  static const Script& script = Script::get("semaphore_release");
  const Reply reply =
      run_script(env_.connection(), script, {name_, channel_}, {std::to_string(permits)});
  if (!reply.is_integer()) {
    throw UnexpectedReply("semaphore_release on '" + name_ + "' answered " + reply.debug_string());
  }
  return reply.integer();
}

int64_t Semaphore::available_permits() {
  return integer_of(env_.connection().call({"GET", name_}), "GET '" + name_ + "'");
}

int64_t Semaphore::drain_permits() {
  static const Script& script = Script::get("semaphore_drain");
  return integer_of(run_script(env_.connection(), script, {name_}, {}),
                    "semaphore_drain on '" + name_ + "'");
}

bool Semaphore::try_acquire(int64_t permits) {
  require_positive(permits, "try_acquire");
  static const Script& script = Script::get("semaphore_acquire");
  const Reply reply = run_script(env_.connection(), script, {name_}, {std::to_string(permits)});
  const bool taken = integer_of(reply, "semaphore_acquire on '" + name_ + "'") == 1;
  if (taken) env_.trace("took " + std::to_string(permits) + " permits of " + name_);
  return taken;
}

void Semaphore::acquire(int64_t permits) { acquire_within(permits, std::nullopt); }

void Semaphore::release(int64_t permits) {
  require_positive(permits, "release");
  const int64_t now = add_permits(permits);
  env_.trace("released " + std::to_string(permits) + " permits of " + name_ + "; " +
             std::to_string(now) + " available");
}

bool Semaphore::acquire_within(int64_t permits, std::optional<Micros> wait) {
  require_positive(permits, "acquire");
  const EnvTime start = env_.now();
  if (try_acquire(permits)) return true;
  if (wait && env_.now() - start >= *wait) return false;

  LockEntry wakeup(env_, channel_, LockEntry::WakePolicy::kSemaphore);
  bool taken = false;
  try {
    // No attempt once the wait is over (RedissonSemaphore.tryAcquire
    // returns false when the time left is <= 0).
    while (!(wait && env_.now() - start >= *wait) && !(taken = try_acquire(permits))) {
      // RedissonSemaphore.acquire: latch.acquire(), no timeout.
      Micros pause = options_.recheck_interval.value_or(kForever);
      if (wait) {
        const auto elapsed = env_.now() - start;
        if (elapsed >= *wait) break;
        pause = std::min(pause, *wait - elapsed);
      }
      wakeup.wait_for(pause);
    }
  } catch (const Error&) {
    wakeup.close();
    throw;
  }
  wakeup.close();
  if (!taken) env_.trace("gave up on " + std::to_string(permits) + " permits of " + name_);
  return taken;
}

}  // namespace redsim::lock
