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
//
// Under PCT (pct.h) every event belongs to a process (its owner: given, or
// the owner of the event that scheduled it) and events at the same time run
// in the order of their owners' priorities when they were scheduled, then
// in schedule order.
//
// Under the exhaustive strategy (explore/exhaustive.h) a Chooser picks which of the
// events due at the earliest time runs next (one connection direction's
// messages stay FIFO), and a sleep set skips orders of independent events
// (Scheduler::independent; the argument is in exhaustive.h).
#pragma once

#include <array>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace redsim::world {

class Chooser;
class PctPriorities;

// What a server-side event (a request reaching a server) may touch, for the
// exhaustive reduction (exhaustive.h). An event without one touches anything.
struct Footprint {
  size_t server = 0;              // the server index it runs on
  std::vector<std::string> keys;  // every key it may read or write (a superset)
  bool any_key = false;           // it may read or write any key (a script)
  bool pubsub = false;            // it may publish or change subscriptions
  // pubsub, but it only adds or removes its own session's subscriptions to
  // `channels` (SUBSCRIBE, UNSUBSCRIBE and their P and S forms), or removes
  // all of them (`all_channels`: UNSUBSCRIBE with no channel, a pub/sub
  // connection's close); it publishes nothing.
  bool subscriptions_only = false;
  bool all_channels = false;
  std::vector<std::string> channels;
  // SCRIPT LOAD: it adds to the server's script cache, which scripts (an
  // any_key footprint) read and fill; it touches no key (exhaustive.h,
  // case 12).
  bool loads_script = false;
  // It looks its code up in the script cache (EVALSHA and EVALSHA_RO): a
  // load (loads_script: SCRIPT LOAD, EVAL) is dependent on it (case 16).
  bool reads_scripts = false;
  // A script (EVAL, EVALSHA and their _RO forms): any_key and pubsub stay
  // set, since what it touches is known only once it ran (case 16). What a
  // sleeping script carries when its sibling run touched only its declared
  // KEYS: those keys, and pubsub (it may have published).
  std::shared_ptr<const Footprint> within;
  // Its server may do more than a command's keys say (exhaustive.h case
  // 17): publish keyspace notifications (notify-keyspace-events), or
  // refuse or evict by the memory all keys use (maxmemory). Set on every
  // footprint of commands sent to that server, to a flag the world turns
  // on for good before the first such effect can happen; while it is on,
  // the footprint is "anything". Null: no flag (as computed).
  std::shared_ptr<const bool> server_effects;
  bool anything() const { return server_effects != nullptr && *server_effects; }
  // Commands on different servers, or on disjoint keys (an any-key one
  // meets every keyed one) of which not both touch pub/sub, or both only
  // change subscriptions and not both add one channel, commute
  // (exhaustive.h, cases 3 and 10), unless one is anything() (case 17).
  bool commutes_with(const Footprint& other) const;
  // It may push to other sessions' subscriptions (PUBLISH, SPUBLISH, a
  // script, EXEC; anything(): a keyspace notification): what a reset of
  // another session's subscriptions changes (exhaustive.h, cases 14, 17).
  bool publishes() const { return anything() || (pubsub && !subscriptions_only); }
};

// The footprint of one command (argv as sent) on `server`; null when it is
// not known to touch only its keys (MULTI/EXEC, WATCH, CONFIG, KEYS, SCAN,
// FLUSHALL, SCRIPT, ...: anything not in the table of exhaustive.cc).
// `server_effects`: the server's flag of case 17 (Footprint::server_effects).
std::shared_ptr<const Footprint> command_footprint(
    size_t server, const std::vector<std::string>& argv,
    std::shared_ptr<const bool> server_effects = nullptr);
// A script's footprint as it ran (exhaustive.h, case 16): `script` (its
// command_footprint) narrowed to its declared KEYS and the keys of `calls`
// (each redis.call / redis.pcall it asked for, as command_footprint reads
// them), pubsub when one of them publishes; null when one of them is not
// key-addressed (no footprint, or any key) or `shared` (it used what
// scripts share besides keys). `*within`: the keys of `calls` were all
// declared (it did no more than script.within says). It keeps the
// script's server_effects flag (case 17).
std::shared_ptr<const Footprint> script_footprint(
    const Footprint& script, const std::vector<std::vector<std::string>>& calls, bool shared,
    bool* within);

class Scheduler {
 public:
  using Action = std::function<void()>;

  enum class Stop {
    kIdle,       // no event left but daemon ones (periodic housekeeping)
    kTimeLimit,  // the next event lies past the limit; now() == the limit
    kPruned,     // exhaustive: every event due was asleep (the run is redundant)
  };

  int64_t now_us() const { return now_us_; }

  // The owner of an event that inherits the running event's owner.
  static constexpr uint32_t kInheritOwner = UINT32_MAX;
  // at_message's `task` for a client-side delivery that touches no state at
  // all (a reply nobody waits for: UNSUBSCRIBE's, a resubscription's): it
  // commutes with every event of a process (exhaustive.h, case 8).
  static constexpr uint64_t kNoTask = UINT64_MAX;

  // Schedules `action` at `t_us` (a time in the past means now). A daemon
  // event (the server's active expiry cycle) does not keep run() going.
  // `owner`: the process the event belongs to (0: none), for PCT.
  void at(int64_t t_us, Action action, bool daemon = false, uint32_t owner = kInheritOwner);
  void after(int64_t delay_us, Action action, bool daemon = false);
  // A message delivery: `channel` (non-zero) names one connection direction,
  // whose messages the exhaustive strategy keeps FIFO; `server_side`: it runs
  // on a server (a request) rather than in a client process (a reply, a push).
  // `footprint`: what a server-side message may touch (null: anything).
  // `task` (client-side messages): the one task of `owner` it touches, when
  // it touches only that task's state (a plain reply); 0: the whole process.
  void at_message(int64_t t_us, Action action, uint32_t owner, uintptr_t channel, bool server_side,
                  std::shared_ptr<const Footprint> footprint = nullptr, uint64_t task = 0);
  // A timer of the running event's process that touches only task `task`'s
  // state and runs no code (a sleep's or a call's timeout waking it): at
  // now + delay_us. For the exhaustive reduction (explore/exhaustive.h).
  void after_task(int64_t delay_us, Action action, uint64_t task);
  // `runs_code`: the event runs task `task`'s fiber (its run): it counts as
  // touching the whole process unless it is known narrow (its sibling run
  // from the same prefix was: Chooser::known_narrow), and once run, as it
  // turned out (note_process_wide). exhaustive.h, case 4.
  void at_task(int64_t t_us, Action action, uint64_t task, bool runs_code = false);
  // The running event touched more than its own task (an Event signal, a
  // wake-up of another task, a task's start or end, a process pause, a
  // delivery held by a pause, a teardown, a stall noted, a new connection):
  // for the exhaustive reduction (exhaustive.h, case 4).
  void note_process_wide() { current_process_wide_ = true; }
  // The running event opened a connection (Network::new_link: the process's
  // and the server's lists of links, the server's client ids). A task's run
  // stays narrow for it (exhaustive.h, case 7); any other event turns
  // process-wide.
  void note_new_link() {
    if (current_runs_code_) {
      current_links_ = true;
    } else {
      note_process_wide();
    }
  }
  // The running event ended a task that is not its process's main
  // (Processes::finish_task): process-wide, except with task_runs_commute
  // (exhaustive.h, case 6).
  void note_task_end() {
    if (!task_runs_commute_) note_process_wide();
  }
  // The running event is a task's run in which main returned: the process
  // ended and tore its other tasks down (Processes::finish_task). Still
  // process-wide, but it commutes with a timer or reply of another task
  // (exhaustive.h, case 9).
  void note_process_end() {
    if (current_runs_code_) current_ended_ = true;
  }
  // The running event wrote a FencedResource, memory every process shares
  // (ProcessEnv::record_fenced_write): with fence_writes, it is dependent on
  // another process's run that may write one (exhaustive.h, case 13).
  void note_fence_write() { current_fence_ = true; }
  // The running event is a script whose footprint as it ran is `as_ran`
  // (script_footprint; null: as declared), `within` its declared KEYS:
  // exhaustive only (Network::request_arrived), exhaustive.h, case 16.
  void note_footprint(std::shared_ptr<const Footprint> as_ran, bool within) {
    current_footprint_ = std::move(as_ran);
    current_within_ = within;
    current_noted_ = true;
  }

  // Exhaustive: ask `chooser` at every tie (not owned; null: off); with
  // `reduce`, skip the orders the sleep sets prove redundant.
  // `messages_take_time`: no message arrives in the microsecond it was sent
  // (the plan's latency_min >= 1 us), so a tie whose first independent
  // event is alone needs no choice (explore/exhaustive.h).
  // `task_runs_commute`: Strategy::task_runs_commute (exhaustive.h, case 5);
  // `fence_writes`: Strategy::fence_writes (case 13).
  void set_chooser(Chooser* chooser, bool reduce, bool messages_take_time = false,
                   bool task_runs_commute = false, bool fence_writes = false) {
    if (chooser != nullptr) queue_all_in_heap(/*far_too=*/true);  // step_chosen reads heap_ alone
    chooser_ = chooser;
    reduce_ = reduce;
    messages_take_time_ = messages_take_time;
    task_runs_commute_ = task_runs_commute;
    fence_writes_ = fence_writes;
  }

  // ---- Running ahead (Processes::suspend). A task that blocks would hand
  // its fiber back to run(), which would run the next event; when that
  // event resumes no fiber (a message's arrival), the task may run it on
  // its own stack instead, exactly as run() would (same order, same
  // bookkeeping), and when the next event is the task's own run, go on
  // without switching at all (a command with no latency: no switch).
  enum class Ahead : uint8_t {
    kNo,    // run() runs it
    kSafe,  // may run on a task's stack: it resumes no fiber
    kRun,   // the run of the task `run_of` (Processes::run_task)
  };
  // Marks the event queued last (by the at*/after* call just made).
  void mark_ahead(Ahead ahead, const void* run_of = nullptr) {
    Slot& slot = slots_[last_slot_];
    slot.ahead = ahead;
    slot.run_of = run_of;
  }
  struct NextAhead {
    Ahead ahead = Ahead::kNo;
    const void* run_of = nullptr;
  };
  // The event run() / run_until() would run next, as marked; kNo outside
  // them, past their limit, when run() would stop (only daemon events
  // left), under the exhaustive strategy (it chooses), or while an error
  // of an event run ahead waits to be thrown.
  NextAhead next_ahead() const {
    if (ahead_until_ == kNotRunning || chooser_ != nullptr || pending_error_ || empty()) {
      return {};
    }
    const Key key = top();
    if (key.t_us > ahead_until_ || (!ahead_daemons_ && live_ == 0)) return {};
    const Slot& slot = slots_[key.slot];
    return {slot.ahead, slot.run_of};
  }
  // Runs that next event here (kSafe), as run() would. What it throws is
  // kept and thrown by run() / run_until() after the running event returns,
  // where it would have been thrown. The running event's own state is
  // restored after it.
  void run_next_ahead();
  // Takes that next event (kRun) as run, without calling its action: the
  // task it would resume is running already.
  void take_next_ahead();

  // Exhaustive, with footprints: the plan's faults that let events reach
  // further (exhaustive.h). `sessions_reset`: a client-side event may start
  // a partition, which resets its process's sessions on a server as a close
  // would (case 14); `commands_draw`: a command draws from its server's own
  // stream (a crash, a clock jump), so two commands on one server are
  // dependent; `commands_break_links`: a command may crash its server,
  // breaking every process's links to it, so it is dependent on every
  // client-side event (case 15).
  void set_server_faults(bool sessions_reset, bool commands_draw, bool commands_break_links) {
    sessions_reset_ = sessions_reset;
    commands_draw_ = commands_draw;
    commands_break_links_ = commands_break_links;
  }

  // PCT: order same-time events by these priorities (not owned; null: off).
  void set_priorities(PctPriorities* priorities) {
    if (priorities != nullptr) queue_all_in_heap(/*far_too=*/false);
    priorities_ = priorities;
  }
  // The owner of the event running now (0 outside any).
  uint32_t current_owner() const { return current_owner_; }

  // Runs events until only daemon events remain, or until the next event
  // lies past `limit_us` (then time stops at limit_us).
  Stop run(int64_t limit_us);
  // Runs every event at or before `t_us`, daemon ones included; then now() == t_us
  // (or stays later, when it already was).
  void run_until(int64_t t_us);

  size_t pending() const { return ring_size_ + heap_.size() + far_.size(); }
  size_t pending_live() const { return live_; }
  uint64_t events_run() const { return events_run_; }

 private:
  // The heap orders small keys; each key's event (its action and what the
  // exhaustive strategy asks of it) waits in slots_[slot], so reordering the
  // heap moves 32 bytes, not a std::function and a shared_ptr. Slots are
  // reused (free_).
  struct Key {
    int64_t t_us;
    uint64_t priority;  // the owner's, when scheduled (PCT); 0 otherwise
    uint64_t seq;
    uint32_t slot;
  };
  struct Slot {
    uint32_t owner = 0;
    bool daemon = false;
    bool server_side = false;  // runs on a server (or inherits that from its scheduler)
    uintptr_t channel = 0;     // messages: their connection direction; 0 otherwise
    Action action;
    std::shared_ptr<const Footprint> footprint = nullptr;  // server-side messages (exhaustive)
    // Client-side: the only task of `owner` it touches (0: any); a
    // request: the task that sent it.
    uint64_t task = 0;
    bool runs_code = false;  // a task's run (at_task)
    Ahead ahead = Ahead::kNo;
    const void* run_of = nullptr;  // kRun: the task
    // In the ring: its time, sequence number and the next slot of its
    // bucket (kNone: the last).
    int64_t t_us = 0;
    uint64_t seq = 0;
    uint32_t next = 0;
  };
  // A sleeping event (exhaustive): what independence needs of it.
  struct Asleep {
    uint64_t seq;
    uint32_t owner;
    bool server_side;
    std::shared_ptr<const Footprint> footprint;
    uint64_t task;  // 0: may touch every task of its process
    bool runs_code;
    // It opened (a run asleep: it may open) a connection (case 7).
    bool links = false;
    // A run that ended its process (case 9): its own task; 0 otherwise
    // (a run asleep: not known).
    uint64_t ended_task = 0;
    // It wrote (a run asleep, not known narrow: it may write) a
    // FencedResource (case 13; only with fence_writes).
    bool fence = false;
  };
  // Fills a free slot in place (no Slot temporary moved in) and queues it.
  void push(int64_t t_us, uint32_t owner, bool daemon, bool server_side, uintptr_t channel,
            Action&& action, std::shared_ptr<const Footprint>&& footprint, uint64_t task,
            bool runs_code);
  // The queue, in three parts on one order (Later: time, then the PCT
  // priority, then the sequence number):
  // - the ring: without PCT priorities and a chooser (every plain run), an
  //   event due less than kRing us ahead waits in the list of its
  //   microsecond's bucket (t mod kRing; the ring's events all lie in
  //   [now, now + kRing), so a bucket holds one microsecond's events), in
  //   schedule order, which is their order in the heap (priority 0, seq
  //   increasing); a bitmap of the non-empty buckets finds the next one.
  //   O(1) a push or a pop where the heap was O(log n).
  // - far_: a heap of the events due kRing us or more ahead (timeouts that
  //   mostly never matter: a wait that ended early leaves its timer queued
  //   until it fires); pushed in O(1) on average, as such a timer is
  //   rarely earlier than what far_ holds. Not under the exhaustive
  //   strategy.
  // - heap_: the rest (every near event under PCT; every event under the
  //   exhaustive strategy, whose step_chosen scans it).
  // The earliest event is the earliest of the three tops, so the order is
  // exactly that of one heap.
  static constexpr int64_t kRing = 1024;  // a power of two
  static constexpr uint32_t kNone = UINT32_MAX;
  enum class Part : uint8_t { kRing, kHeap, kFar };
  bool empty() const { return ring_size_ == 0 && heap_.empty() && far_.empty(); }
  // The part holding the earliest event. Precondition: !empty().
  Part first() const;
  // The usual case, tested first: the ring holds the earliest event (it
  // alone holds events, or its earliest is before far_'s).
  bool ring_first() const {
    return ring_size_ > 0 && heap_.empty() && (far_.empty() || ring_first_t_ < far_.front().t_us);
  }
  // The ring's earliest event. Precondition: ring_size_ > 0.
  Key ring_top() const {
    const uint32_t index = ring_head_[static_cast<size_t>(ring_first_t_) & (kRing - 1)];
    return Key{ring_first_t_, 0, slots_[index].seq, index};
  }
  void ring_push(uint32_t index, int64_t t_us, uint64_t seq);
  Key ring_pop();
  // The earliest event. Precondition: !empty().
  Key top() const { return ring_first() ? ring_top() : top_of(first()); }
  Key top_of(Part part) const;
  // Removes and returns the earliest event. Precondition: !empty().
  Key pop() { return ring_first() ? ring_pop() : pop_of(first()); }
  Key pop_of(Part part);
  // Moves the ring's events (and far_'s, when `far_too`) into heap_: for
  // set_priorities and set_chooser, whose orders heap_ keeps.
  void queue_all_in_heap(bool far_too);
  // Runs the earliest event. Precondition: !empty().
  void step();
  // Exhaustive: runs the chosen one of the earliest events; false when all
  // were asleep (nothing ran). Precondition: !heap_.empty().
  bool step_chosen();
  // `b`: an event due, or the event that just ran as it ran (its task 0
  // when it turned out process-wide).
  bool independent(const Asleep& a, const Asleep& b) const;
  // Exhaustive, messages taking time: the persistent set of the due events
  // (indices into heap_) that a search must try first at this microsecond
  // (exhaustive.h, "Ties that need no choice"): the smallest set closed
  // under dependence, under "may start a dependent event here" (another
  // client-side event of one process) and under channel order; its heads.
  std::vector<size_t> persistent_heads(const std::vector<size_t>& due,
                                       const std::vector<size_t>& heads) const;
  // `s` as a sleeping event: a run not known narrow touches every task.
  static Asleep asleep(uint64_t seq, const Slot& s, bool known_narrow);
  void run_key(const Key& key);
  // run_key's first half: the key's slot freed and its event made the
  // running one; its action returned.
  Action begin_event(const Key& key);
  // Throws what an event run ahead threw (next_ahead).
  void throw_pending() {
    if (pending_error_) std::rethrow_exception(std::exchange(pending_error_, nullptr));
  }
  static constexpr int64_t kNotRunning = INT64_MIN;

  int64_t now_us_ = 0;
  uint64_t next_seq_ = 0;
  uint64_t events_run_ = 0;
  size_t live_ = 0;
  uint32_t current_owner_ = 0;
  bool current_server_side_ = false;
  PctPriorities* priorities_ = nullptr;
  Chooser* chooser_ = nullptr;
  bool reduce_ = true;
  bool messages_take_time_ = false;
  bool task_runs_commute_ = false;
  bool current_process_wide_ = false;
  bool current_runs_code_ = false;
  bool current_links_ = false;
  bool current_ended_ = false;
  bool fence_writes_ = false;
  bool current_fence_ = false;
  std::shared_ptr<const Footprint> current_footprint_;  // note_footprint
  bool current_within_ = false;
  bool current_noted_ = false;
  bool sessions_reset_ = false;
  bool commands_draw_ = false;
  bool commands_break_links_ = false;
  std::vector<Asleep> sleep_;
  // Inside run(): its limit, without daemons; inside run_until(): its
  // time, with them; kNotRunning outside.
  int64_t ahead_until_ = kNotRunning;
  bool ahead_daemons_ = false;
  std::exception_ptr pending_error_;
  uint32_t last_slot_ = 0;  // the slot push() filled last
  std::vector<Key> heap_;   // a min-heap on (t_us, -priority, seq)
  std::vector<Key> far_;    // the same, for events scheduled kRing us or more ahead
  // The ring: each bucket's first and last slot (kNone: empty; a slot's
  // `next` links the list), the bitmap of non-empty buckets, the number of
  // events in it and the earliest one's time.
  std::array<uint32_t, kRing> ring_head_ = filled(kNone);
  std::array<uint32_t, kRing> ring_tail_{};
  std::array<uint64_t, kRing / 64> ring_bits_{};
  size_t ring_size_ = 0;
  int64_t ring_first_t_ = 0;
  static constexpr std::array<uint32_t, kRing> filled(uint32_t v) {
    std::array<uint32_t, kRing> a{};
    for (uint32_t& x : a) x = v;
    return a;
  }
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_;  // unused indices of slots_
};

}  // namespace redsim::world
