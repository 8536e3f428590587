#include "lock/lock.h"

#include <array>
#include <stdexcept>
#include <utility>

#include "lock/blind_del_lock.h"
#include "lock/errors.h"
#include "lock/fair_lock.h"
#include "lock/fenced_lock.h"
#include "lock/get_del_lock.h"
#include "lock/node_redlock.h"
#include "lock/read_write_lock.h"
#include "lock/redis_py_lock.h"
#include "lock/redlock.h"
#include "lock/reentrant_lock.h"
#include "lock/setnx_expire_lock.h"
#include "lock/simple_lock.h"
#include "lock/spin_lock.h"

namespace redsim::lock {

namespace {

constexpr std::array<LockKind, 12> kAllKinds = {
    LockKind::kSimple,   LockKind::kReentrant, LockKind::kSetnxExpire, LockKind::kGetDel,
    LockKind::kBlindDel, LockKind::kFenced,    LockKind::kReadWrite,   LockKind::kRedlock,
    LockKind::kFair,     LockKind::kSpin,      LockKind::kRedisPy,     LockKind::kNodeRedlock};

// kRedlock needs a fixed lease; the check of its value is Redlock's.
std::chrono::milliseconds fixed_lease(const Lease& lease, std::string_view kind) {
  if (!lease) {
    throw std::invalid_argument("make_lock: a " + std::string(kind) + " lock needs a fixed lease");
  }
  return *lease;
}

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
    case LockKind::kFair:
      return "fair";
    case LockKind::kSpin:
      return "spin";
    case LockKind::kRedisPy:
      return "redis-py";
    case LockKind::kNodeRedlock:
      return "node-redlock";
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
  return kind == LockKind::kReentrant || kind == LockKind::kFenced ||
         kind == LockKind::kReadWrite || kind == LockKind::kFair || kind == LockKind::kSpin;
}

std::string_view unlock_reason_name(UnlockError::Reason reason) {
  switch (reason) {
    case UnlockError::Reason::kNotHeld:
      return "not-held";
    case UnlockError::Reason::kConnection:
      return "connection";
    case UnlockError::Reason::kUnexpectedReply:
      return "unexpected-reply";
  }
  return "unknown";
}

RemainingLease RemainingLease::from_pttl(int64_t pttl) {
  if (pttl == -2) return RemainingLease{};
  if (pttl < 0) return RemainingLease{.locked = true, .ttl = std::nullopt};
  return RemainingLease{.locked = true, .ttl = std::chrono::milliseconds(pttl)};
}

UnlockResult DistributedLock::release() {
  UnlockResult outcome;
  // Only lock::Error is turned into an outcome: anything else (a simulated
  // process's forced unwind above all) must keep unwinding.
  try {
    outcome = release_hold();
  } catch (const ConnectionError& e) {
    outcome = std::unexpected(UnlockError{UnlockError::Reason::kConnection, e.what()});
  } catch (const Error& e) {
    outcome = std::unexpected(UnlockError{UnlockError::Reason::kUnexpectedReply, e.what()});
  }
  const uint64_t task = env_->task_id();
  std::lock_guard<std::mutex> guard(mu_.mu);
  last_unlock_.insert_or_assign(task, outcome);
  return outcome;
}

std::optional<UnlockResult> DistributedLock::last_unlock() {
  const uint64_t task = env_->task_id();
  std::lock_guard<std::mutex> guard(mu_.mu);
  auto it = last_unlock_.find(task);
  if (it == last_unlock_.end()) return std::nullopt;
  return it->second;
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
                               .default_lease = options.lease.or_default(kWatchdog)});
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
                               .default_lease = options.lease.or_default(kWatchdog)});
    case LockKind::kRedlock:
      return std::make_unique<Redlock>(
          env, std::move(key),
          RedlockOptions{
              .lease = fixed_lease(options.lease.or_default(LockOptions::kStringLease), "redlock"),
              .retry_delay_min = options.retry_backoff_min,
              .retry_delay_max = options.retry_backoff_max});
    case LockKind::kReadWrite:
      return std::make_unique<WriteLock>(
          env, std::move(key),
          ReentrantLockOptions{.lock_watchdog_timeout = options.lock_watchdog_timeout,
                               .default_lease = options.lease.or_default(kWatchdog)});
    case LockKind::kFair:
      return std::make_unique<FairLock>(
          env, std::move(key),
          FairLockOptions{.lock_watchdog_timeout = options.lock_watchdog_timeout,
                          .default_lease = options.lease.or_default(kWatchdog)});
    case LockKind::kSpin:
      return std::make_unique<SpinLock>(
          env, std::move(key),
          ReentrantLockOptions{.lock_watchdog_timeout = options.lock_watchdog_timeout,
                               .default_lease = options.lease.or_default(kWatchdog)});
    case LockKind::kRedisPy:
      // Lock(timeout=lease, sleep=retry_backoff_min): redis-py polls at a fixed sleep.
      return std::make_unique<RedisPyLock>(
          env, std::move(key),
          RedisPyLockOptions{.timeout = fixed_lease(
                                 options.lease.or_default(LockOptions::kStringLease), "redis-py"),
                             .sleep = options.retry_backoff_min});
    case LockKind::kNodeRedlock:
      return std::make_unique<NodeRedlock>(
          env, std::move(key),
          NodeRedlockOptions{
              .duration =
                  fixed_lease(options.lease.or_default(LockOptions::kStringLease), "node-redlock"),
              // [min, max] as kRedlock's uniform delay: retryDelay +- retryJitter.
              .retry_delay = (options.retry_backoff_min + options.retry_backoff_max) / 2,
              .retry_jitter = (options.retry_backoff_max - options.retry_backoff_min) / 2});
  }
  throw std::invalid_argument("make_lock: unknown LockKind");
}

}  // namespace redsim::lock
