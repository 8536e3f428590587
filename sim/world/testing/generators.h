// RapidCheck generators for lock schedules: seeds, fault plans, client
// schedules and whole exploration plans (world::ExplorePlan, see
// sim/world/explore/explore.h), so a property can run your lock over random
// schedules and RapidCheck shrinks a failure to a small one: fewer clients,
// fewer attempts, shorter work, no faults. Link redsim::testing.
//
//   RC_GTEST_PROP(MyLock, NeverTwoHoldersAtOnce, ()) {
//     const auto plan = *redsim::harness::gen_plan(std::chrono::milliseconds(100));
//     redsim::harness::rc_assert_safe(plan, redsim::harness::run_plan(plan, my_lock_factory));
//   }
//
// gen_plan(lease, {.profile = ...}) draws faults with the CLI's names and
// semantics (pause, latency, loss, lost-reply, partition, crash, restart,
// failover, clock; world::draw_faults) in one of two profiles:
// - kBudgeted (the default): every live holder stays inside its lease (a
//   stall budget per lease, not per call), so a correct lock is never
//   flagged, and every checker judges;
// - kUnbounded: pauses, partitions and clock jumps past the lease, servers
//   that lose data; no lease-based lock keeps holders apart there, so the
//   run is judged on what the lock does beyond that (foreign writes, ghost
//   locks, the fencing order of the writes it protects).
// A failure prints the plan, the world seed, the violations with their
// excerpts, and a replay line: REDSIM_PLAN='<plan>' <test binary>
// --gtest_filter=<test>, which makes gen_plan draw exactly that plan.
#pragma once

#include <rapidcheck.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "sim/world/explore/explore.h"
#include "sim/world/testing/gtest.h"
#include "sim/world/testing/harness.h"

namespace redsim::harness {

// A world seed (latency draws, random faults, client ids, tokens).
inline rc::Gen<uint64_t> gen_seed() { return rc::gen::inRange<uint64_t>(1, uint64_t{1} << 30); }

// How far the faults of a generated plan go (see world::FaultMode).
enum class FaultProfile : uint8_t {
  kNone,       // a quiet network: no faults at all
  kBudgeted,   // every live holder stays inside its lease: a correct lock is never flagged
  kUnbounded,  // pauses, partitions and clock jumps past the lease, data-losing restarts
               // and failovers; judged by CheckOptions::unbounded (only what a lock
               // does beyond lease expiry: foreign writes, ghosts, fencing order)
};

// Every fault `redsim check --faults` knows.
inline world::FaultSet all_faults() {
  world::FaultSet f;
  f.pause = f.latency = f.loss = f.lost_reply = f.partition = f.crash = f.restart = f.failover =
      f.clock = true;
  return f;
}

// The faults of a profile as a value: what draw_faults sets, applied to a
// world by apply_to (the fixture: faults.apply_to(world_options())).
struct FaultDraw {
  world::ExplorePlan plan;  // faults, command_timeout, replicas, persistence, fault_set
  void apply_to(world::WorldOptions& o) const {
    o.faults = plan.faults;
    o.command_timeout = plan.command_timeout;
    o.replicas = plan.replicas;
    o.replication_lag_max_us = plan.replication_lag_max_us;
    o.persistence = plan.persistence;
  }
};

// A subset of `allowed`, each fault on with probability 1/2; shrinking
// switches them off.
inline rc::Gen<world::FaultSet> gen_fault_set(const world::FaultSet& allowed) {
  return rc::gen::map(rc::gen::container<std::vector<bool>>(9, rc::gen::arbitrary<bool>()),
                      [allowed](const std::vector<bool>& on) {
                        world::FaultSet f;
                        f.pause = allowed.pause && on[0];
                        f.latency = allowed.latency && on[1];
                        f.loss = allowed.loss && on[2];
                        f.lost_reply = allowed.lost_reply && on[3];
                        f.partition = allowed.partition && on[4];
                        f.crash = allowed.crash && on[5];
                        f.restart = allowed.restart && on[6];
                        f.failover = allowed.failover && on[7];
                        f.clock = allowed.clock && on[8];
                        return f;
                      });
}

// Faults for a lock with lease `lease` under `profile`, drawn from `allowed`
// (world::draw_faults: the CLI's fault names and semantics).
inline rc::Gen<FaultDraw> gen_faults(std::chrono::milliseconds lease,
                                     FaultProfile profile = FaultProfile::kBudgeted,
                                     world::FaultSet allowed = all_faults()) {
  return rc::gen::map(rc::gen::pair(gen_fault_set(allowed), gen_seed()),
                      [lease, profile](const std::pair<world::FaultSet, uint64_t>& p) {
                        FaultDraw d;
                        if (profile == FaultProfile::kNone) return d;
                        world::draw_faults(d.plan, p.first,
                                           profile == FaultProfile::kBudgeted
                                               ? world::FaultMode::kBudgeted
                                               : world::FaultMode::kUnbounded,
                                           lease.count() * 1000, p.second);
                        return d;
                      });
}

namespace detail {

// A list of up to `max` elements, each kept with probability 1/2 and padded
// to `min` from the dropped ones: shrinking turns a flag off, which drops an
// element without moving the others (each client keeps its random stream).
template <class T>
rc::Gen<std::vector<T>> gen_sparse_list(size_t max, size_t min, rc::Gen<T> element) {
  return rc::gen::map(rc::gen::container<std::vector<std::pair<bool, T>>>(
                          max, rc::gen::pair(rc::gen::arbitrary<bool>(), std::move(element))),
                      [min](const std::vector<std::pair<bool, T>>& all) {
                        std::vector<T> out;
                        for (const auto& [on, x] : all) {
                          if (on) out.push_back(x);
                        }
                        for (size_t i = 0; out.size() < min && i < all.size(); ++i) {
                          if (!all[i].first) out.push_back(all[i].second);
                        }
                        return out;
                      });
}

}  // namespace detail

// What gen_plan draws for a user's lock.
struct PlanOptions {
  FaultProfile profile = FaultProfile::kBudgeted;
  world::FaultSet faults = all_faults();  // the faults the profile may switch on
  size_t max_clients = 8;                 // 2..max_clients client processes
  int max_attempts = 4;                   // 1..max_attempts attempts each
  int max_tasks = 1;                      // 1..max_tasks tasks (threads) each
  size_t servers = 1;                     // independent servers (a Redlock-style lock)
  // How each drawn plan's run orders what is left to chance (sim/world/pct.h):
  // random (the default), PCT ({.depth = d} or world::parse_strategy("pct:3")),
  // or one exhaustive schedule. The plan carries it, so run_plan and the
  // REDSIM_PLAN replay line use it too.
  world::Strategy strategy = {};
};

// One client's schedule for a lock with lease `lease`: its random stream,
// 1..max_tasks tasks and 1..max_attempts attempts, each thinking
// 0..lease/2 and working 0..`work_max` (whole ms).
inline rc::Gen<world::ClientPlan> gen_client(std::chrono::milliseconds lease,
                                             std::chrono::milliseconds work_max,
                                             int max_attempts = 4, int max_tasks = 1) {
  const int64_t half_ms = lease.count() / 2;
  auto attempt = rc::gen::map(rc::gen::pair(rc::gen::inRange<int64_t>(0, half_ms + 1),
                                            rc::gen::inRange<int64_t>(0, work_max.count() + 1)),
                              [](const std::pair<int64_t, int64_t>& p) {
                                return world::Attempt{p.first * 1000, p.second * 1000, 0};
                              });
  return rc::gen::map(
      rc::gen::tuple(rc::gen::inRange<uint32_t>(1, 1u << 30),
                     detail::gen_sparse_list<world::Attempt>(
                         static_cast<size_t>(std::max(max_attempts, 1)), 1, attempt),
                     rc::gen::inRange(1, std::max(max_tasks, 1) + 1)),
      [](const std::tuple<uint32_t, std::vector<world::Attempt>, int>& t) {
        world::ClientPlan c;
        c.stream = std::get<0>(t);
        c.attempts = std::get<1>(t);
        c.tasks = std::get<2>(t);
        return c;
      });
}
inline rc::Gen<world::ClientPlan> gen_client(std::chrono::milliseconds lease) {
  return gen_client(lease, lease / 2);
}

// A plan drawn for a user's lock: an ExplorePlan (run it with run_plan) that
// RapidCheck prints without the lock kind, which a user's lock does not have.
struct LockSchedule : world::ExplorePlan {};

inline void showValue(const LockSchedule& schedule, std::ostream& os) {
  os << describe_schedule(schedule);
}

namespace detail {

// A plan field as the integer its text form holds: a duration's count of
// microseconds, a Ppm's parts, an enum's or an integer's value.
template <class T>
int64_t field_int(const T& v) {
  if constexpr (std::is_same_v<T, world::Micros>) {
    return v.count();
  } else if constexpr (std::is_same_v<T, std::optional<world::Micros>>) {
    return v ? v->count() : 0;  // nullopt (the field's default) as 0
  } else if constexpr (std::is_same_v<T, world::Ppm>) {
    return v.parts();
  } else {
    return static_cast<int64_t>(v);
  }
}

// Sets a plan field from its integer (field_int's inverse; 0 reads back as
// nullopt for an optional duration).
template <class T>
void field_from_int(T& field, int64_t v) {
  if constexpr (std::is_same_v<T, std::optional<world::Micros>>) {
    field = v == 0 ? std::nullopt : std::optional(world::Micros{v});
  } else {
    field = static_cast<T>(v);
  }
}

// Every field of a FaultPlan, in declaration order (see field_int).
template <class Plan, class Visit>
void visit_fault_fields(Plan& f, Visit&& visit) {
  visit(f.latency_distribution);
  visit(f.latency_min);
  visit(f.latency_max);
  visit(f.latency_tail_ppm);
  visit(f.latency_tail_max);
  visit(f.loss_ppm);
  visit(f.loss_executed_ppm);
  visit(f.lost_reply_ppm);
  visit(f.delay_ppm);
  visit(f.delay_min);
  visit(f.delay_max);
  visit(f.partition_ppm);
  visit(f.partition_min);
  visit(f.partition_max);
  visit(f.pause_ppm);
  visit(f.pause_min);
  visit(f.pause_max);
  visit(f.task_pause_ppm);
  visit(f.crash_ppm);
  visit(f.restart_ppm);
  visit(f.restart_min);
  visit(f.restart_max);
  visit(f.clock_drift_ppm_max);
  visit(f.clock_jump_ppm);
  visit(f.server_clock_jump_ppm);
  visit(f.clock_jump_max);
  visit(f.server_crash_ppm);
  visit(f.server_down_min);
  visit(f.server_down_max);
  visit(f.failover_ppm);
  visit(f.stall_budget);
  visit(f.stall_budget_window);
}

template <class Plan, class Visit>
void visit_plan_fields(Plan& p, Visit&& visit) {
  visit(p.seed);
  visit(p.lease_ms);
  visit(p.wait_ms);
  visit(p.retry_backoff_max_us);
  visit(p.servers);
  visit(p.replicas);
  visit(p.replication_lag_max_us);
  visit(p.persistence);
  visit(p.command_timeout);
  visit(p.fault_mode);
  visit_fault_fields(p.faults, visit);
}

// plan.fault_set as bits in kFaultNames order, with bit 9 for "present".
inline int64_t fault_set_bits(const std::optional<world::FaultSet>& f) {
  if (!f) return 0;
  const bool on[] = {f->pause, f->latency, f->loss,     f->lost_reply, f->partition,
                     f->crash, f->restart, f->failover, f->clock};
  int64_t bits = 1 << 9;
  for (int i = 0; i < 9; ++i) bits |= on[i] ? int64_t{1} << i : 0;
  return bits;
}
inline std::optional<world::FaultSet> fault_set_of(int64_t bits) {
  if ((bits & (1 << 9)) == 0) return std::nullopt;
  world::FaultSet f;
  bool* on[] = {&f.pause, &f.latency, &f.loss,     &f.lost_reply, &f.partition,
                &f.crash, &f.restart, &f.failover, &f.clock};
  for (int i = 0; i < 9; ++i) *on[i] = (bits >> i) & 1;
  return f;
}

}  // namespace detail

// A compact one-line form of a plan (every field run_plan reads), for the
// REDSIM_PLAN replay variable: "p1/<plan fields>[/s=<strategy>]/<client>/<client>...",
// the strategy part only when not random (world::strategy_name's text), each
// client "stream.tasks.think.work.nested.think.work.nested...". parse_plan
// reads it back (nullopt for anything else).
inline std::string encode_plan(const world::ExplorePlan& plan) {
  std::string out = "p1";
  char sep = '/';
  detail::visit_plan_fields(plan, [&](const auto& field) {
    out += sep;
    out += std::to_string(detail::field_int(field));
    sep = ',';
  });
  out += "," + std::to_string(detail::fault_set_bits(plan.fault_set));
  // A strategy other than random as a part of its own: "/s=pct:3".
  if (!plan.strategy.random()) out += "/s=" + world::strategy_name(plan.strategy);
  for (const world::ClientPlan& c : plan.clients) {
    out += "/" + std::to_string(c.stream) + "." + std::to_string(c.tasks);
    for (const world::Attempt& a : c.attempts) {
      out += "." + std::to_string(a.think_us) + "." + std::to_string(a.work_us) + "." +
             std::to_string(a.nested);
    }
  }
  return out;
}

inline std::optional<world::ExplorePlan> parse_plan(std::string_view text) {
  auto numbers = [](std::string_view part, char sep) -> std::optional<std::vector<int64_t>> {
    std::vector<int64_t> out;
    while (!part.empty()) {
      const size_t end = std::min(part.find(sep), part.size());
      const std::string item(part.substr(0, end));
      char* stop = nullptr;
      const long long v = std::strtoll(item.c_str(), &stop, 10);
      if (item.empty() || stop == nullptr || *stop != '\0') return std::nullopt;
      out.push_back(v);
      part.remove_prefix(std::min(end + 1, part.size()));
    }
    return out;
  };
  std::vector<std::string_view> parts;
  while (!text.empty()) {
    const size_t end = std::min(text.find('/'), text.size());
    parts.push_back(text.substr(0, end));
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  if (parts.size() < 2 || parts[0] != "p1") return std::nullopt;
  const auto fields = numbers(parts[1], ',');
  if (!fields) return std::nullopt;
  world::ExplorePlan plan;
  size_t i = 0;
  bool ok = true;
  detail::visit_plan_fields(plan, [&](auto& field) {
    if (i >= fields->size()) {
      ok = false;
      return;
    }
    detail::field_from_int(field, (*fields)[i++]);
  });
  if (!ok || i + 1 != fields->size()) return std::nullopt;
  plan.fault_set = detail::fault_set_of((*fields)[i]);
  size_t first_client = 2;
  if (parts.size() > 2 && parts[2].starts_with("s=")) {
    try {
      plan.strategy = world::parse_strategy(parts[2].substr(2));
    } catch (const std::invalid_argument&) {
      return std::nullopt;
    }
    first_client = 3;
  }
  for (size_t c = first_client; c < parts.size(); ++c) {
    const auto v = numbers(parts[c], '.');
    if (!v || v->size() < 2 || (v->size() - 2) % 3 != 0) return std::nullopt;
    world::ClientPlan client;
    client.stream = static_cast<uint64_t>((*v)[0]);
    client.tasks = static_cast<int>((*v)[1]);
    for (size_t k = 2; k < v->size(); k += 3) {
      client.attempts.push_back(
          world::Attempt{(*v)[k], (*v)[k + 1], static_cast<int>((*v)[k + 2])});
    }
    plan.clients.push_back(std::move(client));
  }
  return plan;
}

// A plan of 2..options.max_clients clients for a lock with lease `lease`:
// seed, faults of options.profile (gen_faults), servers, clients
// (gen_client; work up to 0.4 lease under the budgeted profile, so that a
// holder's work, a few round trips and the stall budget fit in its lease),
// each attempt waiting up to 20 leases. plan.kind is unused (kSimple);
// plan.lease_ms is `lease` and plan.retry_backoff_max_us lease/10, which
// the liveness bound reads: the lock's retry interval while waiting should
// stay below lease/10. When the environment variable REDSIM_PLAN holds an
// encoded plan (a failure's replay line prints it), that plan is drawn
// instead, every time.
inline rc::Gen<LockSchedule> gen_plan(std::chrono::milliseconds lease, const PlanOptions& options) {
  if (const char* replay = std::getenv("REDSIM_PLAN"); replay != nullptr && *replay != '\0') {
    const std::optional<world::ExplorePlan> plan = parse_plan(replay);
    if (!plan) throw std::invalid_argument("REDSIM_PLAN is not a plan: " + std::string(replay));
    LockSchedule s;
    static_cast<world::ExplorePlan&>(s) = *plan;
    return rc::gen::just(s);
  }
  const auto work_max = options.profile == FaultProfile::kBudgeted ? lease * 2 / 5 : lease / 2;
  return rc::gen::map(
      rc::gen::tuple(gen_seed(), gen_faults(lease, options.profile, options.faults),
                     detail::gen_sparse_list<world::ClientPlan>(
                         std::max<size_t>(options.max_clients, 2), 2,
                         gen_client(lease, work_max, options.max_attempts, options.max_tasks))),
      [lease, servers = options.servers, strategy = options.strategy](
          const std::tuple<uint64_t, FaultDraw, std::vector<world::ClientPlan>>& t) {
        LockSchedule plan;
        static_cast<world::ExplorePlan&>(plan) = std::get<1>(t).plan;
        plan.kind = lock::LockKind::kSimple;
        plan.seed = std::get<0>(t);
        plan.lease_ms = lease.count();
        plan.wait_ms = 20 * lease.count();
        plan.retry_backoff_max_us = lease.count() * 100;
        plan.servers = std::max<size_t>(servers, 1);
        plan.clients = std::get<2>(t);
        plan.strategy = strategy;
        return plan;
      });
}

// The plan of the budgeted profile with every fault and up to `max_clients` clients.
inline rc::Gen<LockSchedule> gen_plan(std::chrono::milliseconds lease, size_t max_clients = 8) {
  PlanOptions o;
  o.max_clients = max_clients;
  return gen_plan(lease, o);
}

// RC_FAIL with the seed, every violation and its excerpt, and a replay line
// that runs exactly this plan again (REDSIM_PLAN=... with the current
// GoogleTest test), unless `r` is safe. RapidCheck prints the (shrunk) plan
// before it.
inline void rc_assert_safe(const world::ExplorePlan& plan, const RunResult& r) {
  if (r.safe()) return;
  const std::string test = current_test_name();
  RC_FAIL(report(r, "REDSIM_PLAN='" + encode_plan(plan) + "' " +
                        replay_hint(plan.seed, test).substr(replay_hint(plan.seed).find(' ') + 1)));
}

// --- redsim's own lock kinds (lock::LockKind), as props/ explores them ---

// One attempt of a redsim lock kind: think 0..50 ms, work 0..50 ms (string
// kinds) or 0..1500 ms with 0..2 nested lock/unlock pairs (reentrant).
inline rc::Gen<world::Attempt> gen_attempt(lock::LockKind kind) {
  const bool string_kind = !lock::is_reentrant_kind(kind);
  const int work_max_ms = string_kind ? 50 : 1500;
  const int nested_max = string_kind ? 0 : 2;
  return rc::gen::map(rc::gen::tuple(rc::gen::inRange(0, 51), rc::gen::inRange(0, work_max_ms + 1),
                                     rc::gen::inRange(0, nested_max + 1)),
                      [](const std::tuple<int, int, int>& t) {
                        world::Attempt a;
                        a.think_us = std::get<0>(t) * 1000;
                        a.work_us = std::get<1>(t) * 1000;
                        a.nested = std::get<2>(t);
                        return a;
                      });
}

// A plan for a redsim lock kind, run by world::run_plan: 2..8 clients (1..4
// attempts each) with latency, pauses and crashes in the ranges of
// world::generate_plan, under which a correct lock must stay safe.
// `strategy`: how each plan's run orders what is left to chance (pct.h).
inline rc::Gen<world::ExplorePlan> gen_plan(lock::LockKind kind, world::Strategy strategy = {}) {
  // Fixed-length lists of (enabled, value): up to 4 attempts per client and
  // 8 clients, each present with probability 1/2. Shrinking turns the flags
  // off, which drops an element without moving the others (each client keeps
  // its own random stream); lists are padded to the minimum (one attempt,
  // two clients) after generation.
  auto attempts = rc::gen::map(rc::gen::container<std::vector<std::pair<bool, world::Attempt>>>(
                                   4, rc::gen::pair(rc::gen::arbitrary<bool>(), gen_attempt(kind))),
                               [](const std::vector<std::pair<bool, world::Attempt>>& all) {
                                 std::vector<world::Attempt> out;
                                 for (const auto& [on, a] : all) {
                                   if (on) out.push_back(a);
                                 }
                                 if (out.empty()) out.push_back(all.front().second);
                                 return out;
                               });
  auto client = rc::gen::map(
      rc::gen::tuple(rc::gen::arbitrary<bool>(), rc::gen::inRange<uint32_t>(1, 1u << 30), attempts),
      [](const std::tuple<bool, uint32_t, std::vector<world::Attempt>>& t) {
        return std::make_pair(std::get<0>(t), world::ClientPlan{std::get<1>(t), std::get<2>(t)});
      });
  auto clients =
      rc::gen::map(rc::gen::container<std::vector<std::pair<bool, world::ClientPlan>>>(8, client),
                   [](const std::vector<std::pair<bool, world::ClientPlan>>& all) {
                     std::vector<world::ClientPlan> out;
                     for (const auto& [on, c] : all) {
                       if (on) out.push_back(c);
                     }
                     for (size_t i = 0; out.size() < 2; ++i) {
                       if (!all[i].first) out.push_back(all[i].second);
                     }
                     return out;
                   });
  const int latency_max_ms = !lock::is_reentrant_kind(kind) ? 10 : 3;
  return rc::gen::map(
      rc::gen::tuple(rc::gen::inRange<uint32_t>(1, 1u << 30),
                     rc::gen::inRange(0, latency_max_ms + 1), rc::gen::inRange(0, 400001),
                     rc::gen::inRange(0, 30001), clients),
      [kind, strategy](const auto& t) {
        // Lease, wait, backoff and pause lengths exactly as generate_plan sets them.
        world::ExplorePlan plan = world::generate_plan(kind, 1, 2);
        plan.strategy = strategy;
        plan.seed = std::get<0>(t);
        plan.faults.latency_max = world::Micros{std::get<1>(t) * 1000};
        plan.faults.pause_ppm = world::Ppm(static_cast<uint32_t>(std::get<2>(t)));
        plan.faults.crash_ppm = world::Ppm(static_cast<uint32_t>(std::get<3>(t)));
        plan.clients = std::get<4>(t);
        return plan;
      });
}

}  // namespace redsim::harness

namespace redsim::world {

// How RapidCheck prints a plan in a counterexample.
inline void showValue(const ExplorePlan& plan, std::ostream& os) { os << describe_plan(plan); }
// Every field of a FaultPlan that is not zero, "name value" with its unit.
inline void showValue(const FaultPlan& f, std::ostream& os) {
  const char* names[] = {"latency_distribution",
                         "latency_min_us",
                         "latency_max_us",
                         "latency_tail_ppm",
                         "latency_tail_max_us",
                         "loss_ppm",
                         "loss_executed_ppm",
                         "lost_reply_ppm",
                         "delay_ppm",
                         "delay_min_us",
                         "delay_max_us",
                         "partition_ppm",
                         "partition_min_us",
                         "partition_max_us",
                         "pause_ppm",
                         "pause_min_us",
                         "pause_max_us",
                         "task_pause_ppm",
                         "crash_ppm",
                         "restart_ppm",
                         "restart_min_us",
                         "restart_max_us",
                         "clock_drift_ppm_max",
                         "clock_jump_ppm",
                         "server_clock_jump_ppm",
                         "clock_jump_max_us",
                         "server_crash_ppm",
                         "server_down_min_us",
                         "server_down_max_us",
                         "failover_ppm",
                         "stall_budget_us",
                         "stall_budget_window_us"};
  size_t i = 0;
  bool any = false;
  os << "FaultPlan{";
  harness::detail::visit_fault_fields(f, [&](const auto& field) {
    const int64_t v = harness::detail::field_int(field);
    if (v != 0) {
      os << (any ? ", " : "") << names[i] << " " << v;
      any = true;
    }
    ++i;
  });
  os << (any ? "}" : "no faults}");
}
inline void showValue(const ClientPlan& client, std::ostream& os) {
  os << "stream " << client.stream << ":";
  if (client.tasks > 1) os << " " << client.tasks << " tasks";
  for (const Attempt& a : client.attempts) {
    os << " [think " << a.think_us / 1000.0 << " ms, work " << a.work_us / 1000.0 << " ms]";
  }
}

}  // namespace redsim::world

namespace redsim::harness {
inline void showValue(const FaultDraw& d, std::ostream& os) { world::showValue(d.plan.faults, os); }
}  // namespace redsim::harness
