// The fake's ACL users (Redis 7.0's ACL SETUSER rules, acl.c's model, facts
// from the ACL documentation page): each user is on or off, has passwords
// (kept as SHA-256 hex, as Redis keeps them) or nopass, a list of command
// rules applied in order, and key and channel patterns. The "default" user
// starts on, nopass, ~* &* +@all; a new user starts off with no command,
// key or channel. Not simulated: selectors, %R~/%W~ key permissions, the ACL
// file, ACL LOG. Internal to sim/ (not an installed header).
//
//   AclUsers users;
//   users.set_user("bob", {"on", ">123", "+@scripting", "~x*"});  // "" on success
//   users.check("bob", "set", argv);  // AclVerdict::kOk / kCommand / kKey
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace redsim::sim {

using Argv = std::vector<std::string>;

struct AclUser {
  bool enabled = false;
  bool nopass = false;
  std::vector<std::string> password_hashes;  // SHA-256 hex, in the order added
  // Command rules in the order given: "+@all", "-@all", "+@read", "+get",
  // "-client|kill"; the last rule that names a command decides.
  std::vector<std::string> command_rules;
  bool all_keys = false;
  std::vector<std::string> key_patterns;
  bool all_channels = false;
  std::vector<std::string> channel_patterns;
};

enum class AclVerdict { kOk, kCommand, kKey, kChannel };

class AclUsers {
 public:
  AclUsers();
  // Applies `rules` to `name` (created when new), all or nothing: "" on
  // success, else Redis's error text without the prefix ("Error in ACL
  // SETUSER modifier '...': Syntax error").
  std::string set_user(const std::string& name, const std::vector<std::string>& rules);
  const AclUser* find(std::string_view name) const;
  bool erase(std::string_view name) { return users_.erase(std::string(name)) > 0; }
  const std::map<std::string, AclUser, std::less<>>& users() const { return users_; }
  // AUTH: true when `name` exists, is on, and takes `password`.
  bool authenticates(std::string_view name, std::string_view password) const;
  // May `user` run the command whose full name is `full_name` ("get",
  // "client|list"; `container` "client" for a subcommand, else "") with
  // `argv`? Keys are found from Redis's key specs (sim/command_facts.h);
  // on kKey, *denied_key (when given) is the refused key's index in argv.
  AclVerdict check(std::string_view user, std::string_view full_name, std::string_view container,
                   const Argv& argv, size_t* denied_key = nullptr) const;
  // ACL LIST's line: "user bob on #<sha256> ~x* resetchannels -@all +@scripting".
  static std::string describe(std::string_view name, const AclUser& user);
  // The user's command rules as ACL GETUSER and LIST show them.
  static std::string describe_commands(const AclUser& user);

 private:
  std::map<std::string, AclUser, std::less<>> users_;
};

// Redis 7.0's ACL categories in ACL CAT's order (without "all").
std::span<const std::string_view> acl_categories();
// Is the command `full_name` ("get", "client|list") in @`category`?
bool acl_has_category(std::string_view full_name, std::string_view category);

// SHA-256 of `data` in lower-case hex (FIPS 180-4), for password hashes.
std::string sha256_hex(std::string_view data);

}  // namespace redsim::sim
