// ScriptLock: a lock whose whole protocol is the user's own Lua scripts.
// Users of any language keep their lock logic in scripts (acquire, release,
// optionally renew); a ScriptLockSpec says how to call them (KEYS and ARGV
// templates) and what their replies mean, and ScriptLock runs them against
// lock::Env, so the same scripts can be checked in the simulated world
// (`redsim check --script-lock DIR`, whose manifest format is in
// tools/cli/script_lock_manifest.h) and run against a real Redis.
//
//   auto spec = std::make_shared<lock::ScriptLockSpec>();
//   spec->lease = std::chrono::milliseconds(100);
//   spec->acquire = {lock::Script("acquire", "return redis.call('SET', KEYS[1], ARGV[1], "
//                                            "'NX', 'PX', ARGV[2])"),
//                    {"{key}"}, {"{token}", "{lease_ms}"}, {lock::ReplyMatch::status_text("OK")}};
//   spec->release = {lock::Script("release", kCompareAndDelete), {"{key}"}, {"{token}"},
//                    {lock::ReplyMatch::integer(1)}};
//   lock::ScriptLock lock(env, "orders:42", spec);
//   if (lock.try_lock_for(std::chrono::milliseconds(500))) {
//     ...
//     lock.unlock();   // never throws lock errors; lock.last_unlock() says what happened
//   }
//
// Every script runs as lock/script.h's run_script does (EVALSHA, then EVAL
// on NOSCRIPT, as Redisson and redis-py do), with each call waiting at most
// spec.command_timeout when one is set (lock::TimeoutError after it).
//
// Templates: the KEYS and ARGV of each call and the pub/sub channel are
// strings in which these placeholders are replaced per acquisition:
//   {key}       the lock key given to the constructor
//   {token}     16 lower-case hex digits from Env::random_u64, fresh for each
//               acquisition (the "unique_value" of the SET NX PX articles);
//               unique as far as the Envs' random streams are independent
//               (each simulated process has its own stream)
//   {owner}     Env::client_id() + ":" + Env::task_id() of the acquiring task
//               (Redisson's owner field)
//   {lease_ms}  spec.lease in whole milliseconds
// "{{" and "}}" stand for literal braces (Redis Cluster hash tags:
// "lock:{{orders}}" is the key lock:{orders}). Anything else in braces is an
// error (check_template).
//
// Waiting (try_lock_for, lock): a failed attempt is followed, until the
// deadline, by either
//   PollWait    a sleep drawn in [interval/2, interval] (equal jitter from
//               Env::random_u64), then the next attempt;
//   PubSubWait  Redisson's way: subscribe to the channel after the first
//               failed attempt, try again, then wait for a message (only
//               `message` when set) or at most the holder's remaining lease
//               (the acquire reply's PTTL when spec.acquire_replies_pttl,
//               else spec.lease), so a lost message costs one lease at most.
//
// Renewal (optional): while held, a watchdog task (Env::spawn) runs the renew
// script every renew_interval (default lease / 3, Redisson's watchdog
// period). A reply in renew.success keeps it going; any other reply stops
// it and marks the lease lost (lease_lost()); a transport error is traced
// and retried at the next period. unlock()/release() and the destructor stop
// it.
//
// Errors: transport failures throw ConnectionError (and subclasses) out of
// the acquiring calls and release(); an error reply of any script (a Lua
// error, WRONGTYPE, ...) throws UnexpectedReply naming the script. unlock()
// throws neither: it records the outcome (BasicLockable's unlock must not
// throw, so std::unique_lock is safe).
//
// Threading: one object per task, as the token locks of the articles: the
// current acquisition (token, owner) lives in the object.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "lock/env.h"
#include "lock/script.h"

namespace redsim::lock {

// One reply a script may answer, as a manifest names it: a status (OK; a
// bulk string of the same text matches too, as a script's {ok=...} and a
// returned string look alike to many clients), nil, or an integer.
struct ReplyMatch {
  enum class Kind { kStatus, kNil, kInteger };
  Kind kind = Kind::kNil;
  std::string status;  // kStatus: the text, e.g. "OK"
  int64_t value = 0;   // kInteger

  static ReplyMatch status_text(std::string text) { return {Kind::kStatus, std::move(text), 0}; }
  static ReplyMatch nil() { return {Kind::kNil, {}, 0}; }
  static ReplyMatch integer(int64_t v) { return {Kind::kInteger, {}, v}; }

  bool matches(const Reply& reply) const;
  // "OK", "nil", "1": the manifest's spelling.
  std::string describe() const;
};

// One script and how to call it.
struct ScriptCall {
  Script script{"", ""};
  std::vector<std::string> keys;  // KEYS templates, in order
  std::vector<std::string> argv;  // ARGV templates, in order
  // The replies that mean success (acquire: taken; release: released; renew:
  // renewed). Unused for acquire_then steps.
  std::vector<ReplyMatch> success;
};

struct PollWait {
  Micros interval{std::chrono::milliseconds(10)};
};
struct PubSubWait {
  std::string channel;                 // a template (placeholders as above)
  std::optional<std::string> message;  // only this payload wakes; nullopt: any
};

struct ScriptLockSpec {
  std::string name;  // for traces and reports
  std::chrono::milliseconds lease{30000};
  ScriptCall acquire;
  // Redisson's convention: an integer reply to acquire that is not in
  // acquire.success is the holder's PTTL in ms (how long to wait at most).
  bool acquire_replies_pttl = false;
  // Scripts run in order after an acquire that succeeded, before try_lock
  // returns: a protocol that is not one atomic step (SETNX, then PEXPIRE).
  // Their replies are not judged, except that an error reply throws.
  std::vector<ScriptCall> acquire_then;
  ScriptCall release;
  std::optional<ScriptCall> renew;
  std::optional<std::chrono::milliseconds> renew_interval;  // default lease / 3
  std::variant<PollWait, PubSubWait> wait = PollWait{};
  // Each Redis call waits at most this long for its reply (TimeoutError);
  // nullopt: the Env's default (Connection::call without a timeout).
  std::optional<std::chrono::milliseconds> command_timeout;
};

// The placeholder names, without braces: key, token, owner, lease_ms.
inline constexpr std::string_view kScriptLockPlaceholders[] = {"key", "token", "owner", "lease_ms"};

// Throws std::invalid_argument with a one-line reason ("unknown placeholder
// '{tokn}'; one of {key}, {token}, {owner}, {lease_ms}", "unmatched '}'")
// when `text` is not a valid template.
void check_template(std::string_view text);

// The values a template is expanded with.
struct TemplateValues {
  std::string key;
  std::string token;
  std::string owner;
  std::string lease_ms;
};
// `text` with its placeholders replaced; check_template(text) must hold.
std::string expand_template(std::string_view text, const TemplateValues& values);

// The first problem of `spec` as "field: reason" (e.g. "lease_ms: must be >
// 0", "release.keys[0]: unknown placeholder ..."), or nullopt when it is
// usable. Field names are the manifest's.
std::optional<std::string> spec_problem(const ScriptLockSpec& spec);

class ScriptLock {
 public:
  // Throws std::invalid_argument with spec_problem()'s text when the spec is
  // not usable.
  ScriptLock(Env& env, std::string key, std::shared_ptr<const ScriptLockSpec> spec);
  // Stops the watchdog; makes no Redis call (a held lock expires by its lease).
  ~ScriptLock();
  ScriptLock(const ScriptLock&) = delete;
  ScriptLock& operator=(const ScriptLock&) = delete;

  // Tries until taken or until `wait` has passed on the Env's clock; a zero
  // or negative wait makes one attempt. True when taken.
  bool try_lock_for(Micros wait);
  // Tries until taken or until the Env's clock reads `deadline` (TimedLockable).
  bool try_lock_until(EnvTime deadline);
  bool try_lock();  // one attempt
  void lock();      // until taken

  // Releases through release(). Never throws a lock::Error: the outcome is
  // in last_unlock().
  void unlock();
  // Runs the release script for the current acquisition (stopping the
  // watchdog first) and forgets it. True when the reply is in
  // release.success; false when it is not, or when nothing is held (then
  // no call is made). Throws ConnectionError / UnexpectedReply.
  bool release();

  enum class UnlockOutcome {
    kNone,         // unlock() not called yet
    kReleased,     // the release script reported success
    kNotReleased,  // it answered something else (the lock was not ours any more)
    kNotHeld,      // nothing was held: no call made
    kFailed,       // release() threw; `error` says what
  };
  struct UnlockResult {
    UnlockOutcome outcome = UnlockOutcome::kNone;
    std::string error;
  };
  const UnlockResult& last_unlock() const { return last_unlock_; }

  // Whether this object believes it holds the lock (acquired, not released).
  bool believes_held() const { return held_.has_value(); }
  // The current acquisition's token; empty when not held.
  const std::string& token() const;
  // The watchdog found the lock gone (its renew reply was not a success)
  // during the current acquisition.
  bool lease_lost() const;

  const std::string& key() const { return key_; }
  const ScriptLockSpec& spec() const { return *spec_; }

 private:
  struct Watchdog;
  struct Attempt {
    bool acquired = false;
    std::optional<int64_t> pttl_ms;  // from a Redisson-style reply
  };

  bool acquire_until(std::optional<EnvTime> deadline);
  Attempt attempt(const TemplateValues& values);
  Reply call(const ScriptCall& call, const TemplateValues& values, std::string_view role);
  void start_watchdog(const TemplateValues& values);
  void stop_watchdog();
  Micros jittered(Micros interval);

  Env& env_;
  std::string key_;
  std::shared_ptr<const ScriptLockSpec> spec_;
  std::optional<TemplateValues> held_;  // the current acquisition
  std::shared_ptr<Watchdog> watchdog_;
  UnlockResult last_unlock_;
};

std::string_view unlock_outcome_name(ScriptLock::UnlockOutcome outcome);

}  // namespace redsim::lock
