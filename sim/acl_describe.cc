// ACL GETUSER / ACL LIST's rules rebuilt from a user (sim/acl.h): Redis
// 7.0.15's src/acl.c ACLDescribeUser, ACLDescribeSelector and
// ACLDescribeSelectorCommandRules (the best-fit categories first, then
// single commands); facts only. The user model is in acl.cc.
#include <climits>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "sim/acl.h"
#include "sim/acl_internal.h"

namespace redsim::sim {

namespace {

// ACLCountCategoryBitsForCommands over a bit vector.
void count_category(const std::vector<bool>& bits, size_t category, unsigned long* on,
                    unsigned long* off) {
  const CommandIndex& ix = index();
  *on = *off = 0;
  for (size_t id = 0; id < ix.size(); ++id) {
    if (!(ix.categories[id] & (1u << category))) continue;
    if (bits[id]) {
      ++*on;
    } else {
      ++*off;
    }
  }
}

// ACLDescribeSelectorCommandRulesSingleCommands, commands in the fact
// table's order, each container followed by its subcommands.
void describe_single(const AclSelector& s, AclSelector& fake, size_t id, std::string& rules) {
  const CommandIndex& ix = index();
  bool user_bit = s.allowed[id];
  if (user_bit != fake.allowed[id]) {
    rules += user_bit ? "+" : "-";
    rules += ix.facts[id].name;
    rules += ' ';
    change_perm(fake, id, user_bit);
  }
  for (size_t sub : ix.subs[id]) describe_single(s, fake, sub, rules);
  if (!user_bit) {
    auto it = s.first_args.find(id);
    if (it != s.first_args.end()) {
      for (const std::string& a : it->second) {
        rules += "+" + std::string(ix.facts[id].name) + "|" + a + " ";
      }
    }
  }
}

}  // namespace

std::string AclUsers::describe_commands(const AclSelector& s) {
  const CommandIndex& ix = index();
  std::string rules;
  bool additive = !s.allowed[ix.future_bit()];
  AclSelector fake = make_selector(false);
  set_all(fake, !additive);
  rules = additive ? "-@all " : "+@all ";
  AclSelector temp = make_selector(false);
  temp.allowed = s.allowed;
  bool applied[kCategoryCount] = {};
  while (true) {
    int best = -1;
    unsigned long min_diff = INT_MAX, max_same = 0;
    for (size_t j = 0; j < kCategoryCount; ++j) {
      if (applied[j]) continue;
      unsigned long on = 0, off = 0;
      count_category(temp.allowed, j, &on, &off);
      unsigned long diff = additive ? off : on;
      unsigned long same = additive ? on : off;
      if (same > diff && (diff < min_diff || (diff == min_diff && same > max_same))) {
        best = static_cast<int>(j);
        min_diff = diff;
        max_same = same;
      }
    }
    if (best < 0) break;
    set_category(fake, static_cast<size_t>(best), additive);
    set_category(temp, static_cast<size_t>(best), !additive);
    rules += (additive ? "+@" : "-@") + std::string(kCategories[best]) + " ";
    applied[best] = true;
  }
  for (size_t id : ix.top) describe_single(s, fake, id, rules);
  rules.pop_back();
  return rules;
}

std::string AclUsers::describe_keys(const AclSelector& s) {
  if (s.all_keys) return "~*";
  std::string out;
  for (const AclKeyPattern& k : s.keys) {
    if (!out.empty()) out += ' ';
    if (k.flags == (AclKeyPattern::kRead | AclKeyPattern::kWrite)) {
      out += "~";
    } else if (k.flags == AclKeyPattern::kRead) {
      out += "%R~";
    } else {
      out += "%W~";
    }
    out += k.pattern;
  }
  return out;
}

std::string AclUsers::describe_channels(const AclSelector& s) {
  if (s.all_channels) return "&*";
  std::string out;
  for (const std::string& c : s.channels) out += (out.empty() ? "&" : " &") + c;
  return out;
}

std::string AclUsers::describe(std::string_view name, const AclUser& user) {
  std::string out = "user " + std::string(name) + " ";
  out += user.enabled ? "on " : "off ";
  if (user.nopass) out += "nopass ";
  if (user.sanitize == AclUser::Sanitize::kSkip) out += "skip-sanitize-payload ";
  if (user.sanitize == AclUser::Sanitize::kSanitize) out += "sanitize-payload ";
  for (const std::string& hash : user.password_hashes) out += "#" + hash + " ";
  for (size_t i = 0; i < user.selectors.size(); ++i) {
    const AclSelector& s = user.selectors[i];
    // ACLDescribeSelector: keys, channels, commands.
    std::string d;
    if (s.all_keys) {
      d += "~* ";
    } else if (!s.keys.empty()) {
      d += describe_keys(s) + " ";
    }
    if (s.all_channels) {
      d += "&* ";
    } else {
      d += "resetchannels ";
      for (const std::string& c : s.channels) d += "&" + c + " ";
    }
    d += describe_commands(s);
    out += i == 0 ? d : " (" + d + ")";
  }
  return out;
}

}  // namespace redsim::sim
