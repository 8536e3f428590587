#include "lock/multi_lock.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "lock/errors.h"

namespace redsim::lock {

MultiLock::MultiLock(Env& env, std::vector<DistributedLock*> locks)
    : env_(&env), locks_(std::move(locks)) {
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
    if (UnlockResult r = locks_[i]->release(); !r) {
      env_->trace("multi-lock could not release " + locks_[i]->key() + ": " + r.error().message);
    }
  }
}

bool MultiLock::acquire(Micros wait) {
  const EnvTime start = env_->now();
  size_t taken = 0;
  while (taken < locks_.size()) {
    bool ok = false;
    try {
      if (wait.count() <= 0) {
        ok = locks_[taken]->try_lock();
      } else {
        ok = locks_[taken]->try_lock_for(std::max(Micros(0), wait - (env_->now() - start)));
      }
    } catch (const Error&) {
      release_quietly(taken);
      throw;
    }
    if (ok) {
      ++taken;
      continue;
    }
    env_->trace("multi-lock could not take " + locks_[taken]->key() + "; releasing " +
                std::to_string(taken) + " taken");
    release_quietly(taken);
    taken = 0;
    if (wait.count() <= 0 || env_->now() - start >= wait) return false;
  }
  return true;
}

UnlockResult MultiLock::release() {
  UnlockResult outcome;
  for (DistributedLock* l : locks_) {
    UnlockResult r = l->release();
    if (!r && outcome) outcome = std::move(r);
  }
  const uint64_t task = env_->task_id();
  std::lock_guard<std::mutex> guard(mu_.mu);
  last_unlock_.insert_or_assign(task, outcome);
  return outcome;
}

std::optional<UnlockResult> MultiLock::last_unlock() {
  const uint64_t task = env_->task_id();
  std::lock_guard<std::mutex> guard(mu_.mu);
  auto it = last_unlock_.find(task);
  if (it == last_unlock_.end()) return std::nullopt;
  return it->second;
}

}  // namespace redsim::lock
