// Private to the connection and administration commands, split by group:
//
//   sim/cmd_connection.cc     HELLO, CLIENT, FUNCTION, REDSIM.ADVANCE, and the
//                             registration of every command below
//   sim/cmd_config.cc         CONFIG GET/SET/RESETSTAT/REWRITE and its parameters
//   sim/cmd_introspection.cc  INFO and COMMAND: what the server says about itself
//   sim/cmd_monitor.cc        SLOWLOG, LATENCY and MONITOR (sim/monitor.h)
//   sim/cmd_acl.cc            ACL and AUTH over the users of sim/acl.h
//
// The helpers they share, and the handlers cmd_connection.cc registers.
// Replies and error texts as Redis 7.0.15. Not part of the public API.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sim/internal.h"
#include "sim/resp/reply.h"

namespace redsim::sim::admin {

// The version HELLO and INFO report.
inline constexpr const char* kRedisVersion = "7.0.15";

// ASCII lower case, as Redis compares subcommand names.
std::string lower(std::string_view s);

// "ERR unknown subcommand 'x'. Try CONTAINER HELP." (sub cut to 128 bytes).
resp::Reply unknown_subcommand(std::string_view sub, std::string_view container);

// "ERR wrong number of arguments for 'container|sub' command".
resp::Reply sub_arity(std::string_view container, std::string_view sub);

resp::Reply config(CommandContext& ctx);  // cmd_config.cc
// CONFIG REWRITE (`force_all`: DEBUG CONFIG-REWRITE-FORCE-ALL, every
// parameter written even at its default), cmd_config.cc.
resp::Reply config_rewrite(Server& server, bool force_all);
resp::Reply info(CommandContext& ctx);             // cmd_introspection.cc
resp::Reply command(CommandContext& ctx);          // cmd_introspection.cc
resp::Reply slowlog(CommandContext& ctx);          // cmd_monitor.cc
resp::Reply monitor_command(CommandContext& ctx);  // cmd_monitor.cc: MONITOR
resp::Reply acl(CommandContext& ctx);              // cmd_acl.cc
// CLIENT LIST's line of `s` ("id=7 addr=... resp=2\n"); `running` is the
// argv `s` is running, else null (cmd_connection.cc).
std::string client_line(Server& server, const Session& s, int64_t now_ms, const Argv* running);
void register_acl_commands(CommandTable& table);  // cmd_acl.cc: ACL and AUTH
// execCommand's ACL check of one queued command (cmd_acl.cc): logged with
// the multi context and answered with its NOPERM text, or nullopt to run it.
std::optional<resp::Reply> acl_exec_refusal(Server& server, Session& s,
                                            const CommandTable::Lookup& command, const Argv& argv);
// ACL LOAD of `path` (cmd_acl.cc): "" or Redis's error text without "ERR ".
std::string acl_load_file(Server& server, const std::string& path);
resp::Reply latency(CommandContext& ctx);  // cmd_monitor.cc

}  // namespace redsim::sim::admin
