// The lock under test, as the harness drives it: the TimedLockable concept
// a user's lock must meet, the Section its critical-section code gets, and
// lock_factory, which type-erases a user's lock (and that code) into a
// LockUnderTest. Part of the public harness; include
// sim/world/testing/harness.h, which includes this.
#pragma once

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "lock/env.h"
#include "lock/errors.h"
#include "lock/lock.h"
#include "sim/world/fenced_resource.h"
#include "sim/world/history.h"
#include "sim/world/world.h"

namespace redsim::harness {

using Micros = std::chrono::microseconds;

// What the harness needs of a lock: the standard's TimedLockable half.
template <class L>
concept TimedLock = requires(L& l, Micros wait) {
  { l.try_lock_for(wait) } -> std::convertible_to<bool>;
  l.unlock();
};

// A lease lock's promise (optional). A lock whose acquisition promises
// exclusivity only for a while (a lease: Redlock's validity time, antirez,
// "Distributed locks with Redis": validity = TTL - elapsed - drift) says
// until when, right after a try_lock_for that returned true, by either
//   std::optional<lock::EnvTime> valid_until()   // or lock::EnvTime
//     the deadline on the client's own Env clock (Env::now(), us); nullopt:
//     no promise (the section runs as for a lock without one);
//   Micros validity_left()                        // redsim's lock::Redlock
//     what is left of the validity now, on the same clock.
// The harness records the promise (kValidity, at true time) and judges it
// with the validity checker: two owners' promised windows must never
// overlap in true time (check_validity, harness.h). The holder stops
// trusting the lock at the deadline: its section ends there (ValidityMode).
template <class L>
concept ReportsValidUntil = requires(L& l) {
  { l.valid_until() } -> std::convertible_to<std::optional<lock::EnvTime>>;
};
template <class L>
concept ReportsValidityLeft = requires(L& l) {
  { l.validity_left() } -> std::same_as<Micros>;
};

// How long a section whose lock promised a validity lasts (a lock that
// promised none: always its plan's work).
enum class ValidityMode : uint8_t {
  // Its plan's work, cut short at the deadline (on the holder's clock): a
  // holder that checks the validity before each step of its work.
  kStopAtDeadline,
  // Until the deadline, whatever the plan's work: a holder that uses all the
  // validity it was promised, the strongest test of the promise. The checks
  // then judge the promise (validity), not the section: a holder paused
  // past its deadline leaves late, as no lease can prevent (Kleppmann 2016).
  kUseWholeValidity,
};

// What the body of a critical section gets (lock_factory's `inside`): the
// client's Env and the run's plan for this section. Valid during the call.
class Section {
 public:
  Section(world::ProcessEnv& env, const std::string& key, Micros work,
          std::optional<lock::EnvTime> valid_until = std::nullopt,
          ValidityMode mode = ValidityMode::kStopAtDeadline)
      : env_(env), key_(key), work_(work), valid_until_(valid_until), mode_(mode) {}

  // The client process's Env: Redis calls, now(), sleep_for(), and the
  // history records (env().record("...")).
  world::ProcessEnv& env() const { return env_; }
  // The lock key (the resource the checkers judge).
  const std::string& key() const { return key_; }
  // How long the plan wants this section to last.
  Micros work() const { return work_; }
  // The deadline the lock promised at this acquisition, on the holder's
  // clock (env().now()); nullopt when it promised none.
  std::optional<lock::EnvTime> valid_until() const { return valid_until_; }
  // The default body. Without a promise: sleeps work(). With one: sleeps
  // until the deadline (kUseWholeValidity), or work() but not past the
  // deadline (kStopAtDeadline); a deadline already passed: sleeps 0.
  void do_work() const {
    if (!valid_until_) {
      env_.sleep_for(work_);
      return;
    }
    const Micros left = std::max(Micros{0}, *valid_until_ - env_.now());
    env_.sleep_for(mode_ == ValidityMode::kUseWholeValidity ? left : std::min(work_, left));
  }
  // Writes `token` to the run's FencedResource named key() (Kleppmann's
  // storage service, shared by every client): true when accepted (its token
  // is not below the highest accepted so far). Recorded for check_fencing; a
  // section that writes here is judged by the token order, not by its lease.
  bool write_fenced(int64_t token) const { return env_.fenced_resource(key_).write(env_, token); }

 private:
  world::ProcessEnv& env_;
  const std::string& key_;
  Micros work_;
  std::optional<lock::EnvTime> valid_until_;
  ValidityMode mode_;
};

// A lock under test, type-erased (lock_factory makes these).
class LockUnderTest {
 public:
  virtual ~LockUnderTest() = default;
  virtual bool try_lock_for(Micros wait) = 0;
  // How the unlock went: kReleased, kNotReleased (its unlock() returned
  // false or threw a std::exception that is not a lock::ConnectionError:
  // `detail` holds what()), kError (it threw a lock::ConnectionError: the
  // outcome is unknown; `detail` holds what()).
  virtual world::UnlockOutcome unlock(std::string& detail) = 0;
  // The body of the critical section; by default do_work().
  virtual void inside(Section& section) { section.do_work(); }
  // The validity the lock promised at the acquisition that just succeeded
  // (ReportsValidUntil, ReportsValidityLeft); nullopt: none.
  virtual std::optional<lock::EnvTime> valid_until() { return std::nullopt; }
};

// Makes one lock object on `key` for a client; called on that client's own
// fiber, with that client's Env.
using LockFactory =
    std::function<std::unique_ptr<LockUnderTest>(lock::Env& env, const std::string& key)>;

namespace detail {

template <class L>
L& deref(L& l) {
  return l;
}
template <class L>
L& deref(std::unique_ptr<L>& p) {
  return *p;
}

// The default body of a section.
struct DoWork {
  template <class L>
  void operator()(Section& s, L&) const {
    s.do_work();
  }
};

template <class Made, class Inside>
class Holder final : public LockUnderTest {
 public:
  template <class Make>
  Holder(Make& make, const Inside& inside, lock::Env& env, const std::string& key)
      : lock_(make(env, key)), inside_(inside), env_(env) {}
  bool try_lock_for(Micros wait) override {
    return static_cast<bool>(deref(lock_).try_lock_for(wait));
  }
  world::UnlockOutcome unlock(std::string& detail) override {
    // Only std::exception: the simulation unwinds a crashed client with an
    // exception of its own, which must pass.
    try {
      // redsim's own locks: release() says why an unlock failed (their
      // unlock() throws nothing, as BasicLockable requires).
      if constexpr (requires {
                      { deref(lock_).release() } -> std::same_as<lock::UnlockResult>;
                    }) {
        const lock::UnlockResult released = deref(lock_).release();
        if (released) return world::UnlockOutcome::kReleased;
        detail = released.error().message;
        return released.error().reason == lock::UnlockError::Reason::kConnection
                   ? world::UnlockOutcome::kError
                   : world::UnlockOutcome::kNotReleased;
      } else if constexpr (std::is_void_v<decltype(deref(lock_).unlock())>) {
        deref(lock_).unlock();
        return world::UnlockOutcome::kReleased;
      } else {
        return static_cast<bool>(deref(lock_).unlock()) ? world::UnlockOutcome::kReleased
                                                        : world::UnlockOutcome::kNotReleased;
      }
    } catch (const lock::ConnectionError& e) {
      detail = e.what();
      return world::UnlockOutcome::kError;
    } catch (const std::exception& e) {
      detail = e.what();
      return world::UnlockOutcome::kNotReleased;
    }
  }
  void inside(Section& section) override { inside_(section, deref(lock_)); }
  std::optional<lock::EnvTime> valid_until() override {
    using L = std::remove_reference_t<decltype(deref(lock_))>;
    if constexpr (ReportsValidUntil<L>) {
      return std::optional<lock::EnvTime>(deref(lock_).valid_until());
    } else if constexpr (ReportsValidityLeft<L>) {
      return env_.now() + deref(lock_).validity_left();
    } else {
      return std::nullopt;
    }
  }

 private:
  Made lock_;
  Inside inside_;
  lock::Env& env_;
};

template <class Make>
using MadeBy = std::invoke_result_t<Make&, lock::Env&, const std::string&>;
template <class Make>
using LockOf = std::remove_reference_t<decltype(deref(std::declval<MadeBy<Make>&>()))>;

}  // namespace detail

// Wraps `make(lock::Env&, const std::string& key)`, which returns a lock by
// value (it may be non-movable) or as a std::unique_ptr, e.g.
//   lock_factory([](lock::Env& env, const std::string& key) { return MyLock(env, key); })
//   lock_factory([](lock::Env& env, const std::string& key) {
//     return lock::make_lock(lock::LockKind::kSimple, env, key); })
// `inside(Section&, L& lock)`, when given, runs as the body of each critical
// section in place of section.do_work(): your validity check, extend call
// or fenced write, with the lock object that was just acquired.
template <class Make, class Inside = detail::DoWork>
LockFactory lock_factory(Make make, Inside inside = {}) {
  using Made = detail::MadeBy<Make>;
  static_assert(TimedLock<detail::LockOf<Make>>,
                "the lock needs try_lock_for(std::chrono::microseconds) -> bool and unlock()");
  static_assert(std::is_invocable_v<Inside&, Section&, detail::LockOf<Make>&>,
                "inside must be callable as inside(harness::Section&, YourLock&)");
  return [make = std::move(make), inside = std::move(inside)](
             lock::Env& env, const std::string& key) mutable -> std::unique_ptr<LockUnderTest> {
    return std::make_unique<detail::Holder<Made, Inside>>(make, inside, env, key);
  };
}

}  // namespace redsim::harness
