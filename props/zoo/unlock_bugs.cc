// The unlock family: locks whose acquire is the classic SET NX PX and whose
// release goes wrong.
#include "props/zoo/user_lock.h"

namespace redsim::zoo {
namespace {

// GET-then-DEL unlock. Source: the Redis SET command page ("a more robust
// pattern": do not DEL a key you may no longer own; release it with the
// compare-and-delete script) and Kleppmann, "How to do distributed locking"
// (2016). What goes wrong: the holder GETs its own token, is paused until
// its lease ends, another client takes the lock, and the holder's DEL then
// removes the other client's lock.
class GetThenDelLock : public PollingSetNxLock {
 public:
  using PollingSetNxLock::PollingSetNxLock;
  bool unlock() {
    const auto current = env_.connection().call({"GET", key_});
    if (!current.is_bulk() || current.str() != token_) return false;
    env_.connection().call({"DEL", key_});
    return true;
  }
};

// Blind DEL unlock. Source: the articles in shared/seeds (the first broken
// lock: "SETNX ... DEL") and the Redis SET page. What goes wrong: a holder
// that outlived its lease deletes whoever holds the key now.
class BlindDelLock : public PollingSetNxLock {
 public:
  using PollingSetNxLock::PollingSetNxLock;
  void unlock() { env_.connection().call({"DEL", key_}); }
};

// A constant token ("1") with the compare-and-delete script. Source: the
// Redis SET page (the value must be unique across all clients and all lock
// requests). What goes wrong: every client's token is the same, so the
// script of a holder that outlived its lease deletes the next holder's key.
class ConstantTokenLock : public SetNxLock {
 public:
  using SetNxLock::SetNxLock;
  bool try_lock_for(Micros wait) {
    return poll(env_, wait, [this] { return set_nx("1"); });
  }
  bool unlock() { return compare_and_delete("1"); }
};

// One lock object shared by a process's threads, its token a plain member
// that each acquire overwrites before it polls. Source: redis-py's Lock,
// whose token moved to thread-local storage for this (pull #491, see the
// scenario in its Lock docstring), and pull #4258's note that #489 moved
// the token's clear for a token overwrite. What goes wrong: thread B's
// waiting acquire overwrites thread A's token, A's release compares B's
// token, deletes nothing and returns as if it released: A's key blocks
// everyone until it expires (a ghost lock).
class SharedInstanceLock : public PollingSetNxLock {
 public:
  using PollingSetNxLock::PollingSetNxLock;
  void unlock() { compare_and_delete(token_); }  // the result is ignored
};

// A release that drops its token first and swallows a connection error,
// so the caller is told the lock was released. Source: redis-py pull #4258
// (Lock.release cleared the token before the round trip, so after a
// ConnectionError the lock stays in Redis with no token left to release
// it) and the common wrapper that ignores the release's exception. What
// goes wrong: when the release never reached Redis, the key lives on for a
// whole lease while its owner believes it released: a ghost lock.
class ReleaseErrorSwallowedLock : public PollingSetNxLock {
 public:
  using PollingSetNxLock::PollingSetNxLock;
  void unlock() {
    const std::string token = std::move(token_);
    token_.clear();
    try {
      compare_and_delete(token);
    } catch (const lock::ConnectionError&) {
      // "the lock expires anyway"
    }
  }
};

template <class L>
harness::LockFactory factory(Millis lease) {
  return harness::lock_factory(
      [lease](lock::Env& env, const std::string& key) { return L(env, key, lease); });
}

}  // namespace

void add_unlock_bugs(std::vector<Entry>& out) {
  const Millis lease = 100ms;
  harness::PlanOptions unbounded{.profile = harness::FaultProfile::kUnbounded};
  harness::PlanOptions budgeted{.profile = harness::FaultProfile::kBudgeted};
  out.push_back({.name = "get-then-del",
                 .source = "Redis SET page; Kleppmann 2016",
                 .what = "unlock GETs its token, then DELs: a pause between deletes the next "
                         "holder's lock",
                 .lease = lease,
                 .factory = factory<GetThenDelLock>(lease),
                 .plan = unbounded,
                 .checkers = {"foreign-write"},
                 .causes = {"DEL"}});
  out.push_back({.name = "blind-del",
                 .source = "seeds articles (SETNX + DEL); Redis SET page",
                 .what = "unlock is a plain DEL: a holder past its lease deletes another's lock",
                 .lease = lease,
                 .factory = factory<BlindDelLock>(lease),
                 .plan = unbounded,
                 .checkers = {"foreign-write"},
                 .causes = {"DEL"}});
  out.push_back({.name = "constant-token",
                 .source = "Redis SET page (the value must be unique)",
                 .what = "every client's token is \"1\": compare-and-delete deletes the next "
                         "holder's lock",
                 .lease = lease,
                 .factory = factory<ConstantTokenLock>(lease),
                 .plan = unbounded,
                 .checkers = {"foreign-write"},
                 .causes = {"EVAL"}});
  harness::PlanOptions threads = budgeted;
  threads.max_tasks = 3;
  harness::RunOptions shared;
  shared.shared_lock = true;
  out.push_back({.name = "shared-instance-token",
                 .source = "redis-py pull #491 (thread-local token), Lock docstring; #4258 on #489",
                 .what = "threads share one lock object: a waiter overwrites the holder's token, "
                         "whose release then deletes nothing",
                 .lease = lease,
                 .factory = factory<SharedInstanceLock>(lease),
                 .plan = threads,
                 .run = shared,
                 .checkers = {"ghost-lock", "liveness"},
                 .causes = {"SET"}});
  out.push_back({.name = "release-error-swallowed",
                 .source = "redis-py pull #4258 (token cleared before the release round trip)",
                 .what = "release drops its token and swallows a connection error: the caller "
                         "is told released, the key lives on",
                 .lease = lease,
                 .factory = factory<ReleaseErrorSwallowedLock>(lease),
                 .plan = budgeted,
                 .checkers = {"ghost-lock"},
                 .causes = {"SET"}});
}

}  // namespace redsim::zoo
