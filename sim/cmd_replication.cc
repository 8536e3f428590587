// Replication commands: WAIT. Arity, flags and texts as Redis 7.0.15 (the
// WAIT command page; texts checked against redis-server 7.0.15).
//
// WAIT numreplicas timeout answers the number of replicas that acknowledged
// every write this connection made so far (its repl_offset). Redis blocks
// the client until numreplicas replicas acknowledged or timeout ms passed
// (0 = forever); inside MULTI/EXEC it never blocks and answers the current
// count; scripts may not call it (noscript). A sim::Server cannot block by
// itself: it answers the current count and leaves a Session::BlockedWait for
// the world, which holds the reply.
#include "sim/args.h"
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

}  // namespace

void register_replication_commands(CommandTable& table) {
  table.add({"wait", 3, kCmdNoScript, &wait});
}

}  // namespace redsim::sim
