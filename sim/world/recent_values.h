// The last two values a source recorded in the history (a link's commands,
// a process's trace lines): a lock sends the same few again and again, and
// finds them here without hashing them for the history's tables. Internal:
// not installed.
#pragma once

#include <cstddef>
#include <cstdint>

namespace redsim::world::detail {

template <typename V>
class RecentValues {
 public:
  // The remembered value equal to `x`, or nullptr.
  template <typename T>
  const V* find(const T& x) const {
    for (size_t i = 0; i < filled_; ++i) {
      if (slots_[i] == x) return &slots_[i];
    }
    return nullptr;
  }
  // Remembers `v` in place of the older of the two.
  void remember(const V& v) {
    slots_[next_] = v;
    next_ ^= 1;
    if (filled_ < 2) ++filled_;
  }

 private:
  V slots_[2];
  uint8_t next_ = 0;
  uint8_t filled_ = 0;
};

}  // namespace redsim::world::detail
