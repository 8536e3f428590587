// The lock-key checkers of checkers.h: foreign writes, ghost locks, holders
// past their lease. One pass over the history (read_key_log) rebuilds the
// owner marks of every tracked key on every server; the checkers read it.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/world/checker_util.h"
#include "sim/world/checkers.h"

namespace redsim::world {

namespace {

using detail::ends_process;
using detail::make_violation;
using detail::paused_spans;

constexpr int64_t kForever = std::numeric_limits<int64_t>::max();

// A lock owner as the key log knows it: a process incarnation (a restart
// is a new client id, so a new owner) and the task that wrote the mark.
struct Who {
  ProcessId process = 0;
  uint32_t incarnation = 0;
  TaskId task = 0;
};

bool same_owner(const Who& a, const Who& b) {
  return a.process == b.process && a.incarnation == b.incarnation;
}

std::string who_name(const Who& w) {
  std::string out = "c" + std::to_string(w.process) + "/" + std::to_string(w.task);
  if (w.incarnation > 0) out += " (after restart " + std::to_string(w.incarnation) + ")";
  return out;
}

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

// [from, to) stretches, sorted and merged.
using Stretches = std::vector<std::pair<int64_t, int64_t>>;

Stretches merged(Stretches s) {
  std::ranges::sort(s);
  Stretches out;
  for (const auto& [from, to] : s) {
    if (!out.empty() && from <= out.back().second) {
      out.back().second = std::max(out.back().second, to);
    } else {
      out.emplace_back(from, to);
    }
  }
  return out;
}

// The first time in [from, to) not covered by `cover` (merged), if any.
std::optional<int64_t> first_gap(const Stretches& cover, int64_t from, int64_t to) {
  int64_t t = from;
  for (const auto& [a, b] : cover) {
    if (b <= t) continue;
    if (a > t) break;
    t = b;
    if (t >= to) return std::nullopt;
  }
  return t < to ? std::optional<int64_t>(t) : std::nullopt;
}

}  // namespace

std::vector<Violation> check_foreign_writes(const History& h) {
  return read_key_log(h).foreign_writes;
}

namespace {

// What each owner task's workload said it holds, over time: "clean"
// stretches (its last acquire gave up or its last unlock released: it holds
// nothing and knows it) and "excused" ones (its last acquire or unlock
// failed with an error or did not release: it was told the outcome is
// unknown), each with the event that began it.
struct Stretch {
  int64_t from;
  int64_t to;
  size_t began;
};
struct TaskState {
  bool judged = false;  // recorded an acquire or unlock outcome
  enum class Mode : uint8_t { kBusy, kClean, kExcused } mode = Mode::kBusy;
  int64_t since = 0;
  size_t began = 0;
  std::vector<Stretch> clean;
  std::vector<Stretch> excused;
};
using TaskKey = std::tuple<ProcessId, uint32_t, TaskId>;

std::map<TaskKey, TaskState> task_states(const History& h) {
  std::map<TaskKey, TaskState> tasks;
  std::map<ProcessId, uint32_t> incarnation;
  auto set_mode = [](TaskState& s, TaskState::Mode mode, int64_t t, size_t i) {
    if (s.mode == TaskState::Mode::kClean) s.clean.push_back(Stretch{s.since, t, s.began});
    if (s.mode == TaskState::Mode::kExcused) s.excused.push_back(Stretch{s.since, t, s.began});
    s.mode = mode;
    s.since = t;
    s.began = i;
  };
  for (size_t i = 0; i < h.size(); ++i) {
    const HistoryEvent& e = h[i];
    if (e.kind == EventKind::kProcessRestart) {
      ++incarnation[e.process];
      continue;
    }
    if (e.kind == EventKind::kProcessCrash) {
      // A crashed holder explains its key until the lease ends (excused_holds
      // counts it as held for liveness only while the key has a deadline: a
      // key that outlives a crash for good is the bug of SETNX-then-EXPIRE).
      for (auto& [id, s] : tasks) {
        if (std::get<0>(id) == e.process && std::get<1>(id) == incarnation[e.process]) {
          set_mode(s, TaskState::Mode::kBusy, e.t_us, i);
        }
      }
      continue;
    }
    if (e.process == 0) continue;
    TaskState& s = tasks[{e.process, incarnation[e.process], e.task}];
    switch (e.kind) {
      case EventKind::kAcquireStart:
      case EventKind::kEnterCritical:
      case EventKind::kLeaveCritical:
        set_mode(s, TaskState::Mode::kBusy, e.t_us, i);
        break;
      case EventKind::kAcquireEnd:
        s.judged = true;
        set_mode(s,
                 e.value == 0   ? TaskState::Mode::kClean
                 : e.value == 2 ? TaskState::Mode::kExcused
                                : TaskState::Mode::kBusy,
                 e.t_us, i);
        break;
      case EventKind::kUnlockEnd:
        s.judged = true;
        set_mode(s,
                 static_cast<UnlockOutcome>(e.value) == UnlockOutcome::kReleased
                     ? TaskState::Mode::kClean
                     : TaskState::Mode::kExcused,
                 e.t_us, i);
        break;
      default:
        break;
    }
  }
  for (auto& [id, s] : tasks) set_mode(s, TaskState::Mode::kBusy, h.end_us(), h.size());
  return tasks;
}

}  // namespace

std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> excused_holds(const History& h) {
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> out;
  const KeyLog log = read_key_log(h);
  if (log.marks.empty()) return out;
  const auto tasks = task_states(h);
  // When each incarnation of a process crashed.
  std::map<std::pair<ProcessId, uint32_t>, int64_t> crashed;
  std::map<ProcessId, uint32_t> incarnation;
  for (const HistoryEvent& e : h.events()) {
    if (e.kind == EventKind::kProcessRestart) ++incarnation[e.process];
    if (e.kind == EventKind::kProcessCrash) {
      crashed.try_emplace({e.process, incarnation[e.process]}, e.t_us);
    }
  }
  for (const Mark& m : log.marks) {
    // A key without a deadline is a lock that never frees: not excused.
    const int64_t mark_end = std::min({m.to_us, h.end_us(), m.persistent_from_us});
    if (m.orphaned) {
      out[m.key].emplace_back(m.from_us, mark_end);
      continue;
    }
    // A crashed owner's mark that can still expire: nobody can take the lock
    // until its lease ends, so it is held, not free (two owners that crash
    // one after the other while acquiring cost two leases, more than any
    // bound of one lease covers).
    if (auto c = crashed.find({m.owner.process, m.owner.incarnation}); c != crashed.end()) {
      const int64_t from = std::max(c->second, m.from_us);
      if (from < mark_end) out[m.key].emplace_back(from, mark_end);
    }
    auto it = tasks.find({m.owner.process, m.owner.incarnation, m.owner.task});
    if (it == tasks.end()) continue;
    for (const Stretch& x : it->second.excused) {
      const int64_t from = std::max(x.from, m.from_us);
      const int64_t to = std::min(x.to, mark_end);
      if (from < to) out[m.key].emplace_back(from, to);
    }
  }
  for (auto& [key, list] : out) list = merged(std::move(list));
  return out;
}

std::vector<Violation> check_ghost_locks(const History& h, const GhostLockOptions& options) {
  const KeyLog log = read_key_log(h);
  if (log.marks.empty()) return {};
  const auto tasks = task_states(h);
  const auto paused = paused_spans(h);
  // With several servers (a Redlock-style lock) a key on a minority of them
  // keeps nobody out: a ghost is a stretch in which a quorum of the servers
  // hold unexplained marks of the key at once (as check_held_past_lease
  // judges a majority). A failed attempt whose release could not reach one
  // server leaves its key there until the lease ends, and Redlock goes on
  // (antirez, "Distributed locks with Redis": the keys expire). The servers
  // counted are those the workload sent commands naming the key to (or its
  // marks were on): a lock on one server of a world with several is judged
  // as on one; a Redlock that reached one server of five, as on five.
  std::map<std::string, std::set<int32_t>> servers_of_key;
  for (const Mark& m : log.marks) servers_of_key[m.key].insert(m.server);
  for (const HistoryEvent& e : h.events()) {
    if (e.kind != EventKind::kCommand || e.server < 0) continue;
    for (size_t i = 1; i < e.argv.size(); ++i) {
      if (auto it = servers_of_key.find(e.argv[i]); it != servers_of_key.end()) {
        it->second.insert(e.server);
      }
    }
  }
  auto quorum_of = [&servers_of_key](const std::string& key) -> size_t {
    const size_t n = servers_of_key[key].size();
    return n > 1 ? n / 2 + 1 : 1;
  };
  struct Piece {
    int64_t from;
    int64_t to;
    const Mark* mark;
    size_t began;  // the event that began the owner's clean stretch
  };
  std::map<std::string, std::vector<Piece>> by_key;  // keys on several servers only

  std::vector<Violation> out;
  for (const Mark& m : log.marks) {
    if (m.orphaned) continue;  // nobody decided it: its caller had given up
    auto it = tasks.find({m.owner.process, m.owner.incarnation, m.owner.task});
    if (it == tasks.end() || !it->second.judged) continue;
    const int64_t mark_end = std::min(m.to_us, h.end_us());
    Stretches pauses;
    if (auto p = paused.find(m.owner.process); p != paused.end()) {
      for (const auto& span : p->second) pauses.emplace_back(span.from, span.to);
    }
    pauses = merged(std::move(pauses));
    for (const Stretch& c : it->second.clean) {
      // The unexplained part of this clean stretch while the mark lives,
      // cut by pauses; the first piece longer than the bound is the ghost.
      const int64_t from = std::max(c.from, m.from_us);
      const int64_t to = std::min(c.to, mark_end);
      Stretches pieces;
      int64_t t = from;
      for (const auto& [a, b] : pauses) {
        if (b <= t) continue;
        if (a >= to) break;
        if (a > t) pieces.emplace_back(t, a);
        t = std::max(t, b);
        if (t >= to) break;
      }
      if (t < to) pieces.emplace_back(t, to);
      if (quorum_of(m.key) > 1) {
        for (const auto& [a, b] : pieces) by_key[m.key].push_back(Piece{a, b, &m, c.began});
        continue;
      }
      std::optional<std::pair<int64_t, int64_t>> ghost;
      for (const auto& piece : pieces) {
        if (piece.second - piece.first > options.bound_us) {
          ghost = piece;
          break;
        }
      }
      if (!ghost) continue;
      std::vector<size_t> events = {m.created, c.began};
      if (m.ended_by) events.push_back(*m.ended_by);
      out.push_back(make_violation(
          h, "ghost-lock",
          m.key + (h.server_count() > 1 ? " on s" + std::to_string(m.server) : "") + " held " +
              who_name(m.owner) + "'s mark " + format_argv({m.text}, 24) +
              " from t=" + format_time_ms(ghost->first) + " to t=" + format_time_ms(ghost->second) +
              " (longer than " + format_time_ms(options.bound_us) + ") while " + who_name(m.owner) +
              " was alive, not paused, and its " +
              (h[c.began].kind == EventKind::kAcquireEnd ? "acquire had given up"
                                                         : "unlock had said released") +
              ": nobody could take the lock",
          std::move(events)));
      break;
    }
  }
  for (const auto& [key, pieces] : by_key) {
    const size_t quorum = quorum_of(key);
    const size_t servers_used = servers_of_key[key].size();
    // The stretches in which a quorum of servers hold a piece, in time order.
    std::vector<int64_t> cuts;
    for (const Piece& p : pieces) {
      cuts.push_back(p.from);
      cuts.push_back(p.to);
    }
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    // A plain pair, not an optional: gcc 12 at -O1 (the TSan build) took the
    // optional's value for uninitialized.
    bool open = false;
    int64_t since = 0;
    std::vector<const Piece*> involved;
    for (size_t i = 0; i + 1 < cuts.size(); ++i) {
      std::set<int32_t> servers;
      std::vector<const Piece*> here;
      for (const Piece& p : pieces) {
        if (p.from <= cuts[i] && cuts[i + 1] <= p.to) {
          servers.insert(p.mark->server);
          here.push_back(&p);
        }
      }
      const bool held = servers.size() >= quorum;
      if (held) {
        if (!open) {
          open = true;
          since = cuts[i];
        }
        for (const Piece* p : here) {
          if (std::find(involved.begin(), involved.end(), p) == involved.end()) {
            involved.push_back(p);
          }
        }
      }
      const bool last = i + 2 == cuts.size();
      if (open && (!held || last)) {
        const int64_t until = held ? cuts[i + 1] : cuts[i];
        if (until - since > options.bound_us) {
          std::vector<size_t> events;
          std::string marks;
          for (const Piece* p : involved) {
            events.push_back(p->mark->created);
            events.push_back(p->began);
            marks += (marks.empty() ? "" : ", ") + std::string("s") +
                     std::to_string(p->mark->server) + " " + who_name(p->mark->owner) + "'s " +
                     format_argv({p->mark->text}, 24);
          }
          std::sort(events.begin(), events.end());
          events.erase(std::unique(events.begin(), events.end()), events.end());
          out.push_back(make_violation(
              h, "ghost-lock",
              key + " held marks on a quorum (" + std::to_string(quorum) + " of " +
                  std::to_string(servers_used) + ") of servers from t=" + format_time_ms(since) +
                  " to t=" + format_time_ms(until) + " (longer than " +
                  format_time_ms(options.bound_us) + ") whose owners were alive, not paused, and " +
                  "said they held nothing (" + marks + "): nobody could take the lock",
              std::move(events)));
          break;
        }
        open = false;
        involved.clear();
      }
    }
  }
  return out;
}

std::vector<Violation> check_held_past_lease(const History& h) {
  const KeyLog log = read_key_log(h);
  if (log.marks.empty()) return {};
  const size_t quorum = h.server_count() > 1 ? h.server_count() / 2 + 1 : 1;
  std::set<std::string> judged;
  for (const Mark& m : log.marks) judged.insert(m.key);

  struct Section {
    Who who;
    std::string resource;
    int64_t from;
    int64_t to;
    size_t enter;
    bool fenced = false;
  };
  std::vector<Section> sections;
  std::map<std::tuple<ProcessId, TaskId, std::string>, std::pair<int, size_t>> open;  // depth, idx
  std::map<ProcessId, uint32_t> incarnation;
  auto finish = [&](size_t idx, int64_t t) { sections[idx].to = t; };
  for (size_t i = 0; i < h.size(); ++i) {
    const HistoryEvent& e = h[i];
    if (e.kind == EventKind::kProcessRestart) {
      ++incarnation[e.process];
    } else if (e.kind == EventKind::kEnterCritical) {
      auto& [depth, idx] = open[{e.process, e.task, e.resource}];
      if (depth++ == 0) {
        idx = sections.size();
        sections.push_back(Section{Who{e.process, incarnation[e.process], e.task}, e.resource,
                                   e.t_us, kForever, i});
      }
    } else if (e.kind == EventKind::kLeaveCritical) {
      auto it = open.find({e.process, e.task, e.resource});
      if (it == open.end()) continue;
      if (--it->second.first <= 0) {
        finish(it->second.second, e.t_us);
        open.erase(it);
      }
    } else if (ends_process(e.kind)) {
      for (auto it = open.begin(); it != open.end();) {
        if (std::get<0>(it->first) == e.process) {
          finish(it->second.second, e.t_us);
          it = open.erase(it);
        } else {
          ++it;
        }
      }
    } else if (e.kind == EventKind::kFencedWrite) {
      for (auto& [id, o] : open) {
        if (std::get<0>(id) == e.process && std::get<1>(id) == e.task) {
          sections[o.second].fenced = true;
        }
      }
    }
  }

  std::vector<Violation> out;
  for (Section& s : sections) {
    s.to = std::min(s.to, h.end_us());
    if (s.fenced || !judged.contains(s.resource) || s.to <= s.from) continue;
    // Per server, when the holder's marks were live; then when a quorum was.
    std::map<int32_t, Stretches> per_server;
    std::map<std::pair<int32_t, int64_t>, const Mark*> ended_at;  // for the excerpt
    for (const Mark& m : log.marks) {
      if (m.key != s.resource || !same_owner(m.owner, s.who)) continue;
      per_server[m.server].emplace_back(m.from_us, m.to_us);
      ended_at[{m.server, m.to_us}] = &m;
    }
    Stretches cover;
    if (quorum == 1) {
      for (auto& [server, st] : per_server) cover.insert(cover.end(), st.begin(), st.end());
      cover = merged(std::move(cover));
    } else {
      // Sweep the boundaries: covered while >= quorum servers are.
      std::vector<std::pair<int64_t, int>> edges;
      for (auto& [server, st] : per_server) {
        for (const auto& [a, b] : merged(st)) {
          edges.emplace_back(a, 1);
          if (b != kForever) edges.emplace_back(b, -1);
        }
      }
      std::ranges::sort(edges);
      int live = 0;
      int64_t since = 0;
      for (const auto& [t, d] : edges) {
        const bool was = live >= static_cast<int>(quorum);
        live += d;
        const bool is = live >= static_cast<int>(quorum);
        if (!was && is) since = t;
        if (was && !is) cover.emplace_back(since, t);
      }
      if (live >= static_cast<int>(quorum)) cover.emplace_back(since, kForever);
    }
    const std::optional<int64_t> gap = first_gap(cover, s.from, s.to);
    if (!gap) continue;
    std::vector<size_t> events = {s.enter};
    std::string why = "it held no mark on " + s.resource + " when it entered";
    for (const auto& [at, m] : ended_at) {
      if (at.second != *gap) continue;
      why = "its mark " + format_argv({m->text}, 24) +
            (m->ended_by ? std::string(" was removed at t=")
                         : std::string(" expired (lease ended) at t=")) +
            format_time_ms(*gap);
      if (m->ended_by) {
        events.push_back(*m->ended_by);
        // The command that removed it, just before the key's new state.
        if (*m->ended_by > 0 && h[*m->ended_by - 1].kind == EventKind::kCommand) {
          events.push_back(*m->ended_by - 1);
        }
      } else {
        events.push_back(m->created);
      }
      break;
    }
    out.push_back(
        make_violation(h, "held-past-lease",
                       who_name(s.who) + " was inside " + s.resource +
                           " from t=" + format_time_ms(s.from) + " to t=" + format_time_ms(s.to) +
                           " but its lock was gone from t=" + format_time_ms(*gap) + ": " + why,
                       std::move(events)));
  }
  return out;
}

}  // namespace redsim::world

namespace redsim::world {

std::vector<Violation> check_fenced_order(const History& h) {
  const KeyLog log = read_key_log(h);
  if (log.marks.empty()) return {};
  std::map<std::string, std::vector<const Mark*>> by_key;
  for (const Mark& m : log.marks) by_key[m.key].push_back(&m);
  // When `who` took the lock on `key` that it holds at `t`: the newest of
  // its marks there that is live at t (on any server).
  auto acquired_at = [&](const std::string& key, const Who& who,
                         int64_t t) -> std::optional<std::pair<int64_t, size_t>> {
    std::optional<std::pair<int64_t, size_t>> best;
    auto it = by_key.find(key);
    if (it == by_key.end()) return best;
    for (const Mark* m : it->second) {
      if (!same_owner(m->owner, who) || m->from_us > t || m->to_us <= t) continue;
      if (!best || m->from_us > best->first) best = std::make_pair(m->from_us, m->created);
    }
    return best;
  };
  struct Open {
    int depth = 0;
    std::optional<std::pair<int64_t, size_t>> acquired;  // time, event
  };
  std::map<std::tuple<ProcessId, TaskId>, Open> open;
  std::map<ProcessId, uint32_t> incarnation;
  struct Newest {
    int64_t acquired_us;
    Who who;
    size_t write_event;
    size_t acquired_event;
  };
  std::map<std::string, Newest> newest;  // per fenced resource
  std::vector<Violation> out;
  for (size_t i = 0; i < h.size(); ++i) {
    const HistoryEvent& e = h[i];
    if (e.kind == EventKind::kProcessRestart) {
      ++incarnation[e.process];
    } else if (e.kind == EventKind::kEnterCritical) {
      Open& o = open[{e.process, e.task}];
      if (o.depth++ == 0) {
        o.acquired =
            acquired_at(e.resource, Who{e.process, incarnation[e.process], e.task}, e.t_us);
      }
    } else if (e.kind == EventKind::kLeaveCritical) {
      auto it = open.find({e.process, e.task});
      if (it != open.end() && --it->second.depth <= 0) open.erase(it);
    } else if (ends_process(e.kind)) {
      std::erase_if(open, [&](const auto& kv) { return std::get<0>(kv.first) == e.process; });
    } else if (e.kind == EventKind::kFencedWrite && e.verdict == FenceVerdict::kAccepted) {
      auto it = open.find({e.process, e.task});
      if (it == open.end() || !it->second.acquired) continue;
      const Who who{e.process, incarnation[e.process], e.task};
      const auto [acquired_us, acquired_event] = *it->second.acquired;
      auto n = newest.find(e.resource);
      if (n != newest.end() && acquired_us < n->second.acquired_us &&
          !same_owner(n->second.who, who)) {
        out.push_back(make_violation(
            h, "fencing",
            "t=" + format_time_ms(e.t_us) + " " + e.resource + " accepted " + who_name(who) +
                "'s write with token " + std::to_string(e.value) + ", though " + who_name(who) +
                " took its lock at t=" + format_time_ms(acquired_us) + ", before " +
                who_name(n->second.who) + " (t=" + format_time_ms(n->second.acquired_us) +
                ") whose write was accepted already: its token does not follow the lock's order",
            {acquired_event, n->second.acquired_event, n->second.write_event, i}));
        continue;
      }
      if (n == newest.end() || acquired_us >= n->second.acquired_us) {
        newest[e.resource] = Newest{acquired_us, who, i, acquired_event};
      }
    }
  }
  return out;
}

}  // namespace redsim::world
