#include "lock/multi_lock.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "lock/errors.h"

namespace redsim::lock {

MultiLock::MultiLock(Env& env, std::vector<DistributedLock*> locks)
    : env_(env), locks_(std::move(locks)) {
  if (locks_.empty()) throw std::invalid_argument("MultiLock: no locks given");
  for (const DistributedLock* l : locks_) {
    if (l == nullptr) throw std::invalid_argument("MultiLock: a null lock");
  }
}

void MultiLock::lock() {
  const Micros base_wait = std::chrono::milliseconds(1500) * static_cast<int64_t>(locks_.size());
  while (!acquire(base_wait)) {
  }
}

bool MultiLock::try_lock() { return acquire(Micros(0)); }

void MultiLock::release_quietly(size_t count) {
  for (size_t i = 0; i < count; ++i) {
    try {
      locks_[i]->try_unlock();
    } catch (const Error& e) {
      env_.trace("multi-lock could not release " + locks_[i]->key() + ": " + e.what());
    }
  }
}

bool MultiLock::acquire(Micros wait) {
  const Micros start = env_.now();
  size_t taken = 0;
  while (taken < locks_.size()) {
    bool ok = false;
    try {
      if (wait.count() <= 0) {
        ok = locks_[taken]->try_lock();
      } else {
        ok = locks_[taken]->try_lock_for(std::max(Micros(0), wait - (env_.now() - start)));
      }
    } catch (const Error&) {
      release_quietly(taken);
      throw;
    }
    if (ok) {
      ++taken;
      continue;
    }
    env_.trace("multi-lock could not take " + locks_[taken]->key() + "; releasing " +
               std::to_string(taken) + " taken");
    release_quietly(taken);
    taken = 0;
    if (wait.count() <= 0 || env_.now() - start >= wait) return false;
  }
  return true;
}

bool MultiLock::try_unlock() {
  bool all = true;
  for (DistributedLock* l : locks_) all = l->try_unlock() && all;
  return all;
}

void MultiLock::unlock() {
  if (try_unlock()) return;
  throw LockNotOwned("attempt to unlock a multi-lock of " + std::to_string(locks_.size()) +
                     " locks, at least one not locked by current thread by node id: " +
                     env_.client_id() + " thread-id: " + std::to_string(env_.task_id()));
}

}  // namespace redsim::lock
