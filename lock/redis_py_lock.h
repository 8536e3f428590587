// RedisPyLock: redis-py's `Lock` (redis/lock.py, class Lock) on the Env
// port, so a test can run the lock a Python service uses. Keys, scripts and
// replies are redis-py's:
//   acquire  SET name token NX [PX timeout] (Lock.do_acquire); no PX when
//            `timeout` is None: the key never expires
//   release  scripts/redis_py_release.lua (Lock.LUA_RELEASE_SCRIPT)
//   extend   scripts/redis_py_extend.lua   (Lock.LUA_EXTEND_SCRIPT)
//   reacquire scripts/redis_py_reacquire.lua (Lock.LUA_REACQUIRE_SCRIPT)
// The token is 32 lower-case hex digits per acquisition (uuid1().hex there;
// Env::random_u64 here), kept per task (`thread_local=True`, redis-py's
// default: threading.local) or once for the object (`thread_local=False`:
// every task sharing the object sees the last acquisition's token, the
// shared-instance hazard of redis-py#416, fixed by #491/#492).
//
//   lock::RedisPyLock lock(env, "orders:42", {.timeout = std::chrono::seconds(10)});
//   if (lock.acquire()) {            // blocking, blocking_timeout from the options
//     ...; lock.extend(std::chrono::seconds(5));
//     if (auto r = lock.release(); !r) log(r.error().message);  // LockNotOwnedError
//   }
//
// Acquire (Lock.acquire): one SET per try; between tries sleep `sleep`; with
// a blocking_timeout it gives up when the next try would start after the
// deadline (`next_try_at > stop_trying_at`), so the last try may come up to
// one `sleep` before it. try_lock_for(wait) is acquire(blocking, wait);
// lock() blocks forever whatever blocking_timeout says (BasicLockable).
//
// Release (Lock.release / do_release), as release()'s UnlockError kNotHeld:
//   no token for the caller       "LockError: Cannot release a lock that's not
//                                  owned or is already unlocked." (Redis not asked)
//   the script answers 0          "LockNotOwnedError: Cannot release a lock
//                                  that's no longer owned"
// The token is forgotten after the script answers (1, or 0: the lock is gone
// anyway) and kept when the call fails (kConnection), so release() can be
// called again: redis-py#4258 (the async Lock's #3900 pattern). Before it,
// redis-py cleared the token before the call (the shared-instance overwrite
// fix of #489), so a release that met a connection error lost the token and
// the lock stayed until its timeout, forever without one:
// RedisPyLockOptions::clear_token_before_release keeps that behaviour.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>

#include "lock/lock.h"

namespace redsim::lock {

struct RedisPyLockOptions {
  // `timeout`: the lease (PX of the SET), whole ms as int(timeout * 1000);
  // nullopt (None, the default) = the key never expires. > 0 when given.
  std::optional<std::chrono::milliseconds> timeout = std::nullopt;
  // `sleep`: the pause between two tries (default 0.1 s); > 0.
  Micros sleep{std::chrono::milliseconds(100)};
  // `blocking`: acquire() retries (true) or makes one try (false).
  bool blocking = true;
  // `blocking_timeout`: how long acquire() keeps trying; nullopt = forever.
  std::optional<Micros> blocking_timeout = std::nullopt;
  // `thread_local`: the token per task (true, the default) or one token in
  // the object, shared by every task that uses it (false).
  bool thread_local_token = true;
  // true: clear the token before the release script runs, as redis-py did
  // from #489 (2014) until #4258; a failed release then loses the token.
  bool clear_token_before_release = false;
};

class RedisPyLock final : public DistributedLock {
 public:
  // Throws std::invalid_argument for a timeout <= 0 or a sleep <= 0.
  RedisPyLock(Env& env, std::string key, RedisPyLockOptions options = {});
  RedisPyLock(RedisPyLock&&) = default;

  // Lock.acquire(blocking, blocking_timeout) with the options' values;
  // true when taken. Throws ConnectionError / UnexpectedReply.
  bool acquire();
  bool acquire(bool blocking, std::optional<Micros> blocking_timeout);

  void lock() override;
  bool try_lock() override;

  // Lock.extend(additional_time, replace_ttl): the TTL becomes what is left
  // plus `additional` (replace_ttl false) or `additional` (true). kNotHeld
  // "LockError: ..." without a token or without a timeout (Redis not asked),
  // "LockNotOwnedError: ..." when the script answers 0 (gone, another
  // token, or no TTL). Throws ConnectionError / UnexpectedReply.
  UnlockResult extend(std::chrono::milliseconds additional, bool replace_ttl = false);
  // Lock.reacquire(): the TTL back to `timeout`; errors as extend().
  UnlockResult reacquire();
  // Lock.locked(): GET name is not nil (anyone holds it).
  bool locked();
  // Lock.owned(): the caller has a token and GET name equals it.
  bool owned();

  LockKind kind() const override { return LockKind::kRedisPy; }
  const std::string& key() const override { return key_; }
  // The caller's token ("" when it has none).
  std::string owner() override { return token(); }
  bool is_locked() override { return locked(); }
  bool is_held_by_current_thread() override { return owned(); }
  RemainingLease remaining_lease() override;
  const RedisPyLockOptions& options() const { return options_; }

 protected:
  bool try_lock_wait(Micros wait) override;
  UnlockResult release_hold() override;

 private:
  // The caller's token: its task's, or the object's one.
  std::optional<std::string> get_token();
  void set_token(std::optional<std::string> token);
  std::string token() { return get_token().value_or(std::string()); }
  bool do_acquire(const std::string& token);
  std::string new_token();
  UnlockResult run_ttl_script(const char* script, const Argv& args, const char* what);

  Env* env_;  // a pointer, so the object can move
  std::string key_;
  RedisPyLockOptions options_;
  detail::FreshMutex mu_;                                 // guards the slots
  std::map<uint64_t, std::optional<std::string>> local_;  // by task id
  std::optional<std::string> shared_;                     // thread_local_token false
};

}  // namespace redsim::lock
