// The fake's ACL users: see sim/acl.h.
#include "sim/acl.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "sim/args.h"
#include "sim/command_facts.h"
#include "sim/glob.h"

namespace redsim::sim {

namespace {

bool has_category(std::string_view full_name, std::string_view category) {
  const CommandFact* fact = find_command_fact(full_name);
  if (fact == nullptr) return false;
  if (category == "all") return true;
  std::string want = "@" + std::string(category);
  std::string_view cats = fact->acl_categories;
  for (size_t at = cats.find(want); at != std::string_view::npos; at = cats.find(want, at + 1)) {
    size_t end = at + want.size();
    if ((at == 0 || cats[at - 1] == ' ') && (end == cats.size() || cats[end] == ' ')) return true;
  }
  return false;
}

bool known_category(std::string_view category) {
  if (category == "all") return true;
  for (std::string_view c : acl_categories()) {
    if (c == category) return true;
  }
  return false;
}

// Does a "+..."/"-..." rule's target name the command `full_name`?
bool rule_names(std::string_view target, std::string_view full_name, std::string_view container) {
  if (target.starts_with('@')) return has_category(full_name, target.substr(1));
  return target == full_name || (!container.empty() && target == container);
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool is_hex64(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

std::span<const std::string_view> acl_categories() {
  // Redis 7.0's ACL categories, in ACL CAT's order.
  static constexpr std::string_view kCategories[] = {
      "keyspace", "read",   "write",       "set",       "sortedset",  "list",        "hash",
      "string",   "bitmap", "hyperloglog", "geo",       "stream",     "pubsub",      "admin",
      "fast",     "slow",   "blocking",    "dangerous", "connection", "transaction", "scripting"};
  return kCategories;
}

bool acl_has_category(std::string_view full_name, std::string_view category) {
  return has_category(full_name, category);
}

AclUsers::AclUsers() {
  AclUser& d = users_["default"];
  d.enabled = true;
  d.nopass = true;
  d.command_rules = {"+@all"};
  d.all_keys = true;
  d.key_patterns = {"*"};
  d.all_channels = true;
  d.channel_patterns = {"*"};
}

std::string AclUsers::set_user(const std::string& name, const std::vector<std::string>& rules) {
  auto existing = users_.find(name);
  AclUser user = existing != users_.end() ? existing->second : AclUser{};
  auto fail = [](const std::string& rule, std::string_view why) {
    return "Error in ACL SETUSER modifier '" + rule + "': " + std::string(why);
  };
  for (const std::string& rule : rules) {
    std::string low = to_lower(rule);
    if (low == "on") {
      user.enabled = true;
    } else if (low == "off") {
      user.enabled = false;
    } else if (low == "nopass") {
      user.nopass = true;
      user.password_hashes.clear();
    } else if (low == "resetpass") {
      user.nopass = false;
      user.password_hashes.clear();
    } else if (low == "allkeys" || rule == "~*") {
      user.all_keys = true;
      user.key_patterns = {"*"};
    } else if (low == "resetkeys") {
      user.all_keys = false;
      user.key_patterns.clear();
    } else if (low == "allchannels" || rule == "&*") {
      user.all_channels = true;
      user.channel_patterns = {"*"};
    } else if (low == "resetchannels") {
      user.all_channels = false;
      user.channel_patterns.clear();
    } else if (low == "allcommands" || low == "+@all") {
      user.command_rules = {"+@all"};
    } else if (low == "nocommands" || low == "-@all") {
      user.command_rules.clear();
    } else if (low == "reset") {
      user = AclUser{};
    } else if (rule.starts_with('>') || rule.starts_with('#')) {
      std::string hash =
          rule[0] == '>' ? sha256_hex(std::string_view(rule).substr(1)) : low.substr(1);
      if (!is_hex64(hash))
        return fail(rule,
                    "The password hash must be exactly 64 characters and contain only lowercase "
                    "hexadecimal characters");
      user.nopass = false;
      if (std::find(user.password_hashes.begin(), user.password_hashes.end(), hash) ==
          user.password_hashes.end()) {
        user.password_hashes.push_back(hash);
      }
    } else if (rule.starts_with('<') || rule.starts_with('!')) {
      std::string hash =
          rule[0] == '<' ? sha256_hex(std::string_view(rule).substr(1)) : low.substr(1);
      auto it = std::find(user.password_hashes.begin(), user.password_hashes.end(), hash);
      if (it == user.password_hashes.end()) return fail(rule, "no such password");
      user.password_hashes.erase(it);
    } else if (rule.starts_with('~')) {
      if (user.all_keys) {
        return fail(rule,
                    "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and "
                    "does not have any effect. Try 'resetkeys' to start with an empty list of "
                    "patterns");
      }
      user.key_patterns.push_back(rule.substr(1));
    } else if (rule.starts_with('&')) {
      if (user.all_channels) {
        return fail(rule,
                    "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid "
                    "and does not have any effect. Try 'resetchannels' to start with an empty list "
                    "of channels");
      }
      user.channel_patterns.push_back(rule.substr(1));
    } else if ((rule.starts_with('+') || rule.starts_with('-')) && rule.size() > 1) {
      std::string target = low.substr(1);
      bool ok = target.starts_with('@') ? known_category(target.substr(1))
                                        : find_command_fact(target) != nullptr;
      if (!ok) return fail(rule, "Unknown command or category name in ACL");
      user.command_rules.push_back(low);
    } else {
      return fail(rule, "Syntax error");
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
  std::string hash = sha256_hex(password);
  return std::find(user->password_hashes.begin(), user->password_hashes.end(), hash) !=
         user->password_hashes.end();
}

AclVerdict AclUsers::check(std::string_view name, std::string_view full_name,
                           std::string_view container, const Argv& argv, size_t* denied_key) const {
  const AclUser* user = find(name);
  if (user == nullptr) return AclVerdict::kCommand;
  bool allowed = false;
  for (const std::string& rule : user->command_rules) {
    if (rule_names(std::string_view(rule).substr(1), full_name, container)) {
      allowed = rule[0] == '+';
    }
  }
  if (!allowed) return AclVerdict::kCommand;
  if (user->all_keys) return AclVerdict::kOk;
  const CommandFact* fact = find_command_fact(full_name);
  if (fact == nullptr) return AclVerdict::kOk;
  for (const KeyRef& key : command_keys(*fact, argv)) {
    bool matched = false;
    for (const std::string& pattern : user->key_patterns) {
      matched = matched || glob_match(pattern, argv[key.index]);
    }
    if (!matched) {
      if (denied_key != nullptr) *denied_key = key.index;
      return AclVerdict::kKey;
    }
  }
  return AclVerdict::kOk;
}

std::string AclUsers::describe_commands(const AclUser& user) {
  std::string out;
  bool all = !user.command_rules.empty() && user.command_rules.front() == "+@all";
  if (!all) out = "-@all";
  for (const std::string& rule : user.command_rules) {
    if (!out.empty()) out += ' ';
    out += rule;
  }
  return out;
}

std::string AclUsers::describe(std::string_view name, const AclUser& user) {
  std::string out = "user " + std::string(name) + (user.enabled ? " on" : " off");
  if (user.nopass) out += " nopass";
  for (const std::string& hash : user.password_hashes) out += " #" + hash;
  for (const std::string& p : user.key_patterns) out += " ~" + p;
  if (user.all_channels) {
    out += " &*";
  } else {
    out += " resetchannels";
    for (const std::string& p : user.channel_patterns) out += " &" + p;
  }
  return out + " " + describe_commands(user);
}

// ---- SHA-256 (FIPS 180-4) ----------------------------------------------------

std::string sha256_hex(std::string_view data) {
  static constexpr uint32_t k[64] = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
      0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
      0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
      0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
      0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
      0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
      0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
      0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
      0xc67178f2};
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::string msg(data);
  uint64_t bits = static_cast<uint64_t>(data.size()) * 8;
  msg += static_cast<char>(0x80);
  while (msg.size() % 64 != 56) msg += '\0';
  for (int i = 7; i >= 0; --i) msg += static_cast<char>((bits >> (i * 8)) & 0xff);
  auto rotr = [](uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
  for (size_t chunk = 0; chunk < msg.size(); chunk += 64) {
    uint32_t w[64];
    for (int i = 0; i < 16; ++i) {
      const auto* p = reinterpret_cast<const unsigned char*>(msg.data() + chunk + i * 4);
      w[i] = (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
    }
    for (int i = 16; i < 64; ++i) {
      uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; ++i) {
      uint32_t t1 =
          hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
      uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      hh = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
  }
  std::string out;
  char buf[9];
  for (uint32_t v : h) {
    std::snprintf(buf, sizeof buf, "%08x", v);
    out += buf;
  }
  return out;
}

}  // namespace redsim::sim
