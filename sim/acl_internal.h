// Private to sim/: what the ACL files share. acl.cc holds the user model,
// rule parsing (ACLSetSelector, ACLSetUser), the permission checks and the
// ACL file; acl_describe.cc renders a user's rules back (ACL GETUSER, ACL
// LIST: ACLDescribeUser, ACLDescribeSelectorCommandRules). Not part of the
// public API. Source: Redis 7.0.15 src/acl.c; facts only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "sim/acl.h"
#include "sim/command_facts.h"

namespace redsim::sim {

inline constexpr std::string_view kCategories[] = {
    "keyspace", "read",   "write",       "set",       "sortedset",  "list",        "hash",
    "string",   "bitmap", "hyperloglog", "geo",       "stream",     "pubsub",      "admin",
    "fast",     "slow",   "blocking",    "dangerous", "connection", "transaction", "scripting"};
inline constexpr size_t kCategoryCount = std::size(kCategories);

// Redis's command table as ACL sees it: ids, containers, categories.
struct CommandIndex {
  std::span<const CommandFact> facts;
  std::vector<int> parent;                // container id, -1 for a command
  std::vector<std::vector<size_t>> subs;  // subcommand ids of a container
  std::vector<size_t> top;                // commands (not subcommands), sorted
  std::vector<uint32_t> categories;       // bit j: kCategories[j]

  CommandIndex();
  size_t size() const { return facts.size(); }
  size_t future_bit() const { return facts.size(); }
  // ACLLookupCommand: "get", "config|get" (case-insensitive).
  std::optional<size_t> find(std::string_view name) const;
};

// The one index of all_command_facts().
const CommandIndex& index();

// A selector with no command allowed (one bit per command and subcommand,
// plus the future-commands bit).
AclSelector make_selector(bool all_channels);
// ACLChangeSelectorPerm: a container's subcommands follow it.
void change_perm(AclSelector& s, size_t id, bool allow);
// ACLSetSelectorCommandBitsForCategory: every command in @`category`.
void set_category(AclSelector& s, size_t category, bool allow);
// +@all / -@all.
void set_all(AclSelector& s, bool allow);

}  // namespace redsim::sim
