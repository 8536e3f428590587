#include "lock/fenced_lock.h"

#include <utility>

#include "lock/errors.h"
#include "lock/script.h"

namespace redsim::lock {

FencedLock::FencedLock(Env& env, std::string key, ReentrantLockOptions options)
    : ReentrantLock(env, std::move(key), options), token_key_(token_key_name(this->key())) {}

std::string FencedLock::token_key_name(std::string_view key) {
  // RedissonFencedLock: tokenName = prefixName("redisson_lock_token", name).
  if (key.find('{') != std::string_view::npos) return "redisson_lock_token:" + std::string(key);
  return "redisson_lock_token:{" + std::string(key) + "}";
}

std::optional<int64_t> FencedLock::run_acquire(const std::string& owner,
                                               std::chrono::milliseconds lease,
                                               const Attempt& /*attempt*/) {
  static const Script& script = Script::get("fenced_acquire");
  const Reply reply = run_script(env().connection(), script, {key(), token_key_},
                                 {std::to_string(lease.count()), owner});
  const bool shaped = reply.is_array() && reply.elements().size() == 2 &&
                      reply.elements()[0].is_integer() && reply.elements()[1].is_integer();
  if (!shaped) {
    throw UnexpectedReply("fenced_acquire on '" + key() + "' answered " + reply.debug_string());
  }
  const int64_t second = reply.elements()[1].integer();
  if (reply.elements()[0].integer() == 0) return second;  // busy: the PTTL
  {
    std::lock_guard<std::mutex> guard(mu_.mu);
    tokens_[env().task_id()] = second;
  }
  env().trace("fencing token " + std::to_string(second) + " for " + owner + " on " + key());
  return std::nullopt;
}

int64_t FencedLock::lock_and_get_token() {
  lock();
  return *token();
}

int64_t FencedLock::lock_and_get_token(Lease lease) {
  lock(lease);
  return *token();
}

std::optional<int64_t> FencedLock::try_lock_and_get_token() {
  if (!try_lock()) return std::nullopt;
  return token();
}

std::optional<int64_t> FencedLock::token() {
  std::lock_guard<std::mutex> guard(mu_.mu);
  auto it = tokens_.find(env().task_id());
  if (it == tokens_.end()) return std::nullopt;
  return it->second;
}

int64_t FencedLock::current_token() {
  return integer_of(env().connection().call({"GET", token_key_}), "GET '" + token_key_ + "'");
}

}  // namespace redsim::lock
