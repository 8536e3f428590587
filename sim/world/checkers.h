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
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/world/history.h"

namespace redsim::world {

struct Violation {
  std::string checker;         // "mutual-exclusion", "hold-count", "liveness", "fencing",
                               // "foreign-write", "ghost-lock", "held-past-lease", "task-error"
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
// The same, with `held`: per resource, stretches [from, to) in which it
// counts as taken although nobody is inside (excused_holds: a lock key
// whose owner was told the outcome of its acquire or unlock is unknown).
std::vector<Violation> check_liveness(
    const History& history, int64_t bound_us,
    const std::map<std::string, std::vector<std::pair<int64_t, int64_t>>>& held);

// Fencing (Kleppmann's fencing tokens), from the kFencedWrite events of each
// resource in history order. Violations:
// - a stale write accepted: its token is below the highest accepted before;
// - a token accepted from two different owners (tokens must be unique per
//   acquisition), which also covers "accepted tokens strictly increase from
//   one writer to the next": the same holder may write again with its token;
// - a write rejected although its token was not below the highest accepted
//   (the resource refused a current holder).
std::vector<Violation> check_fencing(const History& history);

// ---- The lock-key checkers: they read the command log, i.e. the kKeyState
// events the world records for each tracked key (every resource a workload
// names in enter_critical / record_acquire_start is tracked as the Redis key
// of its lock, on every server). They need nothing from the lock under test:
// a user's lock is judged by what its commands did to its key.
//
// Owner marks: the content of a lock key that names an owner. A string's
// value or a hash field, written by a command whose arguments contain it
// (equal to an argument, or containing one of 8 or more bytes; a script's
// body does not count): `SET lock <token> NX PX 100` marks the key with the
// token, Redisson's `HINCRBY lock <client-id>:<thread> 1` in a script with
// its field; a hash field such as Redisson's read-write "mode", written by
// the script itself, is no mark. The owner of a mark is the client whose
// command created it: its process and incarnation (a restarted process is a
// new owner, as it has a new client id), and task. Marks end when a command
// removes them or the key's deadline passes (on the server's clock, drift
// included). A key whose content was never an owner mark is not judged, so
// a lock that writes none (or a semaphore's count) gives no violation here.

// Foreign writes: a command of a client changed a lock key that held another
// owner's mark and none of its own: it deleted or overwrote that mark (DEL,
// SET, GETSET, a script's writes) or changed the key's expiry (PEXPIRE,
// EXPIRE, PERSIST, SET ... KEEPTTL aside) without adding a mark of its own
// (acquiring a shared lock, as a second reader does, is not foreign). Owners
// are processes: a process's watchdog task renewing its own lock is not
// foreign; a command that names the other owner's token is (two processes
// sharing a constant token is the bug, not an excuse). A lock that only
// compares and deletes its own token never writes a foreign key: the
// command leaves another's key unchanged. One violation per command; its
// events: the mark's creation, the command, the key's new state.
std::vector<Violation> check_foreign_writes(const History& history);

struct GhostLockOptions {
  // A ghost must outlive this, without a break, to count.
  int64_t bound_us = 10000;
};

// Ghost locks: a lock key holds the mark of an owner whose workload says it
// holds nothing: its last acquire ended "gave up" (kAcquireEnd 0) or its last
// unlock "released" (kUnlockEnd), it is not inside an acquire, section or
// unlock, it is alive and not paused; for longer than options.bound_us.
// Explained, and so not a ghost: a crashed holder's key (it lives until its
// lease ends), a paused holder, and a mark left after an acquire or unlock
// that failed with an error (kAcquireEnd 2, kUnlockEnd error/not released:
// the workload was told the outcome is unknown), for as long as it lives:
// a later attempt of the owner that gives up (its own stale key in the way)
// decides nothing about it; until the owner acquires again, and unless it
// had said it holds nothing while that key stood. The classic ghost: a SET
// whose reply was lost, which the lock treated as "not acquired"; the key
// then blocks everyone for a whole lease. Tasks that record no acquire or
// unlock outcome are not judged. One violation per mark. With several
// servers (a Redlock-style lock: the key sent to N > 1 servers), one
// violation per key: such marks on a quorum (N/2 + 1) of those servers at
// once for longer than the bound; a
// minority keeps nobody out (a failed attempt whose release could not reach
// one server leaves its key there until its lease ends, as Redlock allows).
std::vector<Violation> check_ghost_locks(const History& history, const GhostLockOptions& options);

// Per lock key, the stretches in which it held a mark that no workload
// decision explains but an error does: its owner's last acquire or unlock
// failed with an error (or did not release; such an error explains the
// keys that stood when it came until the owner acquires again, whatever it
// decides meanwhile), or the command that wrote it
// ran after its caller had given up (an orphaned command: a request still
// on the wire when the call timed out), or its owner (process incarnation)
// crashed, from the crash on, or its server kept it through a crash (from
// that crash on); while the key has a deadline (a key
// that can no longer expire is never excused). The lock is taken then, by nobody;
// check_liveness counts these as held, so a correct lock that reports its
// unknown outcomes is not blamed for the lease they cost.
std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> excused_holds(
    const History& history);

// Fencing order (Kleppmann 2016, judged from the lock key): a FencedResource
// accepts a write from a holder that took its lock before another holder
// whose write it had already accepted. Whatever the tokens are (random, a
// counter that a restart reset, one read before re-acquiring), they must
// follow the order of the acquisitions the lock key shows; check_fencing
// judges the tokens among themselves. Acquisition time: the newest of the
// writer's own marks on the section's lock key live at its enter.
std::vector<Violation> check_fenced_order(const History& history);

// Held past lease: a holder inside its critical section (kEnterCritical to
// kLeaveCritical, outermost nesting, or its process's crash or end) while
// its lock key holds none of its own marks (its process and incarnation):
// the lease ran out (a pause, slow work, a watchdog that stopped) or another
// client deleted or took its lock, whether or not anyone else entered.
// With several servers (Redlock), its marks must be live on a majority of
// them. A section in which the holder wrote to a FencedResource
// (kFencedWrite) is judged by check_fencing instead: the fence is what makes
// outliving the lease harmless (Kleppmann 2016). One violation per section;
// its events: the enter, the state or command that ended the last mark.
std::vector<Violation> check_held_past_lease(const History& history);

}  // namespace redsim::world
