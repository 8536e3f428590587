// ACL with the one user the fake has: Redis's "default" user, on, without a
// password, allowed every command, key and channel (registered in
// cmd_connection.cc). WHOAMI, USERS, LIST, GETUSER, DELUSER, CAT and HELP
// answer as redis-server 7.0.15 started without an ACL file answers them;
// ACL CAT's categories are Redis's, each listing the fake's commands Redis
// puts in it (sim/command_facts.h). Users cannot be created (SETUSER and the
// rest are not simulated: an unknown subcommand).
#include <algorithm>
#include <string>
#include <vector>

#include "sim/args.h"
#include "sim/cmd_admin.h"
#include "sim/command_facts.h"

namespace redsim::sim::admin {

using resp::Reply;

namespace {

// Redis 7.0's ACL categories, in ACL CAT's order.
constexpr std::string_view kCategories[] = {
    "keyspace", "read",   "write",       "set",       "sortedset",  "list",        "hash",
    "string",   "bitmap", "hyperloglog", "geo",       "stream",     "pubsub",      "admin",
    "fast",     "slow",   "blocking",    "dangerous", "connection", "transaction", "scripting"};

bool has_category(std::string_view full_name, std::string_view category) {
  const CommandFact* fact = find_command_fact(full_name);
  if (fact == nullptr) return false;
  std::string want = "@" + std::string(category);
  std::string_view cats = fact->acl_categories;
  for (size_t at = cats.find(want); at != std::string_view::npos; at = cats.find(want, at + 1)) {
    size_t end = at + want.size();
    if ((at == 0 || cats[at - 1] == ' ') && (end == cats.size() || cats[end] == ' ')) return true;
  }
  return false;
}

}  // namespace

Reply acl(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  std::string sub = lower(argv[1]);
  size_t argc = argv.size();
  if (sub == "whoami" || sub == "users" || sub == "list") {
    if (argc != 2) return sub_arity("acl", sub);
    if (sub == "whoami") return Reply::bulk("default");
    if (sub == "users") return Reply::array({Reply::bulk("default")});
    return Reply::array({Reply::bulk("user default on nopass ~* &* +@all")});
  }
  if (sub == "getuser") {
    if (argc != 3) return sub_arity("acl", sub);
    if (argv[2] != "default") return Reply::nil();
    return Reply::map({Reply::bulk("flags"), Reply::set({Reply::bulk("on"), Reply::bulk("nopass")}),
                       Reply::bulk("passwords"), Reply::array({}), Reply::bulk("commands"),
                       Reply::bulk("+@all"), Reply::bulk("keys"), Reply::bulk("~*"),
                       Reply::bulk("channels"), Reply::bulk("&*"), Reply::bulk("selectors"),
                       Reply::array({})});
  }
  if (sub == "deluser") {
    if (argc < 3) return sub_arity("acl", sub);
    for (size_t j = 2; j < argc; ++j) {
      if (argv[j] == "default") return Reply::error("ERR The 'default' user cannot be removed");
    }
    return Reply::integer(0);  // no other user exists
  }
  if (sub == "cat") {
    if (argc > 3) return sub_arity("acl", sub);
    std::vector<Reply> out;
    if (argc == 2) {
      for (std::string_view c : kCategories) out.push_back(Reply::bulk(std::string(c)));
      return Reply::array(std::move(out));
    }
    std::string category = lower(argv[2]);
    bool known = false;
    for (std::string_view c : kCategories) known = known || c == category;
    if (!known) return Reply::error(one_line("ERR Unknown category '" + argv[2] + "'"));
    const CommandTable& table = ctx.server.commands();
    std::vector<std::string> names;
    table.for_each([&](const CommandSpec& s) {
      if (has_category(s.name, category)) names.emplace_back(s.name);
      for (const SubcommandSpec& sc : table.subcommands(s)) {
        std::string full = std::string(s.name) + "|" + std::string(sc.name);
        if (has_category(full, category)) names.push_back(std::move(full));
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

}  // namespace redsim::sim::admin
