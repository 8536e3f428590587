// Checkers: each reads a History and returns the violations it finds, each
// with a description and a timeline excerpt around the events involved. An
// empty vector means the property held for this run.
//
//   auto v = world::check_mutual_exclusion(world.history());
//   for (const auto& x : v) std::cout << x.description << "\n" << x.timeline;
//
// Owners: an owner is (process, task), as the lock layer's
// "<client-id>:<task-id>". Sections are built from kEnterCritical /
// kLeaveCritical events; an owner may nest (reentrant locks), its section
// lasts until its depth returns to 0. A crash or end of the owner's process
// ends its sections; a pause does not (a paused holder still holds).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/world/history.h"

namespace redsim::world {

struct Violation {
  std::string checker;         // "mutual-exclusion", "hold-count", "liveness", "fencing"
  std::string description;     // one line, with times and owners
  std::vector<size_t> events;  // indices into the history of the events involved
  std::string timeline;        // render_timeline around `events`
};

// Renders every violation: description, then its timeline.
std::string format_violations(const std::vector<Violation>& violations);

// No two different owners inside a critical section of the same resource at
// once. Judged in history order: an enter while another owner's section of
// that resource is open is a violation (one per such enter).
std::vector<Violation> check_mutual_exclusion(const History& history);

// Reentrant workloads record each successful lock, successful unlock and
// rejected unlock (LockNotOwned) with the hold count they observed after it
// (kHold). The model keeps a count per (resource, owner): lock adds one,
// unlock takes one. Violations: an observed count that differs from the
// model's (a negative observation means "not read" and is not compared), an
// unlock that succeeds while the model holds 0, an unlock rejected while the
// model holds more than 0. A crash or end of the process resets its owners'
// counts to 0 (the process is gone).
std::vector<Violation> check_hold_counts(const History& history);

// Liveness within `bound_us`. A waiter is an acquire attempt: kAcquireStart
// (at t0, willing to wait w) up to its kAcquireEnd, its process's crash or
// end, or the end of the history, whichever comes first, and never past
// t0 + w. The resource is free when no owner is inside its critical section
// (so after a crashed holder, it is free from the crash on: choose a bound
// that covers the lease, as the lock can only be taken again once it expired;
// and every bound must cover the unlock's round trip, the wake-up message and
// the waiter's own acquire round trip, since the section ends before unlock).
// Violation: while a waiter waited and its process was not paused, the
// resource stayed free, without a break, for longer than `bound_us`. That is:
// the resource sat idle for longer than the bound while someone able to take
// it wanted it. One violation per attempt, at the first such stretch.
std::vector<Violation> check_liveness(const History& history, int64_t bound_us);

// Fencing (Kleppmann's fencing tokens), from the kFencedWrite events of each
// resource in history order. Violations:
// - a stale write accepted: its token is below the highest accepted before;
// - a token accepted from two different owners (tokens must be unique per
//   acquisition), which also covers "accepted tokens strictly increase from
//   one writer to the next": the same holder may write again with its token;
// - a write rejected although its token was not below the highest accepted
//   (the resource refused a current holder).
std::vector<Violation> check_fencing(const History& history);

}  // namespace redsim::world
