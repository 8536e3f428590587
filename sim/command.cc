#include "sim/command.h"

#include <cctype>

namespace redsim::sim {

void CommandTable::add(const CommandSpec& spec) { by_name_[std::string(spec.name)] = spec; }

const CommandSpec* CommandTable::find(std::string_view name) const {
  // Command names are short: lower-case into a stack buffer, no allocation.
  char buf[32];
  if (name.size() >= sizeof buf) return nullptr;
  for (size_t i = 0; i < name.size(); ++i) {
    buf[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
  }
  auto it = by_name_.find(std::string(buf, name.size()));
  return it == by_name_.end() ? nullptr : &it->second;
}

}  // namespace redsim::sim
