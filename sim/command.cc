#include "sim/command.h"

#include <cstring>

namespace redsim::sim {

namespace {

char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// A hash equal for every case variant of a name, 8 bytes at a time: each
// byte ORed with 0x20 (which lower-cases ASCII letters; other bytes may
// collide, which the comparison after the hash sorts out), then mixed.
uint64_t name_hash(std::string_view name) {
  constexpr uint64_t kFold = 0x2020202020202020ULL;
  uint64_t h = name.size();
  size_t i = 0;
  for (; i + 8 <= name.size(); i += 8) {
    uint64_t word = 0;
    std::memcpy(&word, name.data() + i, 8);
    h = (h ^ (word | kFold)) * 0x9E3779B97F4A7C15ULL;
  }
  if (i < name.size()) {
    uint64_t word = 0;
    std::memcpy(&word, name.data() + i, name.size() - i);
    h = (h ^ (word | kFold)) * 0x9E3779B97F4A7C15ULL;
  }
  return h ^ (h >> 29);
}

// `lower` is already lower case.
bool equals_lower(std::string_view lower, std::string_view name) {
  if (lower.size() != name.size()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    if (ascii_lower(name[i]) != lower[i]) return false;
  }
  return true;
}

}  // namespace

void CommandTable::add(const CommandSpec& spec) {
  if (Entry* existing = find_entry(spec.name)) {
    existing->spec = spec;  // registered again: the last one wins
    return;
  }
  const uint64_t hash = name_hash(spec.name);
  // Subcommands may have been registered before their container.
  bool container = false;
  for (const Container& c : containers_) container = container || c.name == spec.name;
  entries_.push_back(std::make_unique<Entry>(
      Entry{spec, hash, static_cast<uint32_t>(entries_.size()), container}));
  // At most half full, so a miss ends at an empty slot after a probe or two.
  if (slots_.size() < entries_.size() * 2) {
    rehash();
  } else {
    const size_t mask = slots_.size() - 1;
    size_t i = hash & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = static_cast<uint32_t>(entries_.size());
  }
}

void CommandTable::rehash() {
  size_t size = 16;
  while (size < entries_.size() * 4) size *= 2;
  slots_.assign(size, 0);
  const size_t mask = size - 1;
  for (size_t e = 0; e < entries_.size(); ++e) {
    size_t i = entries_[e]->hash & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = static_cast<uint32_t>(e + 1);
  }
}

CommandTable::Entry* CommandTable::find_entry(std::string_view name) const {
  if (slots_.empty()) return nullptr;
  const uint64_t hash = name_hash(name);
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask; slots_[i] != 0; i = (i + 1) & mask) {
    Entry& entry = *entries_[slots_[i] - 1];
    if (entry.hash == hash && equals_lower(entry.spec.name, name)) return &entry;
  }
  return nullptr;
}

const CommandSpec* CommandTable::find(std::string_view name) const {
  const Entry* entry = find_entry(name);
  return entry == nullptr ? nullptr : &entry->spec;
}

CommandTable::Lookup CommandTable::lookup(std::string_view name) const {
  const Entry* entry = find_entry(name);
  if (entry == nullptr) return Lookup{};
  return Lookup{&entry->spec, entry->index, entry->container};
}

void CommandTable::add_subcommands(std::string_view container,
                                   std::span<const SubcommandSpec> subs) {
  Entry* entry = find_entry(container);
  if (entry != nullptr) entry->container = true;
  // The name is kept as the registered spec's (so container_of can compare
  // pointers first); a container not registered keeps the caller's view.
  std::string_view name = entry != nullptr ? entry->spec.name : container;
  for (Container& c : containers_) {
    if (c.name == name) {
      c.subs = subs;
      return;
    }
  }
  containers_.push_back(Container{name, subs});
}

const CommandTable::Container* CommandTable::container_of(const CommandSpec& spec) const {
  // Called for every command a script runs: the size and first letter
  // rule out nearly every name before a full comparison.
  const std::string_view name = spec.name;
  for (const Container& c : containers_) {
    if (c.name.data() == name.data()) return &c;
    if (c.name.size() == name.size() && !name.empty() && c.name[0] == name[0] && c.name == name) {
      return &c;
    }
  }
  return nullptr;
}

std::span<const SubcommandSpec> CommandTable::subcommands(const CommandSpec& spec) const {
  const Container* container = container_of(spec);
  return container != nullptr ? container->subs : std::span<const SubcommandSpec>();
}

bool CommandTable::has_subcommands(const CommandSpec& spec) const {
  return container_of(spec) != nullptr;
}

const SubcommandSpec* CommandTable::find_subcommand(const CommandSpec& spec,
                                                    std::string_view sub) const {
  const Container* container = container_of(spec);
  if (container == nullptr) return nullptr;
  for (const SubcommandSpec& s : container->subs) {
    if (equals_lower(s.name, sub)) return &s;
  }
  return nullptr;
}

}  // namespace redsim::sim
