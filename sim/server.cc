#include "sim/server.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "base/hash.h"
#include "sim/acl.h"
#include "sim/args.h"
#include "sim/blocking.h"
#include "sim/command_facts.h"
#include "sim/internal.h"
#include "sim/keyspace.h"
#include "sim/lua/script_engine.h"
#include "sim/monitor.h"
#include "sim/pubsub.h"
#include "sim/tracking.h"

namespace redsim::sim {

namespace {

// Redis's shared.oomerr.
constexpr std::string_view kOomError = "OOM command not allowed when used memory > 'maxmemory'.";

// Redis 7.0's processCommand text for an unknown command: the name cut at
// 128 bytes, then each argument quoted while the list is under 128 bytes,
// each cut so the list stays near that size; CR/LF become spaces.
resp::Reply unknown_command(const Argv& argv) {
  std::string args;
  for (size_t i = 1; i < argv.size() && args.size() < 128; ++i) {
    size_t room = 128 - args.size();
    args += '\'';
    args.append(argv[i], 0, std::min(room, argv[i].size()));
    args += "' ";
  }
  std::string name = argv.empty() ? std::string() : argv[0].substr(0, 128);
  return resp::Reply::error(
      one_line("ERR unknown command '" + name + "', with args beginning with: " + args));
}

// rejectCommand: a refused command inside MULTI marks the transaction so
// EXEC answers EXECABORT; a refused EXEC itself aborts the transaction at once.
resp::Reply reject(Session& session, const CommandSpec* spec, resp::Reply error) {
  if (spec != nullptr && spec->name == "exec") {
    discard_transaction(session);
    std::string_view text = error.str();
    if (text.starts_with("ERR ")) text.remove_prefix(4);
    return resp::Reply::error("EXECABORT Transaction discarded because of: " + std::string(text));
  }
  if (session.in_multi()) SessionAccess::multi_dirty(session) = true;
  return error;
}

// Redis 7.0's allow_busy commands (COMMAND INFO flags): the ones a client
// may run while a script is busy. For SCRIPT only its KILL subcommand, for
// FUNCTION its KILL and STATS (they answer BUSY themselves while an EVAL
// script runs, as SCRIPT KILL does while a function runs).
bool allowed_while_busy(const CommandSpec& spec, const Argv& argv) {
  static constexpr std::string_view kAllowBusy[] = {"auth",  "discard",  "hello",   "multi", "quit",
                                                    "reset", "shutdown", "unwatch", "watch"};
  if (spec.name == "script") return argv.size() > 1 && equals_ci(argv[1], "kill");
  if (spec.name == "function") {
    return argv.size() > 1 && (equals_ci(argv[1], "kill") || equals_ci(argv[1], "stats"));
  }
  for (std::string_view name : kAllowBusy) {
    if (spec.name == name) return true;
  }
  return false;
}

// KeyHooks (sim/keyspace.h): signalModifiedKey's trackingInvalidateKey.
void on_key_modified(void* owner, int /*db*/, std::string_view key) {
  Server& server = *static_cast<Server*>(owner);
  ServerAccess::tracking(server).invalidate_key(server, key, ServerAccess::writer(server),
                                                ServerAccess::current(server));
}

// deleteExpiredKeyAndPropagate: the "expired" event (class x), then the
// invalidation, with no client as the writer.
void on_key_expired(void* owner, int db, std::string_view key) {
  Server& server = *static_cast<Server*>(owner);
  publish_keyspace_event(server, db, notify::kExpired, "expired", key);
  Tracking& tracking = ServerAccess::tracking(server);
  if (tracking.table_created()) {
    tracking.invalidate_key(server, key, nullptr, ServerAccess::current(server));
  }
}

// dbAdd's "new" event (class n).
void on_key_created(void* owner, int db, std::string_view key) {
  Server& server = *static_cast<Server*>(owner);
  if (server.config().notify_keyspace_events & notify::kNew) {
    publish_keyspace_event(server, db, notify::kNew, "new", key);
  }
}

// A word of a space-separated list ("readonly fast").
bool has_word(std::string_view words, std::string_view word) {
  while (!words.empty()) {
    size_t space = words.find(' ');
    if (words.substr(0, space) == word) return true;
    if (space == std::string_view::npos) break;
    words.remove_prefix(space + 1);
  }
  return false;
}

bool no_auth(const CommandSpec& spec) {
  const CommandFact* fact = find_command_fact(spec.name);
  return fact != nullptr && fact->flags.find("no_auth") != std::string_view::npos;
}

bool arity_ok(int arity, size_t argc) {
  return arity >= 0 ? argc == static_cast<size_t>(arity) : argc >= static_cast<size_t>(-arity);
}

// Whether a session runs as the user "default" (a compare the compiler
// inlines: this runs for every command and every redis.call).
bool is_default_user(const std::string& user) {
  constexpr std::string_view kDefault = "default";
  return user.size() == kDefault.size() && std::memcmp(user.data(), kDefault.data(), 7) == 0;
}

}  // namespace

// ---- Session ---------------------------------------------------------------

Session::~Session() { server_.disconnect(*this); }

size_t Session::subscription_count() const { return channels_.size() + patterns_.size(); }

void Session::set_push_handler(std::function<void(const resp::Reply&)> handler) {
  push_handler_ = std::move(handler);
}

std::vector<resp::Reply> Session::take_pushes() {
  std::vector<resp::Reply> out(std::make_move_iterator(pushes_.begin()),
                               std::make_move_iterator(pushes_.end()));
  pushes_.clear();
  return out;
}

void Session::push(resp::Reply reply) {
  if (protocol_ == resp::Protocol::kResp2 && reply.has_resp3()) {
    reply = resp::to_resp2(std::move(reply));
  }
  if (server_.deferring_ == this) {
    server_.deferred_pushes_[id_].push_back(std::move(reply));
    return;
  }
  if (push_handler_) {
    push_handler_(reply);
  } else {
    pushes_.push_back(std::move(reply));
  }
}

void Session::push_shared(const resp::Reply& reply) {
  if (server_.deferring_ == this) {
    server_.deferred_pushes_[id_].push_back(reply);
    return;
  }
  if (push_handler_) {
    push_handler_(reply);
  } else {
    pushes_.push_back(reply);
  }
}

// The command table every Server dispatches through. Registration depends
// on nothing but the code, and CommandTable's lookups are const and keep no
// cache, so one table built once (a function-local static: thread-safe
// initialisation) serves every Server on every thread.
static const CommandTable& standard_command_table() {
  static const CommandTable table = [] {
    CommandTable table;
    register_server_commands(table);
    register_key_commands(table);
    register_string_commands(table);
    register_hash_commands(table);
    register_list_commands(table);
    register_set_commands(table);
    register_zset_commands(table);
    register_pubsub_commands(table);
    register_multi_commands(table);
    register_script_commands(table);
    register_connection_commands(table);
    // After the connection commands: FUNCTION's registration there is a stub.
    register_function_commands(table);
    register_replication_commands(table);
    register_memory_commands(table);
    register_persistence_commands(table);
    register_blocking_commands(table);
    register_stream_commands(table);
    return table;
  }();
  return table;
}

// ---- Server ----------------------------------------------------------------

Server::Server(Clock& clock, ServerOptions options)
    : clock_(clock),
      options_(options),
      commands_(standard_command_table()),
      keyspace_(std::make_unique<Keyspace>(options.databases, &on_watched_key_touched)),
      pubsub_(std::make_unique<PubSub>()),
      monitor_(std::make_unique<Monitor>()),
      blocking_(std::make_unique<Blocking>()),
      tracking_(std::make_unique<Tracking>()),
      acl_(std::make_unique<AclUsers>()),
      start_ms_(clock.now_us() / 1000),
      // A fixed tag keeps this stream apart from other users of the seed.
      random_state_(options.seed ^ 0x5EED5E12F0DA7A00ULL) {
  scripts_ = std::make_unique<ScriptEngine>(*this);
  KeyHooks& hooks = keyspace_->hooks();
  hooks.owner = this;
  hooks.modified = &on_key_modified;
  hooks.expired = &on_key_expired;
  hooks.created = &on_key_created;
}

Server::~Server() = default;

const std::string& Server::requirepass() const {
  static const std::string kNone;
  auto it = config_.others.find("requirepass");
  return it == config_.others.end() ? kNone : it->second;
}

std::unique_ptr<Session> Server::connect() {
  auto session =
      std::unique_ptr<Session>(new Session(*this, next_session_id_++, clock_.now_us() / 1000));
  sessions_.emplace(session->id(), session.get());
  // createClient: authenticated when the default user needs no password.
  session->authenticated_ = !auth_required_;
  return session;
}

void Server::disconnect(Session& session) {
  sessions_.erase(session.id());
  tracking_->disable(session.id());
  deferred_pushes_.erase(session.id());
  if (current_ == &session) current_ = nullptr;
  monitor_->monitors.remove(&session);
  blocking_->forget(*this, session);
  drop_subscriptions(session);
  discard_transaction(session);
  unwatch_all(session);
}

resp::Reply Server::execute(Session& session, const Argv& argv) {
  resp::Reply reply = dispatch(session, argv, /*in_script=*/false, /*read_only=*/false);
  note_client_reply(argv, reply);
  if (session.protocol() == resp::Protocol::kResp2 && reply.has_resp3()) {
    return resp::to_resp2(std::move(reply));
  }
  return reply;
}

resp::Reply Server::execute_consuming(Session& session, Argv& argv) {
  Argv* outer = std::exchange(consumable_, &argv);
  struct Restore {
    Argv*& slot;
    Argv* value;
    ~Restore() { slot = value; }
  } restore{consumable_, outer};
  // Before the run: a command queued by MULTI is moved out of argv.
  bool exec = argv.size() == 1 && equals_ci(argv[0], "exec");
  resp::Reply reply = dispatch(session, argv, /*in_script=*/false, /*read_only=*/false);
  note_client_reply(exec, reply);
  return reply;
}

// Redis's afterErrorReply: the code is the error's first word when it has
// one within its first 32 bytes, else ERR.
void Server::count_error(std::string_view text) {
  ++total_error_replies_;
  size_t space = text.substr(0, 31).find(' ');
  std::string code = space == std::string_view::npos || space == 0
                         ? std::string("ERR")
                         : std::string(text.substr(0, space));
  ++error_stats_[code];
}

resp::Reply Server::note_script_error(resp::Reply reply) {
  count_error(reply.str());
  script_errors_.emplace_back(reply.str());
  return reply;
}

void Server::note_client_reply(bool exec, const resp::Reply& reply) {
  if (reply.is_error()) {
    // An error a script's redis.call met was counted there (Redis's
    // ERR_REPLY_FLAG_NO_STATS_UPDATE for the script's error reply).
    bool counted = false;
    for (const std::string& inner : script_errors_)
      counted = counted || reply.str().starts_with(inner);
    if (!counted) count_error(reply.str());
  } else if (exec && reply.is_array()) {
    // EXEC's queued commands reply one by one in Redis.
    for (const resp::Reply& element : reply.elements()) {
      if (element.is_error()) count_error(element.str());
    }
  }
  script_errors_.clear();
}

void Server::note_client_reply(const Argv& argv, const resp::Reply& reply) {
  note_client_reply(argv.size() == 1 && equals_ci(argv[0], "exec"), reply);
}

namespace {
// Out of line, so that the check costs dispatch two instructions (in
// execute_from_script it cost a frame: callgrind, +9 instructions a call).
[[gnu::noinline, gnu::cold]] void log_script_call(Server::ScriptCallLog& log, const Argv& argv) {
  log.calls.push_back(argv);
}
}  // namespace

resp::Reply Server::execute_from_script(Session& session, const Argv& argv, bool read_only) {
  return dispatch(session, argv, /*in_script=*/true, read_only);
}

resp::Reply Server::execute_from_script(Session& session, const CommandTable::Lookup& command,
                                        const Argv& argv, bool read_only) {
  return dispatch(session, command, argv, /*in_script=*/true, read_only);
}

resp::Reply Server::dispatch(Session& session, const Argv& argv, bool in_script, bool read_only) {
  const CommandTable::Lookup command =
      argv.empty() ? CommandTable::Lookup{} : commands_.lookup(argv[0]);
  return dispatch(session, command, argv, in_script, read_only);
}

resp::Reply Server::dispatch(Session& session, const CommandTable::Lookup& command,
                             const Argv& argv, bool in_script, bool read_only) {
  const CommandSpec* spec = command.spec;
  if (in_script) {
    if (script_call_log_ != nullptr) [[unlikely]]
      log_script_call(*script_call_log_, argv);
    // Redis 7.0 scriptCall's checks, in its order; the Lua engine appends
    // the " script: ..." suffix.
    // Errors count in INFO errorstats where they happen (note_script_error),
    // and a refusal after the arity check in the command's rejected_calls.
    auto refused = [&](std::string_view text) {
      ++stats_of(command, argv).rejected_calls;
      return note_script_error(resp::Reply::error(std::string(text)));
    };
    if (spec == nullptr) {
      return note_script_error(resp::Reply::error("ERR Unknown Redis command called from script"));
    }
    // Redis looks a container's subcommand up as a command of its own
    // (lookupCommand): its arity and flags decide, CONFIG HELP runs and
    // CONFIG GET is refused, and an unknown subcommand is an unknown command.
    int arity = spec->arity;
    uint32_t flags = spec->flags;
    if (argv.size() > 1 && command.container) {
      const SubcommandSpec* sub = commands_.find_subcommand(*spec, argv[1]);
      if (sub == nullptr) {
        return note_script_error(
            resp::Reply::error("ERR Unknown Redis command called from script"));
      }
      arity = sub->arity;
      flags = sub->flags;
    }
    if (!arity_ok(arity, argv.size())) {
      return note_script_error(
          resp::Reply::error("ERR Wrong number of args calling Redis command from script"));
    }
    if (flags & kCmdNoScript) {
      return refused("ERR This Redis command is not allowed from script");
    }
    // scriptVerifyACL: the script runs as its caller's user.
    if (!acl_default_all_ || !is_default_user(session.user_)) {
      AclCheck acl = acl_check(session, command, argv);
      if (acl.verdict != AclVerdict::kOk) {
        acl_log_refusal(*this, session, full_name(*spec, argv), argv, acl, AclLogContext::kLua);
      }
      switch (acl.verdict) {
        case AclVerdict::kOk:
          break;
        case AclVerdict::kCommand:
          return refused("ERR The user executing the script can't run this command or subcommand");
        case AclVerdict::kKey:
          return refused(
              "ERR The user executing the script can't access at least one of the keys "
              "mentioned in the command arguments");
        case AclVerdict::kChannel:
          return refused(
              "ERR The user executing the script can't publish to the channel mentioned in the "
              "command");
      }
    }
    if (read_only && (flags & (kCmdWrite | kCmdMayReplicate))) {
      return refused("ERR Write commands are not allowed from read-only scripts.");
    }
    // scriptVerifyWriteCommandAllow: until the script's first write.
    if ((flags & kCmdWrite) && !scripts_->wrote() && lacks_good_replicas()) {
      return refused(kNoReplicasError);
    }
    // scriptVerifyOOM: a script that has not written yet may not run a
    // denyoom command when memory was over maxmemory as it started.
    if (script_oom_ && (flags & kCmdDenyOom) && !scripts_->wrote() && !scripts_->allows_oom()) {
      return refused(kOomError);
    }
    // Redis's SCRIPT_WRITE_DIRTY: from here on SCRIPT KILL is refused.
    if (flags & kCmdWrite) scripts_->note_write();
    // call() notes a changed db and an error reply for a script's command
    // (the reply is built in place, never moved).
    return call(session, command, argv, /*in_script=*/true);
  }

  // Redis's server.current_client for this command (a busy script's
  // handler runs other clients' commands inside the script's).
  struct Current {
    Server& server;
    Session* outer;
    Session& session;
    const Argv& argv;
    ~Current() {
      if (server.tracking_->table_created()) server.finish_tracking(session, argv);
      server.current_ = outer;
    }
  } current{*this, std::exchange(current_, &session), session, argv};
  if (tracking_->clients() > 0) {
    tracking_->limit_used_slots(*this, &session,
                                static_cast<uint64_t>(config_.tracking_table_max_keys));
  }
  if (spec != nullptr) {
    session.last_command_ = spec->name;
    if ((spec->flags & kCmdContainer) && argv.size() > 1) {
      session.last_subcommand_.assign(argv[1]);
      for (char& c : session.last_subcommand_) c = static_cast<char>(std::tolower(c));
    } else {
      session.last_subcommand_.clear();
    }
  }
  // Redis 7.0 processCommand's checks, in its order. An unknown command
  // has no stats; a known one refused counts in its rejected_calls.
  if (spec == nullptr) return reject(session, nullptr, unknown_command(argv));
  auto refuse = [&](resp::Reply error) {
    ++stats_of(command, argv).rejected_calls;
    return reject(session, spec, std::move(error));
  };
  if (!arity_ok(spec->arity, argv.size())) return refuse(errors::arity(spec->name));
  // authRequired: only the no_auth commands (AUTH, HELLO, QUIT, RESET) run
  // before the password was given.
  if (!session.authenticated_ && auth_required_ && !no_auth(*spec)) {
    return refuse(resp::Reply::error("NOAUTH Authentication required."));
  }
  // ACLCheckAllPerm, for a user that is not the unrestricted default one.
  if (!acl_default_all_ || !is_default_user(session.user_)) {
    AclCheck acl = acl_check(session, command, argv);
    if (acl.verdict != AclVerdict::kOk) {
      acl_log_refusal(*this, session, full_name(*spec, argv), argv, acl,
                      session.in_multi_ ? AclLogContext::kMulti : AclLogContext::kToplevel);
    }
    switch (acl.verdict) {
      case AclVerdict::kOk:
        break;
      case AclVerdict::kCommand:
        return refuse(resp::Reply::error("NOPERM this user has no permissions to run the '" +
                                         full_name(*spec, argv) + "' command"));
      case AclVerdict::kKey:
        return refuse(resp::Reply::error(
            "NOPERM this user has no permissions to access one of the keys used as arguments"));
      case AclVerdict::kChannel:
        return refuse(resp::Reply::error(
            "NOPERM this user has no permissions to access one of the channels used as "
            "arguments"));
    }
  }
  if (std::optional<resp::Reply> oom = check_oom(session, *spec, argv)) {
    return refuse(std::move(*oom));
  }
  // processCommand: a write (EXEC of a queued write) needs good replicas.
  const bool replica_read_only = replication_.read_only && replication_.read_only();
  if (lacks_good_replicas() || replica_read_only) {
    bool write = (spec->flags & kCmdWrite) != 0;
    if (argv.size() > 1 && command.container) {
      if (const SubcommandSpec* sub = commands_.find_subcommand(*spec, argv[1])) {
        write = (sub->flags & kCmdWrite) != 0;
      }
    }
    if (spec->name == "exec") {
      for (const Argv& queued : session.queued_) {
        const CommandSpec* q = commands_.find(queued[0]);
        if (q != nullptr && (q->flags & kCmdWrite)) write = true;
      }
    }
    // processCommand: a read-only replica's check comes first.
    if (write && replica_read_only) {
      return refuse(resp::Reply::error("READONLY You can't write against a read only replica."));
    }
    if (write && lacks_good_replicas()) {
      return refuse(resp::Reply::error(std::string(kNoReplicasError)));
    }
  }
  // RESP2: a subscribed connection may only (un)subscribe, ping, quit, reset
  // (RESP3 may run anything: processCommand checks c->resp == 2).
  if (!(spec->flags & kCmdPubSub) && session.subscribed() &&
      session.protocol_ == resp::Protocol::kResp2) {
    // Redis names the command by its full name there ("pubsub|numpat").
    std::string name(spec->name);
    if (argv.size() > 1 && command.container) {
      if (const SubcommandSpec* sub = commands_.find_subcommand(*spec, argv[1])) {
        name += "|" + std::string(sub->name);
      }
    }
    return refuse(resp::Reply::error("ERR Can't execute '" + name +
                                     "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / "
                                     "RESET are allowed in this context"));
  }
  if (scripts_->busy() && !allowed_while_busy(*spec, argv)) {
    return refuse(resp::Reply::error(std::string(scripts_->busy_error())));
  }
  if (session.in_multi_ && (spec->flags & kCmdDenyInMulti)) {
    return refuse(resp::Reply::error("ERR Command not allowed inside a transaction"));
  }
  if (session.in_multi_ && !(spec->flags & kCmdNoMulti)) {
    if (consumable_ == &argv) {
      session.queued_.push_back(std::move(*consumable_));
    } else {
      session.queued_.push_back(argv);
    }
    return resp::Reply::status("QUEUED");
  }
  resp::Reply reply = call(session, command, argv, /*in_script=*/false);
  // handleClientsBlockedOnKeys: after the whole command (EXEC, a script).
  if (keyspace_->has_ready_keys()) blocking_->serve(*this);
  // Only while a replica listens (sim/replication.h record_changes).
  if (keyspace_->hooks().record_changes) propagate_command(*this, session, argv, reply);
  if (replication_.after_write && ((spec->flags & kCmdWrite) || spec->name == "exec" ||
                                   spec->name == "eval" || spec->name == "evalsha")) {
    replication_.after_write(session);
  }
  return reply;
}

resp::Reply Server::call(Session& session, const CommandTable::Lookup& command, const Argv& argv,
                         bool in_script) {
  const CommandSpec& spec = *command.spec;
  // The outermost call reads the clock once; everything it runs (EXEC's
  // queue, a script's redis.call) sees that same time.
  struct Freeze {
    Server& server;
    bool outer;
    ~Freeze() {
      if (outer) server.frozen_ms_ = -1;
    }
  } freeze{*this, frozen_ms_ < 0};
  struct Depth {
    int& depth;
    explicit Depth(int& d) : depth(d) { ++depth; }
    ~Depth() { --depth; }
  } depth{call_depth_};
  // A client's command (EXEC's queue included) is timed for SLOWLOG and
  // LATENCY; a script's redis.call is not.
  int64_t start_us = 0;
  if (freeze.outer) {
    start_us = clock_.now_us();
    frozen_ms_ = start_us / 1000;
    keyspace_->access().now_ms = frozen_ms_;
  } else if (!in_script) {
    start_us = clock_.now_us();
  }

  ++commands_processed_;
  // With slowlog-log-slower-than 0 every command is logged with its
  // arguments, so none may be moved out of argv.
  bool may_consume =
      consumable_ == &argv && config_.slowlog_log_slower_than_us != 0 && monitor_->monitors.empty();
  CommandContext ctx{*this,      session,   argv,
                     frozen_ms_, in_script, may_consume ? consumable_ : nullptr};
  // server.dirty: what the handler counted, else one per key it touched
  // (the writes of nested calls are counted by those calls).
  uint64_t& writes = keyspace_->hooks().writes;
  const uint64_t writes_outer = std::exchange(writes, 0);
  // MONITOR: EVAL, EVALSHA and FCALL show before their script runs (Redis
  // flags them skip_monitor and shows them first itself), the rest after
  // they ran (see Monitors in sim/monitor.h).
  const bool any_monitor = !monitor_->monitors.empty();
  const bool script_first =
      any_monitor && !in_script &&
      (spec.name == "eval" || spec.name == "evalsha" || spec.name == "eval_ro" ||
       spec.name == "evalsha_ro" || spec.name == "fcall" || spec.name == "fcall_ro");
  const bool monitored = any_monitor && !script_first && Monitors::shown(full_name(spec, argv));
  if (script_first) {
    monitor_->monitors.feed(clock_.now_us(), session.db_, session.peer_.addr, argv);
  }
  Session* writer_before = std::exchange(writer_, in_script ? nullptr : &session);
  const int script_db_before = session.db_;
  // A client's command runs wrapped as below; a script's command straight
  // (either way the reply is built in place, never moved).
  auto run_for_client = [&] {
    session.last_command_ms_ = frozen_ms_;
    int db_before = session.db_;
    bool changed_before = std::exchange(script_changed_db_, false);
    const Argv* caller_argv_before = std::exchange(caller_argv_, &argv);
    const CommandSpec* caller_spec_before = std::exchange(caller_spec_, &spec);
    // A blocked client's command served now runs as Redis's current_client
    // (handleClientsBlockedOnKeys), its own invalidations following its reply.
    const bool served = blocking_->rerunning && tracking_->table_created();
    Session* current_before = current_;
    std::vector<std::optional<std::string>> outer_pending;
    if (served) {
      current_ = &session;
      outer_pending = tracking_->take_pending();
    }
    resp::Reply client_reply = spec.handler(ctx);
    if (served) {
      deferring_ = &session;
      tracking_->send_pending(*this, &session);
      deferring_ = nullptr;
      tracking_->restore_pending(std::move(outer_pending));
      current_ = current_before;
    }
    caller_argv_ = caller_argv_before;
    caller_spec_ = caller_spec_before;
    if (script_changed_db_) session.db_ = db_before;
    script_changed_db_ = changed_before;
    return client_reply;
  };
  resp::Reply reply = in_script ? spec.handler(ctx) : run_for_client();
  if (in_script) {
    // Redis 7.0 scriptCall: a SELECT inside the script is undone after it
    // (see the client branch above); a failed command's error counts in
    // INFO errorstats here (note_script_error), not again on the EVAL's.
    if (session.db_ != script_db_before) script_changed_db_ = true;
    if (reply.is_error()) {
      count_error(reply.str());
      script_errors_.emplace_back(reply.str());
    }
  }
  writer_ = writer_before;
  dirty_ += ctx.dirty >= 0 ? ctx.dirty : static_cast<int64_t>(writes);
  writes = writes_outer;
  if (tracking_->clients() > 0) remember_tracked_keys(session, spec, argv, in_script);
  // The stats are looked up after the run: the handler may have cleared
  // them (CONFIG RESETSTAT), which Redis then counts as its first call.
  if (monitored && !monitor_->monitors.empty()) {
    monitor_->monitors.feed(clock_.now_us(), session.db_, in_script ? "lua" : session.peer_.addr,
                            argv);
  }
  // A blocked command counts once, when its block ends with a reply
  // (Redis's updateStatsOnUnblock).
  const bool parked = blocking_->rerunning ? blocking_->still_blocked : session.blocked_;
  if (parked) return reply;
  CommandStats& stats = stats_of(command, argv);
  ++stats.calls;
  if (reply.is_error()) ++stats.failed_calls;
  if (!in_script) {
    int64_t end_us = clock_.now_us();
    record_duration(session, spec, argv, stats, end_us, std::max<int64_t>(0, end_us - start_us));
  }
  return reply;
}

void Server::remember_tracked_keys(Session& session, const CommandSpec& spec, const Argv& argv,
                                   bool in_script) {
  const Tracking::Client* client = tracking_->find(session.id());
  if (client == nullptr || client->bcast) return;
  // call(): a read-only command other than EVAL_RO, EVALSHA_RO and
  // FCALL_RO; inside a script, the keys of the command that ran the script.
  std::string name = full_name(spec, argv);
  const CommandFact* fact = find_command_fact(name);
  if (fact == nullptr || !has_word(fact->flags, "readonly")) return;
  if (name == "eval_ro" || name == "evalsha_ro" || name == "fcall_ro") return;
  const Argv* keys_argv = &argv;
  if (in_script) {
    if (caller_argv_ == nullptr || caller_spec_ == nullptr) return;
    keys_argv = caller_argv_;
    fact = find_command_fact(full_name(*caller_spec_, *caller_argv_));
    if (fact == nullptr) return;
  }
  // Shard channels are keys to COMMAND, not to tracking.
  if (has_word(fact->flags, "pubsub")) return;
  std::vector<std::string_view> keys;
  for (const KeyRef& ref : command_keys(*fact, *keys_argv)) {
    if (ref.index < keys_argv->size()) keys.push_back((*keys_argv)[ref.index]);
  }
  if (!keys.empty()) tracking_->remember_keys(session.id(), keys);
}

void Server::finish_tracking(Session& session, const Argv& argv) {
  // resetClient: CLIENT CACHING holds for the next command (or the next
  // transaction) only.
  if (!session.in_multi_ && (argv.empty() || !equals_ci(argv[0], "client"))) {
    tracking_->clear_caching(session.id());
  }
  tracking_->send_pending(*this, &session);  // afterCommand
  tracking_->broadcast(*this);               // beforeSleep
}

void Server::record_duration(Session& session, const CommandSpec& spec, const Argv& argv,
                             CommandStats& stats, int64_t end_us, int64_t duration_us) {
  if (config_.latency_tracking) stats.latency.record_us(duration_us);
  int64_t unix_s = end_us / 1'000'000;
  // EXEC is not logged itself: the commands it ran are (Redis's
  // CMD_SKIP_SLOWLOG).
  if (spec.name != "exec") {
    monitor_->slowlog.push_if_needed(argv, unix_s, duration_us, config_.slowlog_log_slower_than_us,
                                     config_.slowlog_max_len, session.peer().addr, session.name());
  }
  monitor_->latency.add_if_needed((spec.flags & kCmdFast) ? "fast-command" : "command", unix_s,
                                  duration_us / 1000, config_.latency_monitor_threshold_ms);
}

AclCheck Server::acl_check(const Session& session, const CommandTable::Lookup& command,
                           const Argv& argv) const {
  const CommandSpec& spec = *command.spec;
  // AUTH and HELLO are Redis's no_auth commands: every user may run them.
  if (spec.name == "auth" || spec.name == "hello") return {};
  return acl_->check(session.user_, full_name(spec, argv), argv);
}

void Server::note_acl_change() {
  const AclUser* d = acl_->find("default");
  acl_default_all_ = d != nullptr && d->selectors.size() == 1 && d->selectors[0].all_keys &&
                     d->selectors[0].all_channels && d->selectors[0].all_commands;
  auth_required_ = d == nullptr || !d->enabled || !d->nopass;
}

std::string Server::full_name(const CommandSpec& spec, const Argv& argv) const {
  std::string name(spec.name);
  if (argv.size() > 1 && commands_.has_subcommands(spec)) {
    if (const SubcommandSpec* sub = commands_.find_subcommand(spec, argv[1])) {
      name += "|";
      name += sub->name;
    }
  }
  return name;
}

// Redis's name for a command in INFO commandstats: a container's known
// subcommand as "container|sub" (lower case), anything else by its name.
Server::CommandStats& Server::stats_of(const CommandTable::Lookup& command, const Argv& argv) {
  const CommandSpec& spec = *command.spec;
  if (argv.size() > 1 && command.container) {
    if (const SubcommandSpec* sub = commands_.find_subcommand(spec, argv[1])) {
      return command_stats_[std::string(spec.name) + "|" + std::string(sub->name)];
    }
  }
  // This runs for every command: the entry is found by the command's
  // table index after the first time.
  if (stats_by_index_.size() <= command.index) stats_by_index_.resize(commands_.size(), nullptr);
  CommandStats*& cached = stats_by_index_[command.index];
  if (cached != nullptr) return *cached;
  auto it = command_stats_.find(spec.name);
  if (it == command_stats_.end())
    it = command_stats_.emplace(std::string(spec.name), CommandStats{}).first;
  cached = &it->second;
  return it->second;
}

std::optional<resp::Reply> Server::check_oom(Session& session, const CommandSpec& spec,
                                             const Argv& argv) {
  // EXEC records it too: its queue may hold scripts.
  bool is_script = spec.name == "eval" || spec.name == "evalsha" || spec.name == "eval_ro" ||
                   spec.name == "evalsha_ro" || spec.name == "exec";
  if (is_script) script_oom_ = false;
  // processCommand skips the check while a script is busy.
  if (config_.maxmemory_bytes <= 0 || scripts_->busy()) return std::nullopt;
  // Another policy evicts before every command; what still does not fit
  // refuses denyoom commands as noeviction does.
  if (!config_.maxmemory_noeviction) evict_to_fit();
  uint32_t flags = spec.flags;
  if (argv.size() > 1 && commands_.has_subcommands(spec)) {
    if (const SubcommandSpec* sub = commands_.find_subcommand(spec, argv[1])) flags = sub->flags;
  }
  bool deny = (flags & kCmdDenyOom) != 0;
  if (spec.name == "exec" && session.in_multi_) {
    for (const Argv& queued : session.queued_) {
      const CommandSpec* q = commands_.find(queued[0]);
      if (q != nullptr && (q->flags & kCmdDenyOom)) deny = true;
    }
  }
  // Queuing may grow memory without bound: inside MULTI everything but
  // EXEC, DISCARD, QUIT and RESET is refused.
  if (session.in_multi_ && spec.name != "exec" && spec.name != "discard" && spec.name != "quit" &&
      spec.name != "reset") {
    deny = true;
  }
  if (!deny && !is_script) return std::nullopt;
  bool oom = used_memory_bytes() > config_.maxmemory_bytes;
  if (is_script) script_oom_ = oom;
  if (oom && deny) return resp::Reply::error(std::string(kOomError));
  return std::nullopt;
}

size_t Server::active_expire_cycle() {
  // serverCron's trackingLimitUsedSlots, beforeSleep's broadcast.
  struct Broadcast {
    Server& server;
    ~Broadcast() {
      if (server.tracking_->table_created()) server.tracking_->broadcast(server);
    }
  } broadcast{*this};
  if (tracking_->clients() > 0) {
    tracking_->limit_used_slots(*this, nullptr,
                                static_cast<uint64_t>(config_.tracking_table_max_keys));
  }
  if (!config_.active_expire_enabled) return 0;
  if (config_.latency_monitor_threshold_ms <= 0) {
    return keyspace_->active_expire(now_ms(), options_.active_expire_keys_per_cycle);
  }
  // LATENCY's "expire-cycle" event: the cycle timed on the server clock.
  int64_t start_us = clock_.now_us();
  size_t n = keyspace_->active_expire(now_ms(), options_.active_expire_keys_per_cycle);
  int64_t end_us = clock_.now_us();
  monitor_->latency.add_if_needed("expire-cycle", end_us / 1'000'000, (end_us - start_us) / 1000,
                                  config_.latency_monitor_threshold_ms);
  return n;
}

uint64_t Server::random_below(uint64_t n) {
  return base::lemire_below(n, [this] { return base::splitmix64(random_state_); });
}

std::vector<Server::Unblocked> Server::take_unblocked() {
  std::vector<Unblocked> out = blocking_->take_unblocked();
  if (!deferred_pushes_.empty()) {
    for (Unblocked& u : out) {
      auto it = deferred_pushes_.find(u.session->id());
      if (it == deferred_pushes_.end()) continue;
      u.pushes = std::move(it->second);
      deferred_pushes_.erase(it);
    }
  }
  // A block that ends in an error (XGROUP DESTROY's NOGROUP) is an error
  // reply to its client (INFO errorstats).
  for (const Unblocked& u : out) {
    if (u.reply.is_error()) count_error(u.reply.str());
  }
  return out;
}

std::optional<int64_t> Server::next_block_deadline_ms() const {
  return blocking_->next_deadline_ms();
}

size_t Server::time_out_blocked() { return blocking_->time_out(*this, now_ms()); }

size_t Server::blocked_clients() const { return blocking_->size(); }

int64_t Server::now_ms() const { return frozen_ms_ >= 0 ? frozen_ms_ : clock_.now_us() / 1000; }

// ---------------------------------------------------------------- inspection

namespace {

Db& inspected_db(Keyspace& ks, int db) {
  if (db < 0 || db >= ks.databases()) {
    throw std::out_of_range("no database " + std::to_string(db) +
                            " (databases: " + std::to_string(ks.databases()) + ")");
  }
  return ks.db(db);
}

}  // namespace

int Server::databases() const { return keyspace_->databases(); }

size_t Server::key_count(int db) const { return inspected_db(*keyspace_, db).size(); }

std::vector<std::string> Server::stored_keys(int db) const {
  std::vector<std::string> keys;
  inspected_db(*keyspace_, db).for_each([&keys](const std::string& key, const Entry&) {
    keys.push_back(key);
  });
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::optional<StoredKey> Server::peek(std::string_view key, int db) const {
  const Entry* e = inspected_db(*keyspace_, db).peek(key);
  if (e == nullptr) return std::nullopt;
  StoredKey out;
  out.type = std::string(type_name(e->type()));
  if (e->has_expire()) out.expire_at_ms = e->expire_ms;
  out.expired = e->expired_at(now_ms());
  switch (e->type()) {
    case ValueType::kString:
      out.elements.push_back(e->str());
      break;
    case ValueType::kHash:
      for (const auto& [field, value] : e->hash().entries()) {
        out.elements.push_back(field);
        out.elements.push_back(value);
      }
      break;
    case ValueType::kList:
      out.elements.assign(e->list().begin(), e->list().end());
      break;
    case ValueType::kSet:
      out.elements = e->set().members();
      break;
    case ValueType::kZset:
      for (const Zset::Item& item : e->zset().items()) {
        out.elements.push_back(item.member);
        out.scores.push_back(item.score);
      }
      break;
    case ValueType::kStream:
      for (const auto& [id, fields] : e->stream().entries) out.elements.push_back(id.str());
      break;
  }
  return out;
}

std::string Server::inconsistency() const {
  for (int db = 0; db < keyspace_->databases(); ++db) {
    std::string why = keyspace_->db(db).inconsistency();
    if (!why.empty()) return "db " + std::to_string(db) + ": " + why;
  }
  return {};
}

}  // namespace redsim::sim
