#include "sim/world/schedule.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <string_view>

namespace redsim::world {

uint32_t Chooser::choose(uint32_t options, bool tie, ChoiceKind kind, uint32_t owner) {
  uint32_t chosen = 0;
  if (points_.size() < prefix_.size()) chosen = std::min(prefix_[points_.size()], options - 1);
  points_.push_back(
      ChoicePoint{.options = options, .chosen = chosen, .tie = tie, .kind = kind, .owner = owner});
  return chosen;
}

std::string format_schedule(const std::vector<uint32_t>& choices) {
  std::string out;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (choices[i] == 0) continue;
    if (!out.empty()) out += ',';
    out += std::to_string(i) + "=" + std::to_string(choices[i]);
  }
  return out;
}

std::vector<uint32_t> parse_schedule(const std::string& text) {
  std::vector<uint32_t> out;
  size_t at = 0;
  while (at < text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string_view item(text.data() + at, comma - at);
    const size_t eq = item.find('=');
    size_t pos = 0;
    uint32_t option = 0;
    const bool ok = eq != std::string_view::npos &&
                    std::from_chars(item.data(), item.data() + eq, pos).ec == std::errc() &&
                    std::from_chars(item.data() + eq + 1, item.data() + item.size(), option).ec ==
                        std::errc() &&
                    pos < 100000 && (out.empty() || pos >= out.size());
    if (!ok) throw std::invalid_argument("bad schedule entry '" + std::string(item) + "'");
    out.resize(pos + 1, 0);
    out[pos] = option;
    at = comma + 1;
  }
  return out;
}

}  // namespace redsim::world
