// RapidCheck generators for lock schedules: seeds, fault plans, client
// schedules and whole exploration plans (world::ExplorePlan, see
// sim/world/explore.h), so a property can run your lock over random
// schedules and RapidCheck shrinks a failure to a small one: fewer clients,
// fewer attempts, shorter work, no faults. Link redsim::testing.
//
//   RC_GTEST_PROP(MyLock, NeverTwoHoldersAtOnce, ()) {
//     const auto plan = *redsim::harness::gen_plan(std::chrono::milliseconds(100));
//     redsim::harness::rc_assert_safe(plan, redsim::harness::run_plan(plan, my_lock_factory));
//   }
//
// gen_plan(lease) draws within the budget a correct lock with that lease must
// survive: reply latency (<= lease/10) + work (<= lease/2) + one pause
// (<= 0.3 lease) stay inside the lease, so a live holder never outlives it.
// Crashes are drawn too: a crashed holder's lock frees when its lease ends.
// A failure prints the plan, the world seed, the violations with timelines,
// and RapidCheck's reproduce string (RC_PARAMS="reproduce=...") replays it.
#pragma once

#include <rapidcheck.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <ostream>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/world/explore.h"
#include "sim/world/testing/harness.h"

namespace redsim::harness {

// A world seed (latency draws, random faults, client ids, tokens).
inline rc::Gen<uint64_t> gen_seed() { return rc::gen::inRange<uint64_t>(1, uint64_t{1} << 30); }

// Faults for a lock with lease `lease`: latency 0..lease/10 (whole ms),
// pauses of 1 ms..0.3 lease at up to 40% of blocking calls, crashes at up to
// 3% of blocking calls.
inline rc::Gen<world::FaultPlan> gen_faults(std::chrono::milliseconds lease) {
  const int64_t lease_ms = lease.count();
  return rc::gen::map(
      rc::gen::tuple(rc::gen::inRange<int64_t>(0, lease_ms / 10 + 1),
                     rc::gen::inRange<uint32_t>(0, 400001), rc::gen::inRange<uint32_t>(0, 30001)),
      [lease_ms](const std::tuple<int64_t, uint32_t, uint32_t>& t) {
        world::FaultPlan f;
        f.latency_max_us = std::get<0>(t) * 1000;
        f.pause_ppm = std::get<1>(t);
        f.pause_min_us = 1000;
        f.pause_max_us = std::max<int64_t>(1000, lease_ms * 300);
        f.crash_ppm = std::get<2>(t);
        return f;
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

// One client's schedule for a lock with lease `lease`: its random stream and
// 1..4 attempts, each thinking 0..lease/2 and working 0..lease/2 (whole ms).
inline rc::Gen<world::ClientPlan> gen_client(std::chrono::milliseconds lease) {
  const int64_t half_ms = lease.count() / 2;
  auto attempt = rc::gen::map(rc::gen::pair(rc::gen::inRange<int64_t>(0, half_ms + 1),
                                            rc::gen::inRange<int64_t>(0, half_ms + 1)),
                              [](const std::pair<int64_t, int64_t>& p) {
                                return world::Attempt{p.first * 1000, p.second * 1000, 0};
                              });
  return rc::gen::map(rc::gen::pair(rc::gen::inRange<uint32_t>(1, 1u << 30),
                                    detail::gen_sparse_list<world::Attempt>(4, 1, attempt)),
                      [](const std::pair<uint32_t, std::vector<world::Attempt>>& p) {
                        return world::ClientPlan{p.first, p.second};
                      });
}

// A plan drawn for a user's lock: an ExplorePlan (run it with run_plan) that
// RapidCheck prints without the lock kind, which a user's lock does not have.
struct LockSchedule : world::ExplorePlan {};

inline void showValue(const LockSchedule& schedule, std::ostream& os) {
  os << describe_schedule(schedule);
}

// A plan of 2..`max_clients` clients for a lock with lease `lease`: seed,
// faults (gen_faults), clients (gen_client), each attempt waiting up to
// 20 leases. plan.kind is unused (kSimple); plan.lease_ms is `lease` and
// plan.retry_backoff_max_us lease/10, which world::liveness_bound_us reads:
// the lock's retry interval while waiting should stay below lease/10.
inline rc::Gen<LockSchedule> gen_plan(std::chrono::milliseconds lease, size_t max_clients = 8) {
  return rc::gen::map(
      rc::gen::tuple(gen_seed(), gen_faults(lease),
                     detail::gen_sparse_list<world::ClientPlan>(max_clients, 2, gen_client(lease))),
      [lease](const std::tuple<uint64_t, world::FaultPlan, std::vector<world::ClientPlan>>& t) {
        LockSchedule plan;
        plan.kind = lock::LockKind::kSimple;
        plan.seed = std::get<0>(t);
        plan.lease_ms = lease.count();
        plan.wait_ms = 20 * lease.count();
        plan.retry_backoff_max_us = lease.count() * 100;
        plan.faults = std::get<1>(t);
        plan.clients = std::get<2>(t);
        return plan;
      });
}

// RC_FAIL with the seed, every violation and its timeline, unless `r` is
// safe. RapidCheck prints the (shrunk) plan before it, and its reproduce
// string when the test binary exits.
inline void rc_assert_safe(const world::ExplorePlan& plan, const RunResult& r) {
  if (r.safe()) return;
  RC_FAIL(report(r,
                 "RC_PARAMS=\"reproduce=...\" as RapidCheck prints it when the test binary "
                 "exits, or harness::run_plan(plan, make) on the plan above (world seed " +
                     std::to_string(plan.seed) + ")"));
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
inline rc::Gen<world::ExplorePlan> gen_plan(lock::LockKind kind) {
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
      [kind](const auto& t) {
        // Lease, wait, backoff and pause lengths exactly as generate_plan sets them.
        world::ExplorePlan plan = world::generate_plan(kind, 1, 2);
        plan.seed = std::get<0>(t);
        plan.faults.latency_max_us = std::get<1>(t) * 1000;
        plan.faults.pause_ppm = static_cast<uint32_t>(std::get<2>(t));
        plan.faults.crash_ppm = static_cast<uint32_t>(std::get<3>(t));
        plan.clients = std::get<4>(t);
        return plan;
      });
}

}  // namespace redsim::harness

namespace redsim::world {

// How RapidCheck prints a plan in a counterexample.
inline void showValue(const ExplorePlan& plan, std::ostream& os) { os << describe_plan(plan); }
inline void showValue(const ClientPlan& client, std::ostream& os) {
  os << "stream " << client.stream << ":";
  for (const Attempt& a : client.attempts) {
    os << " [think " << a.think_us / 1000.0 << " ms, work " << a.work_us / 1000.0 << " ms]";
  }
}

}  // namespace redsim::world
