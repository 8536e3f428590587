// The commands a standalone redis-server 7.0.15 without persistence files
// and without modules answers, as the fake answers them (texts checked
// against redis-server 7.0.15 started with --save '' --appendonly no):
//
//   SAVE            +OK; the fake writes no file: LASTSAVE moves to now and
//                   rdb_changes_since_last_save (Server::dirty) to 0.
//                   no_multi: refused inside MULTI (Command not allowed
//                   inside a transaction).
//   BGSAVE [SCHEDULE]  +Background saving started (inside EXEC: +Background
//                   saving scheduled, as Redis answers while it cannot fork);
//                   the "child" finishes at once: LASTSAVE moves to now.
//   BGREWRITEAOF    +Background append only file rewriting started (inside
//                   EXEC: ...rewriting scheduled); no file either.
//   LASTSAVE        the UNIX time (s) of the last save, on the server's clock;
//                   the server's start until the first SAVE/BGSAVE.
//   LOLWUT [VERSION v]  Redis's lolwutCommand: a verbatim string. Versions 5
//                   and 6 draw pictures in Redis; the fake answers every
//                   version with the line the others get, "Redis ver. 7.0.15\n"
//                   (the pictures are not reproduced).
//   MODULE LIST     an empty array (no module loaded). MODULE LOAD/LOADEX/
//                   UNLOAD: the error Redis gives while enable-module-command
//                   is "no", its default (the fake never loads a module).
//                   MODULE HELP: Redis's text.
// Flags and arities as Redis 7.0.15's COMMAND INFO (sim/command_facts.inc).
#include "sim/args.h"
#include "sim/cmd_admin.h"
#include "sim/internal.h"

namespace redsim::sim {

using resp::Reply;

namespace {

// A command run by EXEC (Redis's server.in_exec): scripts may not run these
// commands (noscript), so a nested call is EXEC's.
bool in_exec(const CommandContext& ctx) { return ctx.server.call_depth() > 1; }

// A save completes at once: LASTSAVE moves to now and rdbSave's
// `server.dirty = 0` empties INFO's rdb_changes_since_last_save (for
// BGSAVE, the finished child's `dirty -= dirty_before_bgsave`, with
// nothing changed meanwhile).
void saved(CommandContext& ctx) {
  ctx.server.note_save(ctx.now_ms);
  ServerAccess::dirty(ctx.server) = 0;
  ctx.dirty = 0;
}

Reply save(CommandContext& ctx) {
  saved(ctx);
  return Reply::ok();
}

Reply bgsave(CommandContext& ctx) {
  if (ctx.argv.size() > 2 || (ctx.argv.size() == 2 && !equals_ci(ctx.argv[1], "schedule"))) {
    return Reply::error("ERR syntax error");
  }
  saved(ctx);
  return Reply::status(in_exec(ctx) ? "Background saving scheduled" : "Background saving started");
}

Reply bgrewriteaof(CommandContext& ctx) {
  return Reply::status(in_exec(ctx) ? "Background append only file rewriting scheduled"
                                    : "Background append only file rewriting started");
}

Reply lastsave(CommandContext& ctx) { return Reply::integer(ctx.server.last_save_ms() / 1000); }

Reply lolwut(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  if (argv.size() >= 3 && equals_ci(argv[1], "version")) {
    int64_t version = 0;
    if (!parse_int64(argv[2], &version)) return errors::not_integer();
  }
  return Reply::verbatim("txt", std::string("Redis ver. ") + admin::kRedisVersion + "\n");
}

constexpr SubcommandSpec kModuleSubcommands[] = {
    {"help", 2, 0},
    {"list", 2, kCmdNoScript},
    {"load", -3, kCmdNoScript},
    {"loadex", -3, kCmdNoScript},
    {"unload", 3, kCmdNoScript},
};

Reply module(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  std::string sub = admin::lower(argv[1]);
  const SubcommandSpec* spec = nullptr;
  for (const SubcommandSpec& s : kModuleSubcommands) {
    if (s.name == sub) spec = &s;
  }
  if (spec == nullptr) return admin::unknown_subcommand(argv[1], "MODULE");
  if (!(spec->arity > 0 ? argv.size() == static_cast<size_t>(spec->arity)
                        : argv.size() >= static_cast<size_t>(-spec->arity))) {
    return admin::sub_arity("module", sub);
  }
  if (sub == "help") {
    return help_reply(
        "MODULE",
        {"LIST", "    Return a list of loaded modules.", "LOAD <path> [<arg> ...]",
         "    Load a module library from <path>, passing to it any optional arguments.",
         "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
         "    Load a module library from <path>, while passing it module configurations and "
         "optional arguments.",
         "UNLOAD <name>", "    Unload a module."});
  }
  if (sub == "list") return Reply::array({});
  return Reply::error(
      "ERR MODULE command not allowed. If the enable-module-command option is set to \"local\", "
      "you can run it from a local connection, otherwise you need to set this option in the "
      "configuration file, and then restart the server.");
}

}  // namespace

void register_persistence_commands(CommandTable& table) {
  table.add({"save", 1, kCmdNoScript | kCmdDenyInMulti, &save});
  table.add({"bgsave", -1, kCmdNoScript, &bgsave});
  table.add({"bgrewriteaof", 1, kCmdNoScript, &bgrewriteaof});
  table.add({"lastsave", 1, kCmdFast, &lastsave});
  table.add({"lolwut", -1, kCmdReadonly | kCmdFast, &lolwut});
  table.add({"module", -2, kCmdContainer, &module});
  table.add_subcommands("module", kModuleSubcommands);
}

}  // namespace redsim::sim
