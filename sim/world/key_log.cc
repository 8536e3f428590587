// The key log of the lock-key checkers: see key_log.h.
#include "sim/world/key_log.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/world/checker_util.h"

namespace redsim::world::detail {

namespace {

// Whether a command's arguments name `mark`: equal to an argument, or
// containing one of 8 bytes or more (a token inside "token:expiry"). The
// command name, and EVAL's script body, do not count.
bool names_mark(const std::vector<std::string>& argv, std::string_view mark) {
  size_t first = 1;
  if (!argv.empty() && (argv[0] == "EVAL" || argv[0] == "eval" || argv[0] == "EVAL_RO")) first = 2;
  for (size_t i = first; i < argv.size(); ++i) {
    if (argv[i] == mark) return true;
    if (argv[i].size() >= 8 && mark.find(argv[i]) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace

std::string who_name(const Who& w) {
  std::string out = "c" + std::to_string(w.process) + "/" + std::to_string(w.task);
  if (w.incarnation > 0) out += " (after restart " + std::to_string(w.incarnation) + ")";
  return out;
}

KeyLog read_key_log(const History& h) {
  KeyLog out;
  struct Live {
    bool present = false;
    int64_t deadline_us = -1;
    std::vector<std::string> texts;  // the whole content
    std::vector<size_t> marks;       // indices into out.marks of its owner marks
  };
  std::map<std::pair<int32_t, std::string>, Live> keys;
  // Marks of a server that crashed, kept until its keys are seen again.
  struct Suspended {
    int64_t crashed_at_us = 0;
    int64_t deadline_us = -1;
    std::vector<size_t> marks;
  };
  std::map<std::pair<int32_t, std::string>, Suspended> suspended;
  std::map<int32_t, int64_t> down_since;  // server -> crash time
  std::map<ProcessId, uint32_t> incarnation;
  std::map<int32_t, size_t> last_command;  // server -> its latest kCommand

  auto end_mark = [&](size_t m, int64_t t, std::optional<size_t> by) {
    out.marks[m].to_us = t;
    out.marks[m].ended_by = by;
  };
  // A deadline passes between two looks at the key: its marks end there.
  auto expire = [&](Live& k, int64_t t) {
    if (!k.present || k.deadline_us < 0 || k.deadline_us >= t) return;
    for (size_t m : k.marks) end_mark(m, k.deadline_us, std::nullopt);
    k = Live{};
  };
  auto resolve_suspended = [&](const std::pair<int32_t, std::string>& id, const Live& now_live,
                               int64_t t, std::vector<size_t>& restored) {
    auto it = suspended.find(id);
    if (it == suspended.end()) return;
    for (size_t m : it->second.marks) {
      const bool back = now_live.present && std::ranges::find(now_live.texts, out.marks[m].text) !=
                                                now_live.texts.end();
      if (back) {
        restored.push_back(m);
      } else {
        // Expired while the server was down, or lost with its data.
        const int64_t deadline = it->second.deadline_us;
        const int64_t end = deadline >= 0 && deadline < t
                                ? std::max(deadline, it->second.crashed_at_us)
                                : it->second.crashed_at_us;
        end_mark(m, end, std::nullopt);
      }
    }
    suspended.erase(it);
  };

  for (size_t i = 0; i < h.size(); ++i) {
    const HistoryEvent& e = h[i];
    switch (e.kind) {
      case EventKind::kProcessRestart:
        ++incarnation[e.process];
        continue;
      case EventKind::kCommand:
        if (e.server >= 0) last_command[e.server] = i;
        continue;
      case EventKind::kServerCrash:
        if (e.server >= 0) down_since[e.server] = e.t_us;
        continue;
      case EventKind::kServerRestart:
      case EventKind::kFailover:
        down_since.erase(e.server);
        continue;
      case EventKind::kKeyState:
        break;
      default:
        continue;
    }
    const auto id = std::make_pair(e.server, e.resource);
    Live& k = keys[id];
    expire(k, e.t_us);
    Live next;
    next.present = e.key_state != KeyPresence::kAbsent;
    if (next.present) {
      next.texts = e.argv;
      next.deadline_us = e.key_state == KeyPresence::kLease ? e.value : -1;
    }
    // A server that is down shows its keys as absent: their marks wait for
    // the restart (AOF may bring them back) instead of ending.
    if (!next.present && e.process == 0 && down_since.contains(e.server)) {
      Suspended& s = suspended[id];
      s.crashed_at_us = down_since[e.server];
      s.deadline_us = k.deadline_us;
      s.marks.insert(s.marks.end(), k.marks.begin(), k.marks.end());
      k = Live{};
      continue;
    }
    std::vector<size_t> restored;
    resolve_suspended(id, next, e.t_us, restored);

    const HistoryEvent* command = nullptr;
    if (e.process != 0) {
      auto c = last_command.find(e.server);
      if (c != last_command.end() && h[c->second].process == e.process) command = &h[c->second];
    }
    // The sender's incarnation is the command's own (it may have been sent
    // before a restart that came while it travelled).
    const Who writer{e.process,
                     command != nullptr ? static_cast<uint32_t>(command->value)
                     : e.process != 0   ? incarnation[e.process]
                                        : 0,
                     e.task};
    auto in_next = [&next](const std::string& text) {
      return std::ranges::find(next.texts, text) != next.texts.end();
    };
    auto in_before = [&k](const std::string& text) {
      return std::ranges::find(k.texts, text) != k.texts.end();
    };

    // Foreign write: judged against the state before the command.
    if (command != nullptr) {
      std::vector<size_t> others;
      bool writer_had = false;
      for (size_t m : k.marks) {
        if (same_owner(out.marks[m].owner, writer)) {
          writer_had = true;
        } else {
          others.push_back(m);
        }
      }
      if (!others.empty() && !writer_had) {
        std::optional<size_t> victim;
        for (size_t m : others) {
          if (!in_next(out.marks[m].text) && !victim) victim = m;
        }
        bool adds_own = false;
        for (const std::string& text : next.texts) {
          adds_own = adds_own || (!in_before(text) && names_mark(command->argv, text));
        }
        const bool expiry_changed = next.present && next.deadline_us != k.deadline_us;
        std::string what;
        size_t about = others.front();
        if (victim) {
          about = *victim;
          what = next.present ? "overwrote" : "deleted";
        } else if (expiry_changed && !adds_own) {
          what = next.deadline_us < 0 ? "made persistent" : "changed the expiry of";
        }
        if (!what.empty()) {
          const Mark& v = out.marks[about];
          out.foreign_writes.push_back(make_violation(
              h, "foreign-write",
              "t=" + format_time_ms(e.t_us) + " " + who_name(writer) + " " + what + " " +
                  e.resource + (h.server_count() > 1 ? " on s" + std::to_string(e.server) : "") +
                  ", which held " + who_name(v.owner) + "'s lock (" + format_argv({v.text}, 24) +
                  ", set at t=" + format_time_ms(v.from_us) +
                  "): " + format_argv(command->argv, 24),
              {v.created, static_cast<size_t>(command - &h[0]), i}));
        }
      }
    }

    // The marks after the change.
    std::vector<size_t> kept;
    for (size_t m : k.marks) {
      if (in_next(out.marks[m].text)) {
        kept.push_back(m);
      } else {
        end_mark(m, e.t_us, i);
      }
    }
    for (size_t m : restored) kept.push_back(m);
    for (const std::string& text : next.texts) {
      if (in_before(text) || command == nullptr || !names_mark(command->argv, text)) continue;
      if (std::ranges::any_of(kept, [&](size_t m) { return out.marks[m].text == text; })) continue;
      Mark mark;
      mark.text = text;
      mark.server = e.server;
      mark.key = e.resource;
      mark.owner = writer;
      mark.from_us = e.t_us;
      mark.created = i;
      mark.orphaned = command->orphaned;
      kept.push_back(out.marks.size());
      out.marks.push_back(std::move(mark));
    }
    for (size_t m : kept) {
      if (next.present && next.deadline_us < 0 && out.marks[m].persistent_from_us == kForever) {
        out.marks[m].persistent_from_us = e.t_us;
      }
    }
    next.marks = std::move(kept);
    k = std::move(next);
  }
  for (auto& [id, k] : keys) expire(k, h.end_us());
  for (auto& [id, s] : suspended) {
    for (size_t m : s.marks) end_mark(m, s.crashed_at_us, std::nullopt);
  }
  return out;
}

}  // namespace redsim::world::detail
