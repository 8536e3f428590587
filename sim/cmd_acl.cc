// ACL and AUTH over the fake's users (sim/acl.h), answered as redis-server
// 7.0.15 answers them (src/acl.c aclCommand, authCommand): SETUSER,
// GETUSER, DELUSER, USERS, LIST, WHOAMI, CAT, DRYRUN, GENPASS, LOG, LOAD,
// SAVE and HELP. Changing or deleting a user closes the connections it no
// longer allows (ACLFreeUserAndKillClients, ACLKillPubsubClientsIfNeeded);
// ACL LOAD replaces every user and closes the connections of all but
// "default". GENPASS draws from the server's seeded random stream.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/acl.h"
#include "sim/args.h"
#include "sim/cmd_admin.h"
#include "sim/command_facts.h"

namespace redsim::sim {

void acl_log_refusal(Server& server, Session& session, std::string_view full_name, const Argv& argv,
                     AclCheck check, AclLogContext context) {
  AclLogEntry e;
  e.reason = check.verdict == AclVerdict::kKey       ? AclLogReason::kKey
             : check.verdict == AclVerdict::kChannel ? AclLogReason::kChannel
                                                     : AclLogReason::kCommand;
  e.context = context;
  e.object = e.reason == AclLogReason::kCommand ? std::string(full_name) : argv[check.index];
  e.username = session.user();
  e.ctime_ms = server.now_ms();
  e.client_info = admin::client_line(server, session, e.ctime_ms, &argv);
  if (!e.client_info.empty() && e.client_info.back() == '\n') e.client_info.pop_back();
  ServerAccess::acl(server).log(std::move(e));
}

namespace admin {

using resp::Reply;

namespace {

// aclAddReplySelectorDescription.
void add_selector(std::vector<Reply>& out, const AclSelector& s) {
  out.push_back(Reply::bulk("commands"));
  out.push_back(Reply::bulk(AclUsers::describe_commands(s)));
  out.push_back(Reply::bulk("keys"));
  out.push_back(Reply::bulk(AclUsers::describe_keys(s)));
  out.push_back(Reply::bulk("channels"));
  out.push_back(Reply::bulk(AclUsers::describe_channels(s)));
}

Reply getuser_reply(const AclUser& u) {
  std::vector<Reply> flags;
  flags.push_back(Reply::bulk(u.enabled ? "on" : "off"));
  if (u.nopass) flags.push_back(Reply::bulk("nopass"));
  if (u.sanitize == AclUser::Sanitize::kSkip) flags.push_back(Reply::bulk("skip-sanitize-payload"));
  if (u.sanitize == AclUser::Sanitize::kSanitize) flags.push_back(Reply::bulk("sanitize-payload"));
  std::vector<Reply> passwords;
  for (const std::string& h : u.password_hashes) passwords.push_back(Reply::bulk(h));
  std::vector<Reply> out;
  out.push_back(Reply::bulk("flags"));
  out.push_back(Reply::set(std::move(flags)));
  out.push_back(Reply::bulk("passwords"));
  out.push_back(Reply::array(std::move(passwords)));
  add_selector(out, u.selectors[0]);
  std::vector<Reply> selectors;
  for (size_t i = 1; i < u.selectors.size(); ++i) {
    std::vector<Reply> one;
    add_selector(one, u.selectors[i]);
    selectors.push_back(Reply::map(std::move(one)));
  }
  out.push_back(Reply::bulk("selectors"));
  out.push_back(Reply::array(std::move(selectors)));
  return Reply::map(std::move(out));
}

// ACLFreeUserAndKillClients: every connection of `user` goes back to the
// default user, unauthenticated, and closes (the caller after its reply).
void kill_clients_of(Server& server, std::string_view user) {
  bool any = false;
  for (const auto& [id, s] : server.sessions()) {
    if (s->user() != user) continue;
    SessionAccess::user(*s) = "default";
    SessionAccess::authenticated(*s) = false;
    SessionAccess::request_kill(*s);
    any = true;
  }
  if (any) ServerAccess::note_kill_requests(server);
}

// ACLKillPubsubClientsIfNeeded.
void kill_revoked_subscribers(Server& server, std::string_view user, const AclUser& before,
                              const AclUser& after) {
  std::optional<std::vector<std::string>> upcoming = AclUsers::revoked_channels(before, after);
  if (!upcoming) return;
  AclUser allowed;
  AclSelector s;
  s.channels = *upcoming;
  allowed.selectors.push_back(std::move(s));
  bool any = false;
  for (const auto& [id, session] : server.sessions()) {
    if (session->user() != user || !session->subscribed()) continue;
    bool kill = false;
    for (const std::string& p : SessionAccess::patterns(*session)) {
      kill = kill || !AclUsers::channel_allowed(allowed, p, true);
    }
    for (const std::string& c : SessionAccess::channels(*session)) {
      kill = kill || !AclUsers::channel_allowed(allowed, c, false);
    }
    for (const std::string& c : SessionAccess::shard_channels(*session)) {
      kill = kill || !AclUsers::channel_allowed(allowed, c, false);
    }
    if (kill) {
      SessionAccess::request_kill(*session);
      any = true;
    }
  }
  if (any) ServerAccess::note_kill_requests(server);
}

bool has_spaces(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    return c == ' ' || c == '\0' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
  });
}

// AUTH [username] password.
Reply auth(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  if (argv.size() > 3) return Reply::error("ERR syntax error");
  AclUsers& users = ServerAccess::acl(ctx.server);
  std::string user = argv.size() == 3 ? argv[1] : "default";
  if (argv.size() == 2) {
    const AclUser* d = users.find("default");
    if (d != nullptr && d->nopass) {
      return Reply::error(
          "ERR AUTH <password> called without any password configured for the default user. "
          "Are you sure your configuration is correct?");
    }
  }
  if (!users.authenticates(user, argv.back())) {
    // ACLAuthenticateUser: the failed attempt is logged under the name tried.
    AclLogEntry e;
    e.reason = AclLogReason::kAuth;
    e.context = ctx.session.in_multi() ? AclLogContext::kMulti : AclLogContext::kToplevel;
    e.object = argv[0];
    e.username = user;
    e.ctime_ms = ctx.server.now_ms();
    e.client_info = client_line(ctx.server, ctx.session, e.ctime_ms, &argv);
    if (!e.client_info.empty()) e.client_info.pop_back();
    users.log(std::move(e));
    return Reply::error("WRONGPASS invalid username-password pair or user is disabled.");
  }
  SessionAccess::user(ctx.session) = user;
  SessionAccess::authenticated(ctx.session) = true;
  return Reply::ok();
}

const char* reason_name(AclLogReason r) {
  switch (r) {
    case AclLogReason::kCommand:
      return "command";
    case AclLogReason::kKey:
      return "key";
    case AclLogReason::kChannel:
      return "channel";
    case AclLogReason::kAuth:
      return "auth";
  }
  return "unknown";
}

const char* context_name(AclLogContext c) {
  switch (c) {
    case AclLogContext::kToplevel:
      return "toplevel";
    case AclLogContext::kMulti:
      return "multi";
    case AclLogContext::kLua:
      return "lua";
  }
  return "unknown";
}

Reply acl_log(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  AclUsers& users = ServerAccess::acl(ctx.server);
  int64_t count = 10;
  if (argv.size() == 3) {
    if (lower(argv[2]) == "reset") {
      users.reset_log();
      return Reply::ok();
    }
    if (!parse_int64(argv[2], &count)) {
      return Reply::error("ERR value is not an integer or out of range");
    }
    if (count < 0) count = 0;
  }
  const auto& entries = users.log_entries();
  size_t n = std::min(entries.size(), static_cast<size_t>(count));
  std::vector<Reply> out;
  int64_t now = ctx.server.now_ms();
  for (size_t i = 0; i < n; ++i) {
    const AclLogEntry& e = entries[i];
    out.push_back(Reply::map({
        Reply::bulk("count"),
        Reply::integer(e.count),
        Reply::bulk("reason"),
        Reply::bulk(reason_name(e.reason)),
        Reply::bulk("context"),
        Reply::bulk(context_name(e.context)),
        Reply::bulk("object"),
        Reply::bulk(e.object),
        Reply::bulk("username"),
        Reply::bulk(e.username),
        Reply::bulk("age-seconds"),
        Reply::double_value(static_cast<double>(now - e.ctime_ms) / 1000),
        Reply::bulk("client-info"),
        Reply::bulk(e.client_info),
    }));
  }
  return Reply::array(std::move(out));
}

// ACLSaveToFile: one ACL LIST line per user, written to a temporary file
// then renamed over the ACL file.
bool save_file(const AclUsers& users, const std::string& path) {
  std::string text;
  for (const auto& [name, user] : users.users()) text += AclUsers::describe(name, user) + "\n";
  std::string tmp = path + ".tmp-redsim";
  {
    std::ofstream out(tmp, std::ios::trunc | std::ios::binary);
    if (!out) return false;
    out << text;
    if (!out.flush()) return false;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

}  // namespace

std::optional<Reply> acl_exec_refusal(Server& server, Session& s,
                                      const CommandTable::Lookup& command, const Argv& argv) {
  if (command.spec == nullptr) return std::nullopt;
  const AclUser* d = ServerAccess::acl(server).find("default");
  if (s.user() == "default" && d != nullptr && d->selectors.size() == 1 &&
      d->selectors[0].all_commands && d->selectors[0].all_keys && d->selectors[0].all_channels) {
    return std::nullopt;  // the unrestricted default user, as Server::call's fast path
  }
  std::string full(command.spec->name);
  if (argv.size() > 1 && server.commands().has_subcommands(*command.spec)) {
    if (const SubcommandSpec* sub = server.commands().find_subcommand(*command.spec, argv[1])) {
      full += "|" + std::string(sub->name);
    }
  }
  if (full == "auth" || full == "hello") return std::nullopt;
  AclCheck check = ServerAccess::acl(server).check(s.user(), full, argv);
  if (check.verdict == AclVerdict::kOk) return std::nullopt;
  acl_log_refusal(server, s, full, argv, check, AclLogContext::kMulti);
  std::string_view why =
      check.verdict == AclVerdict::kCommand ? "no permission to execute the command or subcommand"
      : check.verdict == AclVerdict::kKey   ? "no permission to touch the specified keys"
                                            : "no permission to access one of the channels used as "
                                              "arguments";
  return Reply::error(
      "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC "
      "call. This command is no longer allowed for the following reason: " +
      std::string(why));
}

std::string acl_load_file(Server& server, const std::string& path) {
  AclUsers& users = ServerAccess::acl(server);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return "Error loading ACLs, opening file '" + path + "': No such file or directory";
  }
  std::stringstream text;
  text << in.rdbuf();
  AclUsers::Loaded loaded = users.parse_file(text.str(), path);
  if (!loaded.error.empty()) return loaded.error;
  // ACLFreeUsersSet(old_users): every user but "default" goes, with its
  // connections.
  std::vector<std::string> old;
  for (const auto& [name, user] : users.users()) {
    if (name != "default") old.push_back(name);
  }
  for (const std::string& name : old) kill_clients_of(server, name);
  users.replace_all(std::move(loaded.users));
  server.note_acl_change();
  return {};
}

Reply acl(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  std::string sub = lower(argv[1]);
  size_t argc = argv.size();
  AclUsers& users = ServerAccess::acl(ctx.server);
  // aclCommand: a known subcommand with arguments it does not take answers
  // addReplySubcommandSyntaxError.
  if ((sub == "cat" || sub == "genpass" || sub == "log") && argc > 3) {
    return Reply::error(one_line("ERR unknown subcommand or wrong number of arguments for '" +
                                 argv[1].substr(0, 128) + "'. Try ACL HELP."));
  }
  if (sub == "whoami" || sub == "users" || sub == "list") {
    if (argc != 2) return sub_arity("acl", sub);
    if (sub == "whoami") return Reply::bulk(ctx.session.user());
    std::vector<Reply> out;
    for (const auto& [name, user] : users.users()) {
      out.push_back(Reply::bulk(sub == "users" ? name : AclUsers::describe(name, user)));
    }
    return Reply::array(std::move(out));
  }
  if (sub == "setuser") {
    if (argc < 3) return sub_arity("acl", sub);
    const std::string& name = argv[2];
    if (has_spaces(name))
      return Reply::error("ERR Usernames can't contain spaces or null characters");
    std::optional<AclUser> before;
    if (const AclUser* u = users.find(name)) before = *u;
    std::string error = users.set_user(name, Argv(argv.begin() + 3, argv.end()));
    if (!error.empty()) return Reply::error(one_line("ERR " + error));
    if (before) kill_revoked_subscribers(ctx.server, name, *before, *users.find(name));
    ctx.server.note_acl_change();
    return Reply::ok();
  }
  if (sub == "getuser") {
    if (argc != 3) return sub_arity("acl", sub);
    const AclUser* user = users.find(argv[2]);
    if (user == nullptr) return Reply::nil();
    return getuser_reply(*user);
  }
  if (sub == "deluser") {
    if (argc < 3) return sub_arity("acl", sub);
    for (size_t j = 2; j < argc; ++j) {
      if (argv[j] == "default") return Reply::error("ERR The 'default' user cannot be removed");
    }
    int64_t removed = 0;
    for (size_t j = 2; j < argc; ++j) {
      if (users.erase(argv[j])) {
        kill_clients_of(ctx.server, argv[j]);
        ++removed;
      }
    }
    ctx.server.note_acl_change();
    return Reply::integer(removed);
  }
  if (sub == "load" || sub == "save") {
    if (argc != 2) return sub_arity("acl", sub);
    const auto& others = ctx.server.config().others;
    auto file = others.find("aclfile");
    if (file == others.end() || file->second.empty()) {
      return Reply::error(
          "ERR This Redis instance is not configured to use an ACL file. You may want to specify "
          "users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have "
          "a Redis configuration file set) in order to store users in the Redis configuration.");
    }
    if (sub == "save") {
      if (!save_file(users, file->second)) {
        return Reply::error(
            "ERR There was an error trying to save the ACLs. Please check the server logs for "
            "more information");
      }
      return Reply::ok();
    }
    std::string error = acl_load_file(ctx.server, file->second);
    if (!error.empty()) return Reply::error(one_line("ERR " + error));
    return Reply::ok();
  }
  if (sub == "dryrun") {
    if (argc < 4) return sub_arity("acl", sub);
    if (users.find(argv[2]) == nullptr) {
      return Reply::error(one_line("ERR User '" + argv[2] + "' not found"));
    }
    Argv line(argv.begin() + 3, argv.end());
    const CommandSpec* spec = ctx.server.commands().find(line[0]);
    std::string full = spec != nullptr ? std::string(spec->name) : lower(line[0]);
    int arity = spec != nullptr ? spec->arity : 0;
    if (spec != nullptr && line.size() > 1 && ctx.server.commands().has_subcommands(*spec)) {
      const SubcommandSpec* s = ctx.server.commands().find_subcommand(*spec, line[1]);
      if (s == nullptr) spec = nullptr;
      if (s != nullptr) {
        full += "|" + std::string(s->name);
        arity = s->arity;
      }
    }
    if (spec == nullptr) {
      return Reply::error(one_line("ERR Command '" + line[0] + "' not found"));
    }
    int argn = static_cast<int>(line.size());
    if ((arity > 0 && arity != argn) || argn < -arity) {
      return Reply::error("ERR wrong number of arguments for '" + full + "' command");
    }
    AclCheck check = users.check(argv[2], full, line);
    switch (check.verdict) {
      case AclVerdict::kOk:
        return Reply::ok();
      case AclVerdict::kCommand:
        return Reply::bulk("This user has no permissions to run the '" + full + "' command");
      case AclVerdict::kKey:
        return Reply::bulk("This user has no permissions to access the '" + line[check.index] +
                           "' key");
      case AclVerdict::kChannel:
        return Reply::bulk("This user has no permissions to access the '" + line[check.index] +
                           "' channel");
    }
  }
  if (sub == "cat") {
    if (argc > 3) return sub_arity("acl", sub);
    std::vector<Reply> out;
    if (argc == 2) {
      for (std::string_view c : acl_categories()) out.push_back(Reply::bulk(std::string(c)));
      return Reply::array(std::move(out));
    }
    std::string category = lower(argv[2]);
    bool known = false;
    for (std::string_view c : acl_categories()) known = known || c == category;
    if (!known) {
      return Reply::error(one_line("ERR Unknown category '" + argv[2].substr(0, 128) + "'"));
    }
    for (std::string& n : acl_category_commands(category)) out.push_back(Reply::bulk(std::move(n)));
    return Reply::array(std::move(out));
  }
  if (sub == "genpass") {
    if (argc > 3) return sub_arity("acl", sub);
    int64_t bits = 256;
    if (argc == 3 && !parse_int64(argv[2], &bits)) {
      return Reply::error("ERR value is not an integer or out of range");
    }
    constexpr int64_t kMaxBits = 4096;
    if (bits <= 0 || bits > kMaxBits) {
      return Reply::error(
          "ERR ACL GENPASS argument must be the number of bits for the output password, a "
          "positive number up to 4096");
    }
    static constexpr char kHex[] = "0123456789abcdef";
    std::string pass(static_cast<size_t>((bits + 3) / 4), '0');
    for (char& c : pass) c = kHex[ctx.server.random_below(16)];
    return Reply::bulk(std::move(pass));
  }
  if (sub == "log") {
    if (argc > 3) return sub_arity("acl", sub);
    return acl_log(ctx);
  }
  if (sub == "help") {
    if (argc != 2) return sub_arity("acl", sub);
    return help_reply(
        "ACL", {"CAT [<category>]",
                "    List all commands that belong to <category>, or all command categories",
                "    when no category is specified.",
                "DELUSER <username> [<username> ...]",
                "    Delete a list of users.",
                "DRYRUN <username> <command> [<arg> ...]",
                "    Returns whether the user can execute the given command without executing the "
                "command.",
                "GETUSER <username>",
                "    Get the user's details.",
                "GENPASS [<bits>]",
                "    Generate a secure 256-bit user password. The optional `bits` argument can",
                "    be used to specify a different size.",
                "LIST",
                "    Show users details in config file format.",
                "LOAD",
                "    Reload users from the ACL file.",
                "LOG [<count> | RESET]",
                "    Show the ACL log entries.",
                "SAVE",
                "    Save the current config to the ACL file.",
                "SETUSER <username> <attribute> [<attribute> ...]",
                "    Create or modify a user with the specified attributes.",
                "USERS",
                "    List all the registered usernames.",
                "WHOAMI",
                "    Return the current connection username."});
  }
  return unknown_subcommand(argv[1], "ACL");
}

void register_acl_commands(CommandTable& table) {
  // Redis 7.0.15's flags: AUTH is noscript, allowed while loading and busy.
  table.add({"auth", -2, kCmdNoScript | kCmdFast, &auth});
  table.add({"acl", -2, kCmdContainer, &acl});
  static constexpr SubcommandSpec kAclSubcommands[] = {
      {"cat", -2, kCmdNoScript},     {"deluser", -3, kCmdNoScript}, {"dryrun", -4, kCmdNoScript},
      {"genpass", -2, kCmdNoScript}, {"getuser", 3, kCmdNoScript},  {"help", 2, 0},
      {"list", 2, kCmdNoScript},     {"load", 2, kCmdNoScript},     {"log", -2, kCmdNoScript},
      {"save", 2, kCmdNoScript},     {"setuser", -3, kCmdNoScript}, {"users", 2, kCmdNoScript},
      {"whoami", 2, kCmdNoScript},
  };
  table.add_subcommands("acl", kAclSubcommands);
}

}  // namespace admin
}  // namespace redsim::sim

namespace redsim::sim {

std::string Server::load_acl_users(const std::vector<std::string>& user_lines,
                                   const std::string& aclfile) {
  if (!aclfile.empty()) config().others["aclfile"] = aclfile;
  if (!user_lines.empty() && !aclfile.empty()) {
    return "Configuring Redis with users defined in redis.conf and at the same setting an ACL "
           "file path is invalid. This setup is very likely to lead to configuration errors and "
           "security holes, please define either an ACL file or declare users directly in your "
           "redis.conf, but not both.";
  }
  AclUsers& users = ServerAccess::acl(*this);
  if (!aclfile.empty()) {
    std::string error = admin::acl_load_file(*this, aclfile);
    if (!error.empty()) return "Aborting Redis startup because of ACL errors: " + error;
    return {};
  }
  // ACLLoadConfiguredUsers: "default" is reset before its rules apply.
  for (const std::string& line : user_lines) {
    std::vector<std::string> words;
    std::istringstream in(line);
    for (std::string w; in >> w;) words.push_back(w);
    if (words.empty()) continue;
    std::vector<std::string> rules(words.begin() + 1, words.end());
    if (words[0] == "default") rules.insert(rules.begin(), "reset");
    std::string error = users.set_user(words[0], rules);
    if (!error.empty()) return "Error in user declaration '" + words[0] + "': " + error;
  }
  note_acl_change();
  return {};
}

}  // namespace redsim::sim
