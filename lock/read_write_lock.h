// ReadWriteLock: Redisson's RReadWriteLock on the Env port. Two locks over
// one Redis hash at `key`: any number of readers, or one writer.
//
// In Redis (scripts/rw_*.lua):
//   key   hash  mode             -> "read" | "write"
//               <owner>          -> read hold count of that owner
//               <owner>:write    -> write hold count of the writer
// where owner is "<client-id>:<task-id>", as for ReentrantLock. A read is
// granted while the mode is absent or "read", or to the writer itself (a
// writer may also take the read lock; releasing its last write hold then
// downgrades the mode to "read", and wakes nobody). A write is granted only
// while the mode is absent, or to the writer again (re-entry). A reader
// never upgrades: its write attempt waits like anyone else's, so
// try_lock_for() times out (and lock() would wait forever, as in Redisson).
// Unlocks publish on "redisson_rwlock:{<key>}": a read unlock
// ReentrantLock::kUnlockMessage (0, wakes one waiter per process), a write
// unlock kReadUnlockMessage (1, wakes them all), as RedissonReadLock and
// RedissonWriteLock.unlockInnerAsync do.
//
// Each half is a ReentrantLock (hold counts per owner, subscribe-then-retry
// waiting, lease or watchdog, release() outcomes, the replica check, the
// unlock latch) with its own scripts. Leases (Redisson master):
//   - each read hold N of an owner has a timeout key
//     "{<key>}:<owner>:rwlock_timeout:N" (RedissonReadLock
//     .getReadWriteTimeoutNamePrefix) that lives for that hold's lease; the
//     hash's expiry is raised to the longest lease granted;
//   - a read release deletes its timeout key and sets the hash's expiry to
//     the longest lease left among the live timeout keys, or deletes the
//     hash when none is left (so expired readers are dropped and a writer
//     waits only for the live ones);
//   - the read watchdog renews every timeout key of its owner and the hash
//     (renewal.ReadLockTask); the write watchdog renews the hash;
//   - a write re-entry sets PTTL + lease (RedissonWriteLock.tryLockInnerAsync,
//     the fix of redisson#1110, so a short re-entry never cuts a long hold
//     short).
// force_unlock() and is_locked() look at the mode: the read half's delete
// or report a lock in read mode (is_locked also: a writer holding reads),
// the write half's one in write mode (RedissonReadLock/RedissonWriteLock
// .forceUnlockAsync and .isLocked).
//
//   lock::ReadWriteLock rw(env, "orders:42");
//   rw.read_lock().lock();   ... rw.read_lock().unlock();
//   rw.write_lock().lock();  rw.read_lock().lock();   // writer also reads
//   rw.write_lock().unlock();                          // mode -> "read"
//   rw.read_lock().unlock();
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "lock/reentrant_lock.h"

namespace redsim::lock {

// The read half; kind() is kReadWrite (the kind of the pair).
class ReadLock final : public ReentrantLock {
 public:
  ReadLock(Env& env, std::string key, ReentrantLockOptions options = {});
  ReadLock(ReadLock&&) = default;
  LockKind kind() const override { return LockKind::kReadWrite; }
  // Read mode, or write mode with read holds besides the writer's.
  bool is_locked() override;

 protected:
  std::optional<int64_t> run_acquire(const std::string& owner, std::chrono::milliseconds lease,
                                     const Attempt& attempt) override;
  Reply run_unlock(const std::string& owner, std::chrono::milliseconds lease,
                   const UnlockLatch& latch) override;
  // Deletes the lock only in read mode.
  bool run_force_unlock() override;

 private:
  // "{<key>}:<owner>:rwlock_timeout".
  std::string timeout_prefix(const std::string& owner) const;
};

// The write half: an exclusive, reentrant lock (what make_lock(kReadWrite)
// returns). is_held_by_current_thread() and hold_count() read "<owner>:write".
class WriteLock final : public ReentrantLock {
 public:
  WriteLock(Env& env, std::string key, ReentrantLockOptions options = {});
  WriteLock(WriteLock&&) = default;
  LockKind kind() const override { return LockKind::kReadWrite; }
  // Write mode only.
  bool is_locked() override;

 protected:
  std::optional<int64_t> run_acquire(const std::string& owner, std::chrono::milliseconds lease,
                                     const Attempt& attempt) override;
  Reply run_unlock(const std::string& owner, std::chrono::milliseconds lease,
                   const UnlockLatch& latch) override;
  // Deletes the lock only in write mode.
  bool run_force_unlock() override;
};

class ReadWriteLock {
 public:
  ReadWriteLock(Env& env, std::string key, ReentrantLockOptions options = {});
  // Redisson's LockPubSub.READ_UNLOCK_MESSAGE: wakes every waiter.
  static constexpr std::string_view kReadUnlockMessage = "1";

  ReadWriteLock(ReadWriteLock&&) = default;
  ReadWriteLock(const ReadWriteLock&) = delete;
  ReadWriteLock& operator=(const ReadWriteLock&) = delete;

  ReadLock& read_lock() { return read_; }
  WriteLock& write_lock() { return write_; }

  // HGET key mode: "read", "write", or nullopt when nobody holds the lock.
  std::optional<std::string> mode();
  // Redisson's channel: "redisson_rwlock:{<key>}", or "redisson_rwlock:<key>"
  // when the key already has a hash tag.
  static std::string channel_name(std::string_view key);
  // Redisson's suffixName(key, ""): "{<key>}", or the key itself when it
  // already has a hash tag; the timeout keys start with it.
  static std::string key_prefix(std::string_view key);

 private:
  Env* env_;
  std::string key_;
  ReadLock read_;
  WriteLock write_;
};

}  // namespace redsim::lock
