// The lock-key checkers of checkers.h: foreign writes, ghost locks, holders
// past their lease, fenced order. Each reads the key log (key_log.h): the
// owner marks of every tracked key on every server.
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
#include "sim/world/key_log.h"

namespace redsim::world {

namespace {

using detail::ends_process;
using detail::KeyLog;
using detail::kForever;
using detail::make_violation;
using detail::Mark;
using detail::paused_spans;
using detail::read_key_log;
using detail::same_owner;
using detail::Who;
using detail::who_name;

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
  std::vector<int64_t> acquired;  // when its acquires ended "acquired"
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
        if (e.value == 1) s.acquired.push_back(e.t_us);
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

// The stretch [from, to) in which mark `m` is explained by an error whatever
// its owner task decides meanwhile: from the start of the first excused
// stretch of the task that began while the mark lived (the task was told
// that the outcome of an operation while its key stood is unknown) until
// the task next acquires (then it holds that key again, adopted or
// re-entered, and its own decisions judge it), or the mark ends. Its other
// decisions meanwhile are not about that key: a new attempt writes a new
// token, so its giving up says nothing of the old one. None when the task
// had disowned the key before the error. (A lock whose release was lost and
// which tries again at once waits on its own stale key for up to a lease:
// found by the zoo's keyspace-event-wait-capped, where the retry met that
// key and then another client's unknown acquire, two leases of "free" lock,
// a false liveness violation; with a try_lock that does not wait, a false
// ghost lock.)
std::optional<std::pair<int64_t, int64_t>> explained(const Mark& m, const TaskState& s,
                                                     int64_t mark_end) {
  for (const Stretch& x : s.excused) {
    if (x.from < m.from_us) continue;
    if (x.from >= mark_end) return std::nullopt;
    // Only a key the task had not already disowned: if it said it holds
    // nothing (a clean stretch) while the key stood before the error, the
    // key is that decision's ghost, which a later error does not explain.
    for (const Stretch& c : s.clean) {
      if (c.from < x.from && c.to > m.from_us) return std::nullopt;
    }
    int64_t to = mark_end;
    for (int64_t t : s.acquired) {
      if (t > x.from) {
        to = std::min(to, t);
        break;
      }
    }
    return std::make_pair(x.from, to);
  }
  return std::nullopt;
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
  std::map<int32_t, std::vector<int64_t>> server_crashes;  // per server, in time order
  for (const HistoryEvent& e : h.events()) {
    if (e.kind == EventKind::kProcessRestart) ++incarnation[e.process];
    if (e.kind == EventKind::kProcessCrash) {
      crashed.try_emplace({e.process, incarnation[e.process]}, e.t_us);
    }
    // Only a crash that kept keys (value: how many): one without persistence
    // takes them along (the key log, which sees keys after commands, still
    // shows the mark until its deadline).
    if (e.kind == EventKind::kServerCrash && e.value > 0) {
      server_crashes[e.server].push_back(e.t_us);
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
    // A mark its server kept through a crash (persistence: the restart
    // brought it back): from the crash on its owner could not delete it
    // there (the server was down, and a release refused then is not tried
    // again), so it too is held by nobody until its lease ends. Found by
    // the zoo's redlock-validity under coverage: five server crashes in
    // 30 ms brought back the keys of failed attempts, and no quorum could
    // form for two leases while every waiter kept trying.
    if (auto sc = server_crashes.find(m.server); sc != server_crashes.end()) {
      for (int64_t t : sc->second) {
        if (t < m.from_us) continue;
        if (t < mark_end) out[m.key].emplace_back(t, mark_end);
        break;
      }
    }
    auto it = tasks.find({m.owner.process, m.owner.incarnation, m.owner.task});
    if (it == tasks.end()) continue;
    for (const Stretch& x : it->second.excused) {
      const int64_t from = std::max(x.from, m.from_us);
      const int64_t to = std::min(x.to, mark_end);
      if (from < to) out[m.key].emplace_back(from, to);
    }
    if (auto w = explained(m, it->second, mark_end)) out[m.key].push_back(*w);
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
    // A stretch an error explains (explained()) is cut out as a pause is.
    if (auto w = explained(m, it->second, mark_end)) pauses.push_back(*w);
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
