// Server nodes: crash and restart with persistence, asynchronous replication
// to replicas with a lag, failover, WAIT, server clocks.
//
// Sources: Redis persistence docs (appendfsync always / everysec: "you can
// lose 1 second worth of data"); Redis replication docs (asynchronous
// replication, replicas resynchronise in full after a restart, a primary
// restarted empty empties its replicas); the WAIT command page.
#include <algorithm>
#include <stdexcept>
#include <utility>

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
  sim::Keyspace& ks = server.keyspace();
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
  sim::Db& db = server.keyspace().db(ref.first);
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

void Runtime::make_nodes() {
  const size_t n = options.servers;
  Prng server_seeds = root.fork("servers");
  auto add = [&](size_t server, std::string name, Prng seeds) {
    auto node = std::make_unique<Node>();
    node->index = nodes.size();
    node->server = server;
    node->name = std::move(name);
    node->clock = std::make_unique<ServerClock>(sched, options.start_epoch_us);
    node->seed_rng = seeds;
    const Prng faults = root.fork("server-faults").fork(node->index);
    node->crash_rng = faults.fork("crash");
    node->failover_rng = faults.fork("failover");
    node->clock_rng = faults.fork("clock");
    node->repl_rng = root.fork("replication").fork(node->index);
    const int64_t drift = options.faults.clock_drift_ppm_max;
    if (drift != 0) {
      node->clock->drift.set_drift(
          0, root.fork("server-clock").fork(node->index).uniform(-drift, drift));
    }
    nodes.push_back(std::move(node));
  };
  for (size_t i = 0; i < n; ++i) add(i, "s" + std::to_string(i), server_seeds.fork(i));
  for (size_t i = 0; i < n; ++i) {
    for (size_t r = 0; r < options.replicas; ++r) {
      add(i, "s" + std::to_string(i) + "r" + std::to_string(r),
          server_seeds.fork("replica").fork(i).fork(r));
    }
  }
  for (size_t i = 0; i < n; ++i) primaries.push_back(nodes[i].get());
  for (size_t i = 0; i < n; ++i) {
    for (size_t r = 0; r < options.replicas; ++r) {
      Node* replica = nodes[n + i * options.replicas + r].get();
      replica->primary = nodes[i].get();
      nodes[i]->replicas.push_back(replica);
    }
  }
  for (auto& node : nodes) start_node(*node, {});
}

void Runtime::start_node(Node& n, const Snapshot& data) {
  sim::ServerOptions server_options = options.server;
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
  if (!options.replicas) return;
  sim::ReplicationHooks hooks;
  hooks.after_write = [this, &n](sim::Session& session) { after_write(n, session); };
  hooks.acked_replicas = [this, &n](uint64_t offset) { return acked_replicas(n, offset); };
  n.server_->set_replication_hooks(std::move(hooks));
}

void Runtime::crash_node(Node& n, std::string why, bool schedule_restart) {
  if (!n.up) return;
  switch (options.persistence) {
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
  HistoryEvent e = event(EventKind::kServerCrash, nullptr, 0);
  e.server = static_cast<int32_t>(n.server);
  e.text = n.name + " (" + why + ")";
  e.value = static_cast<int64_t>(n.kept.size());
  record(std::move(e));
  n.up = false;
  // Connections: the host answers with a reset, which reaches each client
  // after a latency.
  std::vector<Link*> links_now = n.links;
  for (Link* link : links_now)
    break_link(*link, "server " + n.name + " crashed", draw_latency(*link));
  n.links.clear();
  for (auto& w : n.waits) w->done = true;
  n.waits.clear();
  n.blocked_calls.clear();
  n.block_timer_ms = -1;
  n.server_.reset();
  ++n.epoch;  // replication messages in flight to or from it are dropped
  if (schedule_restart) {
    const int64_t down = n.crash_rng.uniform(options.faults.server_down_min.count(),
                                             options.faults.server_down_max.count());
    sched.after(down, [this, &n] { restart_node(n); });
  }
}

void Runtime::restart_node(Node& n) {
  if (n.up) return;
  ++n.incarnation;
  start_node(n, n.kept);
  HistoryEvent e = event(EventKind::kServerRestart, nullptr, 0);
  e.server = static_cast<int32_t>(n.server);
  e.text = n.name;
  e.value = static_cast<int64_t>(n.kept.size());
  record(std::move(e));
  n.kept.clear();
  if (n.primary != nullptr) {
    if (n.primary->up) full_sync(n, *n.primary);
  } else {
    for (Node* r : n.replicas) {
      if (r->up) full_sync(*r, n);
    }
    // Clients that were subscribed here subscribe again.
    if (primaries[n.server] == &n) {
      for (auto& p : processes) {
        Process* proc = p.get();
        const size_t server = n.server;
        deliver(*proc, [this, proc, server] { resubscribe(*proc, server); });
      }
    }
  }
}

void Runtime::full_sync(Node& replica, Node& primary) {
  replace_all(*replica.server_, snapshot(*primary.server_));
  replica.applied_offset = primary.master_offset;
  replica.last_stream_us = now();
  ++replica.epoch;
  primary.shadow = snapshot(*primary.server_);
  check_waits(primary);
}

void Runtime::failover(size_t server, size_t replica) {
  Node& old_primary = *primaries[server];
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
  primaries[server] = &promoted;
  HistoryEvent e = event(EventKind::kFailover, nullptr, 0);
  e.server = static_cast<int32_t>(server);
  e.text = promoted.name + " promoted, " + old_primary.name + " stopped";
  e.value = static_cast<int64_t>(lost);
  record(std::move(e));
  for (auto& p : processes) {
    Process* proc = p.get();
    deliver(*proc, [this, proc, server] { resubscribe(*proc, server); });
  }
}

void Runtime::after_write(Node& n, sim::Session& session) {
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
    const int64_t lag =
        n.repl_rng.uniform(options.replication_lag_min_us, options.replication_lag_max_us);
    const int64_t arrival = std::max(now() + lag, r->last_stream_us);
    r->last_stream_us = arrival;
    sched.at(arrival, [this, r, &n, shared, offset, epoch = r->epoch, primary_epoch = n.epoch] {
      if (!r->up || r->epoch != epoch || r->primary != &n || n.epoch != primary_epoch) return;
      for (const auto& [ref, entry] : *shared) apply(*r->server_, ref, entry ? &*entry : nullptr);
      r->applied_offset = offset;
      if (n.up) check_waits(n);
    });
  }
}

int64_t Runtime::acked_replicas(const Node& n, uint64_t offset) const {
  int64_t count = 0;
  for (const Node* r : n.replicas) {
    if (r->up && r->primary == &n && r->applied_offset >= offset) ++count;
  }
  return count;
}

void Runtime::check_waits(Node& n) {
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

void Runtime::reply_wait(const BlockedWait& w, int64_t acked) {
  Link& l = *w.link;
  HistoryEvent e = event(EventKind::kCommand, l.process, w.task->id);
  e.server = static_cast<int32_t>(l.server);
  e.argv = w.argv;
  e.reply = resp::Reply::integer(acked);
  record(std::move(e));
  Task* task = w.task;
  const uint64_t tok = w.token;
  send_to_client(l, [this, &l, task, tok, acked] {
    deliver(*l.process, [this, task, tok, acked] {
      if (task->state != Task::State::kBlocked || task->block_token != tok) return;
      task->reply = resp::Reply::integer(acked);
      wake(*task, tok);
    });
  });
}

void Runtime::forget_blocked(Link& link) {
  std::erase_if(link.node->blocked_calls, [&](const BlockedCall& b) { return b.link == &link; });
}

void Runtime::arm_block_timer(Node& n) {
  if (!n.server_) return;
  std::optional<int64_t> deadline_ms = n.server_->next_block_deadline_ms();
  if (!deadline_ms || (n.block_timer_ms >= 0 && n.block_timer_ms <= *deadline_ms)) return;
  n.block_timer_ms = *deadline_ms;
  // Due once the server clock passes the deadline: one ms after it.
  const int64_t wait_ms = std::max<int64_t>(*deadline_ms + 1 - n.clock->now_us() / 1000, 0);
  const uint64_t epoch = n.incarnation;
  sched.after(n.clock->drift.true_duration(wait_ms * 1000), [this, &n, epoch] {
    if (!n.server_ || n.incarnation != epoch) return;
    n.block_timer_ms = -1;
    n.server_->time_out_blocked();
    serve_unblocked(n);
    arm_block_timer(n);
  });
}

void Runtime::serve_unblocked(Node& n) {
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
    HistoryEvent e = event(EventKind::kCommand, link.process, t.id);
    e.server = static_cast<int32_t>(link.server);
    e.argv = std::move(b.argv);
    e.reply = u.reply;
    e.value = static_cast<int64_t>(b.incarnation);
    if (t.state != Task::State::kBlocked || t.block_token != token ||
        b.incarnation != link.process->incarnation) {
      e.orphaned = true;
    }
    record(std::move(e));
    note_key_states(link.server, link.process, t.id);
    if (b.lost) {
      HistoryEvent l = event(EventKind::kMessageLost, link.process, t.id);
      l.server = static_cast<int32_t>(link.server);
      l.text = "reply (connection reset after the command ran)";
      record(std::move(l));
      break_link(link, "reset after the command ran", draw_latency(link));
      continue;
    }
    if (b.reply_lost) {
      HistoryEvent l = event(EventKind::kMessageLost, link.process, t.id);
      l.server = static_cast<int32_t>(link.server);
      l.text = "reply";
      record(std::move(l));
      continue;
    }
    send_to_client(link, [this, &link, &t, token, reply = std::move(u.reply)]() mutable {
      deliver(*link.process, [this, &t, token, reply = std::move(reply)]() mutable {
        if (t.state != Task::State::kBlocked || t.block_token != token) return;
        t.reply = std::move(reply);
        wake(t, token);
      });
    });
  }
  arm_block_timer(n);
}

void Runtime::fsync_tick() {
  for (auto& n : nodes) {
    if (n->up) n->fsynced = snapshot(*n->server_);
  }
  sched.after(
      1000 * 1000, [this] { fsync_tick(); }, /*daemon=*/true);
}

void Runtime::jump_node_clock(Node& n, int64_t delta_us, std::string_view why) {
  n.clock->drift.jump(now(), delta_us);
  HistoryEvent e = event(EventKind::kClockJump, nullptr, 0);
  e.server = static_cast<int32_t>(n.server);
  e.text = n.name + (why.empty() ? std::string() : " (" + std::string(why) + ")");
  e.value = delta_us;
  record(std::move(e));
}

void Runtime::after_command(Node& n) {
  const FaultPlan& plan = options.faults;
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
    const int64_t down = n.failover_rng.uniform(options.faults.server_down_min.count(),
                                                options.faults.server_down_max.count());
    sched.at(now(), [this, server, &n, down] {
      failover(server, 0);
      if (!n.up) sched.after(down, [this, &n] { restart_node(n); });
    });
  }
}

}  // namespace redsim::world::detail
