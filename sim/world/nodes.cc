// The nodes component (nodes.h): crash and restart with persistence,
// asynchronous replication to replicas with a lag, failover, WAIT, server
// clocks, active expiry, the tracked keys' states. Sources: nodes.h.
#include "sim/world/nodes.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "sim/internal.h"
#include "sim/world/runtime.h"

namespace redsim::world::detail {

namespace {

bool same_value(const sim::Value& a, const sim::Value& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&b](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        const T& y = std::get<T>(b);
        if constexpr (requires { x == y; }) {
          return x == y;
        } else if constexpr (requires { x.entries() == y.entries(); }) {
          return x.entries() == y.entries();
        } else {
          return false;  // a type without equality: always sent again
        }
      },
      a);
}

bool same_entry(const sim::Entry& a, const sim::Entry& b) {
  return a.expire_ms == b.expire_ms && same_value(a.value, b.value);
}

Snapshot snapshot(sim::Server& server) {
  Snapshot out;
  sim::Keyspace& ks = sim::ServerAccess::keyspace(server);
  for (int db = 0; db < ks.databases(); ++db) {
    ks.db(db).for_each([&](const std::string& key, const sim::Entry& e) {
      out.emplace(KeyRef{db, key}, e);
    });
  }
  return out;
}

// Sets `key` of `db` to `entry` (or deletes it when null) as a replica or a
// restart applies it: the watchers of the key are told.
void apply(sim::Server& server, const KeyRef& ref, const sim::Entry* entry) {
  sim::Db& db = sim::ServerAccess::keyspace(server).db(ref.first);
  db.remove(ref.second);
  if (entry == nullptr) return;
  sim::Entry& e = db.add(ref.second, entry->value);
  db.set_expire(ref.second, e, entry->expire_ms);
  db.touch(ref.second);
}

void load(sim::Server& server, const Snapshot& data) {
  for (const auto& [ref, entry] : data) apply(server, ref, &entry);
}

// Makes `server`'s data equal to `data`.
void replace_all(sim::Server& server, const Snapshot& data) {
  Snapshot current = snapshot(server);
  for (const auto& [ref, entry] : current) {
    if (!data.contains(ref)) apply(server, ref, nullptr);
  }
  load(server, data);
}

}  // namespace

void Nodes::start() {
  const size_t n = life_.options().servers;
  Prng server_seeds = life_.root().fork("servers");
  auto add = [&](size_t server, std::string name, Prng seeds) {
    auto node = std::make_unique<Node>();
    node->index = nodes_.size();
    node->server = server;
    node->name = std::move(name);
    node->clock = std::make_unique<ServerClock>(life_.sched(), life_.options().start_epoch_us);
    node->seed_rng = seeds;
    const Prng faults = life_.root().fork("server-faults").fork(node->index);
    node->crash_rng = faults.fork("crash");
    node->failover_rng = faults.fork("failover");
    node->clock_rng = faults.fork("clock");
    node->repl_rng = life_.root().fork("replication").fork(node->index);
    const int64_t drift = life_.options().faults.clock_drift_ppm_max;
    if (drift != 0) {
      node->clock->drift.set_drift(
          0, life_.root().fork("server-clock").fork(node->index).uniform(-drift, drift));
    }
    nodes_.push_back(std::move(node));
  };
  for (size_t i = 0; i < n; ++i) add(i, "s" + std::to_string(i), server_seeds.fork(i));
  for (size_t i = 0; i < n; ++i) {
    for (size_t r = 0; r < life_.options().replicas; ++r) {
      add(i, "s" + std::to_string(i) + "r" + std::to_string(r),
          server_seeds.fork("replica").fork(i).fork(r));
    }
  }
  for (size_t i = 0; i < n; ++i) primaries_.push_back(nodes_[i].get());
  for (size_t i = 0; i < n; ++i) {
    for (size_t r = 0; r < life_.options().replicas; ++r) {
      Node* replica = nodes_[n + i * life_.options().replicas + r].get();
      replica->primary = nodes_[i].get();
      nodes_[i]->replicas.push_back(replica);
    }
  }
  for (auto& node : nodes_) start_node(*node, {});
  if (life_.options().active_expire_interval) {
    life_.sched().after(
        life_.options().active_expire_interval->count(), [this] { expire_tick(); },
        /*daemon=*/true);
  }
  if (life_.options().persistence == Persistence::kAofEverysec) {
    life_.sched().after(
        1000 * 1000, [this] { fsync_tick(); }, /*daemon=*/true);
  }
}

void Nodes::start_node(Node& n, const Snapshot& data) {
  sim::ServerOptions server_options = life_.options().server;
  Prng seeds = n.incarnation == 0 ? n.seed_rng : n.seed_rng.fork(n.incarnation);
  server_options.seed = seeds.next_u64();
  n.server_ = std::make_unique<sim::Server>(*n.clock, server_options);
  n.up = true;
  load(*n.server_, data);
  n.fsynced = data;
  n.shadow = data;
  n.master_offset = 0;
  n.applied_offset = 0;
  ++n.epoch;
  if (!life_.options().replicas) return;
  sim::ReplicationHooks hooks;
  hooks.after_write = [this, &n](sim::Session& session) { after_write(n, session); };
  hooks.acked_replicas = [this, &n](uint64_t offset) { return acked_replicas(n, offset); };
  n.server_->set_replication_hooks(std::move(hooks));
}

void Nodes::crash_node(Node& n, std::string why, bool schedule_restart) {
  if (!n.up) return;
  switch (life_.options().persistence) {
    case Persistence::kNone:
      n.kept.clear();
      break;
    case Persistence::kAofAlways:
      n.kept = snapshot(*n.server_);
      break;
    case Persistence::kAofEverysec:
      n.kept = n.fsynced;
      break;
  }
  HistoryEvent e = life_.event(EventKind::kServerCrash, nullptr, 0);
  e.server = static_cast<int32_t>(n.server);
  e.text = n.name + " (" + why + ")";
  e.value = static_cast<int64_t>(n.kept.size());
  life_.record(std::move(e));
  n.up = false;
  // Connections: the host answers with a reset, which reaches each client
  // after a latency.
  std::vector<Link*> links_now = n.links;
  for (Link* link : links_now)
    net_.break_link(*link, "server " + n.name + " crashed", net_.draw_latency(*link));
  n.links.clear();
  for (auto& w : n.waits) w->done = true;
  n.waits.clear();
  n.blocked_calls.clear();
  n.block_timer_ms = -1;
  n.server_.reset();
  ++n.epoch;  // replication messages in flight to or from it are dropped
  if (schedule_restart) {
    const int64_t down = n.crash_rng.uniform(life_.options().faults.server_down_min.count(),
                                             life_.options().faults.server_down_max.count());
    life_.sched().after(down, [this, &n] { restart_node(n); });
  }
}

void Nodes::restart_node(Node& n) {
  if (n.up) return;
  ++n.incarnation;
  start_node(n, n.kept);
  HistoryEvent e = life_.event(EventKind::kServerRestart, nullptr, 0);
  e.server = static_cast<int32_t>(n.server);
  e.text = n.name;
  e.value = static_cast<int64_t>(n.kept.size());
  life_.record(std::move(e));
  n.kept.clear();
  if (n.primary != nullptr) {
    if (n.primary->up) full_sync(n, *n.primary);
  } else {
    for (Node* r : n.replicas) {
      if (r->up) full_sync(*r, n);
    }
    // Clients that were subscribed here subscribe again.
    if (primaries_[n.server] == &n) {
      for (const auto& p : procs_.all()) {
        Process* proc = p.get();
        const size_t server = n.server;
        procs_.deliver(*proc, [this, proc, server] { net_.resubscribe(*proc, server); });
      }
    }
  }
}

void Nodes::full_sync(Node& replica, Node& primary) {
  replace_all(*replica.server_, snapshot(*primary.server_));
  replica.applied_offset = primary.master_offset;
  replica.last_stream_us = life_.now();
  ++replica.epoch;
  primary.shadow = snapshot(*primary.server_);
  check_waits(primary);
}

void Nodes::failover(size_t server, size_t replica) {
  Node& old_primary = *primaries_[server];
  if (replica >= old_primary.replicas.size()) return;
  Node& promoted = *old_primary.replicas[replica];
  if (!promoted.up) return;
  const uint64_t lost =
      old_primary.master_offset - std::min(old_primary.master_offset, promoted.applied_offset);
  crash_node(old_primary, "failover", /*schedule_restart=*/false);
  std::vector<Node*> others;
  for (Node* r : old_primary.replicas) {
    if (r != &promoted) others.push_back(r);
  }
  old_primary.replicas.clear();
  old_primary.primary = &promoted;  // a restart rejoins as its replica
  promoted.primary = nullptr;
  promoted.replicas = others;
  promoted.replicas.push_back(&old_primary);
  promoted.master_offset = promoted.applied_offset;
  promoted.shadow = snapshot(*promoted.server_);
  ++promoted.epoch;
  for (Node* r : others) {
    r->primary = &promoted;
    if (r->up) full_sync(*r, promoted);
  }
  primaries_[server] = &promoted;
  HistoryEvent e = life_.event(EventKind::kFailover, nullptr, 0);
  e.server = static_cast<int32_t>(server);
  e.text = promoted.name + " promoted, " + old_primary.name + " stopped";
  e.value = static_cast<int64_t>(lost);
  life_.record(std::move(e));
  for (const auto& p : procs_.all()) {
    Process* proc = p.get();
    procs_.deliver(*proc, [this, proc, server] { net_.resubscribe(*proc, server); });
  }
}

void Nodes::after_write(Node& n, sim::Session& session) {
  // Effects: every key whose state differs from the last propagated one.
  Snapshot now_state = snapshot(*n.server_);
  std::vector<std::pair<KeyRef, std::optional<sim::Entry>>> effects;
  for (const auto& [ref, entry] : now_state) {
    auto it = n.shadow.find(ref);
    if (it == n.shadow.end() || !same_entry(it->second, entry)) effects.emplace_back(ref, entry);
  }
  for (const auto& [ref, entry] : n.shadow) {
    if (!now_state.contains(ref)) effects.emplace_back(ref, std::nullopt);
  }
  if (effects.empty()) return;  // nothing propagated: the offset stays (Redis's c->woff)
  n.shadow = std::move(now_state);
  const uint64_t offset = ++n.master_offset;
  session.set_repl_offset(offset);
  auto shared = std::make_shared<const decltype(effects)>(std::move(effects));
  for (Node* r : n.replicas) {
    if (!r->up) continue;
    const int64_t lag = n.repl_rng.uniform(life_.options().replication_lag_min_us,
                                           life_.options().replication_lag_max_us);
    const int64_t arrival = std::max(life_.now() + lag, r->last_stream_us);
    r->last_stream_us = arrival;
    life_.sched().at(
        arrival, [this, r, &n, shared, offset, epoch = r->epoch, primary_epoch = n.epoch] {
          if (!r->up || r->epoch != epoch || r->primary != &n || n.epoch != primary_epoch) return;
          for (const auto& [ref, entry] : *shared)
            apply(*r->server_, ref, entry ? &*entry : nullptr);
          r->applied_offset = offset;
          if (n.up) check_waits(n);
        });
  }
}

int64_t Nodes::acked_replicas(const Node& n, uint64_t offset) const {
  int64_t count = 0;
  for (const Node* r : n.replicas) {
    if (r->up && r->primary == &n && r->applied_offset >= offset) ++count;
  }
  return count;
}

void Nodes::check_waits(Node& n) {
  std::vector<std::shared_ptr<BlockedWait>> ready;
  for (auto& w : n.waits) {
    if (!w->done && acked_replicas(n, w->offset) >= w->numreplicas) ready.push_back(w);
  }
  for (auto& w : ready) {
    w->done = true;
    reply_wait(*w, acked_replicas(n, w->offset));
  }
  std::erase_if(n.waits, [](const auto& w) { return w->done; });
}

void Nodes::reply_wait(const BlockedWait& w, int64_t acked) {
  Link& l = *w.link;
  HistoryEvent e = life_.event(EventKind::kCommand, l.process, w.task->id);
  e.server = static_cast<int32_t>(l.server);
  e.argv = w.argv;
  e.reply = resp::Reply::integer(acked);
  life_.record(std::move(e));
  Task* task = w.task;
  const uint64_t tok = w.token;
  net_.deliver_to_client(l, [this, task, tok, acked] {
    if (task->state != Task::State::kBlocked || task->block_token != tok) return;
    task->reply = resp::Reply::integer(acked);
    procs_.wake(*task, tok);
  });
}

void Nodes::hold_blocked(Node& n, BlockedCall b) {
  n.blocked_calls.push_back(std::move(b));
  arm_block_timer(n);
}

void Nodes::forget_blocked(Link& link) {
  std::erase_if(link.node->blocked_calls, [&](const BlockedCall& b) { return b.link == &link; });
}

void Nodes::arm_block_timer(Node& n) {
  if (!n.server_) return;
  std::optional<int64_t> deadline_ms = n.server_->next_block_deadline_ms();
  if (!deadline_ms || (n.block_timer_ms >= 0 && n.block_timer_ms <= *deadline_ms)) return;
  n.block_timer_ms = *deadline_ms;
  // Due once the server clock passes the deadline: one ms after it.
  const int64_t wait_ms = std::max<int64_t>(*deadline_ms + 1 - n.clock->now_us() / 1000, 0);
  const uint64_t epoch = n.incarnation;
  life_.sched().after(n.clock->drift.true_duration(wait_ms * 1000), [this, &n, epoch] {
    if (!n.server_ || n.incarnation != epoch) return;
    n.block_timer_ms = -1;
    n.server_->time_out_blocked();
    serve_unblocked(n);
    arm_block_timer(n);
  });
}

void Nodes::serve_unblocked(Node& n) {
  if (!n.server_) return;
  for (sim::Server::Unblocked& u : n.server_->take_unblocked()) {
    auto it = std::find_if(n.blocked_calls.begin(), n.blocked_calls.end(),
                           [&](const BlockedCall& b) { return b.session == u.session; });
    if (it == n.blocked_calls.end()) continue;
    BlockedCall b = std::move(*it);
    n.blocked_calls.erase(it);
    Link& link = *b.link;
    Task& t = *b.task;
    const uint64_t token = b.token;
    HistoryEvent e = life_.event(EventKind::kCommand, link.process, t.id);
    e.server = static_cast<int32_t>(link.server);
    e.argv = std::move(b.argv);
    e.reply = u.reply;
    e.value = static_cast<int64_t>(b.incarnation);
    if (t.state != Task::State::kBlocked || t.block_token != token ||
        b.incarnation != link.process->incarnation) {
      e.orphaned = true;
    }
    life_.record(std::move(e));
    note_key_states(link.server, link.process, t.id);
    if (b.lost) {
      HistoryEvent l = life_.event(EventKind::kMessageLost, link.process, t.id);
      l.server = static_cast<int32_t>(link.server);
      l.text = "reply (connection reset after the command ran)";
      life_.record(std::move(l));
      net_.break_link(link, "reset after the command ran", net_.draw_latency(link));
      continue;
    }
    if (b.reply_lost) {
      HistoryEvent l = life_.event(EventKind::kMessageLost, link.process, t.id);
      l.server = static_cast<int32_t>(link.server);
      l.text = "reply";
      life_.record(std::move(l));
      continue;
    }
    net_.deliver_to_client(link, [this, &t, token, reply = std::move(u.reply)]() mutable {
      if (t.state != Task::State::kBlocked || t.block_token != token) return;
      t.reply = std::move(reply);
      procs_.wake(t, token);
    });
  }
  arm_block_timer(n);
}

void Nodes::fsync_tick() {
  for (auto& n : nodes_) {
    if (n->up) n->fsynced = snapshot(*n->server_);
  }
  life_.sched().after(
      1000 * 1000, [this] { fsync_tick(); }, /*daemon=*/true);
}

void Nodes::jump_node_clock(Node& n, int64_t delta_us, std::string_view why) {
  n.clock->drift.jump(life_.now(), delta_us);
  HistoryEvent e = life_.event(EventKind::kClockJump, nullptr, 0);
  e.server = static_cast<int32_t>(n.server);
  e.text = n.name + (why.empty() ? std::string() : " (" + std::string(why) + ")");
  e.value = delta_us;
  life_.record(std::move(e));
}

void Nodes::after_command(Node& n) {
  const FaultPlan& plan = life_.options().faults;
  if (!n.up) return;
  if (n.clock_rng.chance(plan.server_clock_jump_ppm)) {
    jump_node_clock(n,
                    n.clock_rng.uniform(-plan.clock_jump_max.count(), plan.clock_jump_max.count()),
                    "random");
  }
  if (n.primary != nullptr) return;
  if (n.crash_rng.chance(plan.server_crash_ppm)) {
    crash_node(n, "random", /*schedule_restart=*/true);
    return;
  }
  if (!n.replicas.empty() && n.failover_rng.chance(plan.failover_ppm)) {
    const size_t server = n.server;
    // The old primary comes back later, as a replica of the promoted one.
    const int64_t down = n.failover_rng.uniform(life_.options().faults.server_down_min.count(),
                                                life_.options().faults.server_down_max.count());
    life_.sched().at(life_.now(), [this, server, &n, down] {
      failover(server, 0);
      if (!n.up) life_.sched().after(down, [this, &n] { restart_node(n); });
    });
  }
}

void Nodes::hold_wait(Node& n, std::shared_ptr<BlockedWait> w, int64_t timeout_ms) {
  n.waits.push_back(w);
  if (timeout_ms > 0) {
    life_.sched().after(n.clock->drift.true_duration(timeout_ms * 1000), [this, w, &n] {
      if (w->done) return;
      w->done = true;
      std::erase(n.waits, w);
      reply_wait(*w, n.server_ ? acked_replicas(n, w->offset) : int64_t{0});
    });
  }
}

void Nodes::drop_waits(Link& link) {
  for (auto& w : link.node->waits) {
    if (w->link == &link) w->done = true;
  }
  std::erase_if(link.node->waits, [](const auto& w) { return w->done; });
}

void Nodes::track_key(const std::string& key) {
  if (!tracked_keys_.insert(key).second) return;
  for (size_t i = 0; i < primaries_.size(); ++i) note_key_states(i);
}

namespace {

// Whether `known` is what note_key_states would record for `entry` with
// this deadline: the same deadline and the same marks (a string's value, a
// hash's fields in order; none for other types).
template <class KnownState>
bool same_marks(const KnownState& known, int64_t deadline_us, const sim::Entry& entry) {
  if (known.deadline_us != deadline_us) return false;
  if (entry.is_string()) {
    return known.marks.size() == 1 && known.marks[0] == *std::get_if<std::string>(&entry.value);
  }
  if (entry.is_hash()) {
    const auto& fields = entry.hash().entries();
    if (known.marks.size() != fields.size()) return false;
    size_t i = 0;
    for (const auto& [field, value] : fields) {
      if (known.marks[i++] != field) return false;
    }
    return true;
  }
  return known.marks.empty();
}

}  // namespace

void Nodes::note_key_states(size_t server, Process* writer, TaskId task) {
  if (tracked_keys_.empty()) return;
  if (key_states_.size() < primaries_.size()) key_states_.resize(primaries_.size());
  // The server clients reach at this index now (after a failover, the
  // promoted replica); while it is down, no key is live there.
  sim::Server* s = primaries_[server]->up ? primaries_[server]->server_.get() : nullptr;
  auto& known = key_states_[server];
  const int64_t server_now_us = primaries_[server]->clock->now_us();
  for (const std::string& key : tracked_keys_) {
    // Looked at without side effects: a key past its deadline counts as gone.
    const sim::Entry* entry =
        s != nullptr ? sim::ServerAccess::keyspace(*s).db(0).peek(key) : nullptr;
    const bool live = entry != nullptr && !entry->expired_at(server_now_us / 1000);
    auto it = known.find(key);
    if (!live && it == known.end()) continue;
    KeyState state;
    if (live) {
      // The deadline in true time: how far ahead it is on the server's clock.
      state.deadline_us =
          !entry->has_expire() ? -1 : life_.now() + (entry->expire_ms * 1000 - server_now_us);
      // This runs before and after every command: an unchanged key is told
      // apart without copying its marks.
      if (it != known.end() && same_marks(it->second, state.deadline_us, *entry)) continue;
      if (entry->is_string()) {
        state.marks.push_back(*std::get_if<std::string>(&entry->value));
      } else if (entry->is_hash()) {
        for (const auto& [field, value] : entry->hash().entries()) {
          state.marks.push_back(field);
        }
      }
      if (it != known.end() && it->second == state) continue;
    }
    HistoryEvent e = life_.event(EventKind::kKeyState, writer, writer != nullptr ? task : 0);
    e.server = static_cast<int32_t>(server);
    e.resource = key;
    if (!live) {
      e.key_state = KeyPresence::kAbsent;
      known.erase(it);
    } else {
      e.key_state = state.deadline_us < 0 ? KeyPresence::kPersistent : KeyPresence::kLease;
      e.value = state.deadline_us;
      e.argv = state.marks;
      known[key] = std::move(state);
    }
    life_.record(std::move(e));
  }
}

void Nodes::expire_tick() {
  for (size_t i = 0; i < primaries_.size(); ++i) {
    if (!primaries_[i]->up) continue;
    const size_t deleted = primaries_[i]->server_->active_expire_cycle();
    if (deleted > 0) {
      HistoryEvent e = life_.event(EventKind::kServerNote, nullptr, 0);
      e.server = static_cast<int32_t>(i);
      e.text = "active expire deleted " + std::to_string(deleted) + " key(s)";
      life_.record(std::move(e));
    }
    note_key_states(i);
  }
  life_.sched().after(
      life_.options().active_expire_interval->count(), [this] { expire_tick(); }, /*daemon=*/true);
}

}  // namespace redsim::world::detail
