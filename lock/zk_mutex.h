// InterProcessMutex: Apache Curator's ZooKeeper lock recipe (curator-recipes,
// locks/InterProcessMutex.java, LockInternals.java,
// StandardLockInternalsDriver.java; the create with protection is
// curator-framework's imps/CreateBuilderImpl.java and ProtectedUtils.java),
// written against the ZkClient port (lock/zk_client.h) and lock::Env.
//
//   lock::InterProcessMutex m(env, zk, "/locks/orders");
//   auto got = m.acquire(std::chrono::milliseconds(500));   // acquire(time, unit)
//   if (got && *got) { ...; m.release(); }
//
// The recipe (LockInternals.attemptLock, internalLockLoop):
// 1. create an EPHEMERAL_SEQUENTIAL znode "<path>/lock-" (with protection:
//    "<path>/_c_<guid>-lock-"); its sequence number is the ticket;
// 2. getChildren of <path>, sorted by the part after "lock-"; the lowest
//    holds the lock (fair: in creation order);
// 3. otherwise getData with a watch on the one just before ours (only the
//    predecessor: a release wakes one waiter, not the herd), wait for the
//    watch or the time left, and go to 2 (NoNode on getData: the
//    predecessor is already gone, go to 2 at once);
// 4. on timeout or error, delete our znode; release deletes it too.
// Re-entrant per task (Curator: per thread, threadData): a task that holds
// the lock acquires again by counting; release deletes the znode when the
// count reaches zero.
//
// Protected mode (CreateBuilderImpl.withProtection, findProtectedNodeInForeground;
// ProtectedMode.validateFoundNode): the znode name carries a random GUID.
// When the create fails with ConnectionLoss the znode may exist anyway (the
// request ran, its answer was lost); Curator's retry loop then first lists
// the parent's children and adopts the one with its GUID prefix instead of
// creating a second. Without protection (ZkMutexOptions::protected_mode =
// false, the recipe as written before Curator 2.x) the retry creates a second
// znode and the first is an orphan: owned by a live session, it blocks the
// lock (its own owner waits for it as its predecessor) until that session
// ends. (ProtectedMode.validateFoundNode, which deletes a node found from an
// earlier session after Curator reconnected with a new one, needs no code
// here: a ZkClient is one session, and an expired one's znodes are gone.)
//
// Not modelled: revocation (makeRevocable), the lock node's data, container
// parents (the parent is created persistent when missing), and Curator's
// ConnectionStateListener (a holder reads ZkClient::state() itself).
// The holder's fencing token: token(), the sequence number of its znode,
// which ZooKeeper hands out in increasing order per lock path.
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <map>
#include <optional>
#include <string>

#include "lock/env.h"
#include "lock/zk_client.h"

namespace redsim::lock {

struct ZkMutexOptions {
  // Curator's withProtection(): the GUID-prefixed name and the retry that
  // finds it. false: the unprotected recipe (the orphan after a lost create).
  bool protected_mode = true;
  // Curator's RetryPolicy for ConnectionLoss (RetryNTimes): tries after the
  // first, and the sleep before each.
  int max_retries = 3;
  Micros retry_sleep{10'000};
  // The herd recipe for contrast (ZooKeeper's "Locks" recipe notes the herd
  // effect): wait on a child watch of the parent, set by the getChildren
  // that decides (a separate read could miss the release between the two),
  // instead of the predecessor's znode, so every change wakes every waiter.
  bool watch_parent = false;
};

class InterProcessMutex {
 public:
  // `path`: the lock's parent znode ("/locks/orders"). `env` and `zk` must
  // outlive the mutex; one mutex may be shared by the tasks of a process.
  InterProcessMutex(Env& env, ZkClient& zk, std::string path, ZkMutexOptions options = {});

  // Blocks until held: true; or an error (see lock/zk_client.h). Re-entrant.
  std::expected<bool, ZkCode> acquire();
  // Waits at most `wait` (process clock): true when held, false when the
  // time ran out (our znode is deleted then).
  std::expected<bool, ZkCode> acquire(Micros wait);
  // One release by the calling task; at zero holds its znode is deleted
  // (NoNode is ignored: the session may have expired). Returns an error when
  // the delete failed otherwise (the znode may remain until the session
  // ends). std::logic_error when the task does not hold the lock
  // (Curator: IllegalMonitorStateException).
  std::expected<void, ZkCode> release();

  bool is_acquired_in_this_process() const { return !holds_.empty(); }
  bool is_owned_by_current_task() const;
  // The calling task's znode path / fencing token (its sequence number).
  std::optional<std::string> lock_path() const;
  std::optional<int64_t> token() const;

  // The sequence number of a lock znode name ("..lock-0000000042" -> 42);
  // nullopt if it has none.
  static std::optional<int64_t> sequence_of(const std::string& name);

 private:
  struct Hold {
    std::string path;
    int count = 0;
  };
  std::expected<bool, ZkCode> attempt(std::optional<Micros> wait);
  std::expected<std::string, ZkCode> create_lock_node();
  std::expected<bool, ZkCode> lock_loop(EnvTime start, std::optional<Micros> wait,
                                        const std::string& ours);
  void delete_ours(const std::string& ours);
  template <typename F>
  auto retrying(F&& call);

  Env& env_;
  ZkClient& zk_;
  std::string path_;
  ZkMutexOptions options_;
  std::map<uint64_t, Hold> holds_;  // by task id
};

}  // namespace redsim::lock
