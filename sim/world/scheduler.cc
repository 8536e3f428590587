#include "sim/world/scheduler.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "sim/world/pct.h"

namespace redsim::world {

namespace {
// std heap functions build a max-heap; "greater" puts the earliest on top.
bool later(const auto& a, const auto& b) {
  if (a.t_us != b.t_us) return a.t_us > b.t_us;
  if (a.priority != b.priority) return a.priority < b.priority;
  return a.seq > b.seq;
}

int64_t saturating_add(int64_t a, int64_t b) {
  if (b > 0 && a > std::numeric_limits<int64_t>::max() - b) {
    return std::numeric_limits<int64_t>::max();
  }
  return a + b;
}
}  // namespace

void Scheduler::at(int64_t t_us, Action action, bool daemon, uint32_t owner) {
  if (owner == kInheritOwner) owner = current_owner_;
  const uint64_t priority = priorities_ != nullptr ? priorities_->priority(owner) : 0;
  heap_.push_back(
      Entry{std::max(t_us, now_us_), priority, next_seq_++, owner, daemon, std::move(action)});
  std::push_heap(heap_.begin(), heap_.end(), later<Entry, Entry>);
  if (!daemon) ++live_;
}

void Scheduler::after(int64_t delay_us, Action action, bool daemon) {
  at(saturating_add(now_us_, std::max<int64_t>(delay_us, 0)), std::move(action), daemon);
}

void Scheduler::step() {
  std::pop_heap(heap_.begin(), heap_.end(), later<Entry, Entry>);
  Entry entry = std::move(heap_.back());
  heap_.pop_back();
  if (!entry.daemon) --live_;
  now_us_ = entry.t_us;
  ++events_run_;
  current_owner_ = entry.owner;
  entry.action();
  current_owner_ = 0;
}

Scheduler::Stop Scheduler::run(int64_t limit_us) {
  while (live_ > 0) {
    if (heap_.front().t_us > limit_us) {
      now_us_ = std::max(now_us_, limit_us);
      return Stop::kTimeLimit;
    }
    step();
  }
  return Stop::kIdle;
}

void Scheduler::run_until(int64_t t_us) {
  while (!heap_.empty() && heap_.front().t_us <= t_us) step();
  now_us_ = std::max(now_us_, t_us);
}

}  // namespace redsim::world
