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

std::string format_schedule(const std::vector<uint32_t>& choices,
                            const std::vector<uint64_t>& narrow) {
  std::string out;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (choices[i] == 0) continue;
    if (!out.empty()) out += ',';
    out += std::to_string(i) + "=" + std::to_string(choices[i]);
    // Only the options before the chosen one sleep, so only their bits count.
    const uint64_t below = choices[i] >= 64 ? ~uint64_t{0} : (uint64_t{1} << choices[i]) - 1;
    if (i < narrow.size() && (narrow[i] & below) != 0) {
      out += "/" + std::to_string(narrow[i] & below);
    }
  }
  return out;
}

std::vector<uint32_t> parse_schedule(const std::string& text, std::vector<uint64_t>* narrow) {
  std::vector<uint32_t> out;
  std::vector<uint64_t> masks;
  size_t at = 0;
  while (at < text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string_view item(text.data() + at, comma - at);
    const size_t eq = item.find('=');
    const size_t slash = std::min(item.find('/'), item.size());
    size_t pos = 0;
    uint32_t option = 0;
    uint64_t mask = 0;
    const char* end = item.data() + item.size();
    const bool ok =
        eq != std::string_view::npos && eq < slash &&
        std::from_chars(item.data(), item.data() + eq, pos).ec == std::errc() &&
        std::from_chars(item.data() + eq + 1, item.data() + slash, option).ec == std::errc() &&
        (slash == item.size() ||
         (slash + 1 < item.size() &&
          std::from_chars(item.data() + slash + 1, end, mask).ec == std::errc() && mask != 0)) &&
        pos < 100000 && (out.empty() || pos >= out.size());
    if (!ok) throw std::invalid_argument("bad schedule entry '" + std::string(item) + "'");
    out.resize(pos + 1, 0);
    out[pos] = option;
    masks.resize(pos + 1, 0);
    masks[pos] = mask;
    at = comma + 1;
  }
  if (narrow != nullptr) *narrow = std::move(masks);
  return out;
}

}  // namespace redsim::world
