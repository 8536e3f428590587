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
// downgrades the mode to "read"). A write is granted only while the mode is
// absent, or to the writer again (re-entry). A reader never upgrades: its
// write attempt waits like anyone else's, so try_lock_for() times out (and
// lock() would wait forever, as in Redisson). Unlocks publish
// ReentrantLock::kUnlockMessage on "redisson_rwlock:{<key>}", which wakes
// the waiters of both halves.
//
// Each half is a ReentrantLock (hold counts per owner, subscribe-then-retry
// waiting, lease or watchdog, release() outcomes, the replica check) with its own
// scripts. Lease: one PEXPIRE on the hash; a write re-entry sets PTTL + lease
// (RedissonWriteLock.tryLockInnerAsync, the fix of redisson#1110, so a short
// re-entry never cuts a long hold short); a read acquisition or renewal
// raises it to its lease and never lowers it, and a read release leaves it
// alone (Redisson keeps one timeout key per read hold to shorten it exactly;
// not modelled here, so a released reader's lease may outlast it, which
// delays writers but never lets one in early).
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

 protected:
  std::optional<int64_t> run_acquire(const std::string& owner, std::chrono::milliseconds lease,
                                     const Attempt& attempt) override;
};

// The write half: an exclusive, reentrant lock (what make_lock(kReadWrite)
// returns). is_held_by_current_thread() and hold_count() read "<owner>:write".
class WriteLock final : public ReentrantLock {
 public:
  WriteLock(Env& env, std::string key, ReentrantLockOptions options = {});
  WriteLock(WriteLock&&) = default;
  LockKind kind() const override { return LockKind::kReadWrite; }

 protected:
  std::optional<int64_t> run_acquire(const std::string& owner, std::chrono::milliseconds lease,
                                     const Attempt& attempt) override;
};

class ReadWriteLock {
 public:
  ReadWriteLock(Env& env, std::string key, ReentrantLockOptions options = {});
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

 private:
  Env* env_;
  std::string key_;
  ReadLock read_;
  WriteLock write_;
};

}  // namespace redsim::lock
