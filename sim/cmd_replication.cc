// Replication commands: WAIT, CLUSTER as a server without cluster support
// answers it, and MIGRATE, whose target a fake never reaches. Arity, flags and texts as
// Redis 7.0.15 (the WAIT command page; texts checked against redis-server 7.0.15).
//
// The other replication and cluster commands, as a standalone redis-server
// 7.0.15 with no replicas answers them (texts checked against it), when no
// transport installed replication hooks (the embedded fake):
//   ASKING, READONLY, READWRITE   -ERR This instance has cluster support disabled
//   RESTORE-ASKING                RESTORE (the ASKING flag matters in a cluster only)
//   ROLE                          ["master", 0, []]: offset 0, no replicas
//   REPLICAOF/SLAVEOF NO ONE      +OK (already a master); a bad port
//                                 -ERR Invalid master port. REPLICAOF host port is
//                                 refused: the fake has no replication link
//                                 (redsim's own error text, not Redis's).
//   FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT ms]  failoverCommand's
//                                 argument checks, then -ERR FAILOVER requires
//                                 connected replicas. (ABORT: No failover in progress.)
//   REPLCONF <option> <value> ... replconfCommand's options for a client that
//                                 is not a replica: listening-port (an integer),
//                                 ip-address, capa, rdb-only, ... answer +OK; ACK and
//                                 GETACK answer nothing (inside EXEC: +OK);
//                                 an odd count is a syntax error.
//   SYNC, PSYNC replicationid offset  refused with redsim's own error (no
//                                 transport to send an RDB file on); no_multi
//                                 (-ERR Command not allowed inside a transaction).
// With redsim server's replication (sim/replication.h; ReplicationHooks set
// by tools/server/tcp_replication.cc, whose header says what it does as
// Redis's replication.c does) ROLE, INFO replication, REPLICAOF host port
// and NO ONE, REPLCONF listening-port/ACK/GETACK, SYNC and PSYNC go to the
// transport, and a read-only replica refuses ordinary clients' writes
// (Server::execute, processCommand's -READONLY).
//
// WAIT numreplicas timeout answers the number of replicas that acknowledged
// every write this connection made so far (its repl_offset). Redis blocks
// the client until numreplicas replicas acknowledged or timeout ms passed
// (0 = forever); inside MULTI/EXEC it never blocks and answers the current
// count; scripts may not call it (noscript). A sim::Server cannot block by
// itself: it answers the current count and leaves a Session::BlockedWait for
// the world, which holds the reply.
#include "sim/args.h"
#include "sim/cmd_admin.h"
#include "sim/internal.h"

namespace redsim::sim {

using resp::Reply;

namespace {

Reply wait(CommandContext& ctx) {
  int64_t numreplicas = 0;
  if (!parse_int64(ctx.argv[1], &numreplicas)) return errors::not_integer();
  int64_t timeout_ms = 0;
  if (!parse_int64(ctx.argv[2], &timeout_ms)) {
    return Reply::error("ERR timeout is not an integer or out of range");
  }
  if (timeout_ms < 0) return Reply::error("ERR timeout is negative");
  const ReplicationHooks& hooks = ctx.server.replication_hooks();
  const int64_t acked =
      hooks.acked_replicas ? hooks.acked_replicas(ctx.session.repl_offset()) : int64_t{0};
  // Redis's CLIENT_DENY_BLOCKING: a command run by EXEC answers at once.
  const bool may_block = !ctx.in_script && ctx.server.call_depth() == 1;
  if (acked < numreplicas && may_block) {
    SessionAccess::blocked_wait(ctx.session) = Session::BlockedWait{numreplicas, timeout_ms};
  }
  return Reply::integer(acked);
}

// Redis 7.0.15's CLUSTER subcommands (COMMAND INFO): only RESET is
// noscript. Every one of them answers as cluster-enabled no does.
constexpr SubcommandSpec kClusterSubcommands[] = {
    {"addslots", -3, 0},
    {"addslotsrange", -4, 0},
    {"bumpepoch", 2, 0},
    {"count-failure-reports", 3, 0},
    {"countkeysinslot", 3, 0},
    {"delslots", -3, 0},
    {"delslotsrange", -4, 0},
    {"failover", -2, 0},
    {"flushslots", 2, 0},
    {"forget", 3, 0},
    {"getkeysinslot", 4, 0},
    {"help", 2, 0},
    {"info", 2, 0},
    {"keyslot", 3, 0},
    {"links", 2, 0},
    {"meet", -4, 0},
    {"myid", 2, 0},
    {"nodes", 2, 0},
    {"replicas", 3, 0},
    {"replicate", 3, 0},
    {"reset", -2, kCmdNoScript},
    {"saveconfig", 2, 0},
    {"set-config-epoch", 3, 0},
    {"setslot", -4, 0},
    {"shards", 2, 0},
    {"slaves", 3, 0},
    {"slots", 2, 0},
};

// CLUSTER <sub> ...: processCommand's unknown-subcommand and arity errors
// first, then clusterCommand's refusal (HELP included).
Reply cluster(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  std::string sub = admin::lower(argv[1]);
  const SubcommandSpec* spec = nullptr;
  for (const SubcommandSpec& s : kClusterSubcommands) {
    if (s.name == sub) spec = &s;
  }
  if (spec == nullptr) return admin::unknown_subcommand(argv[1], "CLUSTER");
  if (!(spec->arity > 0 ? argv.size() == static_cast<size_t>(spec->arity)
                        : argv.size() >= static_cast<size_t>(-spec->arity))) {
    return admin::sub_arity("cluster", sub);
  }
  return Reply::error("ERR This instance has cluster support disabled");
}

// MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE]
// [AUTH password] [AUTH2 username password] [KEYS key ...]: the arguments
// checked as migrateCommand checks them, NOKEY when no key exists, else the
// IOERR Redis answers when the target cannot be written to (the fake opens
// no connection).
Reply migrate(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  size_t first_key = 3;
  size_t num_keys = 1;
  for (size_t j = 6; j < argv.size(); ++j) {
    size_t more = argv.size() - j - 1;
    if (equals_ci(argv[j], "copy") || equals_ci(argv[j], "replace")) continue;
    if (equals_ci(argv[j], "auth") && more >= 1) {
      ++j;
    } else if (equals_ci(argv[j], "auth2") && more >= 2) {
      j += 2;
    } else if (equals_ci(argv[j], "keys")) {
      if (!argv[3].empty()) {
        return Reply::error(
            "ERR When using MIGRATE KEYS option, the key argument must be set to the empty "
            "string");
      }
      first_key = j + 1;
      num_keys = argv.size() - j - 1;
      break;
    } else {
      return Reply::error("ERR syntax error");
    }
  }
  int64_t timeout = 0;
  int64_t dbid = 0;
  if (!parse_int64(argv[5], &timeout) || !parse_int64(argv[4], &dbid)) {
    return errors::not_integer();
  }
  bool any = false;
  for (size_t j = first_key; j < first_key + num_keys; ++j) {
    any = any || current_db(ctx).lookup(argv[j], ctx.now_ms) != nullptr;
  }
  if (!any) return Reply::status("NOKEY");
  return Reply::error("IOERR error or timeout writing to target instance");
}

Reply cluster_disabled(CommandContext& /*ctx*/) {
  return Reply::error("ERR This instance has cluster support disabled");
}

Reply role(CommandContext& ctx) {
  if (const ReplicationHooks& hooks = ctx.server.replication_hooks(); hooks.role) {
    return hooks.role();
  }
  return Reply::array({Reply::bulk("master"), Reply::integer(0), Reply::array({})});
}

// SYNC and PSYNC (syncCommand): refused inside MULTI by their no_multi
// flag; the transport (ReplicationHooks::sync) answers +FULLRESYNC and
// sends the RDB file.
Reply sync(CommandContext& ctx) {
  if (const ReplicationHooks& hooks = ctx.server.replication_hooks(); hooks.sync) {
    return hooks.sync(ctx.session, ctx.argv);
  }
  return Reply::error("ERR redsim: SYNC and PSYNC need a transport (redsim server)");
}

// REPLICAOF host port / NO ONE (replicaofCommand): NO ONE on a master is OK.
Reply replicaof(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  const ReplicationHooks& hooks = ctx.server.replication_hooks();
  const bool no_one = equals_ci(argv[1], "no") && equals_ci(argv[2], "one");
  if (no_one && !hooks.replicaof) return Reply::ok();
  int64_t port = 0;
  if (!no_one && (!parse_int64(argv[2], &port) || port < 0 || port > 65535)) {
    return Reply::error("ERR Invalid master port");
  }
  if (hooks.replicaof) return hooks.replicaof(argv);
  return Reply::error(
      "ERR redsim: REPLICAOF <host> <port> is not supported (the fake server has no "
      "replication link); only REPLICAOF NO ONE is");
}

// failoverCommand: the arguments first, then the state: a master with no
// replicas (no failover ever in progress).
Reply failover(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  bool abort = false;
  bool force = false;
  bool to = false;
  int64_t timeout_ms = 0;
  for (size_t j = 1; j < argv.size(); ++j) {
    size_t more = argv.size() - j - 1;
    if (equals_ci(argv[j], "to") && more >= 2 && !to) {
      int64_t port = 0;
      if (!parse_int64(argv[j + 2], &port)) return errors::not_integer();
      to = true;
      j += 2;
    } else if (equals_ci(argv[j], "timeout") && more >= 1 && timeout_ms == 0) {
      if (!parse_int64(argv[j + 1], &timeout_ms)) return errors::not_integer();
      if (timeout_ms <= 0) return Reply::error("ERR FAILOVER timeout must be greater than 0");
      ++j;
    } else if (equals_ci(argv[j], "force") && !force) {
      force = true;
    } else if (equals_ci(argv[j], "abort") && !abort) {
      abort = true;
    } else {
      return Reply::error("ERR syntax error");
    }
  }
  if (abort) {
    if (to || force || timeout_ms != 0) return Reply::error("ERR syntax error");
    return Reply::error("ERR No failover in progress.");
  }
  return Reply::error("ERR FAILOVER requires connected replicas.");
}

// replconfCommand for a client that is not a replica.
Reply replconf(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  if (argv.size() % 2 == 0) return Reply::error("ERR syntax error");
  for (size_t j = 1; j < argv.size(); j += 2) {
    const std::string& option = argv[j];
    if (equals_ci(option, "listening-port")) {
      int64_t port = 0;
      if (!parse_int64(argv[j + 1], &port)) return errors::not_integer();
    } else if (equals_ci(option, "ack") || equals_ci(option, "getack")) {
      if (const ReplicationHooks& hooks = ctx.server.replication_hooks(); hooks.replconf) {
        hooks.replconf(ctx.session, argv);
      }
      // Only a replica's ACK (or a master's GETACK) means something; Redis
      // adds no reply at all. Inside EXEC the fake answers +OK instead of
      // leaving a hole in EXEC's array.
      if (!ctx.in_script && ctx.server.call_depth() == 1)
        SessionAccess::skip_this_reply(ctx.session);
      return Reply::ok();
    } else if (!equals_ci(option, "ip-address") && !equals_ci(option, "capa") &&
               !equals_ci(option, "rdb-only") && !equals_ci(option, "rdb-filter-only")) {
      return Reply::error("ERR Unrecognized REPLCONF option: " + option);
    }
  }
  if (const ReplicationHooks& hooks = ctx.server.replication_hooks(); hooks.replconf) {
    hooks.replconf(ctx.session, argv);
  }
  return Reply::ok();
}

}  // namespace

void register_replication_commands(CommandTable& table) {
  table.add({"migrate", -6, kCmdWrite, &migrate});
  table.add({"wait", 3, kCmdNoScript, &wait});
  table.add({"cluster", -2, kCmdContainer, &cluster});
  table.add_subcommands("cluster", kClusterSubcommands);
  table.add({"asking", 1, kCmdFast, &cluster_disabled});
  table.add({"readonly", 1, kCmdFast, &cluster_disabled});
  table.add({"readwrite", 1, kCmdFast, &cluster_disabled});
  table.add({"role", 1, kCmdNoScript | kCmdFast, &role});
  table.add({"replicaof", 3, kCmdNoScript, &replicaof});
  table.add({"slaveof", 3, kCmdNoScript, &replicaof});
  table.add({"failover", -1, kCmdNoScript, &failover});
  table.add({"replconf", -1, kCmdNoScript, &replconf});
  table.add({"sync", 1, kCmdNoScript | kCmdDenyInMulti, &sync});
  table.add({"psync", -3, kCmdNoScript | kCmdDenyInMulti, &sync});
  // RESTORE's handler (registered before, by sim/cmd_dump.cc).
  if (const CommandSpec* restore = table.find("restore")) {
    table.add({"restore-asking", -4, restore->flags, restore->handler});
  }
}

}  // namespace redsim::sim
