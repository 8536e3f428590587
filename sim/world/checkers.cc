#include "sim/world/checkers.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "sim/world/checker_util.h"

namespace redsim::world {

namespace {

using detail::ends_process;
using detail::make_violation;
using detail::paused_spans;
using detail::Span;
using Owner = std::pair<ProcessId, TaskId>;

std::string owner_name(Owner o) {
  return "c" + std::to_string(o.first) + "/" + std::to_string(o.second);
}

// Stretches during which no owner was inside `resource`'s critical section.
std::map<std::string, std::vector<Span>> free_spans(const History& h) {
  struct State {
    std::map<Owner, int> depth;
    int64_t free_since = 0;
    std::optional<size_t> freed_by;
    std::vector<Span> spans;
  };
  std::map<std::string, State> by_resource;
  auto occupied = [](const State& s) { return !s.depth.empty(); };
  auto release = [](State& s, int64_t t, size_t idx) {
    s.free_since = t;
    s.freed_by = idx;
  };
  for (size_t i = 0; i < h.size(); ++i) {
    const HistoryEvent& e = h[i];
    if (e.kind == EventKind::kEnterCritical) {
      State& s = by_resource[e.resource];
      if (!occupied(s)) s.spans.push_back(Span{s.free_since, e.t_us, s.freed_by});
      ++s.depth[{e.process, e.task}];
    } else if (e.kind == EventKind::kLeaveCritical) {
      State& s = by_resource[e.resource];
      auto it = s.depth.find({e.process, e.task});
      if (it == s.depth.end()) continue;
      if (--it->second <= 0) s.depth.erase(it);
      if (!occupied(s)) release(s, e.t_us, i);
    } else if (ends_process(e.kind)) {
      for (auto& [resource, s] : by_resource) {
        const bool was = occupied(s);
        std::erase_if(s.depth, [&](const auto& kv) { return kv.first.first == e.process; });
        if (was && !occupied(s)) release(s, e.t_us, i);
      }
    } else if (e.kind == EventKind::kAcquireStart) {
      by_resource.try_emplace(e.resource);
    }
  }
  std::map<std::string, std::vector<Span>> out;
  for (auto& [resource, s] : by_resource) {
    if (!occupied(s)) s.spans.push_back(Span{s.free_since, h.end_us(), s.freed_by});
    out[resource] = std::move(s.spans);
  }
  return out;
}

}  // namespace

std::string format_violations(const std::vector<Violation>& violations) {
  std::string out;
  for (const Violation& v : violations) {
    out += "VIOLATION (" + v.checker + "): " + v.description + "\n";
    out += v.timeline;
  }
  return out;
}

std::vector<Violation> check_mutual_exclusion(const History& h) {
  struct Holder {
    int depth = 0;
    size_t entered_at = 0;
  };
  std::map<std::string, std::map<Owner, Holder>> inside;
  std::vector<Violation> out;
  for (size_t i = 0; i < h.size(); ++i) {
    const HistoryEvent& e = h[i];
    const Owner me{e.process, e.task};
    if (e.kind == EventKind::kEnterCritical) {
      auto& holders = inside[e.resource];
      std::vector<size_t> involved;
      std::string others;
      for (const auto& [owner, holder] : holders) {
        if (owner == me) continue;
        involved.push_back(holder.entered_at);
        if (!others.empty()) others += ", ";
        others += owner_name(owner) +
                  " (inside since t=" + format_time_ms(h[holder.entered_at].t_us) + ")";
      }
      if (!involved.empty()) {
        involved.push_back(i);
        out.push_back(make_violation(h, "mutual-exclusion",
                                     owner_name(me) + " entered " + e.resource +
                                         " at t=" + format_time_ms(e.t_us) + " while " + others +
                                         " was inside",
                                     std::move(involved)));
      }
      Holder& holder = holders[me];
      if (holder.depth++ == 0) holder.entered_at = i;
    } else if (e.kind == EventKind::kLeaveCritical) {
      auto& holders = inside[e.resource];
      auto it = holders.find(me);
      if (it != holders.end() && --it->second.depth <= 0) holders.erase(it);
    } else if (ends_process(e.kind)) {
      for (auto& [resource, holders] : inside) {
        std::erase_if(holders, [&](const auto& kv) { return kv.first.first == e.process; });
      }
    }
  }
  return out;
}

std::vector<Violation> check_hold_counts(const History& h) {
  std::map<std::pair<std::string, Owner>, int64_t> model;
  std::vector<Violation> out;
  for (size_t i = 0; i < h.size(); ++i) {
    const HistoryEvent& e = h[i];
    if (ends_process(e.kind)) {
      std::erase_if(model, [&](const auto& kv) { return kv.first.second.first == e.process; });
      continue;
    }
    if (e.kind != EventKind::kHold) continue;
    const Owner me{e.process, e.task};
    int64_t& count = model[{e.resource, me}];
    const std::string who =
        owner_name(me) + " on " + e.resource + " at t=" + format_time_ms(e.t_us);
    std::string problem;
    switch (e.hold_op) {
      case HoldOp::kLock:
        ++count;
        break;
      case HoldOp::kUnlock:
        if (count == 0) {
          problem = "unlock succeeded while the model holds 0";
        } else {
          --count;
        }
        break;
      case HoldOp::kUnlockRejected:
        if (count > 0) {
          problem = "unlock rejected (LockNotOwned) while the model holds " + std::to_string(count);
        }
        break;
    }
    if (problem.empty() && e.value >= 0 && e.value != count) {
      problem = "observed hold count " + std::to_string(e.value) + " after " +
                std::string(to_string(e.hold_op)) + ", model says " + std::to_string(count);
    }
    if (!problem.empty()) {
      out.push_back(make_violation(h, "hold-count", who + ": " + problem, {i}));
    }
  }
  return out;
}

std::vector<Violation> check_liveness(const History& h, int64_t bound_us) {
  return check_liveness(h, bound_us, {});
}

std::vector<Violation> check_liveness(
    const History& h, int64_t bound_us,
    const std::map<std::string, std::vector<std::pair<int64_t, int64_t>>>& held) {
  auto free = free_spans(h);
  // Cut the stretches in which the resource counts as taken out of its free ones.
  for (auto& [resource, spans] : free) {
    auto hit = held.find(resource);
    if (hit == held.end()) continue;
    std::vector<Span> cut;
    for (const Span& f : spans) {
      int64_t from = f.from;
      std::optional<size_t> from_event = f.from_event;
      for (const auto& [a, b] : hit->second) {
        if (b <= from || a >= f.to) continue;
        if (a > from) cut.push_back(Span{from, a, from_event});
        from = std::max(from, b);
        from_event.reset();
      }
      if (from < f.to) cut.push_back(Span{from, f.to, from_event});
    }
    spans = std::move(cut);
  }
  const auto paused = paused_spans(h);

  struct Attempt {
    std::string resource;
    Owner owner;
    size_t start_event;
    int64_t t0;
    int64_t wait_us;  // -1: unbounded
  };
  // Closes an attempt at `t_end` and looks for an idle stretch inside it.
  std::vector<Violation> out;
  auto judge = [&](const Attempt& a, int64_t t_end, std::optional<size_t> end_event) {
    int64_t until = t_end;
    if (a.wait_us >= 0) until = std::min(until, a.t0 + a.wait_us);
    auto fit = free.find(a.resource);
    if (fit == free.end()) return;
    static const std::vector<Span> kNone;
    auto pit = paused.find(a.owner.first);
    const std::vector<Span>& pauses = pit == paused.end() ? kNone : pit->second;
    for (const Span& f : fit->second) {
      int64_t from = std::max(f.from, a.t0);
      const int64_t to = std::min(f.to, until);
      if (to - from <= bound_us) continue;
      // Cut out the waiter's pauses; any piece longer than the bound is idle time.
      std::vector<Span> pieces;
      for (const Span& p : pauses) {
        if (p.to <= from || p.from >= to) continue;
        if (p.from > from) pieces.push_back(Span{from, p.from, std::nullopt});
        from = std::max(from, p.to);
      }
      if (from < to) pieces.push_back(Span{from, to, std::nullopt});
      for (const Span& piece : pieces) {
        if (piece.to - piece.from <= bound_us) continue;
        std::vector<size_t> involved{a.start_event};
        if (f.from_event) involved.push_back(*f.from_event);
        if (end_event) involved.push_back(*end_event);
        out.push_back(make_violation(
            h, "liveness",
            owner_name(a.owner) + " waited for " + a.resource + " from t=" + format_time_ms(a.t0) +
                "; it was free and " + owner_name(a.owner) +
                " was running from t=" + format_time_ms(piece.from) +
                " to t=" + format_time_ms(piece.to) + " (" + format_time_ms(piece.to - piece.from) +
                " > bound " + format_time_ms(bound_us) + ") without acquiring it",
            std::move(involved)));
        return;
      }
    }
  };

  std::map<Owner, std::vector<Attempt>> open;
  for (size_t i = 0; i < h.size(); ++i) {
    const HistoryEvent& e = h[i];
    const Owner me{e.process, e.task};
    if (e.kind == EventKind::kAcquireStart) {
      open[me].push_back(Attempt{e.resource, me, i, e.t_us, e.value});
    } else if (e.kind == EventKind::kAcquireEnd) {
      auto& list = open[me];
      auto it = std::find_if(list.begin(), list.end(),
                             [&](const Attempt& a) { return a.resource == e.resource; });
      if (it == list.end()) continue;
      judge(*it, e.t_us, i);
      list.erase(it);
    } else if (ends_process(e.kind)) {
      for (auto& [owner, list] : open) {
        if (owner.first != e.process) continue;
        for (const Attempt& a : list) judge(a, e.t_us, i);
        list.clear();
      }
    }
  }
  for (auto& [owner, list] : open) {
    for (const Attempt& a : list) judge(a, h.end_us(), std::nullopt);
  }
  std::stable_sort(out.begin(), out.end(), [](const Violation& x, const Violation& y) {
    return x.events.front() < y.events.front();
  });
  return out;
}

std::vector<Violation> check_fencing(const History& h) {
  struct State {
    int64_t max_token = 0;
    std::optional<size_t> max_event;  // the write that accepted max_token
    std::map<int64_t, Owner> writer;  // accepted token -> its owner
  };
  std::map<std::string, State> by_resource;
  std::vector<Violation> out;
  for (size_t i = 0; i < h.size(); ++i) {
    const HistoryEvent& e = h[i];
    if (e.kind != EventKind::kFencedWrite) continue;
    State& s = by_resource[e.resource];
    const Owner me{e.process, e.task};
    const std::string who = owner_name(me) + " wrote " + e.resource + " with token " +
                            std::to_string(e.value) + " at t=" + format_time_ms(e.t_us);
    std::vector<size_t> involved = {i};
    if (s.max_event) involved.push_back(*s.max_event);
    const std::string highest = "the highest accepted before is " + std::to_string(s.max_token);
    if (e.verdict == FenceVerdict::kAccepted) {
      if (e.value < s.max_token) {
        out.push_back(
            make_violation(h, "fencing", who + ": stale write accepted; " + highest, involved));
      }
      auto [it, fresh] = s.writer.emplace(e.value, me);
      if (!fresh && it->second != me) {
        out.push_back(make_violation(
            h, "fencing", who + ": token already accepted from " + owner_name(it->second),
            involved));
      }
      if (e.value >= s.max_token) {
        s.max_token = e.value;
        s.max_event = i;
      }
    } else if (e.value >= s.max_token) {  // rejected
      out.push_back(make_violation(h, "fencing", who + ": rejected although " + highest, involved));
    }
  }
  return out;
}

}  // namespace redsim::world
