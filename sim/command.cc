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

}  // namespace redsim::sim
