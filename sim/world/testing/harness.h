// The lock-testing harness: run YOUR lock code (written against lock::Env)
// in the simulated world with N clients, a scripted schedule or a random
// plan, and judge the history with redsim's checkers. Framework-free; the
// GoogleTest fixture (sim/world/testing/gtest.h) and the RapidCheck
// generators (sim/world/testing/generators.h) are built on it.
//
//   // Any type with try_lock_for(std::chrono::microseconds) -> bool and
//   // unlock() (void, or bool = "released") works; unlock() may throw. A
//   // release() -> lock::UnlockResult (redsim's locks) is used when present.
//   auto make = harness::lock_factory([](lock::Env& env, const std::string& key) {
//     return MyLock(env, key, std::chrono::milliseconds(100));
//   });
//   harness::RunResult r = harness::run_expire_then_delete(make, {.lease = 100ms});
//   if (!r.safe()) std::cout << harness::report(r, harness::replay_hint(r.seed));
//
// What a client does (run_attempts): for each attempt, sleep `think`,
// try_lock_for(wait); when that returns true, enter the critical section,
// sleep `work`, leave it, unlock(). Everything is recorded in the history
// (acquire start/end, enter/leave, the unlock's outcome) for the checkers:
// mutual exclusion, liveness within a bound, and exceptions escaping a
// client (see check_all). Times are virtual: a run of seconds takes
// milliseconds of wall time.
//
// Seeds: a run is a function of its seed (client ids, tokens, jitter,
// latency and random faults). default_seed() reads REDSIM_SEED from the
// environment, so a failure printed with "seed 7" replays with
// REDSIM_SEED=7 and the same test.
//
// Namespace redsim::harness (not redsim::testing, which would shadow
// GoogleTest's ::testing inside namespace redsim).
#pragma once

#include <chrono>
#include <concepts>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "lock/env.h"
#include "lock/lock.h"
#include "sim/world/checkers.h"
#include "sim/world/explore.h"
#include "sim/world/forwarding_env.h"
#include "sim/world/history.h"
#include "sim/world/world.h"

namespace redsim::harness {

using Micros = std::chrono::microseconds;

// The lock key the harness's clients contend for unless told otherwise.
inline constexpr const char* kDefaultKey = "lock:test";

// What the harness needs of a lock: the standard's TimedLockable half.
template <class L>
concept TimedLock = requires(L& l, Micros wait) {
  { l.try_lock_for(wait) } -> std::convertible_to<bool>;
  l.unlock();
};

// A lock under test, type-erased (lock_factory makes these).
class LockUnderTest {
 public:
  virtual ~LockUnderTest() = default;
  virtual bool try_lock_for(Micros wait) = 0;
  // True when the lock released; false when its unlock() returned false or
  // threw a std::exception (then `error` holds what()).
  virtual bool unlock(std::string& error) = 0;
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

template <class Made>
class Holder final : public LockUnderTest {
 public:
  template <class Make>
  Holder(Make& make, lock::Env& env, const std::string& key) : lock_(make(env, key)) {}
  bool try_lock_for(Micros wait) override {
    return static_cast<bool>(deref(lock_).try_lock_for(wait));
  }
  bool unlock(std::string& error) override {
    // Only std::exception: the simulation unwinds a crashed client with an
    // exception of its own, which must pass.
    try {
      // redsim's own locks: release() says why an unlock failed (their
      // unlock() throws nothing, as BasicLockable requires).
      if constexpr (requires {
                      { deref(lock_).release() } -> std::same_as<lock::UnlockResult>;
                    }) {
        const lock::UnlockResult released = deref(lock_).release();
        if (!released) error = released.error().message;
        return released.has_value();
      } else if constexpr (std::is_void_v<decltype(deref(lock_).unlock())>) {
        deref(lock_).unlock();
        return true;
      } else {
        return static_cast<bool>(deref(lock_).unlock());
      }
    } catch (const std::exception& e) {
      error = e.what();
      return false;
    }
  }

 private:
  Made lock_;
};

}  // namespace detail

// Wraps `make(lock::Env&, const std::string& key)`, which returns a lock by
// value (it may be non-movable) or as a std::unique_ptr, e.g.
//   lock_factory([](lock::Env& env, const std::string& key) { return MyLock(env, key); })
//   lock_factory([](lock::Env& env, const std::string& key) {
//     return lock::make_lock(lock::LockKind::kSimple, env, key); })
template <class Make>
LockFactory lock_factory(Make make) {
  using Made = std::invoke_result_t<Make&, lock::Env&, const std::string&>;
  static_assert(TimedLock<std::remove_reference_t<decltype(detail::deref(std::declval<Made&>()))>>,
                "the lock needs try_lock_for(std::chrono::microseconds) -> bool and unlock()");
  return [make = std::move(make)](
             lock::Env& env, const std::string& key) mutable -> std::unique_ptr<LockUnderTest> {
    return std::make_unique<detail::Holder<Made>>(make, env, key);
  };
}

// A seed from the environment variable REDSIM_SEED (decimal), else `fallback`.
inline uint64_t default_seed(uint64_t fallback = 1) {
  const char* text = std::getenv("REDSIM_SEED");
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  return end != nullptr && *end == '\0' ? static_cast<uint64_t>(v) : fallback;
}

// "REDSIM_SEED=7 /path/to/test_binary --gtest_filter=Suite.Name": how to run
// the same check again (`filter` empty: no --gtest_filter).
inline std::string replay_hint(uint64_t seed, std::string_view filter = {}) {
  std::error_code ec;
  std::string exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec || exe.empty()) exe = "<this test binary>";
  std::string out = "REDSIM_SEED=" + std::to_string(seed) + " " + exe;
  if (!filter.empty()) out += " --gtest_filter=" + std::string(filter);
  return out;
}

// One client's attempts, as a ClientPlan holds them (world::Attempt: think,
// work in us; `nested` is ignored here).
struct ClientOptions {
  int attempts = 1;
  Micros think{0};                              // sleep before each attempt
  Micros work = std::chrono::milliseconds(10);  // time inside the critical section
  Micros wait = std::chrono::seconds(2);        // try_lock_for budget of each attempt
  Micros start_at{0};                           // when the client process starts
};

// The body of one client: `attempts` in order against `lk` on `key`, each
// recorded for the checkers. `lk` must have been made with `env` (or an Env
// forwarding to it).
inline void run_attempts(world::ProcessEnv& env, LockUnderTest& lk, const std::string& key,
                         const std::vector<world::Attempt>& attempts, Micros wait) {
  for (const world::Attempt& a : attempts) {
    env.sleep_for(Micros(a.think_us));
    env.record_acquire_start(key, wait);
    const bool acquired = lk.try_lock_for(wait);
    env.record_acquire_end(key, acquired);
    if (!acquired) {
      env.record("gave up");
      continue;
    }
    env.enter_critical(key);
    env.sleep_for(Micros(a.work_us));
    env.leave_critical(key);
    std::string error;
    if (lk.unlock(error)) {
      env.record("unlocked");
    } else {
      env.record("unlock: not released" + (error.empty() ? "" : " (" + error + ")"));
    }
  }
}

inline std::vector<world::Attempt> attempts_of(const ClientOptions& o) {
  world::Attempt a;
  a.think_us = o.think.count();
  a.work_us = o.work.count();
  return std::vector<world::Attempt>(static_cast<size_t>(o.attempts > 0 ? o.attempts : 0), a);
}

// Spawns a client process `name` in `w` that makes its lock with `make` on
// `key` and runs its attempts.
inline world::ProcessId spawn_client(world::World& w, std::string name, LockFactory make,
                                     const std::string& key, std::vector<world::Attempt> attempts,
                                     Micros wait, Micros start_at = Micros(0),
                                     std::optional<uint64_t> stream = {}) {
  return w.spawn_process(
      std::move(name),
      [make = std::move(make), key, attempts = std::move(attempts), wait](world::ProcessEnv& env) {
        auto lk = make(env, key);
        run_attempts(env, *lk, key, attempts, wait);
      },
      start_at, stream);
}

// An exception that escaped a client (kTaskError): the lock threw where the
// harness does not catch (try_lock_for, or the lock's own background task).
inline std::vector<world::Violation> check_task_errors(const world::History& h) {
  std::vector<world::Violation> out;
  for (size_t i = 0; i < h.size(); ++i) {
    if (h[i].kind != world::EventKind::kTaskError) continue;
    world::Violation v;
    v.checker = "task-error";
    v.description = "t=" + world::format_time_ms(h[i].t_us) + " c" + std::to_string(h[i].process) +
                    "/" + std::to_string(h[i].task) +
                    ": an exception escaped the client: " + h[i].text;
    v.events = {i};
    world::TimelineOptions t;
    t.focus = v.events;
    v.timeline = world::render_timeline(h, t);
    out.push_back(std::move(v));
  }
  return out;
}

// Mutual exclusion, liveness within `liveness_bound_us` (not checked when
// <= 0) and task errors.
inline std::vector<world::Violation> check_all(const world::History& h, int64_t liveness_bound_us) {
  std::vector<world::Violation> out = world::check_mutual_exclusion(h);
  if (liveness_bound_us > 0) {
    auto live = world::check_liveness(h, liveness_bound_us);
    out.insert(out.end(), live.begin(), live.end());
  }
  auto errors = check_task_errors(h);
  out.insert(out.end(), errors.begin(), errors.end());
  return out;
}

// The outcome of one run.
struct RunResult {
  uint64_t seed = 0;
  std::vector<world::Violation> violations;
  std::vector<std::string> findings;  // what the schedule observed, one line each
  world::History history;

  bool safe() const { return violations.empty(); }
  // Some violation came from `checker` ("mutual-exclusion", "liveness", "task-error", ...).
  bool has(std::string_view checker) const {
    for (const auto& v : violations) {
      if (v.checker == checker) return true;
    }
    return false;
  }
};

// Seed, findings, every violation with its timeline, and the replay line.
inline std::string report(const RunResult& r, std::string_view replay) {
  std::ostringstream out;
  out << "seed " << r.seed << ": " << r.violations.size() << " violation(s)\n";
  for (const auto& f : r.findings) out << "  " << f << "\n";
  out << world::format_violations(r.violations);
  if (!replay.empty()) out << "replay: " << replay << "\n";
  return out.str();
}

// A readable plan for a user's lock (describe_plan without the lock kind,
// which a user's lock does not have).
inline std::string describe_schedule(const world::ExplorePlan& plan) {
  std::string text = world::describe_plan(plan);
  const size_t comma = text.find(", seed ");
  if (comma != std::string::npos) text = text.substr(comma + 2);
  return text;
}

// Runs `plan` (see sim/world/explore.h) with the lock `make` builds: one
// client process per ClientPlan, each with its own random stream, the plan's
// seed, faults and wait. The plan's kind and lease_ms are not used by the
// lock (it has its own lease: draw plans for it, see generators.h); the
// liveness bound is world::liveness_bound_us(plan). Deterministic.
inline RunResult run_plan(const world::ExplorePlan& plan, const LockFactory& make,
                          const std::string& key = kDefaultKey) {
  world::WorldOptions options;
  options.seed = plan.seed;
  options.faults = plan.faults;
  options.time_limit_us = int64_t{600} * 1000 * 1000;
  world::World w(options);
  for (size_t i = 0; i < plan.clients.size(); ++i) {
    spawn_client(w, "client" + std::to_string(i + 1), make, key, plan.clients[i].attempts,
                 std::chrono::milliseconds(plan.wait_ms), Micros(0), plan.clients[i].stream);
  }
  w.run();
  RunResult r;
  r.seed = plan.seed;
  r.history = w.history();
  r.violations = check_all(r.history, world::liveness_bound_us(plan));
  return r;
}

// An Env that forwards every call to another, and runs `after_reply` after
// each reply a Connection::call of the calling task returns. The harness
// uses it to pause a client at an exact point of its own protocol.
class ReplyHookEnv final : public world::ForwardingEnv<> {
 public:
  ReplyHookEnv(lock::Env& inner, std::function<void()> after_reply)
      : ForwardingEnv(inner), after_reply_(std::move(after_reply)) {}

  lock::Connection& connection(size_t server = 0) override {
    lock::Connection& c = inner_.connection(server);
    auto& wrapped = wrapped_[&c];
    if (!wrapped) wrapped = std::make_unique<HookConnection>(c, after_reply_);
    return *wrapped;
  }

 private:
  class HookConnection final : public lock::Connection {
   public:
    HookConnection(lock::Connection& inner, std::function<void()>& hook)
        : inner_(inner), hook_(hook) {}
    resp::Reply call(const lock::Argv& argv) override {
      resp::Reply r = inner_.call(argv);
      if (hook_) hook_();
      return r;
    }
    resp::Reply call(const lock::Argv& argv, lock::Micros timeout) override {
      resp::Reply r = inner_.call(argv, timeout);
      if (hook_) hook_();
      return r;
    }

   private:
    lock::Connection& inner_;
    std::function<void()>& hook_;
  };

  std::function<void()> after_reply_;
  std::map<lock::Connection*, std::unique_ptr<HookConnection>> wrapped_;
};

struct ExpireThenDeleteOptions {
  // The lease the lock under test gives its key; the schedule scales with it.
  // The lock's retry interval while waiting must stay well below lease / 4.
  std::chrono::milliseconds lease{100};
  uint64_t seed = default_seed();
  std::string key = kDefaultKey;
};

// The expire-then-delete schedule (Kleppmann's "How to do distributed
// locking"; the GET-compare-DEL unlock of the articles), for any lock, in
// lease units L, with 1 ms one-way latency:
//   A (t=0) takes the lock, works until 0.9 L, then unlocks; right after the
//     FIRST reply of its unlock reaches it, A is paused for 0.5 L (a GC pause),
//     so its lease runs out in the middle of its unlock;
//   B (t=0.1 L) waits for the lock, takes it once A's key expired, works 0.8 L;
//   C (t=1.2 L) waits for the lock, works 0.2 L.
// A GET-then-DEL unlock's DEL then removes B's lock and C enters beside B: a
// mutual-exclusion violation. A compare-and-delete script (one command) is
// all done before the pause and cannot be split. Checks: mutual exclusion,
// liveness within 2 L, task errors; the findings say what A's unlock did and
// when it was paused. The seed changes ids, tokens and jitter only.
inline RunResult run_expire_then_delete(const LockFactory& make,
                                        const ExpireThenDeleteOptions& o = {}) {
  const int64_t lease_us = std::chrono::duration_cast<Micros>(o.lease).count();
  world::WorldOptions options;
  options.seed = o.seed;
  options.faults.latency_min_us = 1000;
  options.faults.latency_max_us = 1000;
  options.time_limit_us = 100 * lease_us + int64_t{60} * 1000 * 1000;
  world::World w(options);
  RunResult r;
  r.seed = o.seed;
  const std::string key = o.key;

  w.spawn_process("A", [&w, &r, &make, key, lease_us](world::ProcessEnv& env) {
    bool armed = false;
    bool fired = false;
    uint64_t unlocking_task = 0;
    ReplyHookEnv hooked(env, [&] {
      if (!armed || fired || env.task_id() != unlocking_task) return;
      fired = true;
      r.findings.push_back("A paused at t=" + world::format_time_ms(w.now().count()) + " for " +
                           world::format_time_ms(lease_us / 2) +
                           ", right after the first reply of its unlock");
      w.pause_process(env.process_id(), w.now(), Micros(lease_us / 2));
      env.sleep_for(Micros(0));  // the pause begins here
    });
    auto lk = make(hooked, key);
    env.record_acquire_start(key, Micros(lease_us));
    const bool acquired = lk->try_lock_for(Micros(lease_us));
    env.record_acquire_end(key, acquired);
    if (!acquired) {
      r.findings.push_back("A did not get the lock at the start: the schedule did not happen");
      return;
    }
    env.enter_critical(key);
    const lock::EnvTime until(Micros(lease_us * 9 / 10));
    if (env.now() < until) env.sleep_for(until - env.now());
    env.leave_critical(key);
    armed = true;
    unlocking_task = env.task_id();
    std::string error;
    const bool released = lk->unlock(error);
    armed = false;
    r.findings.push_back(std::string("A's unlock: ") + (released ? "released" : "not released") +
                         (error.empty() ? "" : " (" + error + ")"));
    if (!fired) r.findings.push_back("A's unlock made no Redis call: A was never paused");
  });
  const Micros wait(20 * lease_us);
  spawn_client(w, "B", make, key, {world::Attempt{0, lease_us * 8 / 10, 0}}, wait,
               Micros(lease_us / 10));
  spawn_client(w, "C", make, key, {world::Attempt{0, lease_us * 2 / 10, 0}}, wait,
               Micros(lease_us * 12 / 10));
  w.run();
  r.history = w.history();
  r.violations = check_all(r.history, 2 * lease_us);
  return r;
}

}  // namespace redsim::harness
