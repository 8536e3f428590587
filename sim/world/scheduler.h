// Scheduler: virtual time and the event queue of a world. Events run in
// (time, sequence number) order, the sequence number being the order in
// which they were scheduled, so two events at the same microsecond always run
// in the same order and a run is a pure function of its inputs.
//
//   world::Scheduler s;
//   s.at(500, [] { ... });         // at t = 500 us
//   s.after(100, [] { ... });      // at now + 100 us
//   s.run(1'000'000);              // until idle or t = 1 s
//
// Time is microseconds since the world started (t = 0). Actions run on the
// caller's stack (the scheduler's context, never a fiber) and may schedule
// more events, including at the current time.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace redsim::world {

class Scheduler {
 public:
  using Action = std::function<void()>;

  enum class Stop {
    kIdle,       // no event left but daemon ones (periodic housekeeping)
    kTimeLimit,  // the next event lies past the limit; now() == the limit
  };

  int64_t now_us() const { return now_us_; }

  // Schedules `action` at `t_us` (a time in the past means now). A daemon
  // event (the server's active expiry cycle) does not keep run() going.
  void at(int64_t t_us, Action action, bool daemon = false);
  void after(int64_t delay_us, Action action, bool daemon = false);

  // Runs events until only daemon events remain, or until the next event
  // lies past `limit_us` (then time stops at limit_us).
  Stop run(int64_t limit_us);
  // Runs every event at or before `t_us`, daemon ones included; then now() == t_us
  // (or stays later, when it already was).
  void run_until(int64_t t_us);

  size_t pending() const { return heap_.size(); }
  size_t pending_live() const { return live_; }
  uint64_t events_run() const { return events_run_; }

 private:
  struct Entry {
    int64_t t_us;
    uint64_t seq;
    bool daemon;
    Action action;
  };
  // Runs the earliest event. Precondition: !heap_.empty().
  void step();

  int64_t now_us_ = 0;
  uint64_t next_seq_ = 0;
  uint64_t events_run_ = 0;
  size_t live_ = 0;
  std::vector<Entry> heap_;  // a min-heap on (t_us, seq)
};

}  // namespace redsim::world
