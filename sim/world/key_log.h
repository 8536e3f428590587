// The key log of the lock-key checkers (lock_key_checkers.cc): one pass
// over a history that rebuilds the owner marks of every tracked key on
// every server, and the writes to a key its owner did not make. Internal:
// not installed.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/world/checkers.h"
#include "sim/world/history.h"

namespace redsim::world::detail {

inline constexpr int64_t kForever = std::numeric_limits<int64_t>::max();

// A lock owner as the key log knows it: a process incarnation (a restart
// is a new client id, so a new owner) and the task that wrote the mark.
struct Who {
  ProcessId process = 0;
  uint32_t incarnation = 0;
  TaskId task = 0;
};

inline bool same_owner(const Who& a, const Who& b) {
  return a.process == b.process && a.incarnation == b.incarnation;
}

// "c3/1", with " (after restart 2)" for a later incarnation.
std::string who_name(const Who& w);

struct Mark {
  std::string text;
  int32_t server = 0;
  std::string key;
  Who owner;
  int64_t from_us = 0;
  size_t created = 0;              // the kKeyState event that first showed it
  int64_t to_us = kForever;        // when it ended; kForever: still there at the end
  std::optional<size_t> ended_by;  // the event that removed it (none: its deadline passed)
  bool orphaned = false;           // written by a command its caller no longer waited for
  // From when its key had no deadline while holding it (kForever: never):
  // a lock that can no longer expire, which no error excuses.
  int64_t persistent_from_us = kForever;
};

struct KeyLog {
  std::vector<Mark> marks;
  std::vector<Violation> foreign_writes;
};

// Every owner mark of every tracked key, and the foreign writes.
KeyLog read_key_log(const History& h);

}  // namespace redsim::world::detail
