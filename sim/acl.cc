// The fake's ACL users: see sim/acl.h. Behaviour from Redis 7.0.15's
// src/acl.c (ACLSetSelector, ACLSetUser, ACLSelectorCheckCmd,
// ACLKillPubsubClientsIfNeeded, ACLLoadFromFile). Rendering rules back
// (ACLDescribeSelectorCommandRules) is in acl_describe.cc.
#include "sim/acl.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "base/sha1.h"
#include "base/split_args.h"
#include "sim/acl_internal.h"
#include "sim/command_facts.h"
#include "sim/glob.h"

namespace redsim::sim {

namespace {

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    char y = b[i] >= 'A' && b[i] <= 'Z' ? static_cast<char>(b[i] - 'A' + 'a') : b[i];
    if (x != y) return false;
  }
  return true;
}

void set_bit(AclSelector& s, size_t id, bool value) {
  s.allowed[id] = value;
  if (!value) s.all_commands = false;
}

}  // namespace

CommandIndex::CommandIndex() : facts(all_command_facts()) {
  size_t n = facts.size();
  parent.assign(n, -1);
  subs.resize(n);
  categories.assign(n, 0);
  for (size_t id = 0; id < n; ++id) {
    std::string_view name = facts[id].name;
    size_t bar = name.find('|');
    if (bar == std::string_view::npos) {
      top.push_back(id);
    } else if (const CommandFact* p = find_command_fact(name.substr(0, bar))) {
      parent[id] = static_cast<int>(p - facts.data());
      subs[p - facts.data()].push_back(id);
    }
    std::string_view cats = facts[id].acl_categories;
    for (size_t j = 0; j < kCategoryCount; ++j) {
      std::string want = "@" + std::string(kCategories[j]);
      for (size_t at = cats.find(want); at != std::string_view::npos;
           at = cats.find(want, at + 1)) {
        size_t end = at + want.size();
        if ((at == 0 || cats[at - 1] == ' ') && (end == cats.size() || cats[end] == ' ')) {
          categories[id] |= 1u << j;
        }
      }
    }
  }
}

std::optional<size_t> CommandIndex::find(std::string_view name) const {
  const CommandFact* f = find_command_fact(to_lower(name));
  if (f == nullptr) return std::nullopt;
  return static_cast<size_t>(f - facts.data());
}

const CommandIndex& index() {
  static const CommandIndex kIndex;
  return kIndex;
}

AclSelector make_selector(bool all_channels) {
  AclSelector s;
  s.allowed.assign(index().size() + 1, false);
  s.all_channels = all_channels;
  return s;
}

// ACLChangeSelectorPerm: a container's subcommands follow it.
void change_perm(AclSelector& s, size_t id, bool allow) {
  set_bit(s, id, allow);
  s.first_args.erase(id);
  for (size_t sub : index().subs[id]) set_bit(s, sub, allow);
}

void set_category(AclSelector& s, size_t category, bool allow) {
  const CommandIndex& ix = index();
  for (size_t id = 0; id < ix.size(); ++id) {
    if (ix.categories[id] & (1u << category)) change_perm(s, id, allow);
  }
}

void set_all(AclSelector& s, bool allow) {
  std::fill(s.allowed.begin(), s.allowed.end(), allow);
  s.all_commands = allow;
  s.first_args.clear();
}

namespace {

std::optional<size_t> category_id(std::string_view name) {
  for (size_t j = 0; j < kCategoryCount; ++j) {
    if (iequals(kCategories[j], name)) return j;
  }
  return std::nullopt;
}

// ACLSetUserStringError's errno cases.
enum class AclError { kOk, kNoEnt, kInval, kExist, kIsDir, kNoDev, kBadMsg, kChild };

std::string_view error_text(AclError e) {
  switch (e) {
    case AclError::kNoEnt:
      return "Unknown command or category name in ACL";
    case AclError::kInval:
      return "Syntax error";
    case AclError::kExist:
      return "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does "
             "not have any effect. Try 'resetkeys' to start with an empty list of patterns";
    case AclError::kIsDir:
      return "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and "
             "does not have any effect. Try 'resetchannels' to start with an empty list of "
             "channels";
    case AclError::kNoDev:
      return "The password you are trying to remove from the user does not exist";
    case AclError::kBadMsg:
      return "The password hash must be exactly 64 characters and contain only lowercase "
             "hexadecimal characters";
    case AclError::kChild:
      return "Allowing first-arg of a subcommand is not supported";
    case AclError::kOk:
      break;
  }
  return "Wrong format";
}

bool has_spaces(std::string_view s) {
  for (char c : s) {
    if (c == ' ' || c == '\0' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f')
      return true;
  }
  return false;
}

bool is_hash(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// The password hash an ACL SETUSER operand names: SHA-256 of the text after
// `clear` ('>' adds, '<' removes a cleartext password), or the operand's
// own hash after '#'/'!', which must be 64 lower-case hex digits (false).
bool password_hash(std::string_view op, char clear, std::string* hash) {
  if (op[0] == clear) {
    *hash = base::sha256_hex(op.substr(1));
    return true;
  }
  if (!is_hash(op.substr(1))) return false;
  *hash = op.substr(1);
  return true;
}

// ACLSetSelector.
AclError apply_selector_op(AclSelector& s, std::string_view op) {
  const CommandIndex& ix = index();
  if (iequals(op, "allkeys") || op == "~*") {
    s.all_keys = true;
    s.keys.clear();
  } else if (iequals(op, "resetkeys")) {
    s.all_keys = false;
    s.keys.clear();
  } else if (iequals(op, "allchannels") || op == "&*") {
    s.all_channels = true;
    s.channels.clear();
  } else if (iequals(op, "resetchannels")) {
    s.all_channels = false;
    s.channels.clear();
  } else if (iequals(op, "allcommands") || iequals(op, "+@all")) {
    set_all(s, true);
  } else if (iequals(op, "nocommands") || iequals(op, "-@all")) {
    set_all(s, false);
  } else if (op[0] == '~' || op[0] == '%') {
    if (s.all_keys) return AclError::kExist;
    uint8_t flags = 0;
    size_t offset = 1;
    if (op[0] == '%') {
      for (; offset < op.size(); ++offset) {
        char c = op[offset];
        if ((c == 'R' || c == 'r') && !(flags & AclKeyPattern::kRead)) {
          flags |= AclKeyPattern::kRead;
        } else if ((c == 'W' || c == 'w') && !(flags & AclKeyPattern::kWrite)) {
          flags |= AclKeyPattern::kWrite;
        } else if (c == '~') {
          ++offset;
          break;
        } else {
          return AclError::kInval;
        }
      }
    } else {
      flags = AclKeyPattern::kRead | AclKeyPattern::kWrite;
    }
    std::string_view pattern = op.substr(std::min(offset, op.size()));
    if (has_spaces(pattern)) return AclError::kInval;
    auto it = std::find_if(s.keys.begin(), s.keys.end(),
                           [&](const AclKeyPattern& k) { return k.pattern == pattern; });
    if (it == s.keys.end()) {
      s.keys.push_back({std::string(pattern), flags});
    } else {
      it->flags |= flags;
    }
    s.all_keys = false;
  } else if (op[0] == '&') {
    if (s.all_channels) return AclError::kIsDir;
    std::string_view pattern = op.substr(1);
    if (has_spaces(pattern)) return AclError::kInval;
    if (std::find(s.channels.begin(), s.channels.end(), pattern) == s.channels.end()) {
      s.channels.emplace_back(pattern);
    }
    s.all_channels = false;
  } else if (op[0] == '+' && op.size() > 1 && op[1] != '@') {
    std::string_view name = op.substr(1);
    size_t bar = name.rfind('|');
    if (bar == std::string_view::npos) {
      std::optional<size_t> id = ix.find(name);
      if (!id) return AclError::kNoEnt;
      change_perm(s, *id, true);
    } else {
      std::optional<size_t> id = ix.find(name.substr(0, bar));
      if (!id) return AclError::kNoEnt;
      if (ix.parent[*id] >= 0) return AclError::kChild;
      std::string_view sub = name.substr(bar + 1);
      if (sub.empty()) return AclError::kInval;
      if (!ix.subs[*id].empty()) {
        std::optional<size_t> sub_id = ix.find(name);
        if (!sub_id) return AclError::kNoEnt;
        change_perm(s, *sub_id, true);
      } else {
        // ACLAddAllowedFirstArg: "+select|0" while SELECT is blocked.
        std::vector<std::string>& args = s.first_args[*id];
        std::string low = to_lower(sub);
        if (std::find(args.begin(), args.end(), low) == args.end()) args.push_back(low);
      }
    }
  } else if (op[0] == '-' && op.size() > 1 && op[1] != '@') {
    std::optional<size_t> id = ix.find(op.substr(1));
    if (!id) return AclError::kNoEnt;
    change_perm(s, *id, false);
  } else if ((op[0] == '+' || op[0] == '-') && op.size() > 1 && op[1] == '@') {
    std::optional<size_t> cat = category_id(op.substr(2));
    if (!cat) return AclError::kNoEnt;
    set_category(s, *cat, op[0] == '+');
  } else {
    return AclError::kInval;
  }
  return AclError::kOk;
}

// ACLSetUser.
AclError apply_user_op(AclUser& u, std::string_view op, bool pubsub_default_all) {
  if (op.empty()) return AclError::kOk;
  if (iequals(op, "on")) {
    u.enabled = true;
  } else if (iequals(op, "off")) {
    u.enabled = false;
  } else if (iequals(op, "skip-sanitize-payload")) {
    u.sanitize = AclUser::Sanitize::kSkip;
  } else if (iequals(op, "sanitize-payload")) {
    u.sanitize = AclUser::Sanitize::kSanitize;
  } else if (iequals(op, "nopass")) {
    u.nopass = true;
    u.password_hashes.clear();
  } else if (iequals(op, "resetpass")) {
    u.nopass = false;
    u.password_hashes.clear();
  } else if (op[0] == '>' || op[0] == '#') {
    std::string hash;
    if (!password_hash(op, '>', &hash)) return AclError::kBadMsg;
    if (std::find(u.password_hashes.begin(), u.password_hashes.end(), hash) ==
        u.password_hashes.end()) {
      u.password_hashes.push_back(hash);
    }
    u.nopass = false;
  } else if (op[0] == '<' || op[0] == '!') {
    std::string hash;
    if (!password_hash(op, '<', &hash)) return AclError::kBadMsg;
    auto it = std::find(u.password_hashes.begin(), u.password_hashes.end(), hash);
    if (it == u.password_hashes.end()) return AclError::kNoDev;
    u.password_hashes.erase(it);
  } else if (op[0] == '(' && op.back() == ')') {
    // aclCreateSelectorFromOpSet: the inside split as a command line.
    AclSelector s = make_selector(pubsub_default_all);
    auto words = base::split_args(op.substr(1, op.size() - 2));
    if (!words) return AclError::kInval;
    for (const std::string& w : *words) {
      AclError e = apply_selector_op(s, w);
      if (e != AclError::kOk) return e;
    }
    u.selectors.push_back(std::move(s));
  } else if (iequals(op, "clearselectors")) {
    u.selectors.resize(1);
  } else if (iequals(op, "reset")) {
    u.nopass = false;
    u.password_hashes.clear();
    AclSelector& root = u.selectors[0];
    root.all_keys = false;
    root.keys.clear();
    root.all_channels = pubsub_default_all;
    root.channels.clear();
    u.enabled = false;
    u.sanitize = AclUser::Sanitize::kSanitize;
    u.selectors.resize(1);
    set_all(root, false);
  } else {
    return apply_selector_op(u.selectors[0], op);
  }
  return AclError::kOk;
}

// ACLMergeSelectorArguments: "(+get" "~x)" -> "(+get ~x)". nullopt (and
// *bad the opening argument's index) on an unmatched parenthesis.
std::optional<std::vector<std::string>> merge_selectors(const std::vector<std::string>& args,
                                                        size_t* bad) {
  constexpr size_t kNone = static_cast<size_t>(-1);
  std::vector<std::string> out;
  size_t open = kNone;  // the index of the argument that opened `selector`
  std::string selector;
  for (size_t j = 0; j < args.size(); ++j) {
    const std::string& op = args[j];
    if (!op.empty() && op.front() == '(' && op.back() != ')') {
      selector = op;
      open = j;
      continue;
    }
    if (open != kNone) {
      selector += " " + op;
      if (!op.empty() && op.back() == ')') {
        open = kNone;
        out.push_back(std::move(selector));
      }
      continue;
    }
    out.push_back(op);
  }
  if (open != kNone) {
    if (bad != nullptr) *bad = open;
    return std::nullopt;
  }
  return out;
}

// ACLSelectorCheckKey.
bool key_allowed(const AclSelector& s, std::string_view key, std::string_view spec_flags) {
  if (s.all_keys) return true;
  uint8_t need = 0;
  size_t at = 0;
  while (at < spec_flags.size()) {
    size_t end = spec_flags.find(' ', at);
    if (end == std::string_view::npos) end = spec_flags.size();
    std::string_view flag = spec_flags.substr(at, end - at);
    if (flag == "access") need |= AclKeyPattern::kRead;
    if (flag == "insert" || flag == "delete" || flag == "update") need |= AclKeyPattern::kWrite;
    at = end + 1;
  }
  for (const AclKeyPattern& p : s.keys) {
    if ((p.flags & need) != need) continue;
    if (glob_match(p.pattern, key)) return true;
  }
  return false;
}

bool channel_in(const std::vector<std::string>& list, std::string_view channel, bool is_pattern) {
  for (const std::string& p : list) {
    if (is_pattern ? p == channel : glob_match(p, channel)) return true;
  }
  return false;
}

// getChannelsFromCommand's table (db.c): the publish and subscribe
// arguments; UNSUBSCRIBE's are not checked.
struct Channels {
  size_t first = 0, last = 0;  // argv indexes, inclusive; first 0: none
  bool pattern = false;
};
Channels command_channels(std::string_view full_name, size_t argc) {
  if (full_name == "publish" || full_name == "spublish") return {1, 1, false};
  if (full_name == "subscribe" || full_name == "ssubscribe") return {1, argc - 1, false};
  if (full_name == "psubscribe") return {1, argc - 1, true};
  return {};
}

bool has_not_key(std::string_view flags) {
  return flags == "not_key" || flags.starts_with("not_key ") || flags.ends_with(" not_key") ||
         flags.find(" not_key ") != std::string_view::npos;
}

// ACLSelectorCheckCmd.
AclCheck check_selector(const AclSelector& s, size_t id, const Argv& argv) {
  const CommandIndex& ix = index();
  if (!s.all_commands && !s.allowed[id]) {
    auto it = s.first_args.find(id);
    if (argv.size() < 2 || it == s.first_args.end()) return {AclVerdict::kCommand, 0};
    size_t idx = ix.parent[id] >= 0 ? 2 : 1;
    if (idx >= argv.size()) return {AclVerdict::kCommand, 0};
    bool found = false;
    for (const std::string& a : it->second) found = found || iequals(a, argv[idx]);
    if (!found) return {AclVerdict::kCommand, 0};
  }
  const CommandFact& fact = ix.facts[id];
  if (!s.all_keys) {
    for (const KeyRef& key : command_keys(fact, argv)) {
      if (has_not_key(key.flags)) continue;
      if (!key_allowed(s, argv[key.index], key.flags)) return {AclVerdict::kKey, key.index};
    }
  }
  if (!s.all_channels) {
    Channels ch = command_channels(fact.name, argv.size());
    for (size_t j = ch.first; ch.first != 0 && j <= ch.last && j < argv.size(); ++j) {
      if (!channel_in(s.channels, argv[j], ch.pattern)) return {AclVerdict::kChannel, j};
    }
  }
  return {};
}

}  // namespace

std::span<const std::string_view> acl_categories() { return kCategories; }

bool acl_has_category(std::string_view full_name, std::string_view category) {
  const CommandFact* fact = find_command_fact(full_name);
  if (fact == nullptr) return false;
  if (category == "all") return true;
  std::optional<size_t> cat = category_id(category);
  if (!cat) return false;
  return (index().categories[fact - index().facts.data()] & (1u << *cat)) != 0;
}

std::vector<std::string> acl_category_commands(std::string_view category) {
  std::vector<std::string> out;
  std::optional<size_t> cat = category_id(category);
  if (!cat) return out;
  const CommandIndex& ix = index();
  for (size_t id = 0; id < ix.size(); ++id) {
    if (ix.categories[id] & (1u << *cat)) out.emplace_back(ix.facts[id].name);
  }
  return out;
}

AclUser AclUsers::new_user() const {
  AclUser u;
  u.selectors.push_back(make_selector(pubsub_default_all_));
  return u;
}

AclUser AclUsers::default_user() {
  AclUser d;
  d.selectors.push_back(make_selector(true));
  set_all(d.selectors[0], true);
  d.selectors[0].all_keys = true;
  d.enabled = true;
  d.nopass = true;
  return d;
}

AclUsers::AclUsers() { users_["default"] = default_user(); }

void AclUsers::replace_all(std::map<std::string, AclUser, std::less<>> users) {
  users_ = std::move(users);
  if (users_.find("default") == users_.end()) users_["default"] = default_user();
}

std::string AclUsers::set_user(const std::string& name, const std::vector<std::string>& rules) {
  size_t bad = 0;
  std::optional<std::vector<std::string>> ops = merge_selectors(rules, &bad);
  if (!ops) {
    return "Unmatched parenthesis in acl selector starting at '" + rules[bad] + "'.";
  }
  auto existing = users_.find(name);
  AclUser user = existing != users_.end() ? existing->second : new_user();
  for (const std::string& op : *ops) {
    AclError e = apply_user_op(user, op, pubsub_default_all_);
    if (e != AclError::kOk) {
      return "Error in ACL SETUSER modifier '" + op + "': " + std::string(error_text(e));
    }
  }
  users_[name] = std::move(user);
  return {};
}

const AclUser* AclUsers::find(std::string_view name) const {
  auto it = users_.find(name);
  return it == users_.end() ? nullptr : &it->second;
}

bool AclUsers::authenticates(std::string_view name, std::string_view password) const {
  const AclUser* user = find(name);
  if (user == nullptr || !user->enabled) return false;
  if (user->nopass) return true;
  std::string hash = base::sha256_hex(password);
  return std::find(user->password_hashes.begin(), user->password_hashes.end(), hash) !=
         user->password_hashes.end();
}

AclCheck AclUsers::check(std::string_view name, std::string_view full_name,
                         const Argv& argv) const {
  const AclUser* user = find(name);
  if (user == nullptr) return {AclVerdict::kCommand, 0};
  return check(*user, full_name, argv);
}

AclCheck AclUsers::check(const AclUser& user, std::string_view full_name, const Argv& argv) {
  std::optional<size_t> id = index().find(full_name);
  if (!id) return {};  // a command Redis 7.0.15 does not have (redsim's own)
  // ACLCheckAllUserCommandPerm: the first selector that allows wins; else
  // the "largest" refusal (channel > key > command), later index first.
  AclCheck relevant{AclVerdict::kCommand, 0};
  for (const AclSelector& s : user.selectors) {
    AclCheck c = check_selector(s, *id, argv);
    if (c.verdict == AclVerdict::kOk) return c;
    if (c.verdict > relevant.verdict ||
        (c.verdict == relevant.verdict && c.index > relevant.index)) {
      relevant = c;
    }
  }
  return relevant;
}

bool AclUsers::channel_allowed(const AclUser& user, std::string_view channel, bool is_pattern) {
  for (const AclSelector& s : user.selectors) {
    if (s.all_channels || channel_in(s.channels, channel, is_pattern)) return true;
  }
  return false;
}

std::optional<std::vector<std::string>> AclUsers::revoked_channels(const AclUser& before,
                                                                   const AclUser& after) {
  std::vector<std::string> upcoming;
  for (const AclSelector& s : after.selectors) {
    if (s.all_channels) return std::nullopt;
    upcoming.insert(upcoming.end(), s.channels.begin(), s.channels.end());
  }
  for (const AclSelector& s : before.selectors) {
    if (s.all_channels) return upcoming;
    for (const std::string& c : s.channels) {
      if (std::find(upcoming.begin(), upcoming.end(), c) == upcoming.end()) return upcoming;
    }
  }
  return std::nullopt;
}

AclUsers::Loaded AclUsers::parse_file(std::string_view text, std::string_view file_name) const {
  Loaded loaded;
  std::string errors;
  size_t line_start = 0;
  for (int line_number = 1; line_start <= text.size(); ++line_number) {
    size_t end = text.find('\n', line_start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(line_start, end - line_start);
    line_start = end + 1;
    while (!line.empty() &&
           std::string_view(" \t\r\n").find(line.front()) != std::string_view::npos)
      line.remove_prefix(1);
    while (!line.empty() && std::string_view(" \t\r\n").find(line.back()) != std::string_view::npos)
      line.remove_suffix(1);
    if (line.empty()) continue;
    std::vector<std::string> argv;
    for (size_t at = 0; at <= line.size();) {
      size_t sp = line.find(' ', at);
      if (sp == std::string_view::npos) sp = line.size();
      argv.emplace_back(line.substr(at, sp - at));
      at = sp + 1;
    }
    std::string where = std::string(file_name) + ":" + std::to_string(line_number);
    if (argv[0] != "user" || argv.size() < 2) {
      errors += where + " should start with user keyword followed by the username. ";
      continue;
    }
    if (has_spaces(argv[1])) {
      errors += "'" + where + ": username '" + argv[1] + "' contains invalid characters. ";
      continue;
    }
    if (loaded.users.count(argv[1]) > 0) {
      errors += "WARNING: Duplicate user '" + argv[1] + "' found on line " +
                std::to_string(line_number) + ". ";
      continue;
    }
    AclUser& u = loaded.users[argv[1]] = new_user();
    std::optional<std::vector<std::string>> ops =
        merge_selectors(std::vector<std::string>(argv.begin() + 2, argv.end()), nullptr);
    if (!ops) {
      errors += where + ": Unmatched parenthesis in selector definition.";
      continue;
    }
    bool syntax_error = false;
    for (std::string op : *ops) {
      while (!op.empty() && std::string_view("\t\r\n").find(op.back()) != std::string_view::npos)
        op.pop_back();
      AclError e = apply_user_op(u, op, pubsub_default_all_);
      if (e == AclError::kOk) continue;
      if (e == AclError::kNoEnt) {
        errors += where + ": Error in applying operation '" + op +
                  "': " + std::string(error_text(e)) + ". ";
      } else if (!syntax_error) {
        errors += where + ": " + std::string(error_text(e)) + ". ";
        syntax_error = true;
      }
    }
  }
  if (!errors.empty()) {
    loaded.users.clear();
    loaded.error = errors +
                   "WARNING: ACL errors detected, no change to the previously active ACL rules was "
                   "performed";
  }
  return loaded;
}

void AclUsers::log(AclLogEntry entry) {
  constexpr int64_t kGroupingMs = 60000;  // ACL_LOG_GROUPING_MAX_TIME_DELTA
  size_t scan = std::min<size_t>(log_.size(), 10);
  for (size_t i = 0; i < scan; ++i) {
    AclLogEntry& e = log_[i];
    if (e.reason == entry.reason && e.context == entry.context &&
        std::abs(e.ctime_ms - entry.ctime_ms) <= kGroupingMs && e.object == entry.object &&
        e.username == entry.username) {
      AclLogEntry match = std::move(e);
      log_.erase(log_.begin() + static_cast<std::ptrdiff_t>(i));
      match.client_info = std::move(entry.client_info);
      match.ctime_ms = entry.ctime_ms;
      ++match.count;
      log_.push_front(std::move(match));
      return;
    }
  }
  log_.push_front(std::move(entry));
  while (log_.size() > log_max_len_) log_.pop_back();
}

}  // namespace redsim::sim
