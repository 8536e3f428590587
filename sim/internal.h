// Private to sim/: what the command families (sim/cmd_*.cc) need of the
// Server and Session internals, and the helpers several families share.
// Not part of the public API.
#pragma once

#include <string_view>
#include <vector>

#include "sim/acl.h"
#include "sim/command.h"
#include "sim/keyspace.h"
#include "sim/monitor.h"
#include "sim/pubsub.h"
#include "sim/server.h"
#include "sim/tracking.h"

namespace redsim::sim {

// Session::Internal and Server::Internal are nested in the classes they open
// (sim/server.h declares them), so they reach the private state without a
// friend declaration in the public header.
struct Session::Internal {
  static Server& server(Session& s) { return s.server_; }
  static std::string& user(Session& s) { return s.user_; }
  static int& db(Session& s) { return s.db_; }
  static bool& in_multi(Session& s) { return s.in_multi_; }
  static bool& multi_dirty(Session& s) { return s.multi_dirty_; }
  static std::vector<Argv>& queued(Session& s) { return s.queued_; }
  static std::vector<Session::Watched>& watched(Session& s) { return s.watched_; }
  static bool& watch_dirty(Session& s) { return s.watch_dirty_; }
  static const std::vector<std::string>& channels(const Session& s) { return s.channels_; }
  static const std::vector<std::string>& patterns(const Session& s) { return s.patterns_; }
  // The subscription lists as PubSub keeps them (sim/pubsub.cc).
  static std::vector<std::string>& channels(Session& s) { return s.channels_; }
  static std::vector<std::string>& patterns(Session& s) { return s.patterns_; }
  static std::vector<std::string>& shard_channels(Session& s) { return s.shard_channels_; }
  static void push(Session& s, resp::Reply reply) { s.push(std::move(reply)); }
  static void push_shared(Session& s, const resp::Reply& reply) { s.push_shared(reply); }
  static std::string& name(Session& s) { return s.name_; }
  static resp::Protocol& protocol(Session& s) { return s.protocol_; }
  static std::string_view last_command(const Session& s) { return s.last_command_; }
  static const std::string& last_subcommand(const Session& s) { return s.last_subcommand_; }
  static bool watch_dirty(const Session& s) { return s.watch_dirty_; }
  // CLIENT REPLY: OFF sets `off`; SKIP suppresses this reply and the next.
  static void reply_flags(Session& s, bool off, bool skip) {
    s.reply_off_ = off;
    s.reply_skip_ = skip;
    s.reply_skip_next_ = skip;
  }
  // No reply at all to the command that runs now (REPLCONF ACK/GETACK from a
  // client that is not a replica); the next command answers as usual.
  static void skip_this_reply(Session& s) { s.reply_skip_ = true; }
  static std::optional<Session::BlockedWait>& blocked_wait(Session& s) { return s.blocked_wait_; }
  // Session::blocked(): set and cleared by Blocking (sim/blocking.cc) only.
  static void set_blocked(Session& s, bool blocked) { s.blocked_ = blocked; }
  // CLIENT KILL (sim/cmd_connection.cc); with ServerAccess::note_kill_requests.
  static void request_kill(Session& s) { s.kill_requested_ = true; }
  static bool& authenticated(Session& s) { return s.authenticated_; }
};
using SessionAccess = Session::Internal;

struct Server::Internal {
  // The data structures behind Server (the command families, the Lua
  // engine; sim/world's replication and persistence copy and apply entries).
  static Keyspace& keyspace(Server& server) { return *server.keyspace_; }
  static ScriptEngine& scripts(Server& server) { return *server.scripts_; }
  static PubSub& pubsub(Server& server) { return *server.pubsub_; }
  // Runs a command (already checked) as part of the current one: EXEC's
  // queued commands. The time stays frozen.
  static resp::Reply call(Server& server, Session& s, const CommandTable::Lookup& command,
                          const Argv& argv) {
    return server.call(s, command, argv, /*in_script=*/false);
  }
  static void request_shutdown(Server& server) { server.shutdown_requested_ = true; }
  static int64_t& dirty(Server& server) { return server.dirty_; }
  static Monitor& monitor(Server& server) { return *server.monitor_; }
  static void note_kill_requests(Server& server) { server.kill_requests_ = true; }
  static Blocking& blocking(Server& server) { return *server.blocking_; }
  static Tracking& tracking(Server& server) { return *server.tracking_; }
  // Redis's server.current_client (nullptr between commands).
  static Session* current(Server& server) { return server.current_; }
  // The client whose command writes now (nullptr in a script).
  static Session* writer(Server& server) { return server.writer_; }
  static AclUsers& acl(Server& server) { return *server.acl_; }
  // Redis 7.0's updateStatsOnUnblock for a block that ends without its
  // command running again (a timeout; CLIENT UNBLOCK, which 7.0.15 counts
  // as failed even when it sends the timeout reply): one call of the
  // blocked command, timed as 0 us (the fake keeps no duration of the
  // blocking run).
  static void count_unblocked(Server& server, const Argv& argv, bool failed) {
    const CommandTable::Lookup command = server.commands_.lookup(argv[0]);
    if (command.spec == nullptr) return;
    Server::CommandStats& stats = server.stats_of(command, argv);
    ++stats.calls;
    if (failed) ++stats.failed_calls;
    if (server.config_.latency_tracking) stats.latency.record_us(0);
  }
  // redis.acl_check_cmd: may `s`'s user run argv (a known command)?
  static bool acl_allows(Server& server, const Session& s, const Argv& argv) {
    CommandTable::Lookup command = server.commands_.lookup(argv[0]);
    return command.spec != nullptr && server.acl_check(s, command, argv).verdict == AclVerdict::kOk;
  }
  // redis.call / redis.pcall (sim/lua/redis_lib.cc): Server::execute_from_script.
  static resp::Reply execute_from_script(Server& server, Session& s, const Argv& argv,
                                         bool read_only) {
    return server.execute_from_script(s, argv, read_only);
  }
  static resp::Reply execute_from_script(Server& server, Session& s,
                                         const CommandTable::Lookup& command, const Argv& argv,
                                         bool read_only) {
    return server.execute_from_script(s, command, argv, read_only);
  }
};
using ServerAccess = Server::Internal;

// The db the command runs against.
inline Db& current_db(CommandContext& ctx) {
  return Server::Internal::keyspace(ctx.server).db(SessionAccess::db(ctx.session));
}

// notifyKeyspaceEvent: when notify-keyspace-events enables `type` (a
// notify::k* class), publishes `event` on "__keyspace@<db>__:<key>" (K) and
// `key` on "__keyevent@<db>__:<event>" (E), db being the command's db.
void notify_keyspace_event(CommandContext& ctx, int type, std::string_view event,
                           std::string_view key);
// The same for db `db`, outside any command too (expiry).
void publish_keyspace_event(Server& server, int db, int type, std::string_view event,
                            std::string_view key);

// After a client's command ran, with ReplicationHooks::propagate set: its
// key changes, or the command itself, go down the replication stream
// (sim/replication.cc).
void propagate_command(Server& server, Session& session, const Argv& argv,
                       const resp::Reply& reply);

// WATCH bookkeeping (cmd_multi.cc).
void watch_key(Session& s, Db& db, std::string_view key, int64_t now_ms);
void unwatch_all(Session& s);
// Leaves MULTI: drops the queue and the error flag, and unwatches (Redis's
// discardTransaction).
void discard_transaction(Session& s);
// Keyspace's WatchTouchFn: decides whether a touch makes the session's
// next EXEC fail.
void on_watched_key_touched(Session& s, int db, std::string_view key, TouchKind kind);

// RESET and disconnect: unsubscribe everything without replies (cmd_pubsub.cc).
void drop_subscriptions(Session& s);

}  // namespace redsim::sim
