// Internal to sim/world (not installed): the lifecycle component of a
// world's Runtime (runtime.h): virtual time, the run loop, the history, and
// the strategy state every other component draws on.
//
// Owns: the WorldOptions, the Scheduler (the event queue and the virtual
// clock), the PCT priorities (pct.h) and the exhaustive strategy's Chooser
// (explore/exhaustive.h) when the strategy asks for them, the History, and
// the root random stream.
//
// Invariants:
// - Virtual time moves only inside run() / run_until(); every other
//   component acts in scheduler events and reads the time with now().
// - Every history event is stamped with now() when it is made (event()) and
//   recorded in the order things happen, so the history is in time order.
// - root() is only forked, never drawn from (a fork reads the seed, not the
//   state), so the components may fork their streams in any order and a
//   world's draws do not depend on the order they were set up in.
// - pct() / chooser() are set once, at construction, or never.
//
// Uses no other component (event() reads only a Process's pid).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/world/history.h"
#include "sim/world/pct.h"
#include "sim/world/prng.h"
#include "sim/world/schedule.h"
#include "sim/world/scheduler.h"
#include "sim/world/world.h"

namespace redsim::world::detail {

struct Process;

class Lifecycle {
 public:
  // std::invalid_argument when `opts` asks for no server.
  explicit Lifecycle(WorldOptions opts);
  Lifecycle(const Lifecycle&) = delete;
  Lifecycle& operator=(const Lifecycle&) = delete;

  const WorldOptions& options() const { return options_; }
  Scheduler& sched() { return sched_; }
  // True time: microseconds since the world began.
  int64_t now() const { return sched_.now_us(); }

  // Until idle, the time limit (WorldOptions::time_limit_us) or a prune;
  // then the history ends at now().
  Scheduler::Stop run();
  // Until true time `t_us`; then the history ends at now().
  void run_until(int64_t t_us);

  // A history event of `kind` at now(), of process `p` (null: none) and task.
  HistoryEvent event(EventKind kind, const Process* p, TaskId task) const;
  void record(HistoryEvent&& e) { history_.add(std::move(e)); }
  // event() recorded at once and returned to be filled in place (no move of
  // a few hundred bytes); the caller fills it before anything else is
  // recorded.
  HistoryEvent& record_event(EventKind kind, const Process* p, TaskId task);
  // Values for a record_event() event's fields, shared with the earlier
  // events' equal ones (History::intern_*).
  HistoryText intern_text(std::string_view s) { return history_.intern_text(s); }
  HistoryArgv intern_argv(std::vector<std::string>&& argv) {
    return history_.intern_argv(std::move(argv));
  }
  HistoryArgv intern_argv(const std::vector<std::string>& argv) {
    return history_.intern_argv(argv);
  }
  HistoryReply intern_reply(const resp::Reply& reply) { return history_.intern_reply(reply); }
  const History& history() const { return history_; }

  const Prng& root() const { return root_; }
  // Under Strategy PCT (pct.h); null otherwise.
  PctPriorities* pct() const { return pct_.get(); }
  // Under the exhaustive strategy (explore/exhaustive.h); null otherwise.
  Chooser* chooser() const { return chooser_.get(); }
  // Exhaustive: a choice among `options` latency / fault options (0 = the
  // default); 0 without a chooser. `kind`: what the options are, recorded
  // with the running event's owner (ChoicePoint).
  uint32_t choose(uint32_t options, ChoiceKind kind = ChoiceKind::kOther) {
    return chooser_ ? chooser_->choose(options, false, kind, sched_.current_owner()) : 0;
  }
  // The choice points the chooser met (empty without one).
  std::vector<ChoicePoint> choice_points() const;
  // Exhaustive with the reduction, in a world without message delays and
  // replicas (and whose crashed servers restart at least 1 us later):
  // requests carry footprints (exhaustive.h; partitions, server crashes and
  // server clock jumps make the relation coarser: cases 14 and 15).
  bool footprints() const { return footprints_; }

 private:
  // Declaration order is construction order: the options are checked before
  // anything is built from them.
  WorldOptions options_;
  Scheduler sched_;
  std::unique_ptr<PctPriorities> pct_;
  std::unique_ptr<Chooser> chooser_;
  bool footprints_ = false;
  History history_;
  Prng root_;
};

}  // namespace redsim::world::detail
