// Connection commands that clients and test harnesses send on connect or
// around tests: HELLO, CLIENT and redsim's own
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
#include <optional>
#include <set>
#include <string>

#include "sim/acl.h"
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

// ---- HELLO's AUTH -----------------------------------------------------------

// ACLAuthenticateUser: the pair must name an enabled user that takes the
// password (sim/acl.h); the session then runs as that user. AUTH itself is
// in sim/cmd_acl.cc.
bool authenticate(CommandContext& ctx, const std::string& user, const std::string& pass) {
  if (!ServerAccess::acl(ctx.server).authenticates(user, pass)) return false;
  SessionAccess::user(ctx.session) = user;
  SessionAccess::authenticated(ctx.session) = true;
  return true;
}

constexpr const char* kWrongPass = "WRONGPASS invalid username-password pair or user is disabled.";

// ---- HELLO -----------------------------------------------------------------

// HELLO [protover [AUTH username password] [SETNAME name]]: protover 2 or
// 3 switches the session's protocol (others: NOPROTO), after AUTH and
// SETNAME were checked, as Redis 7.0's helloCommand; the reply is the
// server's map in the new protocol (a flat array in RESP2). AUTH checks the
// credentials as the AUTH command (WRONGPASS on a wrong pair); without AUTH
// an unauthenticated session gets NOAUTH.
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
  const std::string* pass = nullptr;
  const std::string* name = nullptr;
  for (size_t j = 2; j < argv.size(); ++j) {
    size_t more = argv.size() - 1 - j;
    if (equals_ci(argv[j], "auth") && more >= 2) {
      user = &argv[j + 1];
      pass = &argv[j + 2];
      j += 2;
    } else if (equals_ci(argv[j], "setname") && more >= 1) {
      name = &argv[j + 1];
      if (!valid_client_name(*name)) return Reply::error(kBadClientName);
      ++j;
    } else {
      return Reply::error(one_line("ERR Syntax error in HELLO option '" + argv[j] + "'"));
    }
  }
  if (user != nullptr && !authenticate(ctx, *user, *pass)) return Reply::error(kWrongPass);
  if (!ctx.session.authenticated()) {
    return Reply::error(
        "NOAUTH HELLO must be called with the client already authenticated, "
        "otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client "
        "and select the RESP protocol version at the same time");
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

// The bytes `argv` takes as a RESP request: what Redis's query buffer
// holds while the command runs (qbuf= of the caller's own line).
size_t request_bytes(const Argv& argv) {
  size_t n = 1 + std::to_string(argv.size()).size() + 2;
  for (const std::string& a : argv) n += 1 + std::to_string(a.size()).size() + 2 + a.size() + 2;
  return n;
}

}  // namespace

// One CLIENT LIST line, fields in Redis 7.0.15's order (clientsCronTrackExpansiveClients
// aside). `running` is the argv of the command the session is running (the
// caller's own line), else null. Buffer and memory figures are the fake's
// approximations: qbuf and argv-mem are the running request's RESP size and
// argument bytes, tot-mem a fixed per-client base plus those; output
// buffers are the transport's and shown as empty.
std::string client_line(Server& server, const Session& s, int64_t now_ms, const Argv* running) {
  const Tracking::Client* tracking = ServerAccess::tracking(server).find(s.id());
  std::string flags;
  if (s.subscribed()) flags += 'P';
  if (s.in_multi()) flags += 'x';
  if (s.blocked()) flags += 'b';
  if (tracking != nullptr) flags += 't';
  if (tracking != nullptr && tracking->broken_redirect) flags += 'R';
  if (tracking != nullptr && tracking->bcast) flags += 'B';
  if (SessionAccess::watch_dirty(s)) flags += 'd';
  if (flags.empty()) flags = "N";
  std::string cmd(SessionAccess::last_command(s));
  if (!SessionAccess::last_subcommand(s).empty()) cmd += "|" + SessionAccess::last_subcommand(s);
  auto& queued = SessionAccess::queued(const_cast<Session&>(s));
  size_t qbuf = running != nullptr ? request_bytes(*running) : 0;
  size_t argv_mem = 0;
  if (running != nullptr) {
    for (const std::string& a : *running) argv_mem += a.size();
  }
  size_t multi_mem = 0;
  if (s.in_multi()) {
    for (const Argv& q : queued) {
      for (const std::string& a : q) multi_mem += a.size();
    }
  }
  constexpr size_t kClientBaseBytes = 1800;  // about an idle client's tot-mem on Redis 7.0
  char buf[512];
  std::snprintf(buf, sizeof buf,
                " age=%lld idle=%lld flags=%s db=%d sub=%zu psub=%zu ssub=%zu multi=%lld qbuf=%zu "
                "qbuf-free=%zu argv-mem=%zu multi-mem=%zu rbs=1024 rbp=0 obl=0 oll=0 omem=0 "
                "tot-mem=%zu events=r cmd=",
                (long long)((now_ms - s.created_ms()) / 1000),
                (long long)((now_ms - s.last_command_ms()) / 1000), flags.c_str(), s.db(),
                SessionAccess::channels(s).size(), SessionAccess::patterns(s).size(),
                s.shard_subscription_count(),
                (long long)(s.in_multi() ? static_cast<int64_t>(queued.size()) : -1), qbuf,
                qbuf > 0 ? 20474 - std::min<size_t>(qbuf, 20474) : 0, argv_mem, multi_mem,
                kClientBaseBytes + qbuf + argv_mem + multi_mem);
  return "id=" + std::to_string(s.id()) + " addr=" + s.peer().addr + " laddr=" + s.peer().laddr +
         " fd=" + std::to_string(s.peer().fd) + " name=" + s.name() + buf + cmd +
         " user=" + s.user() + " redir=" +
         std::to_string(tracking != nullptr ? static_cast<int64_t>(tracking->redirect) : -1) +
         " resp=" + (s.protocol() == resp::Protocol::kResp3 ? "3" : "2") + "\n";
}

namespace {

// Redis's getClientTypeByName: -1 when unknown. Sessions are normal or
// pubsub (no replicas or masters connect to the fake).
enum class ClientType { kNormal, kPubSub, kReplica, kMaster, kUnknown };
ClientType client_type(std::string_view name) {
  std::string n = lower(name);
  if (n == "normal") return ClientType::kNormal;
  if (n == "pubsub") return ClientType::kPubSub;
  if (n == "replica" || n == "slave") return ClientType::kReplica;
  if (n == "master") return ClientType::kMaster;
  return ClientType::kUnknown;
}
ClientType client_type(const Session& s) {
  return s.subscribed() ? ClientType::kPubSub : ClientType::kNormal;
}

Reply client_list(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  std::set<uint64_t> ids;
  std::optional<ClientType> type;
  if (argv.size() == 4 && equals_ci(argv[2], "type")) {
    type = client_type(argv[3]);
    if (*type == ClientType::kUnknown) {
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
  for (const auto& [id, s] : ctx.server.sessions()) {
    if (!ids.empty() && !ids.contains(id)) continue;
    if (type && client_type(*s) != *type) continue;
    out += client_line(ctx.server, *s, ctx.now_ms, s == &ctx.session ? &argv : nullptr);
  }
  return Reply::bulk(std::move(out));
}

// CLIENT KILL <ip:port> (old form: +OK or "No such client") or CLIENT KILL
// <filter> <value> ... (the count killed), as Redis 7.0's clientKillCommand:
// filters ID, TYPE, ADDR, LADDR, USER, SKIPME (default yes: never the
// caller). The sessions are marked (Session::kill_requested); the caller,
// when killed, gets its reply first.
Reply client_kill(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  const std::string* addr = nullptr;
  const std::string* laddr = nullptr;
  std::optional<ClientType> type;
  uint64_t id = 0;
  bool skipme = true;
  if (argv.size() < 3) return sub_arity("client", "kill");
  if (argv.size() == 3) {
    addr = &argv[2];
    skipme = false;
  } else if (argv.size() > 3) {
    for (size_t i = 2; i < argv.size(); i += 2) {
      bool more = i + 1 < argv.size();
      if (equals_ci(argv[i], "id") && more) {
        int64_t v = 0;
        if (!parse_int64(argv[i + 1], &v) || v < 1) {
          return Reply::error("ERR client-id should be greater than 0");
        }
        id = static_cast<uint64_t>(v);
      } else if (equals_ci(argv[i], "type") && more) {
        type = client_type(argv[i + 1]);
        if (*type == ClientType::kUnknown) {
          return Reply::error(one_line("ERR Unknown client type '" + argv[i + 1] + "'"));
        }
      } else if (equals_ci(argv[i], "addr") && more) {
        addr = &argv[i + 1];
      } else if (equals_ci(argv[i], "laddr") && more) {
        laddr = &argv[i + 1];
      } else if (equals_ci(argv[i], "user") && more) {
        if (argv[i + 1] != "default") {
          return Reply::error(one_line("ERR No such user '" + argv[i + 1] + "'"));
        }
      } else if (equals_ci(argv[i], "skipme") && more) {
        if (equals_ci(argv[i + 1], "yes")) {
          skipme = true;
        } else if (equals_ci(argv[i + 1], "no")) {
          skipme = false;
        } else {
          return errors::syntax();
        }
      } else {
        return errors::syntax();
      }
    }
  } else {
    return errors::syntax();
  }
  int64_t killed = 0;
  for (const auto& [sid, s] : ctx.server.sessions()) {
    if (addr != nullptr && s->peer().addr != *addr) continue;
    if (laddr != nullptr && s->peer().laddr != *laddr) continue;
    if (type && client_type(*s) != *type) continue;
    if (id != 0 && sid != id) continue;
    if (s == &ctx.session && skipme) continue;
    if (s->kill_requested()) continue;  // already on its way out
    SessionAccess::request_kill(*s);
    ++killed;
  }
  if (killed > 0) ServerAccess::note_kill_requests(ctx.server);
  if (argv.size() == 3) return killed == 0 ? Reply::error("ERR No such client") : Reply::ok();
  return Reply::integer(killed);
}

// CLIENT TRACKING (ON|OFF) [REDIRECT id] [BCAST] [PREFIX p ...] [OPTIN]
// [OPTOUT] [NOLOOP], as Redis 7.0.15's clientCommand: the options parsed
// first (syntax errors), then checked against each other and the client's
// state in Redis's order, with its texts (sim/tracking.h).
Reply client_tracking(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  int64_t redirect = 0;
  bool bcast = false, optin = false, optout = false, noloop = false;
  std::vector<std::string> prefixes;
  for (size_t j = 3; j < argv.size(); ++j) {
    bool more = j + 1 < argv.size();
    if (equals_ci(argv[j], "redirect") && more) {
      ++j;
      if (redirect != 0)
        return Reply::error("ERR A client can only redirect to a single other client");
      if (!parse_int64(argv[j], &redirect)) return errors::not_integer();
      if (redirect <= 0 || !ctx.server.sessions().contains(static_cast<uint64_t>(redirect))) {
        return Reply::error("ERR The client ID you want redirect to does not exist");
      }
    } else if (equals_ci(argv[j], "bcast")) {
      bcast = true;
    } else if (equals_ci(argv[j], "optin")) {
      optin = true;
    } else if (equals_ci(argv[j], "optout")) {
      optout = true;
    } else if (equals_ci(argv[j], "noloop")) {
      noloop = true;
    } else if (equals_ci(argv[j], "prefix") && more) {
      prefixes.push_back(argv[++j]);
    } else {
      return errors::syntax();
    }
  }
  Tracking& tracking = ServerAccess::tracking(ctx.server);
  uint64_t id = ctx.session.id();
  if (equals_ci(argv[2], "off")) {
    tracking.disable(id);
    return Reply::ok();
  }
  if (!equals_ci(argv[2], "on")) return errors::syntax();
  if (!bcast && !prefixes.empty()) {
    return Reply::error("ERR PREFIX option requires BCAST mode to be enabled");
  }
  const Tracking::Client* now = tracking.find(id);
  if (now != nullptr && now->bcast != bcast) {
    return Reply::error(
        "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and "
        "then re-enabling it with a different mode.");
  }
  if (bcast && (optin || optout)) {
    return Reply::error("ERR OPTIN and OPTOUT are not compatible with BCAST");
  }
  if (optin && optout) {
    return Reply::error("ERR You can't specify both OPTIN mode and OPTOUT mode");
  }
  if (now != nullptr && ((optin && now->optout) || (optout && now->optin))) {
    return Reply::error(
        "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and "
        "then re-enabling it with a different mode.");
  }
  if (bcast) {
    if (std::optional<std::string> error = tracking.prefix_collision(id, prefixes)) {
      return Reply::error(std::move(*error));
    }
  }
  tracking.enable(id, static_cast<uint64_t>(redirect), bcast, optin, optout, noloop, prefixes);
  // From now on every write looks its key up in the tracking table.
  ServerAccess::keyspace(ctx.server).hooks().tracking = true;
  return Reply::ok();
}

// CLIENT CACHING yes|no: the next command's keys are (OPTIN) or are not
// (OPTOUT) remembered.
Reply client_caching(CommandContext& ctx) {
  Tracking::Client* c = ServerAccess::tracking(ctx.server).find(ctx.session.id());
  if (c == nullptr) {
    return Reply::error(
        "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or "
        "OPTOUT mode enabled");
  }
  if (equals_ci(ctx.argv[2], "yes")) {
    if (!c->optin) {
      return Reply::error(
          "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.");
    }
  } else if (equals_ci(ctx.argv[2], "no")) {
    if (!c->optout) {
      return Reply::error(
          "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.");
    }
  } else {
    return errors::syntax();
  }
  c->caching = true;
  return Reply::ok();
}

// CLIENT TRACKINGINFO: a map of flags (a set), redirect and prefixes.
Reply client_trackinginfo(CommandContext& ctx) {
  const Tracking::Client* c = ServerAccess::tracking(ctx.server).find(ctx.session.id());
  std::vector<Reply> flags;
  flags.push_back(Reply::bulk(c != nullptr ? "on" : "off"));
  std::vector<Reply> prefixes;
  if (c != nullptr) {
    if (c->bcast) flags.push_back(Reply::bulk("bcast"));
    if (c->optin) {
      flags.push_back(Reply::bulk("optin"));
      if (c->caching) flags.push_back(Reply::bulk("caching-yes"));
    }
    if (c->optout) {
      flags.push_back(Reply::bulk("optout"));
      if (c->caching) flags.push_back(Reply::bulk("caching-no"));
    }
    if (c->noloop) flags.push_back(Reply::bulk("noloop"));
    if (c->broken_redirect) flags.push_back(Reply::bulk("broken_redirect"));
    for (const std::string& p : c->prefixes) prefixes.push_back(Reply::bulk(p));
  }
  return Reply::map({Reply::bulk("flags"), Reply::set(std::move(flags)), Reply::bulk("redirect"),
                     Reply::integer(c != nullptr ? static_cast<int64_t>(c->redirect) : -1),
                     Reply::bulk("prefixes"), Reply::array(std::move(prefixes))});
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
    return Reply::bulk(client_line(ctx.server, ctx.session, ctx.now_ms, &argv));
  }
  if (sub == "list") return client_list(ctx);
  if (sub == "kill") return client_kill(ctx);
  if (sub == "tracking") {
    if (argc < 3) return sub_arity("client", sub);
    return client_tracking(ctx);
  }
  if (sub == "caching") {
    if (argc != 3) return sub_arity("client", sub);
    return client_caching(ctx);
  }
  if (sub == "getredir") {
    if (argc != 2) return sub_arity("client", sub);
    const Tracking::Client* c = ServerAccess::tracking(ctx.server).find(ctx.session.id());
    return Reply::integer(c != nullptr ? static_cast<int64_t>(c->redirect) : -1);
  }
  if (sub == "trackinginfo") {
    if (argc != 2) return sub_arity("client", sub);
    return client_trackinginfo(ctx);
  }
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

// ---- REDSIM.ADVANCE ----------------------------------------------

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
constexpr SubcommandSpec kSlowlogSubcommands[] = {
    {"get", -2, 0},
    {"help", 2, 0},
    {"len", 2, 0},
    {"reset", 2, 0},
};
constexpr SubcommandSpec kLatencySubcommands[] = {
    {"doctor", 2, kCmdNoScript},     {"graph", 3, kCmdNoScript},   {"help", 2, 0},
    {"histogram", -2, kCmdNoScript}, {"history", 3, kCmdNoScript}, {"latest", 2, kCmdNoScript},
    {"reset", -2, kCmdNoScript},
};

}  // namespace

void register_connection_commands(CommandTable& table) {
  table.add({"hello", -1, kCmdNoScript | kCmdFast, &admin::hello});
  table.add({"client", -2, kCmdNoScript | kCmdContainer, &admin::client});
  table.add({"config", -2, kCmdContainer, &admin::config});
  table.add({"info", -1, 0, &admin::info});
  table.add({"command", -1, kCmdContainer, &admin::command});
  table.add({"redsim.advance", 2, kCmdNoScript, &admin::redsim_advance});
  table.add({"slowlog", -2, kCmdContainer, &admin::slowlog});
  table.add({"monitor", 1, kCmdNoScript, &admin::monitor_command});
  table.add({"latency", -2, kCmdContainer, &admin::latency});
  admin::register_acl_commands(table);  // ACL, AUTH (cmd_acl.cc)
  table.add_subcommands("slowlog", kSlowlogSubcommands);
  table.add_subcommands("latency", kLatencySubcommands);
  table.add_subcommands("client", kClientSubcommands);
  table.add_subcommands("config", kConfigSubcommands);
  table.add_subcommands("command", kCommandSubcommands);
}

}  // namespace redsim::sim
