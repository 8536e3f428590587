// Helpers shared by the checkers' implementation files (checkers.cc,
// lock_key_checkers.cc). Internal: not installed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/world/checkers.h"
#include "sim/world/history.h"

namespace redsim::world::detail {

inline bool ends_process(EventKind kind) {
  return kind == EventKind::kProcessCrash || kind == EventKind::kProcessEnd;
}

// A violation whose timeline shows `events` (sorted, deduplicated) with their
// neighbours.
inline Violation make_violation(const History& h, std::string checker, std::string description,
                                std::vector<size_t> events) {
  std::sort(events.begin(), events.end());
  events.erase(std::unique(events.begin(), events.end()), events.end());
  Violation v;
  v.checker = std::move(checker);
  v.description = std::move(description);
  v.events = std::move(events);
  TimelineOptions options;
  options.focus = v.events;
  v.timeline = render_timeline(h, options);
  return v;
}

// An interval [from, to] with the history events that opened and closed it.
struct Span {
  int64_t from;
  int64_t to;
  std::optional<size_t> from_event;
};

// Stretches during which each process was paused.
inline std::map<ProcessId, std::vector<Span>> paused_spans(const History& h) {
  std::map<ProcessId, std::optional<int64_t>> since;
  std::map<ProcessId, std::vector<Span>> out;
  for (size_t i = 0; i < h.size(); ++i) {
    const HistoryEvent& e = h[i];
    if (e.kind == EventKind::kProcessPause) {
      if (!since[e.process]) since[e.process] = e.t_us;
    } else if (e.kind == EventKind::kProcessResume || ends_process(e.kind)) {
      auto& s = since[e.process];
      if (s) out[e.process].push_back(Span{*s, e.t_us, std::nullopt});
      s.reset();
    }
  }
  for (auto& [pid, s] : since) {
    if (s) out[pid].push_back(Span{*s, h.end_us(), std::nullopt});
  }
  return out;
}

}  // namespace redsim::world::detail
