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
//   // Your own code inside the critical section (validity checks, extends,
//   // writes through a fencing token) runs in place of the plain work sleep:
//   auto fenced = harness::lock_factory(
//       [](lock::Env& env, const std::string& key) { return MyFencedLock(env, key); },
//       [](harness::Section& s, MyFencedLock& lock) {
//         s.do_work();                          // the plan's time inside
//         s.write_fenced(lock.token());         // Kleppmann's storage service
//       });
//
// What a client does (run_attempts): for each attempt, sleep `think`,
// try_lock_for(wait); when that returns true, enter the critical section,
// run the section's body (sleep `work`, or your `inside`), leave it,
// unlock(). A client process may run several tasks (threads) that each do
// so, with a lock object each or one shared object. Everything is recorded
// in the history (acquire start/end, enter/leave, the unlock's outcome) for
// the checkers. A lock::ConnectionError from try_lock_for or unlock is the
// lock reporting an unknown outcome (a timeout, a reset): recorded as such,
// and the client goes on with its next attempt; any other exception that
// escapes try_lock_for is a task error. Times are virtual: a run of seconds
// takes milliseconds of wall time.
//
// Lease validity: a lock may say until when its acquisition is its holder's
// alone (valid_until() on the client's Env clock, or validity_left(): see
// lock_under_test.h). The harness records that promise (kValidity, at the
// true time the holder's clock reads the deadline), bounds the section by
// it (ValidityMode: cut at the deadline, or use all of it), and the
// validity checker (check_validity) flags two owners promised the resource
// at once; a lock that promises nothing runs as before.
//
// Checkers (check_all, see CheckOptions): mutual exclusion, holders inside
// their section after their lease ended (held-past-lease), writes to a lock
// key that holds another owner's mark (foreign-write), lock keys nobody
// holds (ghost-lock), the token order of FencedResource writes (fencing),
// liveness within a bound, and exceptions escaping a client (task-error).
// The lock-key checkers read the command log: they need nothing from your
// lock but that it keeps its lock in the key it was given (checkers.h).
//
// Seeds: a run is a function of its seed (client ids, tokens, jitter,
// latency and random faults). default_seed() reads REDSIM_SEED from the
// environment, so a failure printed with "seed 7" replays with
// REDSIM_SEED=7 and the same test.
//
// Strategies: a plan's `strategy` (sim/world/pct.h) picks how a run orders
// what is left to chance: random (the default), PCT (pct:D), or one
// exhaustive schedule; explore_exhaustive() below searches every schedule of
// a small plan up to a bound (sim/world/explore/exhaustive.h) and answers with a
// failing schedule or "no violation in all N schedules".
//
// Namespace redsim::harness (not redsim::testing, which would shadow
// GoogleTest's ::testing inside namespace redsim).
#pragma once

#include <algorithm>
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
#include "lock/errors.h"
#include "lock/lock.h"
#include "sim/world/checkers.h"
#include "sim/world/explore/explore.h"
#include "sim/world/fenced_resource.h"
#include "sim/world/forwarding_env.h"
#include "sim/world/history.h"
#include "sim/world/prng.h"
#include "sim/world/testing/lock_under_test.h"
#include "sim/world/world.h"

namespace redsim::harness {

using Micros = std::chrono::microseconds;

// The lock key the harness's clients contend for unless told otherwise.
inline constexpr const char* kDefaultKey = "lock:test";

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
  int tasks = 1;             // tasks (threads) of the process, each running the attempts
  bool shared_lock = false;  // the tasks share one lock object (else one each)
  // How long a section lasts when the lock promised a validity (lock_under_test.h).
  ValidityMode validity = ValidityMode::kStopAtDeadline;
};

// The body of one task: `attempts` in order against `lk` on `key`, each
// recorded for the checkers. `lk` must have been made with `env` (or an Env
// forwarding to it). A validity the lock promised at an acquisition is
// recorded (kValidity) before the section, which `validity` then bounds.
inline void run_attempts(world::ProcessEnv& env, LockUnderTest& lk, const std::string& key,
                         const std::vector<world::Attempt>& attempts, Micros wait,
                         ValidityMode validity = ValidityMode::kStopAtDeadline) {
  for (const world::Attempt& a : attempts) {
    env.sleep_for(Micros(a.think_us));
    env.record_acquire_start(key, wait);
    bool acquired = false;
    try {
      acquired = lk.try_lock_for(wait);
    } catch (const lock::ConnectionError& e) {
      // The lock says it does not know whether it got the lock.
      env.record_acquire_error(key, e.what());
      continue;
    }
    env.record_acquire_end(key, acquired);
    if (!acquired) continue;
    const std::optional<lock::EnvTime> valid_until = lk.valid_until();
    if (valid_until) env.record_validity(key, *valid_until);
    env.enter_critical(key);
    Section section(env, key, Micros(a.work_us), valid_until, validity);
    lk.inside(section);
    env.leave_critical(key);
    std::string detail;
    const world::UnlockOutcome outcome = lk.unlock(detail);
    env.record_unlock_end(key, outcome, detail);
  }
}

inline std::vector<world::Attempt> attempts_of(const ClientOptions& o) {
  world::Attempt a;
  a.think_us = o.think.count();
  a.work_us = o.work.count();
  return std::vector<world::Attempt>(static_cast<size_t>(o.attempts > 0 ? o.attempts : 0), a);
}

// A client process of a run (see spawn_client).
struct ClientSpec {
  std::vector<world::Attempt> attempts;
  Micros wait = std::chrono::seconds(2);  // try_lock_for budget of each attempt
  Micros start_at{0};
  std::optional<uint64_t> stream;  // World::spawn_process's random stream
  int tasks = 1;                   // tasks that each run `attempts`
  bool shared_lock = false;        // one lock object for all tasks (else one each)
  // How long a section lasts when the lock promised a validity (lock_under_test.h).
  ValidityMode validity = ValidityMode::kStopAtDeadline;
};

// Spawns a client process `name` in `w` whose tasks make their lock with
// `make` on `key` and run their attempts. The main task is the first; it
// waits for the others before the process ends.
inline world::ProcessId spawn_client(world::World& w, std::string name, LockFactory make,
                                     const std::string& key, ClientSpec spec) {
  return w.spawn_process(
      std::move(name),
      [make = std::move(make), key, spec](world::ProcessEnv& env) {
        std::shared_ptr<LockUnderTest> shared;
        if (spec.shared_lock) shared = make(env, key);
        auto body = [&env, &make, &key, &spec, shared] {
          std::shared_ptr<LockUnderTest> lk = shared ? shared : make(env, key);
          run_attempts(env, *lk, key, spec.attempts, spec.wait, spec.validity);
        };
        const int others = std::max(spec.tasks, 1) - 1;
        if (others == 0) {
          body();
          return;
        }
        // Shared with the tasks: a crash may unwind the main task first.
        std::shared_ptr<lock::Event> done = env.make_event();
        auto left = std::make_shared<int>(others);
        for (int i = 0; i < others; ++i) {
          env.spawn("task" + std::to_string(i + 2), [body, left, done] {
            body();
            if (--*left == 0) done->signal();
          });
        }
        body();
        while (*left > 0) done->wait_for(std::chrono::hours(1));
      },
      spec.start_at, spec.stream);
}

inline world::ProcessId spawn_client(world::World& w, std::string name, LockFactory make,
                                     const std::string& key, std::vector<world::Attempt> attempts,
                                     Micros wait, Micros start_at = Micros(0),
                                     std::optional<uint64_t> stream = {}) {
  return spawn_client(w, std::move(name), std::move(make), key,
                      ClientSpec{std::move(attempts), wait, start_at, stream});
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

// Promises broken (kValidity, "validity"): two owners whose promised
// validity windows on one resource overlap in true time. A window opens
// when the lock says "acquired" and promises a deadline (run_attempts
// records it) and ends at the first of: the true time the holder's clock
// read that deadline, the holder leaving its section (it gave the lock up),
// its process crashing or ending. The lock promised both owners the
// resource at once: antirez's Redlock promises it for validity = TTL -
// elapsed - drift ("Distributed locks with Redis"), so a lock whose
// reported validity forgets the time its acquisition took or the clocks'
// drift, or counts from a retry after the key was set, is caught here even
// when no section overlaps. Each overlapping pair is one violation whose
// excerpt shows both VALID lines and where each window ended.
inline std::vector<world::Violation> check_validity(const world::History& h) {
  struct Window {
    world::ProcessId process = 0;
    world::TaskId task = 0;
    std::string resource;
    int64_t start_us = 0;
    int64_t end_us = 0;
    size_t opened = 0;             // the kValidity event
    std::optional<size_t> closed;  // the event that ended it early
  };
  std::vector<Window> windows;
  std::vector<size_t> open;  // indices into windows
  auto close = [&](size_t w, const world::HistoryEvent& e, size_t i) {
    if (e.t_us < windows[w].end_us) {
      windows[w].end_us = e.t_us;
      windows[w].closed = i;
    }
  };
  for (size_t i = 0; i < h.size(); ++i) {
    const world::HistoryEvent& e = h[i];
    if (e.kind == world::EventKind::kValidity) {
      Window w;
      w.process = e.process;
      w.task = e.task;
      w.resource = e.resource;
      w.start_us = e.t_us;
      w.end_us = std::max(e.value, e.t_us);
      w.opened = i;
      open.push_back(windows.size());
      windows.push_back(std::move(w));
      continue;
    }
    const bool process_gone =
        e.kind == world::EventKind::kProcessCrash || e.kind == world::EventKind::kProcessEnd;
    const bool task_done = e.kind == world::EventKind::kLeaveCritical ||
                           e.kind == world::EventKind::kAcquireStart ||
                           e.kind == world::EventKind::kTaskEnd;
    if (!process_gone && !task_done) continue;
    for (size_t k = 0; k < open.size();) {
      Window& w = windows[open[k]];
      const bool ends =
          w.process == e.process &&
          (process_gone || (w.task == e.task &&
                            (e.kind == world::EventKind::kTaskEnd || w.resource == e.resource)));
      if (ends) {
        close(open[k], e, i);
        open.erase(open.begin() + static_cast<ptrdiff_t>(k));
      } else {
        ++k;
      }
    }
  }
  std::vector<world::Violation> out;
  auto who = [](const Window& w) {
    return "c" + std::to_string(w.process) + "/" + std::to_string(w.task);
  };
  auto span = [&h](const Window& w) {
    std::string text =
        "[t=" + world::format_time_ms(w.start_us) + ", t=" + world::format_time_ms(w.end_us) + "]";
    if (w.closed) {
      text += " (ended early: " + std::string(world::to_string(h[*w.closed].kind)) + ")";
    }
    return text;
  };
  for (size_t a = 0; a < windows.size(); ++a) {
    for (size_t b = a + 1; b < windows.size(); ++b) {
      const Window& x = windows[a];
      const Window& y = windows[b];
      if (x.resource != y.resource || (x.process == y.process && x.task == y.task)) continue;
      if (!(y.start_us < x.end_us && x.start_us < y.end_us)) continue;
      world::Violation v;
      v.checker = "validity";
      v.description =
          who(y) + " was promised " + y.resource + " for " + span(y) + " while " + who(x) +
          "'s promise " + span(x) + " still held: the lock promised both at once (overlap " +
          world::format_time_ms(std::min(x.end_us, y.end_us) - std::max(x.start_us, y.start_us)) +
          ")";
      v.events = {x.opened, y.opened};
      if (x.closed) v.events.push_back(*x.closed);
      if (y.closed) v.events.push_back(*y.closed);
      std::sort(v.events.begin(), v.events.end());
      world::TimelineOptions t;
      t.focus = v.events;
      v.timeline = world::render_timeline(h, t);
      out.push_back(std::move(v));
    }
  }
  return out;
}

// Which checkers check_all runs. The defaults judge everything a correct
// lock must keep when every holder stays inside its lease (the budgeted
// fault profile, and any world without faults).
struct CheckOptions {
  // No two owners inside at once.
  bool mutual_exclusion = true;
  // No holder inside after its lock key lost its mark (check_held_past_lease).
  bool held_past_lease = true;
  // No write to a key holding another owner's mark (check_foreign_writes).
  bool foreign_writes = true;
  // No ghost lock outliving this (check_ghost_locks); nullopt: not checked.
  std::optional<Micros> ghost_bound = std::chrono::milliseconds(10);
  // Liveness within this bound (check_liveness); nullopt: not checked.
  std::optional<Micros> liveness_bound;
  // The token order of FencedResource writes (check_fencing).
  bool fencing = true;
  // Exceptions escaping a client (check_task_errors).
  bool task_errors = true;
  // No two owners' promised validity windows overlap (check_validity); judges
  // only locks that report a validity (ReportsValidUntil, ReportsValidityLeft).
  bool validity = true;

  // Under unbounded faults (pauses and clock jumps past the lease) every
  // lease-based lock lets holders overlap (Kleppmann 2016); what is judged
  // is what the lock does beyond that: foreign writes, ghost locks, the
  // fencing order of the writes it protects, and task errors.
  static CheckOptions unbounded(std::optional<Micros> ghost_bound) {
    CheckOptions o;
    o.mutual_exclusion = false;
    o.held_past_lease = false;
    o.validity = false;
    o.ghost_bound = ghost_bound;
    return o;
  }
};

inline std::vector<world::Violation> check_all(const world::History& h, const CheckOptions& o) {
  std::vector<world::Violation> out;
  auto add = [&out](std::vector<world::Violation> v) {
    out.insert(out.end(), std::make_move_iterator(v.begin()), std::make_move_iterator(v.end()));
  };
  if (o.mutual_exclusion) add(world::check_mutual_exclusion(h));
  if (o.held_past_lease) add(world::check_held_past_lease(h));
  if (o.foreign_writes) add(world::check_foreign_writes(h));
  if (o.ghost_bound) add(world::check_ghost_locks(h, {.bound_us = o.ghost_bound->count()}));
  if (o.liveness_bound) {
    add(world::check_liveness(h, o.liveness_bound->count(), world::excused_holds(h)));
  }
  if (o.fencing) {
    add(world::check_fencing(h));
    add(world::check_fenced_order(h));
  }
  if (o.task_errors) add(check_task_errors(h));
  if (o.validity) add(check_validity(h));
  return out;
}

// check_all with the default CheckOptions and liveness within
// `liveness_bound` (nullopt: not checked).
inline std::vector<world::Violation> check_all(const world::History& h,
                                               std::optional<Micros> liveness_bound) {
  CheckOptions o;
  o.liveness_bound = liveness_bound;
  return check_all(h, o);
}

// How a report shows each violation's excerpt of the history.
struct ExcerptOptions {
  size_t context_events = 8;    // events shown around each event of the violation
  size_t max_text_chars = 48;   // longer arguments and replies are cut with "..."
  bool whole_timeline = false;  // the whole history instead of excerpts
  bool key_states = false;      // every kKeyState line, not only the violation's own
};

// The outcome of one run.
struct RunResult {
  uint64_t seed = 0;
  std::vector<world::Violation> violations;
  std::vector<std::string> findings;  // what the schedule observed, one line each
  world::History history;
  ExcerptOptions excerpt;  // how report() shows the history
  // Exhaustive strategy (plan.strategy.bound >= 0, sim/world/explore/exhaustive.h):
  // the choice points the run met, and whether the sleep sets cut it short
  // as redundant (then it is not judged: `violations` is empty).
  std::vector<world::ChoicePoint> choices;
  bool pruned = false;

  bool safe() const { return violations.empty(); }
  // Some violation came from `checker` ("mutual-exclusion", "liveness", "task-error", ...).
  bool has(std::string_view checker) const {
    for (const auto& v : violations) {
      if (v.checker == checker) return true;
    }
    return false;
  }
};

// Seed, findings, every violation with its excerpt (every event that proves
// it, each with r.excerpt.context_events around it; or the whole timeline),
// and the replay line.
inline std::string report(const RunResult& r, std::string_view replay) {
  std::ostringstream out;
  out << "seed " << r.seed << ": " << r.violations.size() << " violation(s)\n";
  for (const auto& f : r.findings) out << "  " << f << "\n";
  for (const world::Violation& v : r.violations) {
    out << "VIOLATION (" << v.checker << "): " << v.description << "\n";
    world::TimelineOptions t;
    t.focus = v.events;
    t.context_events = r.excerpt.context_events;
    t.max_text_chars = r.excerpt.max_text_chars;
    t.key_states = r.excerpt.key_states;
    t.whole_history = r.excerpt.whole_timeline;
    out << world::render_timeline(r.history, t);
  }
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

// How run_plan runs a plan and judges it.
struct RunOptions {
  std::string key = kDefaultKey;  // the lock key every client contends for
  // The tasks of a client share one lock object (else one each).
  bool shared_lock = false;
  // The checkers; by default (nullopt) the plan's fault mode decides:
  // CheckOptions{} with liveness within liveness_bound(plan) for budgeted
  // plans, CheckOptions::unbounded for unbounded ones; ghosts outliving a
  // quarter lease (ghost_bound(plan)) in both.
  std::optional<CheckOptions> checks;
  ExcerptOptions excerpt;
  // How long a section lasts when the lock promised a validity
  // (lock_under_test.h); with kUseWholeValidity the default checks judge the
  // promise instead of the section (default_checks).
  ValidityMode validity = ValidityMode::kStopAtDeadline;
  // Exhaustive strategy: the sections may write the world's FencedResources
  // (Section::write_fenced), memory every client shares, so the reduction
  // keeps the orders of two clients' runs that may write one (exhaustive.h,
  // case 13). Set false for a lock whose sections never write one: its
  // search then treats two clients' runs as independent (fewer schedules).
  bool fenced_writes = true;
};

// A free lock must be taken by a waiter within this (world::liveness_bound_us
// plus what the plan's faults add: a server's downtime, a partition, a
// command timeout). world::liveness_bound_us allows a waiter "a few round
// trips" (8 latencies); with several servers each attempt of a Redlock-style
// lock makes one round trip to every server (in turn, when written against
// Env's blocking calls), and contending waiters that split the vote all
// retry, so the allowance scales with the servers: 8 latencies per server.
// (redsim's lock::Redlock on 5 servers, three waiters starting together:
// split votes kept the lock free but untaken for 188-224 ms, past bounds
// of 166-206 ms, in 1 of about 2,000 cases.)
inline Micros liveness_bound(const world::ExplorePlan& plan) {
  const int64_t more_servers = plan.servers > 1 ? static_cast<int64_t>(plan.servers) - 1 : 0;
  return Micros(world::liveness_bound_us(plan) + plan.faults.server_down_max.count() +
                plan.faults.partition_max.count() +
                2 * plan.command_timeout.value_or(Micros{0}).count() +
                8 * more_servers * plan.faults.latency_max.count());
}
inline Micros ghost_bound(const world::ExplorePlan& plan) {
  return Micros(std::max<int64_t>(plan.lease_ms * 1000 / 4, 1000));
}

// The checks run_plan applies to `plan` when RunOptions::checks is not set.
// With ValidityMode::kUseWholeValidity a holder stays inside until its
// deadline, and a pause there makes it leave late whatever the lock did, so
// the validity checker judges the promise in place of mutual-exclusion and
// held-past-lease (a budgeted plan's stalls fit a lease, not the slack
// after a deadline).
inline CheckOptions default_checks(const world::ExplorePlan& plan,
                                   ValidityMode validity = ValidityMode::kStopAtDeadline) {
  if (plan.fault_mode == world::FaultMode::kUnbounded && plan.fault_set) {
    return CheckOptions::unbounded(ghost_bound(plan));
  }
  CheckOptions o;
  o.liveness_bound = liveness_bound(plan);
  o.ghost_bound = ghost_bound(plan);
  if (validity == ValidityMode::kUseWholeValidity) {
    o.mutual_exclusion = false;
    o.held_past_lease = false;
  }
  return o;
}

// Runs `plan` (see sim/world/explore/explore.h) with the lock `make` builds: one
// client process per ClientPlan (with its tasks), each with its own random
// stream, the plan's seed, faults, servers, replicas, persistence and
// command timeout, and each attempt's wait. The plan's kind is not used;
// lease_ms only sizes the bounds (the lock has its own lease: draw plans for
// it, see generators.h). Deterministic.
inline RunResult run_plan(const world::ExplorePlan& plan, const LockFactory& make,
                          const RunOptions& run) {
  world::WorldOptions options;
  options.seed = plan.seed;
  options.faults = plan.faults;
  // An exhaustive world takes every latency at least 1 us, as the small
  // worlds do (world::apply_small_world_latency): a search and a replay of
  // its schedule run the same world.
  options.strategy = plan.strategy;
  if (plan.strategy.exhaustive()) {
    world::apply_small_world_latency(options.faults);
    // A section may write the world's FencedResources (Section::write_fenced):
    // the reduction keeps their writes' orders (exhaustive.h, case 13).
    options.strategy.fence_writes = run.fenced_writes;
  }
  options.pct_steps = world::pct_steps(plan);
  options.time_limit_us = int64_t{600} * 1000 * 1000;
  options.command_timeout = plan.command_timeout;
  options.replicas = plan.replicas;
  options.replication_lag_max_us = plan.replication_lag_max_us;
  options.persistence = plan.persistence;
  options.servers = plan.servers;
  world::World w(options);
  for (size_t i = 0; i < plan.clients.size(); ++i) {
    const world::ClientPlan& c = plan.clients[i];
    spawn_client(w, "client" + std::to_string(i + 1), make, run.key,
                 ClientSpec{c.attempts, std::chrono::milliseconds(plan.wait_ms), Micros(0),
                            c.stream, c.tasks, run.shared_lock, run.validity});
  }
  const world::World::RunEnd end = w.run();
  RunResult r;
  r.seed = plan.seed;
  r.history = w.history();
  r.choices = w.choice_points();
  r.pruned = end == world::World::RunEnd::kPruned;
  if (!r.pruned) {
    r.violations =
        check_all(r.history, run.checks ? *run.checks : default_checks(plan, run.validity));
  }
  r.excerpt = run.excerpt;
  return r;
}

// The exhaustive search over a user's lock (sim/world/explore/exhaustive.h): every
// schedule of `plan` (keep it small: world::generate_small_plan's 1..3
// clients x 1..2 attempts, or generators.h's plans cut the same way) with at
// most `bound` latency / fault deviations, at most `max_runs` runs. The
// sleep-set reduction assumes the clients share no memory outside the world
// but its FencedResources, whose writes it orders unless run.fenced_writes
// is false (exhaustive.h, case 13); a factory that hands every client the
// same object breaks that: pass reduce = false. Every message takes at least
// 1 us in the searched world (world::apply_small_world_latency, as in
// generate_small_plan's worlds; run_plan applies it to any exhaustive plan):
// ties whose first event commutes with the rest then need no choice.
// `failure`: the first failing schedule's run, whose
// plan.strategy.schedule (in `failing_plan`) replays it through run_plan.
struct ExhaustiveRunResult {
  world::ExhaustiveResult search;
  std::optional<RunResult> failure;
  world::ExplorePlan failing_plan;
};
inline ExhaustiveRunResult explore_exhaustive(world::ExplorePlan plan, const LockFactory& make,
                                              int bound = 2, const RunOptions& run = {},
                                              bool reduce = true, uint64_t max_runs = 1'000'000) {
  plan.strategy =
      world::Strategy{.bound = bound, .reduce = reduce, .fence_writes = run.fenced_writes};
  // The rule run_plan applies to every exhaustive world, made visible in
  // failing_plan (and its REDSIM_PLAN line).
  world::apply_small_world_latency(plan.faults);
  ExhaustiveRunResult out;
  out.search = world::search_schedules(
      bound,
      [&](const std::vector<uint32_t>& prefix, const std::vector<uint64_t>& narrow) {
        world::ExplorePlan p = plan;
        p.strategy.schedule = prefix;
        p.strategy.narrow = narrow;
        RunResult r = run_plan(p, make, run);
        return world::ScheduleRun{.failed = !r.safe(), .pruned = r.pruned, .points = r.choices};
      },
      max_runs);
  if (out.search.counterexample) {
    out.failing_plan = plan;
    out.failing_plan.strategy.schedule = *out.search.counterexample;
    out.failing_plan.strategy.narrow = out.search.counterexample_narrow;
    out.failure = run_plan(out.failing_plan, make, run);
  }
  return out;
}

inline RunResult run_plan(const world::ExplorePlan& plan, const LockFactory& make,
                          const std::string& key = kDefaultKey) {
  RunOptions run;
  run.key = key;
  return run_plan(plan, make, run);
}

// A smaller failing plan after RapidCheck's shrinking: drops clients, then
// attempts, while `fails` still holds of the run. Returns `plan` itself when
// nothing smaller fails; at most `max_runs` runs. Deterministic.
//
// Dropping a client rarely leaves the others' runs as they were: a waiting
// client's calls, and so its random latencies and faults, depend on its
// rivals, and RapidCheck's shrinking has moved every time to zero or a
// millisecond, where a failure often hangs on two events of one
// microsecond. So each smaller plan is tried as it is, with up to `reseeds`
// other world seeds (the faults land elsewhere), and, when no client can be
// dropped that way, with up to `retimes` variants whose attempts think and
// work for times redrawn in gen_plan's ranges for the plan's lease (think
// 0..lease/2, work 0..0.4 lease budgeted, 0..lease/2 unbounded, whole ms),
// each with its own world seed: the same clients, faults and attempts at
// other times, which puts the interleaving the dropped client made back.
inline world::ExplorePlan minimize_plan(world::ExplorePlan plan, const LockFactory& make,
                                        const RunOptions& run,
                                        const std::function<bool(const RunResult&)>& fails,
                                        int reseeds = 16, int max_runs = 3000, int retimes = 64) {
  int runs = 0;
  // Seeds stay in gen_seed's range, so a plan prints and replays as any other.
  auto seed_from = [](world::Prng rng) { return 1 + (rng.next_u64() >> 34); };
  auto failing_variant = [&](world::ExplorePlan candidate) -> std::optional<world::ExplorePlan> {
    const uint64_t base = candidate.seed;
    for (int k = 0; k <= reseeds && runs < max_runs; ++k) {
      candidate.seed = k == 0 ? base : seed_from(world::Prng(base).fork(uint64_t(k)));
      ++runs;
      if (fails(run_plan(candidate, make, run))) return candidate;
    }
    return std::nullopt;
  };
  const bool unbounded = plan.fault_mode == world::FaultMode::kUnbounded && plan.fault_set;
  const int64_t think_max_ms = plan.lease_ms / 2;
  const int64_t work_max_ms = unbounded ? plan.lease_ms / 2 : plan.lease_ms * 2 / 5;
  auto failing_retimed =
      [&](const world::ExplorePlan& candidate) -> std::optional<world::ExplorePlan> {
    for (int k = 1; k <= retimes && runs < max_runs; ++k) {
      world::ExplorePlan variant = candidate;
      world::Prng rng = world::Prng(candidate.seed).fork("retime").fork(uint64_t(k));
      variant.seed = seed_from(world::Prng(candidate.seed).fork("retime-seed").fork(uint64_t(k)));
      for (world::ClientPlan& c : variant.clients) {
        for (world::Attempt& a : c.attempts) {
          a.think_us = rng.uniform(0, think_max_ms) * 1000;
          a.work_us = rng.uniform(0, work_max_ms) * 1000;
        }
      }
      ++runs;
      if (fails(run_plan(variant, make, run))) return variant;
    }
    return std::nullopt;
  };
  auto without_client = [&plan](size_t c) {
    world::ExplorePlan candidate = plan;
    candidate.clients.erase(candidate.clients.begin() + static_cast<ptrdiff_t>(c));
    return candidate;
  };
  bool progress = true;
  while (progress && runs < max_runs) {
    progress = false;
    for (size_t c = 0; c < plan.clients.size() && plan.clients.size() > 1 && !progress; ++c) {
      if (auto smaller = failing_variant(without_client(c))) {
        plan = *smaller;
        progress = true;
      }
    }
    for (size_t c = 0; c < plan.clients.size() && plan.clients.size() > 1 && !progress; ++c) {
      if (auto smaller = failing_retimed(without_client(c))) {
        plan = *smaller;
        progress = true;
      }
    }
    if (progress) continue;
    for (size_t c = 0; c < plan.clients.size() && !progress; ++c) {
      for (size_t a = 0; a < plan.clients[c].attempts.size() && plan.clients[c].attempts.size() > 1;
           ++a) {
        world::ExplorePlan candidate = plan;
        auto& attempts = candidate.clients[c].attempts;
        attempts.erase(attempts.begin() + static_cast<ptrdiff_t>(a));
        if (auto smaller = failing_variant(candidate)) {
          plan = *smaller;
          progress = true;
          break;
        }
      }
    }
  }
  return plan;
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

   private:
    resp::Reply do_call(const lock::Argv& argv, std::optional<lock::Micros> timeout) override {
      resp::Reply r = inner_.call(argv, timeout);
      if (hook_) hook_();
      return r;
    }

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
// mutual-exclusion violation (and A's DEL a foreign write). A
// compare-and-delete script (one command) is all done before the pause and
// cannot be split. Checks: check_all's defaults with liveness within 2 L;
// the findings say what A's unlock did and when it was paused. The seed changes ids, tokens and
// jitter only.
inline RunResult run_expire_then_delete(const LockFactory& make,
                                        const ExpireThenDeleteOptions& o = {}) {
  const int64_t lease_us = std::chrono::duration_cast<Micros>(o.lease).count();
  world::WorldOptions options;
  options.seed = o.seed;
  options.faults.latency_min = world::Micros{1000};
  options.faults.latency_max = world::Micros{1000};
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
    std::string detail;
    const world::UnlockOutcome outcome = lk->unlock(detail);
    armed = false;
    env.record_unlock_end(key, outcome, detail);
    r.findings.push_back("A's unlock: " + std::string(world::to_string(outcome)) +
                         (detail.empty() ? "" : " (" + detail + ")"));
    if (!fired) r.findings.push_back("A's unlock made no Redis call: A was never paused");
  });
  const Micros wait(20 * lease_us);
  spawn_client(w, "B", make, key, {world::Attempt{0, lease_us * 8 / 10, 0}}, wait,
               Micros(lease_us / 10));
  spawn_client(w, "C", make, key, {world::Attempt{0, lease_us * 2 / 10, 0}}, wait,
               Micros(lease_us * 12 / 10));
  w.run();
  r.history = w.history();
  r.violations = check_all(r.history, Micros(2 * lease_us));
  return r;
}

}  // namespace redsim::harness
