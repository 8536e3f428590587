// RapidCheck generators for exploration plans (sim/world/explore.h). They
// draw the same ranges as world::generate_plan, but as RapidCheck values, so
// a failing plan shrinks field by field: fewer clients, fewer attempts,
// shorter work, no faults.
#pragma once

#include <rapidcheck.h>

#include "sim/world/explore.h"

namespace redsim::props {

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

// A plan of 2..8 clients (1..4 attempts each) with latency, pauses and
// crashes in the ranges under which a correct lock must stay safe.
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

}  // namespace redsim::props

namespace redsim::world {

// How RapidCheck prints a counterexample.
inline void showValue(const ExplorePlan& plan, std::ostream& os) { os << describe_plan(plan); }

}  // namespace redsim::world
