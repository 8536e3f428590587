// History: what happened in a world, in the order it happened, each event at
// true virtual time (microseconds since the world started). The world appends
// process lifecycle events and every command a server executed; the workload
// appends critical-section enter/leave, acquire attempts, hold counts and its
// own results through ProcessEnv. Checkers (checkers.h) read it; the
// determinism self-check hashes it.
//
//   const world::History& h = world.history();
//   std::cout << world::render_timeline(h);
//   // t=   12.345ms  c2/1  SET lock tok NX PX 100 -> OK
//   uint64_t fingerprint = h.hash();   // same seed, same hash
//
// Names: process 3 is "c3", its task 1 (the main task) "c3/1"; task 0 means
// the process itself (lifecycle events, pub/sub callbacks). Servers are "s0",
// "s1", ...
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/resp/reply.h"
#include "sim/world/history_values.h"

namespace redsim::world {

using ProcessId = uint32_t;  // 1, 2, ... in spawn order; 0 = none
using TaskId = uint64_t;     // 1 = the process's main task; 0 = the process itself

// The event's fields. Every event has the common header (t_us, kind,
// process, task, server, value); the other fields are typed by kind, so a
// checker reads what happened, never a formatted string:
//
//   if (e.kind == EventKind::kCommand && e.argv[0] == "DEL" &&
//       e.reply.is_integer() && e.reply.integer() == 1) ...   // a DEL that deleted
//   if (e.kind == EventKind::kHold && e.hold_op == HoldOp::kUnlock) ...
//   if (e.kind == EventKind::kKeyState && e.key_state == KeyPresence::kAbsent) ...
//
// Design: one flat struct with typed fields (rather than a std::variant of
// per-kind payloads), because most kinds carry one or two of the same few
// fields (resource, value, text) and checkers filter by kind anyway; a field
// a kind does not use keeps its default. `text` is free text only (names,
// reasons, notes): no field holds a formatted reply or an enum's spelling.
// Replies are formatted when printed (render_timeline, canonical, render_svg,
// the CLI) by format_reply.
enum class EventKind : uint8_t {
  kProcessStart,   // text: the process name; client_id: its client id
  kProcessEnd,     // main returned; its other tasks were stopped
  kProcessCrash,   // text: why ("scheduled", "random", "uncaught exception")
  kProcessPause,   // value: the pause's length in us
  kProcessResume,  //
  kTaskStart,      // a spawned task; text: its name
  kTaskEnd,        //
  kTaskError,      // an exception escaped the task; text: what(). The process then crashes.
  kCommand,        // server executed argv and answered reply; value: the sender's
                   // incarnation (its restarts before it sent); orphaned: the caller
                   // no longer waited for it (it timed out, its connection broke or
                   // its process crashed while the request travelled)
  kPush,           // a pub/sub message reached the process; text: channel, reply: payload
  kDisconnect,     // the server closed a crashed or ended process's connection
  kServerNote,     // text: e.g. "active expire deleted 2 keys"
  kEnterCritical,  // resource: the protected resource
  kLeaveCritical,  //
  kAcquireStart,   // resource; value: wait budget in us (-1 = unbounded)
  kAcquireEnd,     // resource; value: 1 acquired, 0 gave up, 2 failed with an error (the
                   // outcome is unknown: text says what; ProcessEnv::record_acquire_error)
  kHold,           // resource; hold_op: what the workload did; value: observed count
  kTrace,          // text: a lock-level note (Env::trace)
  kResult,         // text: a result the workload recorded ("acquire ok")
  kKeyState,       // server, resource: a tracked lock key changed on that server.
                   // key_state: kLease (value: its deadline as true time, us),
                   // kPersistent (no deadline) or kAbsent; argv: its content as owner
                   // marks (a string's value, a hash's field names in order; nothing
                   // for other types); process/task: the client whose command changed
                   // it (0: expiry, a server fault or replication). Drawn as lease bars
                   // on the server's lane; read by the lock-key checkers (checkers.h).
  // Faults (world.h's FaultPlan and World's scheduling calls). `server` is
  // the server index clients use; text names the node ("s0", "s0r1").
  kProcessRestart,    // a crashed process started again; text: its name; client_id: its new id
  kMessageSent,       // WorldOptions::record_messages only; text: request|reply|push|close;
                      // value: its arrival time in us
  kMessageDelivered,  // WorldOptions::record_messages only; text as kMessageSent; value: sent at
  kMessageLost,       // text: request|reply, and why
  kMessageDelayed,    // a message held back by a delay fault; text: request|reply|push|close;
                      // value: the extra delay in us
  kLinkBroken,        // a connection broke (reset, timeout, partition, server down); text: why
  kPartitionStart,    // process and server cut apart; value: the heal time in us
  kPartitionHeal,     //
  kServerCrash,       // text: node and persistence; value: keys kept for the restart
  kServerRestart,     // text: node; value: keys it restarted with
  kFailover,          // text: "s0r0 promoted"; value: writes of the old primary not replicated
  kClockJump,         // a process (process != 0) or node (text) clock jumped; value: delta in us
  kClockDrift,        // a clock's rate changed; value: drift in ppm
  kFencedWrite,       // a FencedResource judged a write: resource; value: the token;
                      // verdict: accepted or rejected
  kUnlockEnd,         // resource; value: an UnlockOutcome; text: what the lock said, if anything
  kValidity,          // resource; the lock just acquired promised to be this task's alone
                      // until value (true time, us: when the holder's clock reads the
                      // deadline the lock reported; ProcessEnv::record_validity)
};

std::string_view to_string(EventKind kind);

// What a reentrant workload did before it read the hold count (kHold).
enum class HoldOp : uint8_t {
  kLock,            // a lock()/try_lock() that succeeded
  kUnlock,          // an unlock() that succeeded
  kUnlockRejected,  // an unlock() that threw LockNotOwned
};
std::string_view to_string(HoldOp op);  // "lock", "unlock", "unlock-rejected"

// A tracked lock key's state on one server (kKeyState).
enum class KeyPresence : uint8_t {
  kAbsent,      // no such key
  kLease,       // present with a deadline (the event's value)
  kPersistent,  // present without a deadline
};
std::string_view to_string(KeyPresence state);  // "absent", "lease", "persistent"

// A FencedResource's verdict on a write (kFencedWrite).
enum class FenceVerdict : uint8_t {
  kAccepted,  // the token was not below the highest seen
  kRejected,  // a stale token
};
std::string_view to_string(FenceVerdict verdict);  // "accepted", "rejected"

// How an unlock ended, as the workload saw it (kUnlockEnd's value).
enum class UnlockOutcome : uint8_t {
  kNotReleased = 0,  // the lock said it did not hold the lock (any more)
  kReleased = 1,     // the lock said it released it
  kError = 2,        // the unlock failed with an error: whether it ran is unknown
};
std::string_view to_string(UnlockOutcome outcome);  // "not released", "released", "error"

// 80 bytes: the strings, the argv and the reply are shared values
// (history_values.h) that read like a std::string, a
// std::vector<std::string> and a resp::Reply.
struct HistoryEvent {
  // Common to every kind.
  int64_t t_us = 0;
  int64_t value = 0;  // its meaning per kind above
  TaskId task = 0;
  ProcessId process = 0;
  int32_t server = -1;  // kCommand, kDisconnect, kServerNote, kPush, kKeyState; else -1
  EventKind kind = EventKind::kTrace;

  bool orphaned = false;                           // kCommand: nobody waited for the reply any more
  HoldOp hold_op = HoldOp::kLock;                  // kHold
  KeyPresence key_state = KeyPresence::kAbsent;    // kKeyState
  FenceVerdict verdict = FenceVerdict::kAccepted;  // kFencedWrite
  HistoryText resource;   // critical section, acquire, hold, key-state, fenced events
  HistoryArgv argv;       // kCommand: the command as sent; kKeyState: owner marks
  HistoryText text;       // free text: names, reasons, notes, channels
  HistoryReply reply;     // kCommand: the server's answer; kPush: the message
  HistoryText client_id;  // kProcessStart, kProcessRestart
};

// The events of a History in order: a random-access sequence stored in
// fixed chunks of kChunk events, so appending never moves the events
// already recorded (a long run's history grows without copying itself or
// touching its memory twice) and references to recorded events stay valid.
// Reads like a const std::vector: size(), empty(), operator[], back(),
// begin()/end() (random-access iterators), range-for.
class EventLog {
 public:
  static constexpr size_t kChunk = 256;

  class const_iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = HistoryEvent;
    using difference_type = std::ptrdiff_t;
    using pointer = const HistoryEvent*;
    using reference = const HistoryEvent&;

    const_iterator() = default;
    const_iterator(const EventLog* log, size_t i) : log_(log), i_(i) {}
    reference operator*() const { return (*log_)[i_]; }
    pointer operator->() const { return &(*log_)[i_]; }
    reference operator[](difference_type n) const { return (*log_)[i_ + n]; }
    const_iterator& operator++() { return ++i_, *this; }
    const_iterator operator++(int) { return {log_, i_++}; }
    const_iterator& operator--() { return --i_, *this; }
    const_iterator operator--(int) { return {log_, i_--}; }
    const_iterator& operator+=(difference_type n) { return i_ += n, *this; }
    const_iterator& operator-=(difference_type n) { return i_ -= n, *this; }
    friend const_iterator operator+(const_iterator a, difference_type n) { return a += n; }
    friend const_iterator operator+(difference_type n, const_iterator a) { return a += n; }
    friend const_iterator operator-(const_iterator a, difference_type n) { return a -= n; }
    friend difference_type operator-(const const_iterator& a, const const_iterator& b) {
      return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) {
      return a.i_ == b.i_;
    }
    friend auto operator<=>(const const_iterator& a, const const_iterator& b) {
      return a.i_ <=> b.i_;
    }

   private:
    const EventLog* log_ = nullptr;
    size_t i_ = 0;
  };
  using iterator = const_iterator;
  using value_type = HistoryEvent;
  using size_type = size_t;

  EventLog() = default;
  EventLog(const EventLog& other) { *this = other; }
  EventLog& operator=(const EventLog& other);
  EventLog(EventLog&& other) noexcept { swap(other); }
  EventLog& operator=(EventLog&& other) noexcept {
    EventLog gone(std::move(*this));
    swap(other);
    return *this;
  }
  ~EventLog() { clear(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const HistoryEvent& operator[](size_t i) const { return chunks_[i / kChunk][i % kChunk]; }
  const HistoryEvent& back() const { return (*this)[size_ - 1]; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }
  void push_back(HistoryEvent&& e);
  void push_back(const HistoryEvent& e) { push_back(HistoryEvent(e)); }
  // Appends a default event and returns it, to be filled in place.
  HistoryEvent& emplace_back();
  void clear();

 private:
  void swap(EventLog& other) noexcept {
    chunks_.swap(other.chunks_);
    std::swap(size_, other.size_);
  }
  // Storage for the next event (a new chunk when the last one is full).
  void* next_slot();
  // Raw storage for kChunk events each; the first size_ slots hold events.
  std::vector<HistoryEvent*> chunks_;
  size_t size_ = 0;
};

class History {
 public:
  using Events = EventLog;

  // Appends `e` (its t_us must not be before the last event's); returns its
  // index. An rvalue is moved into place once (an event is a few hundred
  // bytes of strings, argv and reply: the world records several per command).
  size_t add(HistoryEvent&& e);
  size_t add(const HistoryEvent& e) { return add(HistoryEvent(e)); }
  // Appends a default event and returns it: the caller fills it in place
  // (nothing moved), before anything else is added.
  HistoryEvent& add_new() { return events_.emplace_back(); }
  // A field's value shared with the earlier events that hold an equal one
  // (add() does this itself; a caller of add_new() asks): a long run keeps
  // one copy of each argv, text and scalar reply it records again and again.
  HistoryText intern_text(std::string_view s) { return interner_.text(s); }
  HistoryArgv intern_argv(std::vector<std::string>&& argv) {
    return interner_.argv(std::move(argv));
  }
  HistoryArgv intern_argv(const std::vector<std::string>& argv) { return interner_.argv(argv); }
  HistoryReply intern_reply(const resp::Reply& reply) { return interner_.reply(reply); }

  const Events& events() const { return events_; }
  size_t size() const { return events_.size(); }
  const HistoryEvent& operator[](size_t i) const { return events_[i]; }

  // The time the recording stopped (the world's now() after its last run);
  // sections still open then end here for the checkers.
  int64_t end_us() const;
  void set_end_us(int64_t t_us) { end_us_ = t_us; }

  // Number of servers in the world; the timeline names servers only when > 1.
  size_t server_count() const { return server_count_; }
  void set_server_count(size_t n) { server_count_ = n; }

  // The name given to spawn_process, from the process's start event ("" if none).
  std::string process_name(ProcessId pid) const;

  // FNV-1a 64 over canonical(): equal histories give equal hashes on every platform.
  uint64_t hash() const;
  // One line per event, every field, strings length-prefixed: the hashed form.
  // Each event is `t|kind|process|task|server|resource|argc|argv...|text|reply|value|`
  // where the typed fields print in the slot they have always had: `text`
  // holds the free text or, for kCommand, "orphaned"; kHold, kKeyState and
  // kFencedWrite their enum's spelling; `reply` holds format_reply(reply) for
  // kCommand and kPush and client_id for kProcessStart and kProcessRestart.
  // (So the hashes pinned by the golden tests did not change when the history
  // became typed.)
  std::string canonical() const;

 private:
  Events events_;
  HistoryInterner interner_;
  int64_t end_us_ = -1;
  size_t server_count_ = 1;
};

// Argument and reply forms used in the history (full, not truncated): an
// argument is bare when it is printable and has no space or quote, else
// double-quoted with C escapes. A reply: OK (status), (error) ERR x,
// (integer) 1, "bulk", (nil), [a, b].
// `max_arg_chars` > 0 cuts each longer argument with "...".
std::string format_argv(const std::vector<std::string>& argv, size_t max_arg_chars = 0);
std::string format_reply(const resp::Reply& reply);

struct TimelineOptions {
  // Events to show with their neighbours; empty = the whole history.
  std::vector<size_t> focus;
  size_t context_events = 8;   // events shown on each side of a focus event
  size_t max_text_chars = 48;  // longer arguments and replies are cut with "..."
  bool server_notes = true;    // include kServerNote lines
  bool key_states = false;     // include kKeyState lines (the lease bars of render_svg)
  bool whole_history = false;  // every event, focus events still marked
  // (context_events counts the lines shown: hidden key states and server
  // notes do not take a focus event's neighbours away.)
};

// One line per event: `t=   12.345ms  c2/1  SET lock tok NX PX 100 -> OK`.
// Focus events are marked with ">>"; skipped stretches show as "   ...".
std::string render_timeline(const History& history, const TimelineOptions& options = {});
std::string render_event(const History& history, const HistoryEvent& event,
                         size_t max_text_chars = 48);
// "12.345ms" for 12345 us.
std::string format_time_ms(int64_t t_us);

}  // namespace redsim::world
