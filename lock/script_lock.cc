#include "lock/script_lock.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <stdexcept>
#include <utility>

#include "lock/errors.h"
#include "lock/wakeup.h"

namespace redsim::lock {

using std::chrono::milliseconds;

bool ReplyMatch::matches(const Reply& reply) const {
  switch (kind) {
    case Kind::kNil:
      return reply.is_nil();
    case Kind::kInteger:
      return reply.is_integer() && reply.integer() == value;
    case Kind::kStatus:
      return (reply.is_status() || reply.is_bulk()) && reply.str() == status;
  }
  return false;
}

std::string ReplyMatch::describe() const {
  switch (kind) {
    case Kind::kNil:
      return "nil";
    case Kind::kInteger:
      return std::to_string(value);
    case Kind::kStatus:
      return status;
  }
  return "?";
}

namespace {

std::string placeholder_list() {
  std::string out;
  for (std::string_view p : kScriptLockPlaceholders) {
    out += (out.empty() ? "{" : ", {") + std::string(p) + "}";
  }
  return out;
}

// Walks `text`, calling literal(c) for each literal character and
// placeholder(name) for each {name}. Throws std::invalid_argument.
template <class Literal, class Placeholder>
void walk_template(std::string_view text, Literal literal, Placeholder placeholder) {
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '{' && i + 1 < text.size() && text[i + 1] == '{') {
      literal('{');
      ++i;
    } else if (c == '}' && i + 1 < text.size() && text[i + 1] == '}') {
      literal('}');
      ++i;
    } else if (c == '}') {
      throw std::invalid_argument("unmatched '}' (write '}}' for a literal brace)");
    } else if (c == '{') {
      const size_t close = text.find('}', i + 1);
      if (close == std::string_view::npos) {
        throw std::invalid_argument("unclosed '{' (write '{{' for a literal brace)");
      }
      const std::string_view name = text.substr(i + 1, close - i - 1);
      if (std::find(std::begin(kScriptLockPlaceholders), std::end(kScriptLockPlaceholders), name) ==
          std::end(kScriptLockPlaceholders)) {
        throw std::invalid_argument("unknown placeholder '{" + std::string(name) + "}'; one of " +
                                    placeholder_list() + " ('{{' and '}}' for literal braces)");
      }
      placeholder(name);
      i = close;
    } else {
      literal(c);
    }
  }
}

// `success_field`: the manifest's name of call.success ("" = not used).
std::optional<std::string> call_problem(const ScriptCall& call, const std::string& field,
                                        const char* success_field) {
  if (call.script.text().empty()) return field + ".script: the script is empty";
  auto templates = [&](const std::vector<std::string>& list,
                       const char* name) -> std::optional<std::string> {
    for (size_t i = 0; i < list.size(); ++i) {
      try {
        check_template(list[i]);
      } catch (const std::invalid_argument& e) {
        return field + "." + name + "[" + std::to_string(i) + "]: " + e.what();
      }
    }
    return std::nullopt;
  };
  if (auto p = templates(call.keys, "keys")) return p;
  if (auto p = templates(call.argv, "argv")) return p;
  if (*success_field != '\0' && call.success.empty()) {
    return field + "." + success_field +
           ": no reply means success; name at least one (\"OK\", \"nil\", 1)";
  }
  return std::nullopt;
}

// Runs `call` with its templates expanded; the reply as is.
Reply run_call(Env& env, const ScriptLockSpec& spec, const ScriptCall& call,
               const TemplateValues& values) {
  Argv keys, args;
  keys.reserve(call.keys.size());
  args.reserve(call.argv.size());
  for (const std::string& k : call.keys) keys.push_back(expand_template(k, values));
  for (const std::string& a : call.argv) args.push_back(expand_template(a, values));
  if (spec.command_timeout) {
    return run_script(env.connection(), call.script, keys, args,
                      std::chrono::ceil<Micros>(*spec.command_timeout));
  }
  return run_script(env.connection(), call.script, keys, args);
}

}  // namespace

void check_template(std::string_view text) {
  walk_template(
      text, [](char) {}, [](std::string_view) {});
}

std::string expand_template(std::string_view text, const TemplateValues& values) {
  std::string out;
  out.reserve(text.size() + 16);
  walk_template(
      text, [&out](char c) { out.push_back(c); },
      [&](std::string_view name) {
        if (name == "key") out += values.key;
        if (name == "token") out += values.token;
        if (name == "owner") out += values.owner;
        if (name == "lease_ms") out += values.lease_ms;
      });
  return out;
}

std::optional<std::string> spec_problem(const ScriptLockSpec& spec) {
  if (spec.lease.count() <= 0) return std::string("lease_ms: must be > 0");
  if (auto p = call_problem(spec.acquire, "acquire", "acquired")) return p;
  for (size_t i = 0; i < spec.acquire_then.size(); ++i) {
    if (auto p =
            call_problem(spec.acquire_then[i], "acquire.then[" + std::to_string(i) + "]", "")) {
      return p;
    }
  }
  if (auto p = call_problem(spec.release, "release", "released")) return p;
  if (spec.renew) {
    if (auto p = call_problem(*spec.renew, "renew", "renewed")) return p;
  }
  if (spec.renew_interval && spec.renew_interval->count() <= 0) {
    return std::string("renew.interval_ms: must be > 0");
  }
  if (spec.renew_interval && !spec.renew) {
    return std::string("renew.interval_ms: given without a renew script");
  }
  if (const auto* poll = std::get_if<PollWait>(&spec.wait); poll && poll->interval.count() <= 0) {
    return std::string("wait.interval_ms: must be > 0");
  }
  if (const auto* pubsub = std::get_if<PubSubWait>(&spec.wait)) {
    if (pubsub->channel.empty()) return std::string("wait.channel: must not be empty");
    try {
      check_template(pubsub->channel);
    } catch (const std::invalid_argument& e) {
      return std::string("wait.channel: ") + e.what();
    }
  }
  if (spec.command_timeout && spec.command_timeout->count() <= 0) {
    return std::string("command_timeout_ms: must be > 0");
  }
  return std::nullopt;
}

// The watchdog's half of the state: owned jointly by the lock and the
// background task, so either may go first (the task must not touch the lock).
struct ScriptLock::Watchdog {
  explicit Watchdog(std::unique_ptr<Event> event) : stop_event(std::move(event)) {}
  void stop() {
    if (!stopped.exchange(true)) stop_event->signal();
  }
  std::unique_ptr<Event> stop_event;
  std::atomic<bool> stopped{false};
  std::atomic<bool> lost{false};
};

ScriptLock::ScriptLock(Env& env, std::string key, std::shared_ptr<const ScriptLockSpec> spec)
    : env_(env), key_(std::move(key)), spec_(std::move(spec)) {
  if (!spec_) throw std::invalid_argument("script lock '" + key_ + "': no spec");
  if (auto problem = spec_problem(*spec_)) {
    throw std::invalid_argument("script lock '" + spec_->name + "': " + *problem);
  }
}

ScriptLock::~ScriptLock() { stop_watchdog(); }

bool ScriptLock::try_lock_for(Micros wait) {
  return acquire_until(env_.now() + std::max(wait, Micros(0)));
}

bool ScriptLock::try_lock() { return acquire_until(env_.now()); }

bool ScriptLock::try_lock_until(EnvTime deadline) { return acquire_until(deadline); }

void ScriptLock::lock() { acquire_until(std::nullopt); }

const std::string& ScriptLock::token() const {
  static const std::string kNone;
  return held_ ? held_->token : kNone;
}

bool ScriptLock::lease_lost() const { return watchdog_ && watchdog_->lost; }

Reply ScriptLock::call(const ScriptCall& call, const TemplateValues& values,
                       std::string_view role) {
  Reply reply = run_call(env_, *spec_, call, values);
  if (reply.is_error()) {
    throw UnexpectedReply("script lock '" + spec_->name + "': " + std::string(role) + " script " +
                          call.script.name() + " on '" + key_ + "' answered " +
                          reply.debug_string());
  }
  return reply;
}

ScriptLock::Attempt ScriptLock::attempt(const TemplateValues& values) {
  const Reply reply = call(spec_->acquire, values, "acquire");
  const auto& success = spec_->acquire.success;
  if (std::none_of(success.begin(), success.end(),
                   [&reply](const ReplyMatch& m) { return m.matches(reply); })) {
    Attempt failed;
    if (spec_->acquire_replies_pttl && reply.is_integer()) failed.pttl_ms = reply.integer();
    return failed;
  }
  for (size_t i = 0; i < spec_->acquire_then.size(); ++i) {
    call(spec_->acquire_then[i], values, "acquire.then[" + std::to_string(i) + "]");
  }
  return Attempt{true, std::nullopt};
}

bool ScriptLock::acquire_until(std::optional<EnvTime> deadline) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(env_.random_u64()));
  TemplateValues values{key_, hex, env_.client_id() + ":" + std::to_string(env_.task_id()),
                        std::to_string(spec_->lease.count())};
  const auto* pubsub = std::get_if<PubSubWait>(&spec_->wait);
  std::optional<Wakeup> wakeup;
  auto close_wakeup = [&wakeup] {
    if (wakeup) wakeup->close();
    wakeup.reset();
  };
  try {
    for (int n = 1;; ++n) {
      const Attempt a = attempt(values);
      if (a.acquired) {
        close_wakeup();
        held_ = values;
        env_.trace("acquired " + key_ + " token=" + values.token + " attempt=" + std::to_string(n));
        if (spec_->renew) start_watchdog(values);
        return true;
      }
      Micros pause;
      if (pubsub != nullptr) {
        if (!wakeup) {
          // Subscribed after the first failed attempt, then one more attempt
          // at once: a release between the two is not missed (Redisson).
          if (deadline && env_.now() >= *deadline) {
            env_.trace("gave up on " + key_ + " after " + std::to_string(n) + " attempts");
            return false;
          }
          wakeup.emplace(env_, expand_template(pubsub->channel, values), pubsub->message);
          continue;
        }
        const int64_t hint_ms =
            a.pttl_ms && *a.pttl_ms >= 0 ? std::max<int64_t>(*a.pttl_ms, 1) : spec_->lease.count();
        pause = Micros(milliseconds(hint_ms));
      } else {
        pause = jittered(std::get<PollWait>(spec_->wait).interval);
      }
      if (deadline) {
        const EnvTime now = env_.now();
        if (now >= *deadline) {
          close_wakeup();
          env_.trace("gave up on " + key_ + " after " + std::to_string(n) + " attempts");
          return false;
        }
        pause = std::min(pause, *deadline - now);
      }
      if (wakeup) {
        wakeup->wait_for(pause);
      } else {
        env_.sleep_for(pause);
      }
    }
  } catch (const Error&) {
    close_wakeup();
    throw;
  }
}

void ScriptLock::start_watchdog(const TemplateValues& values) {
  stop_watchdog();
  watchdog_ = std::make_shared<Watchdog>(env_.make_event());
  const Micros interval = spec_->renew_interval
                              ? Micros(*spec_->renew_interval)
                              : std::max(Micros(1), std::chrono::ceil<Micros>(spec_->lease) / 3);
  // Everything the task needs is copied or shared: it must not touch `this`.
  env_.spawn("watchdog " + key_, [&env = env_, dog = watchdog_, spec = spec_, values, interval] {
    while (!dog->stop_event->wait_for(interval) && !dog->stopped) {
      Reply reply;
      try {
        reply = run_call(env, *spec, *spec->renew, values);
      } catch (const ClosedError&) {
        throw;  // the process is gone
      } catch (const ConnectionError& e) {
        env.trace("watchdog could not renew " + values.key + ": " + e.what() +
                  "; trying again next period");
        continue;
      }
      if (dog->stopped) return;  // released meanwhile: the reply is not ours to judge
      const auto& success = spec->renew->success;
      if (std::any_of(success.begin(), success.end(),
                      [&reply](const ReplyMatch& m) { return m.matches(reply); })) {
        env.trace("watchdog renewed " + values.key + " token=" + values.token);
        continue;
      }
      dog->lost = true;
      env.trace("watchdog: renew of " + values.key + " answered " + reply.debug_string() +
                ": the lock is lost; stopping");
      return;
    }
  });
}

void ScriptLock::stop_watchdog() {
  if (watchdog_) watchdog_->stop();
}

bool ScriptLock::release() {
  if (!held_) return false;
  // Forget the acquisition first: whatever the release finds, it is over.
  const TemplateValues values = std::move(*held_);
  held_.reset();
  stop_watchdog();
  const Reply reply = call(spec_->release, values, "release");
  const auto& success = spec_->release.success;
  const bool released = std::any_of(success.begin(), success.end(),
                                    [&reply](const ReplyMatch& m) { return m.matches(reply); });
  env_.trace(released
                 ? "released " + key_
                 : "release of " + key_ + " answered " + reply.debug_string() + ": not released");
  return released;
}

void ScriptLock::unlock() {
  if (!held_) {
    last_unlock_ = {UnlockOutcome::kNotHeld, {}};
    return;
  }
  try {
    last_unlock_ = {release() ? UnlockOutcome::kReleased : UnlockOutcome::kNotReleased, {}};
  } catch (const Error& e) {
    last_unlock_ = {UnlockOutcome::kFailed, e.what()};
    env_.trace("unlock of " + key_ + " failed: " + e.what());
  }
}

Micros ScriptLock::jittered(Micros interval) {
  // Equal jitter, as TokenLock: waiters spread out, never all at once.
  const int64_t half = interval.count() / 2;
  const int64_t span = interval.count() - half + 1;
  return Micros(half + static_cast<int64_t>(env_.random_u64() % static_cast<uint64_t>(span)));
}

std::string_view unlock_outcome_name(ScriptLock::UnlockOutcome outcome) {
  switch (outcome) {
    case ScriptLock::UnlockOutcome::kNone:
      return "none";
    case ScriptLock::UnlockOutcome::kReleased:
      return "released";
    case ScriptLock::UnlockOutcome::kNotReleased:
      return "not released";
    case ScriptLock::UnlockOutcome::kNotHeld:
      return "not held";
    case ScriptLock::UnlockOutcome::kFailed:
      return "failed";
  }
  return "?";
}

}  // namespace redsim::lock
