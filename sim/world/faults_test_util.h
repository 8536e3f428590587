// Helpers shared by the fault-model tests (faults_test.cc,
// clock_faults_test.cc, network_faults_test.cc): history queries and the
// small worlds they build.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "sim/world/world.h"

namespace redsim::world::faults_testing {

inline constexpr int64_t kMs = 1000;

inline size_t count(const History& h, EventKind kind) {
  return static_cast<size_t>(
      std::count_if(h.events().begin(), h.events().end(),
                    [kind](const HistoryEvent& e) { return e.kind == kind; }));
}

inline std::vector<const HistoryEvent*> commands(const History& h, std::string_view name) {
  std::vector<const HistoryEvent*> out;
  for (const auto& e : h.events()) {
    if (e.kind == EventKind::kCommand && e.argv.at(0) == name) out.push_back(&e);
  }
  return out;
}

// A world whose every message takes exactly latency_us each way.
inline WorldOptions fixed_latency(int64_t latency_us) {
  WorldOptions o;
  o.faults.latency_min = Micros{latency_us};
  o.faults.latency_max = Micros{latency_us};
  return o;
}

// A world whose server has `replicas` replicas, each applying a write
// exactly lag_us after the primary.
inline WorldOptions with_replicas(size_t replicas, int64_t lag_us) {
  WorldOptions o;
  o.replicas = replicas;
  o.replication_lag_min_us = lag_us;
  o.replication_lag_max_us = lag_us;
  return o;
}

}  // namespace redsim::world::faults_testing
