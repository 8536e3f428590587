// ACL and AUTH over the fake's users (sim/acl.h): SETUSER, GETUSER,
// DELUSER, USERS, LIST, WHOAMI, CAT, DRYRUN and HELP, answered as
// redis-server 7.0.15 answers them (texts checked against it). The
// "default" user starts on, nopass, allowed every command, key and channel;
// ACL CAT's categories are Redis's, each listing the fake's commands Redis
// puts in it (sim/command_facts.h). Not simulated: selectors, the ACL file
// (LOAD, SAVE), ACL LOG, GENPASS.
#include <algorithm>
#include <string>
#include <vector>

#include "sim/acl.h"
#include "sim/args.h"
#include "sim/cmd_admin.h"
#include "sim/command_facts.h"

namespace redsim::sim::admin {

using resp::Reply;

namespace {

Reply getuser_reply(const AclUser& u) {
  std::vector<Reply> flags;
  flags.push_back(Reply::bulk(u.enabled ? "on" : "off"));
  if (u.nopass) flags.push_back(Reply::bulk("nopass"));
  std::vector<Reply> passwords;
  for (const std::string& h : u.password_hashes) passwords.push_back(Reply::bulk(h));
  std::string keys;
  for (const std::string& p : u.key_patterns) keys += (keys.empty() ? "~" : " ~") + p;
  std::string channels;
  for (const std::string& p : u.channel_patterns) channels += (channels.empty() ? "&" : " &") + p;
  return Reply::map({Reply::bulk("flags"), Reply::set(std::move(flags)), Reply::bulk("passwords"),
                     Reply::array(std::move(passwords)), Reply::bulk("commands"),
                     Reply::bulk(AclUsers::describe_commands(u)), Reply::bulk("keys"),
                     Reply::bulk(keys), Reply::bulk("channels"), Reply::bulk(channels),
                     Reply::bulk("selectors"), Reply::array({})});
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
    return Reply::error("WRONGPASS invalid username-password pair or user is disabled.");
  }
  SessionAccess::user(ctx.session) = user;
  SessionAccess::authenticated(ctx.session) = true;
  return Reply::ok();
}

}  // namespace

Reply acl(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  std::string sub = lower(argv[1]);
  size_t argc = argv.size();
  AclUsers& users = ServerAccess::acl(ctx.server);
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
    std::string error = users.set_user(argv[2], Argv(argv.begin() + 3, argv.end()));
    ctx.server.note_acl_change();
    if (!error.empty()) return Reply::error(one_line("ERR " + error));
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
    for (size_t j = 2; j < argc; ++j) removed += users.erase(argv[j]) ? 1 : 0;
    ctx.server.note_acl_change();
    return Reply::integer(removed);
  }
  if (sub == "dryrun") {
    if (argc < 4) return sub_arity("acl", sub);
    if (users.find(argv[2]) == nullptr) {
      return Reply::error(one_line("ERR User '" + argv[2] + "' not found"));
    }
    Argv line(argv.begin() + 3, argv.end());
    const CommandSpec* spec = ctx.server.commands().find(line[0]);
    if (spec == nullptr) {
      return Reply::error(one_line("ERR Command '" + line[0] + "' not found"));
    }
    std::string full(spec->name);
    std::string container;
    if (line.size() > 1 && ctx.server.commands().has_subcommands(*spec)) {
      if (const SubcommandSpec* s = ctx.server.commands().find_subcommand(*spec, line[1])) {
        container = full;
        full += "|" + std::string(s->name);
      }
    }
    size_t denied = 0;
    switch (users.check(argv[2], full, container, line, &denied)) {
      case AclVerdict::kOk:
        return Reply::ok();
      case AclVerdict::kCommand:
        return Reply::bulk("This user has no permissions to run the '" + full + "' command");
      case AclVerdict::kKey:
        return Reply::bulk("This user has no permissions to access the '" + line[denied] + "' key");
      case AclVerdict::kChannel:
        return Reply::bulk("This user has no permissions to access the channel");
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
    if (!known) return Reply::error(one_line("ERR Unknown category '" + argv[2] + "'"));
    const CommandTable& table = ctx.server.commands();
    std::vector<std::string> names;
    table.for_each([&](const CommandSpec& s) {
      if (acl_has_category(s.name, category)) names.emplace_back(s.name);
      for (const SubcommandSpec& sc : table.subcommands(s)) {
        std::string full = std::string(s.name) + "|" + std::string(sc.name);
        if (acl_has_category(full, category)) names.push_back(std::move(full));
      }
    });
    std::sort(names.begin(), names.end());
    for (std::string& n : names) out.push_back(Reply::bulk(std::move(n)));
    return Reply::array(std::move(out));
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
      {"cat", -2, kCmdNoScript},
      {"deluser", -3, kCmdNoScript},
      {"dryrun", -4, kCmdNoScript},
      {"getuser", 3, kCmdNoScript},
      {"help", 2, 0},
      {"list", 2, kCmdNoScript},
      {"setuser", -3, kCmdNoScript},
      {"users", 2, kCmdNoScript},
      {"whoami", 2, kCmdNoScript},
  };
  table.add_subcommands("acl", kAclSubcommands);
}

}  // namespace redsim::sim::admin
