#include "lock/lock.h"

#include <array>
#include <stdexcept>
#include <utility>

#include "lock/blind_del_lock.h"
#include "lock/fenced_lock.h"
#include "lock/get_del_lock.h"
#include "lock/read_write_lock.h"
#include "lock/redlock.h"
#include "lock/reentrant_lock.h"
#include "lock/setnx_expire_lock.h"
#include "lock/simple_lock.h"

namespace redsim::lock {

namespace {

constexpr std::array<LockKind, 8> kAllKinds = {
    LockKind::kSimple,   LockKind::kReentrant, LockKind::kSetnxExpire, LockKind::kGetDel,
    LockKind::kBlindDel, LockKind::kFenced,    LockKind::kReadWrite,   LockKind::kRedlock};

}  // namespace

std::string_view lock_kind_name(LockKind kind) {
  switch (kind) {
    case LockKind::kSimple:
      return "simple";
    case LockKind::kReentrant:
      return "reentrant";
    case LockKind::kSetnxExpire:
      return "setnx-expire";
    case LockKind::kGetDel:
      return "get-del";
    case LockKind::kBlindDel:
      return "blind-del";
    case LockKind::kFenced:
      return "fenced";
    case LockKind::kReadWrite:
      return "read-write";
    case LockKind::kRedlock:
      return "redlock";
  }
  return "unknown";
}

std::optional<LockKind> parse_lock_kind(std::string_view name) {
  for (LockKind kind : kAllKinds) {
    if (lock_kind_name(kind) == name) return kind;
  }
  return std::nullopt;
}

std::span<const LockKind> all_lock_kinds() { return kAllKinds; }

bool is_reentrant_kind(LockKind kind) {
  return kind == LockKind::kReentrant || kind == LockKind::kFenced || kind == LockKind::kReadWrite;
}

std::unique_ptr<DistributedLock> make_lock(LockKind kind, Env& env, std::string key,
                                           LockOptions options) {
  switch (kind) {
    case LockKind::kSimple:
      return std::make_unique<SimpleLock>(env, std::move(key), options);
    case LockKind::kReentrant:
      return std::make_unique<ReentrantLock>(
          env, std::move(key),
          ReentrantLockOptions{.lock_watchdog_timeout = options.lock_watchdog_timeout,
                               .default_lease = options.lease});
    case LockKind::kSetnxExpire:
      return std::make_unique<SetnxExpireLock>(env, std::move(key), options);
    case LockKind::kGetDel:
      return std::make_unique<GetDelLock>(env, std::move(key), options);
    case LockKind::kBlindDel:
      return std::make_unique<BlindDelLock>(env, std::move(key), options);
    case LockKind::kFenced:
      return std::make_unique<FencedLock>(
          env, std::move(key),
          ReentrantLockOptions{.lock_watchdog_timeout = options.lock_watchdog_timeout,
                               .default_lease = options.lease});
    case LockKind::kRedlock:
      return std::make_unique<Redlock>(
          env, std::move(key),
          RedlockOptions{.lease = options.lease,
                         .retry_delay_min = options.retry_backoff_min,
                         .retry_delay_max = options.retry_backoff_max});
    case LockKind::kReadWrite:
      return std::make_unique<WriteLock>(
          env, std::move(key),
          ReentrantLockOptions{.lock_watchdog_timeout = options.lock_watchdog_timeout,
                               .default_lease = options.lease});
  }
  throw std::invalid_argument("make_lock: unknown LockKind");
}

}  // namespace redsim::lock
