// Connection commands that clients and test harnesses send on connect or
// around tests: HELLO, CLIENT, FUNCTION FLUSH and redsim's own
// REDSIM.ADVANCE, and the registration of every connection and
// administration command (CONFIG is in cmd_config.cc, INFO and COMMAND in
// cmd_introspection.cc; sim/cmd_admin.h lists the group). Replies and error
// texts as Redis 7.0.15 (checked against Debian's redis-server); where the
// fake has nothing to report (memory figures, replication) the field is left
// out or reported as a Redis without that feature reports it.
#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdio>
#include <set>
#include <string>

#include "sim/args.h"
#include "sim/blocking.h"
#include "sim/cmd_admin.h"
#include "sim/internal.h"
#include "sim/pubsub.h"

namespace redsim::sim::admin {

using resp::Reply;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Reply unknown_subcommand(std::string_view sub, std::string_view container) {
  return Reply::error(one_line("ERR unknown subcommand '" + std::string(sub.substr(0, 128)) +
                               "'. Try " + std::string(container) + " HELP."));
}

Reply sub_arity(std::string_view container, std::string_view sub) {
  return Reply::error("ERR wrong number of arguments for '" + std::string(container) + "|" +
                      lower(sub) + "' command");
}

namespace {

// Redis's validateClientName: printable ASCII without spaces.
bool valid_client_name(std::string_view name) {
  return std::all_of(name.begin(), name.end(), [](char c) { return c > ' ' && c <= '~'; });
}

const char* kBadClientName =
    "ERR Client names cannot contain spaces, newlines or special characters.";

// ---- HELLO -----------------------------------------------------------------

// HELLO [protover [AUTH username password] [SETNAME name]]: protover 2 or
// 3 switches the session's protocol (others: NOPROTO), after AUTH and
// SETNAME were checked, as Redis 7.0's helloCommand; the reply is the
// server's map in the new protocol (a flat array in RESP2). AUTH succeeds
// for the "default" user (Redis's default user has no password), fails with
// WRONGPASS for any other.
Reply hello(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  int64_t ver = 0;
  if (argv.size() >= 2) {
    if (!parse_int64(argv[1], &ver)) {
      return Reply::error("ERR Protocol version is not an integer or out of range");
    }
    if (ver < 2 || ver > 3) return Reply::error("NOPROTO unsupported protocol version");
  }
  const std::string* user = nullptr;
  const std::string* name = nullptr;
  for (size_t j = 2; j < argv.size(); ++j) {
    size_t more = argv.size() - 1 - j;
    if (equals_ci(argv[j], "auth") && more >= 2) {
      user = &argv[j + 1];
      j += 2;
    } else if (equals_ci(argv[j], "setname") && more >= 1) {
      name = &argv[j + 1];
      if (!valid_client_name(*name)) return Reply::error(kBadClientName);
      ++j;
    } else {
      return Reply::error(one_line("ERR Syntax error in HELLO option '" + argv[j] + "'"));
    }
  }
  if (user != nullptr && *user != "default") {
    return Reply::error("WRONGPASS invalid username-password pair or user is disabled.");
  }
  if (name != nullptr) SessionAccess::name(ctx.session) = *name;
  if (ver != 0) {
    SessionAccess::protocol(ctx.session) =
        ver == 3 ? resp::Protocol::kResp3 : resp::Protocol::kResp2;
  }
  const int64_t proto = ctx.session.protocol() == resp::Protocol::kResp3 ? 3 : 2;
  return Reply::map({Reply::bulk("server"), Reply::bulk("redis"), Reply::bulk("version"),
                     Reply::bulk(kRedisVersion), Reply::bulk("proto"), Reply::integer(proto),
                     Reply::bulk("id"), Reply::integer(static_cast<int64_t>(ctx.session.id())),
                     Reply::bulk("mode"), Reply::bulk("standalone"), Reply::bulk("role"),
                     Reply::bulk("master"), Reply::bulk("modules"), Reply::array({})});
}

// ---- CLIENT ----------------------------------------------------------------

// One CLIENT LIST line, fields in Redis 7.0's order. Memory and buffer
// figures belong to the transport and are reported as 0.
std::string client_line(Server& server, const Session& s, int64_t now_ms) {
  std::string flags;
  if (s.subscribed()) flags += 'P';
  if (s.in_multi()) flags += 'x';
  if (s.blocked()) flags += 'b';
  if (SessionAccess::watch_dirty(s)) flags += 'd';
  if (flags.empty()) flags = "N";
  std::string cmd(SessionAccess::last_command(s));
  if (!SessionAccess::last_subcommand(s).empty()) cmd += "|" + SessionAccess::last_subcommand(s);
  auto& queued = SessionAccess::queued(const_cast<Session&>(s));
  (void)server;
  char buf[160];
  std::snprintf(buf, sizeof buf,
                " age=%lld idle=%lld flags=", (long long)((now_ms - s.created_ms()) / 1000),
                (long long)((now_ms - s.last_command_ms()) / 1000));
  std::string out = "id=" + std::to_string(s.id()) + " addr=" + s.peer().addr +
                    " laddr=" + s.peer().laddr + " fd=" + std::to_string(s.peer().fd) +
                    " name=" + s.name() + buf + flags + " db=" + std::to_string(s.db()) +
                    " sub=" + std::to_string(SessionAccess::channels(s).size()) +
                    " psub=" + std::to_string(SessionAccess::patterns(s).size()) +
                    " ssub=" + std::to_string(s.shard_subscription_count()) + " multi=" +
                    std::to_string(s.in_multi() ? static_cast<int64_t>(queued.size()) : -1) +
                    " qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 "
                    "tot-mem=0 events=r cmd=" +
                    cmd + " user=default redir=-1 resp=2\n";
  return out;
}

Reply client_list(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  std::set<uint64_t> ids;
  bool only_pubsub = false;
  bool none = false;
  if (argv.size() == 4 && equals_ci(argv[2], "type")) {
    std::string type = lower(argv[3]);
    if (type == "pubsub") {
      only_pubsub = true;
    } else if (type == "master" || type == "replica" || type == "slave") {
      none = true;
    } else if (type != "normal") {
      return Reply::error(one_line("ERR Unknown client type '" + argv[3] + "'"));
    }
  } else if (argv.size() > 3 && equals_ci(argv[2], "id")) {
    for (size_t j = 3; j < argv.size(); ++j) {
      int64_t id = 0;
      if (!parse_int64(argv[j], &id) || id <= 0) {
        return Reply::error("ERR Invalid client ID");
      }
      ids.insert(static_cast<uint64_t>(id));
    }
  } else if (argv.size() != 2) {
    return errors::syntax();
  }
  std::string out;
  if (!none) {
    for (const auto& [id, s] : ctx.server.sessions()) {
      if (!ids.empty() && !ids.contains(id)) continue;
      bool pubsub = s->subscribed();
      if (only_pubsub != pubsub && argv.size() == 4 && !equals_ci(argv[2], "id")) continue;
      out += client_line(ctx.server, *s, ctx.now_ms);
    }
  }
  return Reply::bulk(std::move(out));
}

Reply client(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  std::string sub = lower(argv[1]);
  size_t argc = argv.size();
  if (sub == "id") {
    if (argc != 2) return sub_arity("client", sub);
    return Reply::integer(static_cast<int64_t>(ctx.session.id()));
  }
  if (sub == "info") {
    if (argc != 2) return sub_arity("client", sub);
    return Reply::bulk(client_line(ctx.server, ctx.session, ctx.now_ms));
  }
  if (sub == "list") return client_list(ctx);
  if (sub == "getname") {
    if (argc != 2) return sub_arity("client", sub);
    if (ctx.session.name().empty()) return Reply::nil();
    return Reply::bulk(ctx.session.name());
  }
  if (sub == "setname") {
    if (argc != 3) return sub_arity("client", sub);
    if (!valid_client_name(argv[2])) return Reply::error(kBadClientName);
    SessionAccess::name(ctx.session) = argv[2];
    return Reply::ok();
  }
  if (sub == "reply") {
    if (argc != 3) return sub_arity("client", sub);
    std::string mode = lower(argv[2]);
    if (mode == "on") {
      SessionAccess::reply_flags(ctx.session, false, false);
      return Reply::ok();
    }
    if (mode == "off") {
      SessionAccess::reply_flags(ctx.session, true, false);
      return Reply::ok();  // suppressed: OFF is now in force
    }
    if (mode == "skip") {
      if (!ctx.session.reply_suppressed()) SessionAccess::reply_flags(ctx.session, false, true);
      return Reply::ok();  // suppressed: SKIP's own reply is never sent
    }
    return errors::syntax();
  }
  if (sub == "unblock") {
    // CLIENT UNBLOCK id [TIMEOUT|ERROR] (sim/blocking.h): 1 when it ended a block.
    if (argc != 3 && argc != 4) return sub_arity("client", sub);
    int64_t id = 0;
    if (!parse_int64(argv[2], &id)) return errors::not_integer();
    bool error = false;
    if (argc == 4) {
      if (equals_ci(argv[3], "error")) {
        error = true;
      } else if (!equals_ci(argv[3], "timeout")) {
        return Reply::error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
      }
    }
    return Reply::integer(unblock_client(ctx.server, static_cast<uint64_t>(id), error) ? 1 : 0);
  }
  if (sub == "no-evict") {
    if (argc != 3) return sub_arity("client", sub);
    if (equals_ci(argv[2], "on") || equals_ci(argv[2], "off")) return Reply::ok();
    return errors::syntax();
  }
  if (sub == "help") {
    if (argc != 2) return sub_arity("client", sub);
    // Redis 7.0.15's text, including the subcommands the fake does not have.
    return help_reply(
        "CLIENT",
        {"CACHING (YES|NO)",
         "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
         "GETREDIR",
         "    Return the client ID we are redirecting to when tracking is enabled.",
         "GETNAME",
         "    Return the name of the current connection.",
         "ID",
         "    Return the ID of the current connection.",
         "INFO",
         "    Return information about the current client connection.",
         "KILL <ip:port>",
         "    Kill connection made from <ip:port>.",
         "KILL <option> <value> [<option> <value> [...]]",
         "    Kill connections. Options are:",
         "    * ADDR (<ip:port>|<unixsocket>:0)",
         "      Kill connections made from the specified address",
         "    * LADDR (<ip:port>|<unixsocket>:0)",
         "      Kill connections made to specified local address",
         "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
         "      Kill connections by type.",
         "    * USER <username>",
         "      Kill connections authenticated by <username>.",
         "    * SKIPME (YES|NO)",
         "      Skip killing current connection (default: yes).",
         "LIST [options ...]",
         "    Return information about client connections. Options:",
         "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
         "      Return clients of specified type.",
         "UNPAUSE",
         "    Stop the current client pause, resuming traffic.",
         "PAUSE <timeout> [WRITE|ALL]",
         "    Suspend all, or just write, clients for <timeout> milliseconds.",
         "REPLY (ON|OFF|SKIP)",
         "    Control the replies sent to the current connection.",
         "SETNAME <name>",
         "    Assign the name <name> to the current connection.",
         "UNBLOCK <clientid> [TIMEOUT|ERROR]",
         "    Unblock the specified blocked client.",
         "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
         "         [OPTIN] [OPTOUT] [NOLOOP]",
         "    Control server assisted client side caching.",
         "TRACKINGINFO",
         "    Report tracking status for the current connection.",
         "NO-EVICT (ON|OFF)",
         "    Protect current client connection from eviction."});
  }
  return unknown_subcommand(argv[1], "CLIENT");
}

// ---- FUNCTION, REDSIM.ADVANCE ----------------------------------------------

// FUNCTION FLUSH [ASYNC|SYNC]: the fake has no functions, so there is
// nothing to flush. FUNCTION KILL: no function ever runs, so NOTBUSY (while
// an EVAL script is busy the dispatcher answers BUSY, as Redis does). Other
// FUNCTION subcommands are not simulated.
Reply function(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  if (equals_ci(argv[1], "kill")) {
    if (argv.size() != 2) return sub_arity("function", "kill");
    return Reply::error("NOTBUSY No scripts in execution right now.");
  }
  if (equals_ci(argv[1], "flush")) {
    if (argv.size() > 3) return sub_arity("function", "flush");
    if (argv.size() == 3 && !equals_ci(argv[2], "async") && !equals_ci(argv[2], "sync")) {
      return Reply::error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
    }
    return Reply::ok();
  }
  return unknown_subcommand(argv[1], "FUNCTION");
}

// REDSIM.ADVANCE <ms>: redsim's control command. Moves the server clock
// forward by ms milliseconds through Clock::sleep_us, as DEBUG SLEEP does:
// a virtual clock jumps, a wall clock really blocks the server that long.
Reply redsim_advance(CommandContext& ctx) {
  int64_t ms = 0;
  if (!parse_int64(ctx.argv[1], &ms) || ms < 0 || ms > INT64_MAX / 1000) {
    return errors::not_integer();
  }
  ctx.server.clock().sleep_us(ms * 1000);
  return Reply::ok();
}

}  // namespace

}  // namespace redsim::sim::admin

namespace redsim::sim {

namespace {

// Redis 7.0.15's subcommands of the containers registered here (COMMAND
// INFO's subcommand arities and flags): what a script may run.
constexpr SubcommandSpec kClientSubcommands[] = {
    {"caching", 3, kCmdNoScript},   {"getname", 2, kCmdNoScript},
    {"getredir", 2, kCmdNoScript},  {"help", 2, 0},
    {"id", 2, kCmdNoScript},        {"info", 2, kCmdNoScript},
    {"kill", -3, kCmdNoScript},     {"list", -2, kCmdNoScript},
    {"no-evict", 3, kCmdNoScript},  {"pause", -3, kCmdNoScript},
    {"reply", 3, kCmdNoScript},     {"setname", 3, kCmdNoScript},
    {"tracking", -3, kCmdNoScript}, {"trackinginfo", 2, kCmdNoScript},
    {"unblock", -3, kCmdNoScript},  {"unpause", 2, kCmdNoScript},
};
constexpr SubcommandSpec kConfigSubcommands[] = {
    {"get", -3, kCmdNoScript},      {"help", 2, 0},
    {"resetstat", 2, kCmdNoScript}, {"rewrite", 2, kCmdNoScript},
    {"set", -4, kCmdNoScript},
};
constexpr SubcommandSpec kCommandSubcommands[] = {
    {"count", 2, 0}, {"docs", -2, 0}, {"getkeys", -4, 0}, {"getkeysandflags", -4, 0},
    {"help", 2, 0},  {"info", -2, 0}, {"list", -2, 0},
};
constexpr SubcommandSpec kFunctionSubcommands[] = {
    {"delete", 3, kCmdWrite | kCmdNoScript},
    {"dump", 2, kCmdNoScript},
    {"flush", -2, kCmdWrite | kCmdNoScript},
    {"help", 2, 0},
    {"kill", 2, kCmdNoScript},
    {"list", -2, kCmdNoScript},
    {"load", -3, kCmdWrite | kCmdDenyOom | kCmdNoScript},
    {"restore", -3, kCmdWrite | kCmdDenyOom | kCmdNoScript},
    {"stats", 2, kCmdNoScript},
};

}  // namespace

void register_connection_commands(CommandTable& table) {
  table.add({"hello", -1, kCmdNoScript | kCmdFast, &admin::hello});
  table.add({"client", -2, kCmdNoScript | kCmdContainer, &admin::client});
  table.add({"config", -2, kCmdContainer, &admin::config});
  table.add({"info", -1, 0, &admin::info});
  table.add({"command", -1, kCmdContainer, &admin::command});
  table.add({"function", -2, kCmdContainer | kCmdNoScript | kCmdWrite, &admin::function});
  table.add({"redsim.advance", 2, kCmdNoScript, &admin::redsim_advance});
  table.add_subcommands("client", kClientSubcommands);
  table.add_subcommands("config", kConfigSubcommands);
  table.add_subcommands("command", kCommandSubcommands);
  table.add_subcommands("function", kFunctionSubcommands);
}

}  // namespace redsim::sim
