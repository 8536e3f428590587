#include "sim/config_rewrite.h"

#include <cstdio>
#include <map>
#include <set>

#include "base/split_args.h"

namespace redsim::sim {

namespace {

std::string_view trim(std::string_view s) {
  constexpr std::string_view kBlank = " \t\r\n";
  size_t from = s.find_first_not_of(kBlank);
  if (from == std::string_view::npos) return {};
  size_t to = s.find_last_not_of(kBlank);
  return s.substr(from, to - from + 1);
}

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace

std::string rewrite_config_text(
    std::string_view old_text, std::span<const ConfigRewriteEntry> entries,
    std::span<const std::pair<std::string_view, std::string_view>> aliases) {
  // rewriteConfigReadOldFile: an empty file has no lines at all.
  std::vector<std::string> lines;
  std::map<std::string, std::vector<size_t>, std::less<>> option_lines;  // in file order
  bool needs_signature = true;
  for (size_t from = 0; !old_text.empty() && from <= old_text.size();) {
    size_t nl = old_text.find('\n', from);
    std::string_view raw =
        old_text.substr(from, nl == std::string_view::npos ? std::string_view::npos : nl - from);
    from = nl == std::string_view::npos ? old_text.size() + 1 : nl + 1;
    std::string_view line = trim(raw);
    if (line.empty() || line[0] == '#') {
      if (line == kConfigRewriteSignature) needs_signature = false;
      lines.emplace_back(line);
      continue;
    }
    auto words = base::split_args(line);
    if (!words || words->empty()) {
      lines.push_back("# ??? " + std::string(line));
      continue;
    }
    std::string option = ascii_lower((*words)[0]);
    for (const auto& [alias, name] : aliases) {
      if (option == alias) option = std::string(name);
    }
    option_lines[option].push_back(lines.size());
    lines.emplace_back(line);
  }
  // rewriteConfigRewriteLine for each line, rewriteConfigMarkAsProcessed
  // for each entry.
  std::set<std::string, std::less<>> processed;
  for (const ConfigRewriteEntry& e : entries) {
    processed.insert(e.option);
    for (const std::string& line : e.lines) {
      auto it = option_lines.find(e.option);
      if (it != option_lines.end() && !it->second.empty()) {
        lines[it->second.front()] = line;
        it->second.erase(it->second.begin());
        continue;
      }
      if (!e.force) continue;  // no old line left for it
      if (needs_signature) {
        lines.emplace_back(kConfigRewriteSignature);
        needs_signature = false;
      }
      lines.push_back(line);
    }
  }
  // rewriteConfigRemoveOrphaned: the processed options' unused lines.
  for (const auto& [option, numbers] : option_lines) {
    if (!processed.contains(option)) continue;
    for (size_t n : numbers) lines[n].clear();
  }
  // rewriteConfigGetContentFromState.
  std::string out;
  bool was_empty = false;
  for (const std::string& line : lines) {
    if (line.empty()) {
      if (was_empty) continue;
      was_empty = true;
    } else {
      was_empty = false;
    }
    out += line;
    out += '\n';
  }
  return out;
}

std::string config_repr(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      default: {
        auto u = static_cast<unsigned char>(c);
        if (u >= 0x20 && u < 0x7f) {
          out += c;
        } else {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", u);
          out += buf;
        }
      }
    }
  }
  out += '"';
  return out;
}

std::string config_format_memory(long long bytes) {
  constexpr long long kKb = 1024, kMb = kKb * 1024, kGb = kMb * 1024;
  if (bytes != 0 && bytes % kGb == 0) return std::to_string(bytes / kGb) + "gb";
  if (bytes != 0 && bytes % kMb == 0) return std::to_string(bytes / kMb) + "mb";
  if (bytes != 0 && bytes % kKb == 0) return std::to_string(bytes / kKb) + "kb";
  return std::to_string(bytes);
}

}  // namespace redsim::sim
