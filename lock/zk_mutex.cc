// InterProcessMutex (lock/zk_mutex.h): Curator's recipe against ZkClient.
#include "lock/zk_mutex.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

namespace redsim::lock {

namespace {

constexpr const char* kLockName = "lock-";       // InterProcessMutex.LOCK_NAME
constexpr const char* kProtectedPrefix = "_c_";  // ProtectedUtils.PROTECTED_PREFIX

// The part after the last "lock-" (StandardLockInternalsDriver.standardFixForSorting).
std::string sorting_key(const std::string& name) {
  const size_t at = name.rfind(kLockName);
  return at == std::string::npos ? name : name.substr(at + std::string(kLockName).size());
}

bool retryable(ZkCode c) { return c == ZkCode::kConnectionLoss; }

}  // namespace

// Curator runs every foreground call in a RetryLoop: ConnectionLoss is
// retried (after a sleep) while the retry policy allows.
template <typename F>
auto InterProcessMutex::retrying(F&& call) {
  for (int tries = 0;; ++tries) {
    auto r = call();
    if (r || !retryable(r.error()) || tries >= options_.max_retries) return r;
    env_.sleep_for(options_.retry_sleep);
  }
}

InterProcessMutex::InterProcessMutex(Env& env, ZkClient& zk, std::string path,
                                     ZkMutexOptions options)
    : env_(env), zk_(zk), path_(std::move(path)), options_(options) {}

std::optional<int64_t> InterProcessMutex::sequence_of(const std::string& name) {
  if (name.size() < 10) return std::nullopt;
  int64_t v = 0;
  for (size_t i = name.size() - 10; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return std::nullopt;
    v = v * 10 + (name[i] - '0');
  }
  return v;
}

bool InterProcessMutex::is_owned_by_current_task() const {
  return holds_.count(env_.task_id()) != 0;
}

std::optional<std::string> InterProcessMutex::lock_path() const {
  auto it = holds_.find(env_.task_id());
  if (it == holds_.end()) return std::nullopt;
  return it->second.path;
}

std::optional<int64_t> InterProcessMutex::token() const {
  auto p = lock_path();
  if (!p) return std::nullopt;
  return sequence_of(*p);
}

std::expected<bool, ZkCode> InterProcessMutex::acquire() { return attempt(std::nullopt); }

std::expected<bool, ZkCode> InterProcessMutex::acquire(Micros wait) { return attempt(wait); }

std::expected<bool, ZkCode> InterProcessMutex::attempt(std::optional<Micros> wait) {
  // InterProcessMutex.internalLock: re-entry is counted locally.
  auto held = holds_.find(env_.task_id());
  if (held != holds_.end()) {
    ++held->second.count;
    return true;
  }
  const EnvTime start = env_.now();
  // LockInternals.attemptLock: NoNode from the loop (our znode vanished,
  // e.g. with an expired session) starts over while the retry policy allows.
  for (int tries = 0;; ++tries) {
    auto ours = create_lock_node();
    if (!ours) return std::unexpected(ours.error());
    auto got = lock_loop(start, wait, *ours);
    if (!got && got.error() == ZkCode::kNoNode && tries < options_.max_retries) continue;
    if (!got) return std::unexpected(got.error());
    if (*got) holds_[env_.task_id()] = Hold{*ours, 1};
    return *got;
  }
}

std::expected<std::string, ZkCode> InterProcessMutex::create_lock_node() {
  std::string prefix = path_ + "/";
  std::string guid;
  if (options_.protected_mode) {
    // ProtectedMode.resetProtectedId: a fresh UUID per create.
    char buf[40];
    std::snprintf(buf, sizeof buf, "%016llx%016llx",
                  static_cast<unsigned long long>(env_.random_u64()),
                  static_cast<unsigned long long>(env_.random_u64()));
    guid = buf;
    prefix += std::string(kProtectedPrefix) + guid + "-";
  }
  const std::string node_path = prefix + kLockName;
  for (int tries = 0;; ++tries) {
    if (tries > 0) env_.sleep_for(options_.retry_sleep);
    if (tries > 0 && options_.protected_mode) {
      // findProtectedNodeInForeground: did the lost create make our znode?
      auto kids = zk_.get_children(path_);
      if (kids) {
        const std::string want = std::string(kProtectedPrefix) + guid + "-";
        for (const std::string& k : *kids) {
          if (k.starts_with(want)) {
            if (env_.tracing()) env_.trace("zk-mutex: protected mode found " + k);
            return path_ + "/" + k;
          }
        }
      } else if (kids.error() != ZkCode::kNoNode) {
        if (retryable(kids.error()) && tries < options_.max_retries) continue;
        return std::unexpected(kids.error());
      }
    }
    auto made = zk_.create(node_path, "", ZkMode::kEphemeralSequential);
    if (made) return *made;
    if (made.error() == ZkCode::kNoNode) {
      // creatingParentContainersIfNeeded: make the parents, then again.
      for (size_t i = 1; i <= path_.size(); ++i) {
        if (i == path_.size() || path_[i] == '/') {
          auto p = zk_.create(path_.substr(0, i), "", ZkMode::kPersistent);
          if (!p && p.error() != ZkCode::kNodeExists) {
            if (retryable(p.error()) && tries < options_.max_retries) break;
            return std::unexpected(p.error());
          }
        }
      }
      continue;
    }
    if (retryable(made.error()) && tries < options_.max_retries) {
      if (env_.tracing()) env_.trace("zk-mutex: create lost its connection; retrying");
      continue;
    }
    return std::unexpected(made.error());
  }
}

std::expected<bool, ZkCode> InterProcessMutex::lock_loop(EnvTime start, std::optional<Micros> wait,
                                                         const std::string& ours) {
  const std::string our_name = ours.substr(path_.size() + 1);
  std::shared_ptr<Event> woken = env_.make_event();
  std::string waiting_for;  // the predecessor last traced
  auto fail = [&](ZkCode c) -> std::expected<bool, ZkCode> {
    delete_ours(ours);
    return std::unexpected(c);
  };
  for (;;) {
    ZkWatcher watcher = [woken](const ZkEvent&) { woken->signal(); };
    // The herd recipe watches the parent with the same read that decides:
    // a separate read to set the watch could miss a release between the two
    // (or one hidden by a lost answer) and wait for a change that never comes.
    auto kids = retrying([&] {
      return options_.watch_parent ? zk_.get_children(path_, watcher) : zk_.get_children(path_);
    });
    if (!kids) return fail(kids.error());
    std::vector<std::string> names;
    for (std::string& k : *kids) {
      if (k.find(kLockName) != std::string::npos) names.push_back(std::move(k));
    }
    std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
      return sorting_key(a) < sorting_key(b);
    });
    auto at = std::find(names.begin(), names.end(), our_name);
    // validateOurIndex: our znode is gone (the session expired).
    if (at == names.end()) return std::unexpected(ZkCode::kNoNode);
    if (at == names.begin()) return true;
    if (env_.tracing() && *(at - 1) != waiting_for) {
      waiting_for = *(at - 1);
      env_.trace("zk-mutex: " + our_name + " waits for " + waiting_for);
    }
    if (!options_.watch_parent) {
      auto pred = retrying([&] { return zk_.get_data(path_ + "/" + *(at - 1), watcher); });
      if (!pred && pred.error() == ZkCode::kNoNode) continue;  // released meanwhile
      if (!pred) return fail(pred.error());
    }
    if (wait) {
      const Micros left = *wait - (env_.now() - start);
      if (left <= Micros::zero() || !woken->wait_for(left)) {
        // Time is up unless the wake-up came exactly now: one last look.
        if (env_.now() - start < *wait) continue;
        delete_ours(ours);
        return false;
      }
    } else {
      woken->wait_for(Micros{int64_t{365} * 24 * 3600 * 1000 * 1000});
    }
  }
}

void InterProcessMutex::delete_ours(const std::string& ours) {
  // deleteOurPath with guaranteed(): retried through connection losses.
  for (int tries = 0; tries <= options_.max_retries; ++tries) {
    auto r = zk_.remove(ours);
    if (r || r.error() != ZkCode::kConnectionLoss) return;
    env_.sleep_for(options_.retry_sleep);
  }
}

std::expected<void, ZkCode> InterProcessMutex::release() {
  auto it = holds_.find(env_.task_id());
  if (it == holds_.end()) {
    throw std::logic_error("InterProcessMutex::release: you do not own the lock: " + path_);
  }
  if (--it->second.count > 0) return {};
  const std::string ours = it->second.path;
  holds_.erase(it);
  for (int tries = 0;; ++tries) {
    auto r = zk_.remove(ours);
    if (r || r.error() == ZkCode::kNoNode) return {};
    if (retryable(r.error()) && tries < options_.max_retries) {
      env_.sleep_for(options_.retry_sleep);
      continue;
    }
    return std::unexpected(r.error());
  }
}

}  // namespace redsim::lock
