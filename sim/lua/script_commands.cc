// EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT in the command table, with
// Redis 7.0's arities and the flags the dispatcher enforces (none of them
// may run from a script; the _RO forms count as read-only commands).
// Source: Redis 7.0 src/commands/eval*.json and script*.json.
#include "sim/internal.h"
#include "sim/lua/script_engine.h"
#include "sim/server.h"

namespace redsim::sim {
namespace {

resp::Reply eval_command(CommandContext& ctx) {
  return ServerAccess::scripts(ctx.server).eval(ctx, false, false);
}
resp::Reply evalsha_command(CommandContext& ctx) {
  return ServerAccess::scripts(ctx.server).eval(ctx, true, false);
}
resp::Reply eval_ro_command(CommandContext& ctx) {
  return ServerAccess::scripts(ctx.server).eval(ctx, false, true);
}
resp::Reply evalsha_ro_command(CommandContext& ctx) {
  return ServerAccess::scripts(ctx.server).eval(ctx, true, true);
}
resp::Reply script_command(CommandContext& ctx) {
  return ServerAccess::scripts(ctx.server).script_command(ctx);
}

}  // namespace

void register_script_commands(CommandTable& table) {
  table.add({"eval", -3, kCmdNoScript, eval_command});
  table.add({"evalsha", -3, kCmdNoScript, evalsha_command});
  table.add({"eval_ro", -3, kCmdNoScript | kCmdReadonly, eval_ro_command});
  table.add({"evalsha_ro", -3, kCmdNoScript | kCmdReadonly, evalsha_ro_command});
  table.add({"script", -2, kCmdNoScript, script_command});
  // Redis 7.0.15's SCRIPT subcommands (COMMAND INFO): only HELP runs in a script.
  static constexpr SubcommandSpec kScriptSubcommands[] = {
      {"debug", 3, kCmdNoScript},  {"exists", -3, kCmdNoScript},
      {"flush", -2, kCmdNoScript}, {"help", 2, 0},
      {"kill", 2, kCmdNoScript},   {"load", 3, kCmdNoScript},
  };
  table.add_subcommands("script", kScriptSubcommands);
}

}  // namespace redsim::sim
