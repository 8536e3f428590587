#include "sim/command.h"

namespace redsim::sim {

void CommandTable::add(const CommandSpec& spec) { by_name_[std::string(spec.name)] = spec; }

const CommandSpec* CommandTable::find(std::string_view name) const {
  // Command names are short: lower-case into a stack buffer, no allocation.
  char buf[32];
  if (name.size() >= sizeof buf) return nullptr;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    buf[i] = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  auto it = by_name_.find(std::string_view(buf, name.size()));
  return it == by_name_.end() ? nullptr : &it->second;
}

void CommandTable::add_subcommands(std::string_view container,
                                   std::span<const SubcommandSpec> subs) {
  subcommands_[std::string(container)] = subs;
}

bool CommandTable::has_subcommands(const CommandSpec& spec) const {
  return subcommands_.contains(spec.name);
}

const SubcommandSpec* CommandTable::find_subcommand(const CommandSpec& spec,
                                                    std::string_view sub) const {
  auto it = subcommands_.find(spec.name);
  if (it == subcommands_.end()) return nullptr;
  for (const SubcommandSpec& s : it->second) {
    if (s.name.size() != sub.size()) continue;
    bool same = true;
    for (size_t i = 0; i < sub.size() && same; ++i) {
      const char c = sub[i];
      same = ((c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c) == s.name[i];
    }
    if (same) return &s;
  }
  return nullptr;
}

}  // namespace redsim::sim
