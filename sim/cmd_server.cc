// Connection and server commands: PING ECHO SELECT FLUSHDB FLUSHALL DBSIZE
// TIME DEBUG QUIT RESET SHUTDOWN. Arity, flags and texts as Redis 7.0.15.
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <string>
#include <vector>

#include "sim/args.h"
#include "sim/cmd_admin.h"
#include "sim/internal.h"
#include "sim/lua/script_engine.h"

namespace redsim::sim {

using resp::Reply;

namespace {

Reply ping(CommandContext& ctx) {
  if (ctx.argv.size() > 2) return errors::arity("ping");
  // RESP2, subscribed: PING answers in the pub/sub shape.
  if (ctx.session.subscribed() && ctx.session.protocol() == resp::Protocol::kResp2) {
    return Reply::array(
        {Reply::bulk("pong"), Reply::bulk(ctx.argv.size() == 2 ? ctx.argv[1] : std::string())});
  }
  if (ctx.argv.size() == 2) return Reply::bulk(ctx.argv[1]);
  return Reply::status("PONG");
}

Reply echo(CommandContext& ctx) { return Reply::bulk(ctx.argv[1]); }

Reply select(CommandContext& ctx) {
  int64_t id = 0;
  if (!parse_int64(ctx.argv[1], &id)) return errors::not_integer();
  if (id < INT_MIN || id > INT_MAX) {
    return Reply::error("ERR value is out of range, value must between -2147483648 and 2147483647");
  }
  if (id < 0 || id >= ServerAccess::keyspace(ctx.server).databases()) {
    return Reply::error("ERR DB index is out of range");
  }
  SessionAccess::db(ctx.session) = static_cast<int>(id);
  return Reply::ok();
}

// FLUSHDB / FLUSHALL [ASYNC|SYNC]: both flush at once here.
bool flush_args_ok(const Argv& argv) {
  if (argv.size() > 2) return false;
  return argv.size() == 1 || equals_ci(argv[1], "async") || equals_ci(argv[1], "sync");
}

Reply flushdb(CommandContext& ctx) {
  if (!flush_args_ok(ctx.argv)) return errors::syntax();
  ctx.add_dirty(static_cast<int64_t>(current_db(ctx).size()));  // emptyData's count
  current_db(ctx).clear(ctx.now_ms);
  // signalFlushedDb's trackingInvalidateKeysOnFlush: a null to every
  // tracking client.
  ServerAccess::tracking(ctx.server).invalidate_all(ctx.server, ServerAccess::current(ctx.server));
  return Reply::ok();
}

Reply flushall(CommandContext& ctx) {
  if (!flush_args_ok(ctx.argv)) return errors::syntax();
  Keyspace& ks = ServerAccess::keyspace(ctx.server);
  int64_t removed = 0;
  for (int i = 0; i < ks.databases(); ++i) removed += static_cast<int64_t>(ks.db(i).size());
  ks.clear(ctx.now_ms);
  // flushAllDataAndResetRDB: the keys removed count as changes, unless
  // `save` parameters are set: then Redis saves the (empty) data set at
  // once, which resets the count to 0.
  const auto& others = ctx.server.config().others;
  auto save = others.find("save");
  if (save != others.end() && !save->second.empty()) {
    ServerAccess::dirty(ctx.server) = 0;
    ctx.dirty = 0;
  } else {
    ctx.add_dirty(removed);
  }
  ServerAccess::tracking(ctx.server).invalidate_all(ctx.server, ServerAccess::current(ctx.server));
  return Reply::ok();
}

Reply dbsize(CommandContext& ctx) {
  return Reply::integer(static_cast<int64_t>(current_db(ctx).size()));
}

Reply time(CommandContext& ctx) {
  int64_t us = ctx.server.clock().now_us();
  return Reply::array(
      {Reply::bulk(std::to_string(us / 1000000)), Reply::bulk(std::to_string(us % 1000000))});
}

// DEBUG, the subcommands that make sense for a fake (texts as Redis 7.0.15):
// SLEEP <seconds> blocks the server: the clock's sleep_us (a simulated
// clock jumps forward, a wall clock really sleeps). SET-ACTIVE-EXPIRE <0|1>
// switches the active expiry cycle (atoi semantics: non-zero enables).
// RELOAD saves and reloads the data set: without persistence the data
// stays as it is. HELP lists these. Anything else answers as Redis does
// for an unknown subcommand.
Reply debug(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  if (equals_ci(argv[1], "sleep") && argv.size() == 3) {
    // Redis (debug.c) converts seconds * 1e6 to a long long and hands the
    // result to nanosleep. A product that does not fit (1e300, inf, nan)
    // converts to LLONG_MIN on x86-64, a negative time nanosleep refuses
    // at once, as it refuses any negative one: +OK without sleeping
    // (checked on redis-server 7.0.15). The rest sleeps. The clock must
    // stay representable, so a virtual clock stops at INT64_MAX; a wall
    // clock's sleep ends early when its owner stops (see WallClock).
    double us = parse_double_prefix(argv[2]) * 1000000;
    if (us >= 1 && us < 9223372036854775808.0) {
      int64_t room_us = INT64_MAX - std::max<int64_t>(0, ctx.server.clock().now_us());
      ctx.server.clock().sleep_us(std::min(static_cast<int64_t>(us), room_us));
    }
    return Reply::ok();
  }
  if (equals_ci(argv[1], "set-active-expire") && argv.size() == 3) {
    ctx.server.config().active_expire_enabled = std::atoi(argv[2].c_str()) != 0;
    return Reply::ok();
  }
  if (equals_ci(argv[1], "config-rewrite-force-all") && argv.size() == 2) {
    return admin::config_rewrite(ctx.server, true);  // introspection.tcl "CONFIG REWRITE sanity"
  }
  if (equals_ci(argv[1], "reload")) {
    // rdbSave resets server.dirty; the data set stays as it is.
    ServerAccess::dirty(ctx.server) = 0;
    ctx.dirty = 0;
    return Reply::ok();
  }
  // DEBUG OBJECT <key> (debug.c): the fake has no addresses, LRU clock or
  // serialized size, so those fields read 0 (acl.tcl only needs the call).
  if (equals_ci(argv[1], "object") && argv.size() == 3) {
    Entry* e = current_db(ctx).peek(argv[2]);
    if (e == nullptr || e->expired_at(ctx.now_ms)) return Reply::error("ERR no such key");
    return Reply::status("Value at:0x0 refcount:1 encoding:" + std::string(encoding_name(*e)) +
                         " serializedlength:0 lru:0 lru_seconds_idle:0");
  }
  if (equals_ci(argv[1], "help") && argv.size() == 2) {
    return help_reply(
        "DEBUG",
        {"RELOAD [option ...]",
         "    Save the RDB on disk and reload it back to memory (redsim: no persistence, the",
         "    data set stays as it is).", "SET-ACTIVE-EXPIRE <0|1>",
         "    Setting it to 0 disables expiring keys in background when they are not",
         "    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
         "    default.", "SLEEP <seconds>",
         "    Stop the server for <seconds>. Decimals allowed."});
  }
  return Reply::error(one_line("ERR unknown subcommand or wrong number of arguments for '" +
                               argv[1] + "'. Try DEBUG HELP."));
}

// SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT], as Redis 7.0.15's
// shutdownCommand parses it. No shutdown is ever in progress (nothing waits
// for replicas), so ABORT always answers "No shutdown in progress."; a
// busy script lets only NOSAVE through, which ends the script even after
// writes. Otherwise +OK and Server::shutdown_requested() (see server.h; a
// transport sends nothing and stops). SAVE saves nothing: no persistence.
Reply shutdown(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  bool nosave = false;
  bool save = false;
  bool other = false;  // NOW or FORCE
  bool abort = false;
  for (size_t i = 1; i < argv.size(); ++i) {
    if (equals_ci(argv[i], "nosave")) {
      nosave = true;
    } else if (equals_ci(argv[i], "save")) {
      save = true;
    } else if (equals_ci(argv[i], "now") || equals_ci(argv[i], "force")) {
      other = true;
    } else if (equals_ci(argv[i], "abort")) {
      abort = true;
    } else {
      return errors::syntax();
    }
  }
  if ((abort && (nosave || save || other)) || (nosave && save)) return errors::syntax();
  if (abort) return Reply::error("ERR No shutdown in progress.");
  if (!nosave && ServerAccess::scripts(ctx.server).busy()) {
    return Reply::error(
        "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.");
  }
  if (ServerAccess::scripts(ctx.server).running())
    ServerAccess::scripts(ctx.server).kill(/*force=*/true);
  ServerAccess::request_shutdown(ctx.server);
  return Reply::ok();
}

// The connection stays open here: closing it is the caller's business.
Reply quit(CommandContext&) { return Reply::ok(); }

// RESET: back to a fresh connection's state.
Reply reset(CommandContext& ctx) {
  ServerAccess::tracking(ctx.server).disable(ctx.session.id());
  discard_transaction(ctx.session);
  unwatch_all(ctx.session);
  drop_subscriptions(ctx.session);
  SessionAccess::db(ctx.session) = 0;
  SessionAccess::name(ctx.session).clear();
  SessionAccess::reply_flags(ctx.session, false, false);
  SessionAccess::protocol(ctx.session) = resp::Protocol::kResp2;
  // Back to the default user: unauthenticated when it has a password.
  SessionAccess::user(ctx.session) = "default";
  SessionAccess::authenticated(ctx.session) = !ctx.server.auth_required();
  return Reply::status("RESET");
}

}  // namespace

void register_server_commands(CommandTable& table) {
  table.add({"ping", -1, kCmdPubSub | kCmdFast, &ping});
  table.add({"echo", 2, kCmdFast, &echo});
  table.add({"select", 2, kCmdFast, &select});
  table.add({"flushdb", -1, kCmdWrite, &flushdb});
  table.add({"flushall", -1, kCmdWrite, &flushall});
  table.add({"dbsize", 1, kCmdReadonly | kCmdFast, &dbsize});
  table.add({"time", 1, kCmdFast, &time});
  table.add({"debug", -2, kCmdNoScript, &debug});
  table.add({"quit", -1, kCmdNoScript | kCmdNoMulti | kCmdPubSub | kCmdFast, &quit});
  table.add({"reset", 1, kCmdNoScript | kCmdNoMulti | kCmdPubSub | kCmdFast, &reset});
  table.add({"shutdown", -1, kCmdNoScript | kCmdDenyInMulti, &shutdown});
}

}  // namespace redsim::sim
