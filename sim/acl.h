// The fake's ACL users, as Redis 7.0.15 models them (src/acl.c; the "ACL"
// page of redis.io): each user has flags (on/off, nopass,
// [skip-]sanitize-payload), passwords kept as SHA-256 hex, and selectors:
// the root one plus any "(...)" ones. A selector holds one permission bit
// per command and subcommand of Redis 7.0.15 (sim/command_facts.h, so that
// categories and ACL GETUSER's rebuilt rules count the commands Redis
// counts), the first arguments allowed for an otherwise blocked command
// ("+select|0"), key patterns with their %R / %W permissions, and channel
// patterns. A command runs when one selector allows the command, each of
// its keys and each of its channels (ACLCheckAllUserCommandPerm).
//
// The "default" user starts on, nopass, ~* &* +@all; a new user starts off
// with no command or key, and with all channels only when
// acl-pubsub-default is allchannels. Internal to sim/ (not installed).
//
//   AclUsers users;
//   users.set_user("bob", {"on", ">123", "+@scripting", "~x*"});  // "" on success
//   users.check("bob", "set", argv);  // {AclVerdict::kKey, 1}
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace redsim::sim {

using Argv = std::vector<std::string>;

struct AclKeyPattern {
  static constexpr uint8_t kRead = 1;   // %R~: keys a command reads (key spec "access")
  static constexpr uint8_t kWrite = 2;  // %W~: keys it inserts, deletes or updates
  std::string pattern;
  uint8_t flags = kRead | kWrite;  // "~" is both
  bool operator==(const AclKeyPattern&) const = default;
};

struct AclSelector {
  // One bit per entry of all_command_facts(), then the "future commands"
  // bit that only +@all / allcommands sets (Redis's reserved last bit).
  std::vector<bool> allowed;
  bool all_commands = false;  // SELECTOR_FLAG_ALLCOMMANDS: skip the bit test
  bool all_keys = false;
  bool all_channels = false;
  std::vector<AclKeyPattern> keys;
  std::vector<std::string> channels;
  // command id -> first arguments allowed while its bit is off ("+select|0")
  std::map<size_t, std::vector<std::string>> first_args;
  bool operator==(const AclSelector&) const = default;
};

struct AclUser {
  bool enabled = false;  // "on" / "off": exactly one is shown
  bool nopass = false;
  // Neither flag until set: "sanitize-payload" after reset,
  // "skip-sanitize-payload" when asked.
  enum class Sanitize : uint8_t { kUnset, kSanitize, kSkip } sanitize = Sanitize::kUnset;
  std::vector<std::string> password_hashes;  // SHA-256 hex, in the order added
  std::vector<AclSelector> selectors;        // [0] is the root selector
  bool operator==(const AclUser&) const = default;
};

enum class AclVerdict { kOk, kCommand, kKey, kChannel };

// The outcome of a permission check: on kKey / kChannel, `index` is the
// refused argument's index in argv (Redis's idxptr).
struct AclCheck {
  AclVerdict verdict = AclVerdict::kOk;
  size_t index = 0;
};

// One ACL LOG entry (Redis 7.0.15 acl.c ACLLogEntry): similar refusals
// within 60 s bump `count` and refresh `ctime_ms` and `client_info`.
enum class AclLogReason { kCommand, kKey, kChannel, kAuth };
enum class AclLogContext { kToplevel, kMulti, kLua };
struct AclLogEntry {
  int64_t count = 1;
  AclLogReason reason = AclLogReason::kCommand;
  AclLogContext context = AclLogContext::kToplevel;
  std::string object;       // the command's full name, the key, the channel, or "AUTH"
  std::string username;     // the refused user (AUTH: the name tried)
  int64_t ctime_ms = 0;     // server clock, last update
  std::string client_info;  // CLIENT INFO's line of the client, without "\n"
};

class AclUsers {
 public:
  AclUsers();
  // Applies `rules` to `name` (created when new), all or nothing
  // (ACLStringSetUser): "" on success, else Redis's error text without the
  // "ERR " prefix ("Error in ACL SETUSER modifier '...': Syntax error").
  // Selector rules may span arguments: "(+get", "~x)".
  std::string set_user(const std::string& name, const std::vector<std::string>& rules);
  const AclUser* find(std::string_view name) const;
  bool erase(std::string_view name) { return users_.erase(std::string(name)) > 0; }
  const std::map<std::string, AclUser, std::less<>>& users() const { return users_; }
  // Replaces every user (ACL LOAD); "default" is created when missing.
  void replace_all(std::map<std::string, AclUser, std::less<>> users);
  // AUTH: true when `name` exists, is on, and takes `password`.
  bool authenticates(std::string_view name, std::string_view password) const;
  // May `user` run the command `full_name` ("get", "client|list") with
  // `argv`? Keys come from Redis's key specs (sim/command_facts.h),
  // channels from PUBLISH / SPUBLISH / [S|P]SUBSCRIBE's arguments.
  AclCheck check(std::string_view user, std::string_view full_name, const Argv& argv) const;
  static AclCheck check(const AclUser& user, std::string_view full_name, const Argv& argv);
  // May `user` use `channel` (a PSUBSCRIBE pattern when `is_pattern`)?
  static bool channel_allowed(const AclUser& user, std::string_view channel, bool is_pattern);
  // ACL LIST's line: "user bob on #<sha256> ~x* resetchannels -@all +@scripting".
  static std::string describe(std::string_view name, const AclUser& user);
  // A selector's command rules as ACL GETUSER shows them ("+@all -@string
  // +incr"): ACLDescribeSelectorCommandRules' best-fit categories, then single
  // commands in the fact table's order.
  static std::string describe_commands(const AclSelector& selector);
  // A selector's keys / channels as ACL GETUSER shows them ("~a %R~b", "&x").
  static std::string describe_keys(const AclSelector& selector);
  static std::string describe_channels(const AclSelector& selector);
  // ACLKillPubsubClientsIfNeeded's first half: the channel patterns a
  // subscriber of `before` must match to stay connected once the user is
  // `after`, or nullopt when no subscriber can lose a permission.
  static std::optional<std::vector<std::string>> revoked_channels(const AclUser& before,
                                                                  const AclUser& after);
  // Parses an ACL file's text (ACLLoadFromFile): the users, or Redis's error
  // text ("<file>:<line>: ... WARNING: ACL errors detected, ...").
  struct Loaded {
    std::map<std::string, AclUser, std::less<>> users;
    std::string error;  // empty on success
  };
  Loaded parse_file(std::string_view text, std::string_view file_name) const;
  // acl-pubsub-default: do new users (and "reset") get allchannels?
  bool pubsub_default_all() const { return pubsub_default_all_; }
  void set_pubsub_default_all(bool all) { pubsub_default_all_ = all; }
  // addACLLogEntry: merges with one of the 10 newest similar entries, else
  // adds at the front and trims to acllog-max-len (default 128).
  void log(AclLogEntry entry);
  const std::deque<AclLogEntry>& log_entries() const { return log_; }
  void reset_log() { log_.clear(); }
  void set_log_max_len(size_t n) { log_max_len_ = n; }
  // A user as a fresh ACLCreateUser makes it (off, no commands, no keys).
  AclUser new_user() const;
  static AclUser default_user();

 private:
  std::map<std::string, AclUser, std::less<>> users_;
  bool pubsub_default_all_ = false;
  std::deque<AclLogEntry> log_;  // newest first
  size_t log_max_len_ = 128;
};

class Server;
class Session;
// addACLLogEntry for a refused command (sim/cmd_acl.cc): the object is the
// command's full name, or the refused key or channel (argv[check.index]).
void acl_log_refusal(Server& server, Session& session, std::string_view full_name, const Argv& argv,
                     AclCheck check, AclLogContext context);

// Redis 7.0's ACL categories in ACL CAT's order (without "all").
std::span<const std::string_view> acl_categories();
// Is the command `full_name` ("get", "client|list") in @`category`?
bool acl_has_category(std::string_view full_name, std::string_view category);
// ACL CAT <category>: Redis 7.0.15's commands and subcommands in it.
std::vector<std::string> acl_category_commands(std::string_view category);

}  // namespace redsim::sim
