// The network component (network.h): connections (Links), per-message
// latency with per-connection FIFO order, request/reply round trips, pub/sub
// pushes, and the network faults (loss, lost replies, timeouts, delays,
// partitions).
#include "sim/world/network.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "lock/errors.h"
#include "sim/world/runtime.h"
#include "sim/world/script_trace.h"

namespace redsim::world::detail {

namespace {
std::string gone(const Process& p) { return "process c" + std::to_string(p.pid) + " is gone"; }

bool is_command(const lock::Argv& argv, std::string_view name) {
  if (argv.empty() || argv[0].size() != name.size()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(argv[0][i])) != name[i]) return false;
  }
  return true;
}

// The commands whose reply tells the client about its connection's MULTI
// and WATCH state (Redis: EXEC, DISCARD and RESET end both; UNWATCH ends
// WATCH). Taken from argv before it is sent (the request keeps argv).
enum class StateCommand : uint8_t { kOther, kMulti, kWatch, kUnwatch, kEnd };

StateCommand state_command(const lock::Argv& argv) {
  if (is_command(argv, "MULTI")) return StateCommand::kMulti;
  if (is_command(argv, "WATCH")) return StateCommand::kWatch;
  if (is_command(argv, "UNWATCH")) return StateCommand::kUnwatch;
  if (is_command(argv, "EXEC") || is_command(argv, "DISCARD") || is_command(argv, "RESET")) {
    return StateCommand::kEnd;
  }
  return StateCommand::kOther;
}

void track_state(Link& link, StateCommand command, const resp::Reply& reply) {
  switch (command) {
    case StateCommand::kMulti:
      link.in_multi = link.in_multi || reply.is_status();
      return;
    case StateCommand::kWatch:
      link.watching = link.watching || reply.is_status();
      return;
    case StateCommand::kUnwatch:
      link.watching = false;
      return;
    case StateCommand::kEnd:
      link.in_multi = false;
      link.watching = false;
      return;
    case StateCommand::kOther:
      return;
  }
}

}  // namespace

resp::Reply SimConnection::do_call_owned(lock::Argv&& argv, std::optional<lock::Micros> timeout) {
  return do_call(argv, timeout);
}

resp::Reply SimConnection::do_call(const lock::Argv& argv, std::optional<lock::Micros> timeout) {
  Process& p = *task_.process;
  Task& t = procs_.current_task(p);
  if (p.dying) {
    procs_.call_after_crash(t);
    throw lock::ClosedError(gone(p));
  }
  procs_.fault_point(p, t);
  // 0: no limit (round_trip's convention, inside the world only).
  const int64_t timeout_us =
      timeout.value_or(net_.life_.options().command_timeout.value_or(Micros{0})).count();
  // A connection that broke while idle, holding a MULTI or WATCHes, fails
  // its next call (a real socket answers it with EOF, as hiredis reports),
  // so a transaction never continues on a new connection without its state.
  if (link_ != nullptr && link_->broken && (link_->in_multi || link_->watching)) {
    link_ = nullptr;
    throw lock::IoError("connection to server " + std::to_string(server_) +
                        " was reset: its MULTI/WATCH state is gone");
  }
  // hiredis-style: a broken connection is not reused; the next call opens a
  // new one (to the server's current primary).
  if (link_ == nullptr || link_->closed || link_->broken) {
    if (net_.unreachable(p, server_)) net_.refuse(t, server_, timeout_us);
    link_ = &net_.new_link(p, t.id, server_);
  }
  Link& link = *link_;
  const StateCommand command = state_command(argv);
  resp::Reply reply;
  try {
    reply = net_.round_trip(t, link, argv, {}, timeout_us);
  } catch (const lock::ConnectionError&) {
    link.in_multi = false;  // the caller is told: the state is its to rebuild
    link.watching = false;
    throw;
  }
  track_state(link, command, reply);
  return reply;
}

lock::Connection& Network::connection(Task& t, size_t server) {
  Process& p = *t.process;
  if (p.dying) {
    procs_.call_after_crash(t);
    throw lock::ClosedError(gone(p));
  }
  if (server >= nodes_.server_count()) {
    throw std::out_of_range("no server " + std::to_string(server) + " in this world");
  }
  auto& slot = t.connections[server];
  if (!slot) slot = std::make_unique<SimConnection>(*this, procs_, t, server);
  return *slot;
}

Link& Network::new_link(Process& p, TaskId task, size_t server) {
  // The process's list of links and the server's sessions (exhaustive
  // reduction, case 7).
  life_.sched().note_new_link();
  auto link = std::make_unique<Link>();
  link->server = server;
  link->node = &nodes_.primary(server);
  link->process = &p;
  link->task = task;
  link->session = link->node->server_->connect();
  // The first incarnation keeps the streams it always had.
  Prng base = p.seed_rng.fork("link").fork(task).fork(server);
  const bool reconnect = std::any_of(p.links.begin(), p.links.end(), [&](const Link* l) {
    return l->task == task && l->server == server;
  });
  if (reconnect || p.incarnation > 0 || link->node->index != server) {
    base = base.fork(p.incarnation).fork(link->node->index).fork(p.links.size());
  }
  link->rng = base;
  link->fault_rng = base.fork("faults");
  Link& ref = *link;
  links_.push_back(std::move(link));
  p.links.push_back(&ref);
  ref.node->links.push_back(&ref);
  return ref;
}

Link& Network::pubsub_link(Process& p, size_t server) {
  Link*& slot = p.pubsub_links[server];
  if (slot != nullptr && !slot->broken && !slot->closed) return *slot;
  Link& link = new_link(p, 0, server);
  // The server calls this inside the PUBLISH (or SUBSCRIBE) it is running;
  // the push then travels to the client like any other message.
  link.session->set_push_handler([this, &link](const resp::Reply& push) { send_push(link, push); });
  slot = &link;
  return link;
}

int64_t Network::uniform_latency(Link& link) {
  const FaultPlan& plan = life_.options().faults;
  if (life_.chooser() != nullptr) {
    // Exhaustive: one extreme or the other (explore/exhaustive.h).
    if (plan.latency_max <= plan.latency_min) return plan.latency_min.count();
    return life_.choose(2, ChoiceKind::kLatency) == 0 ? plan.latency_min.count()
                                                      : plan.latency_max.count();
  }
  if (life_.pct() == nullptr)
    return link.rng.uniform(plan.latency_min.count(), plan.latency_max.count());
  // PCT: the process's rank picks its slice of the range (pct.h).
  const auto [rank, count] = life_.pct()->rank(link.process->pid);
  const int64_t span = plan.latency_max.count() - plan.latency_min.count();
  const int64_t n = static_cast<int64_t>(std::max<size_t>(count, 1));
  const int64_t low = plan.latency_min.count() + span * static_cast<int64_t>(rank) / n;
  const int64_t high = plan.latency_min.count() + span * (static_cast<int64_t>(rank) + 1) / n;
  return link.rng.uniform(low, std::max(low, high));
}

int64_t Network::draw_latency(Link& link) {
  const FaultPlan& plan = life_.options().faults;
  switch (plan.latency_distribution) {
    case LatencyDistribution::kUniform:
      return uniform_latency(link);
    case LatencyDistribution::kFixed:
      return plan.latency_min.count();
    case LatencyDistribution::kLongTail: {
      int64_t latency = uniform_latency(link);
      if (life_.chooser() != nullptr)
        return latency;  // exhaustive: the extremes of the uniform part only
      const int64_t cap = plan.latency_tail_max
                              ? plan.latency_tail_max->count()
                              : 1024 * std::max<int64_t>(plan.latency_max.count(), 1);
      while (latency < cap && link.rng.chance(plan.latency_tail_ppm)) {
        latency = std::max<int64_t>(latency, 1) * 2;
      }
      return std::min(latency, cap);
    }
  }
  return plan.latency_min.count();
}

int64_t Network::draw_delay(Link& link, std::string_view what) {
  const FaultPlan& plan = life_.options().faults;
  int64_t extra = 0;
  if (link.fault_rng.chance(plan.delay_ppm)) {
    const int64_t drawn =
        std::min(link.fault_rng.uniform(plan.delay_min.count(), plan.delay_max.count()),
                 procs_.stall_allowance(*link.process));
    if (drawn >= plan.delay_min.count()) {
      procs_.note_stall(*link.process, drawn);
      extra += drawn;
    }
  }
  for (const Window& w : delays_) {
    if (w.pid == link.process->pid && w.server == link.server && life_.now() >= w.from_us &&
        life_.now() < w.to_us) {
      extra += w.extra_us;
    }
  }
  if (extra > 0) {
    record_message(link, EventKind::kMessageDelayed, std::string(what), extra);
  }
  return extra;
}

void Network::record_message(const Link& link, EventKind kind, std::string text, int64_t value) {
  HistoryEvent e = life_.event(kind, link.process, link.task);
  e.server = static_cast<int32_t>(link.server);
  e.text = std::move(text);
  e.value = value;
  life_.record(std::move(e));
}

std::shared_ptr<const bool> Network::server_effects(size_t server, const lock::Argv* argv) {
  if (server_effects_.size() <= server) server_effects_.resize(server + 1);
  std::shared_ptr<bool>& flag = server_effects_[server];
  if (flag == nullptr) flag = std::make_shared<bool>(false);
  if (*flag) return flag;
  // On for good once the server has notifications or maxmemory on, or once
  // a CONFIG SET is sent to it: it may turn them on when it arrives, after
  // commands whose footprints exist already (they read the flag whenever
  // they are judged, so from its sending on they count as anything).
  sim::Server* s = nodes_.primary(server).server_.get();
  const bool config_set = argv != nullptr && argv->size() >= 2 && is_command(*argv, "CONFIG") &&
                          is_command({(*argv)[1]}, "SET");
  *flag = config_set || (s != nullptr && (s->config().notify_keyspace_events != 0 ||
                                          s->config().maxmemory_bytes > 0));
  return flag;
}

std::shared_ptr<const Footprint> Network::footprint_of(const Link& link, const lock::Argv* argv) {
  if (!life_.footprints()) return nullptr;
  if (argv != nullptr) {
    return command_footprint(link.server, *argv, server_effects(link.server, argv));
  }
  // A close: the server drops the session, which changes pub/sub state only
  // for the process's pub/sub connection (task 0); a command connection's
  // session has no subscriptions (its WATCHes are its own).
  auto close = std::make_shared<Footprint>();
  close->server = link.server;
  close->server_effects = server_effects(link.server, nullptr);
  close->pubsub = link.task == 0;
  // It removes its own session's subscriptions only (exhaustive.h, case 10).
  close->subscriptions_only = close->all_channels = close->pubsub;
  return close;
}

void Network::send_to_server(Link& link, std::function<void()> fn, std::string_view what,
                             std::shared_ptr<const Footprint> footprint) {
  // A request belongs to its connection's task (the pub/sub connection's,
  // 0, to the whole process): exhaustive.h, case 4.
  send(link, link.last_to_server_us, std::move(fn), what, std::move(footprint), link.task);
}

void Network::send_to_client(Link& link, std::function<void()> fn, std::string_view what,
                             TaskId task) {
  send(link, link.last_to_client_us, std::move(fn), what, nullptr, task);
}

void Network::deliver_to_client(Link& link, std::function<void()> fn, std::string_view what,
                                TaskId task) {
  send(link, link.last_to_client_us, std::move(fn), what, nullptr, task, /*through_process=*/true);
}

std::pair<Network::Message*, uint32_t> Network::new_message(Message::Kind kind) {
  uint32_t id;
  if (!free_messages_.empty()) {
    id = free_messages_.back();
    free_messages_.pop_back();
  } else if (!dropped_messages_.empty()) {
    id = dropped_messages_.back();
    dropped_messages_.pop_back();
    messages_[id] = std::make_unique<Message>();
  } else {
    id = static_cast<uint32_t>(messages_.size());
    messages_.push_back(std::make_unique<Message>());
  }
  Message* m = messages_[id].get();
  m->kind = kind;
  m->serial = ++message_serial_;
  return {m, id};
}

void Network::release_message(uint32_t id) {
  if (free_messages_.size() >= kKeptMessages) {
    messages_[id].reset();
    dropped_messages_.push_back(id);
    return;
  }
  Message& m = *messages_[id];
  m.fn = nullptr;
  m.argv.clear();
  m.borrowed_argv = nullptr;
  m.on_arrival = nullptr;
  m.reply = resp::Reply();
  m.text.clear();
  m.through_process = m.lost = m.lost_after_run = m.reply_lost = m.message = false;
  m.task = nullptr;
  free_messages_.push_back(id);
}

void Network::send_push(Link& link, const resp::Reply& push) {
  if (link.broken) return;
  // What the process reads of it, copied once here (channel and payload,
  // not the whole array); then it moves along (pause hold): each message
  // arrives once. Any other push only travels (and is held by a pause).
  auto [m, id] = new_message(Message::Kind::kPush);
  const auto& el = push.elements();
  if (push.is_array() && el.size() == 3 && el[0].str() == "message") {
    m->message = true;
    m->text = el[1].str();
    m->reply = el[2];
  }
  send_message(link, link.last_to_client_us, id, "push", nullptr, 0);
}

void Network::send(Link& link, int64_t& last_arrival_us, std::function<void()> fn,
                   std::string_view what, std::shared_ptr<const Footprint> footprint, TaskId task,
                   bool through_process) {
  if (link.broken) return;
  auto [m, id] = new_message(Message::Kind::kAction);
  m->fn = std::move(fn);
  m->through_process = through_process;
  send_message(link, last_arrival_us, id, what, std::move(footprint), task);
}

// `what` ("request", "reply", "push", "close") is always a string literal:
// the message keeps the view until it arrives.
void Network::send_message(Link& link, int64_t& last_arrival_us, uint32_t id, std::string_view what,
                           std::shared_ptr<const Footprint> footprint, TaskId task) {
  if (link.broken) {
    release_message(id);
    return;
  }
  // A PCT step of the link's process (its change points demote it).
  if (life_.pct() != nullptr) life_.pct()->step(link.process->pid);
  // Never before an earlier message in the same direction: FIFO. Equal times
  // keep their order through the scheduler's sequence numbers (and, under
  // PCT, one link's messages all belong to its process, whose priority
  // never rises).
  const int64_t sent = life_.now();
  const int64_t arrival =
      std::max(life_.now() + draw_latency(link) + draw_delay(link, what), last_arrival_us);
  last_arrival_us = arrival;
  if (life_.options().record_messages) {
    record_message(link, EventKind::kMessageSent, std::string(what), arrival);
  }
  Message& m = *messages_[id];
  m.link = &link;
  m.what = what;
  m.sent = sent;
  life_.sched().at_message(
      arrival, [this, id] { arrive(id); }, link.process->pid,
      reinterpret_cast<uintptr_t>(&last_arrival_us),
      /*server_side=*/&last_arrival_us == &link.last_to_server_us, std::move(footprint), task);
  // A request, a reply or a push resumes no fiber when it arrives (a reply
  // wakes its task: a run of its own), so a blocked task may run it
  // (Processes::run_ahead); an action may do anything.
  if (m.kind != Message::Kind::kAction) life_.sched().mark_ahead(Scheduler::Ahead::kSafe);
}

void Network::arrive(uint32_t id) {
  // Released however the arrival ends (an action may throw).
  struct Release {
    Network* net;
    uint32_t id;
    ~Release() { net->release_message(id); }
  } release{this, id};
  Message& m = *messages_[id];
  Link& link = *m.link;
  if (link.broken) {  // lost with the connection
    record_message(link, EventKind::kMessageLost, std::string(m.what) + " (connection broken)");
    return;
  }
  if (life_.options().record_messages) {
    record_message(link, EventKind::kMessageDelivered, std::string(m.what), m.sent);
  }
  switch (m.kind) {
    case Message::Kind::kAction:
      // A scheduled action runs once: `fn` can move on.
      if (m.through_process) {
        procs_.deliver(*link.process, std::move(m.fn));
      } else {
        m.fn();
      }
      return;
    case Message::Kind::kRequest:
      request_arrived(m);
      return;
    case Message::Kind::kReply:
      reply_arrived(m);
      return;
    case Message::Kind::kPush:
      push_arrived(m);
      return;
  }
}

void Network::fail_call(Task& t, uint64_t token, CallEnd end, std::string error, int64_t at_us) {
  // Touches task t only (exhaustive.h, case 4).
  life_.sched().at_task(
      at_us,
      [this, &t, token, end, error = std::move(error)]() mutable {
        procs_.deliver(*t.process, [this, &t, token, end, error = std::move(error)]() mutable {
          if (t.state != Task::State::kBlocked || t.block_token != token) return;
          t.call_end = end;
          t.call_error = std::move(error);
          procs_.wake(t, token);
        });
      },
      t.id);
}

void Network::request_arrived(Message& m) {
  Link& link = *m.link;
  Task& t = *m.task;
  const uint64_t token = m.token;
  if (!link.session) return;  // cannot happen: a close is queued behind every request
  if (m.lost && !m.lost_after_run) {
    HistoryEvent e = life_.event(EventKind::kMessageLost, link.process, t.id);
    e.server = static_cast<int32_t>(link.server);
    e.text = "request " + format_argv(m.command(), 48) + " (connection reset)";
    life_.record(std::move(e));
    break_link(link, "reset before the command ran", draw_latency(link));
    return;
  }
  Node& node = *link.node;
  // Keys that expired since the last look are gone before the command
  // runs, so its own effect on a tracked key is recorded as its own.
  nodes_.note_key_states(link.server);
  // A script's footprint as it ran (explore/exhaustive.h, case 16).
  ScriptTrace trace(life_.sched(), *node.server_, link.server, m.command(), life_.footprints(),
                    life_.footprints() ? server_effects(link.server, nullptr) : nullptr);
  resp::Reply reply = node.server_->execute(*link.session, m.command());
  trace.finish();
  if (link.session->blocked()) {
    // BLPOP & co: the call stays pending until the server serves it.
    nodes_.hold_blocked(node, BlockedCall{&link, link.session.get(), &t, token, m.incarnation,
                                          m.take_command(), m.lost, m.reply_lost});
    nodes_.after_command(node);
    return;
  }
  std::optional<sim::Session::BlockedWait> wait = link.session->take_blocked_wait();
  if (wait && !m.lost && !m.reply_lost) {
    // WAIT holds its reply until enough replicas acknowledged, or timeout.
    auto w = std::make_shared<BlockedWait>();
    w->link = &link;
    w->task = &t;
    w->token = token;
    w->numreplicas = wait->numreplicas;
    w->offset = link.session->repl_offset();
    w->argv = m.take_command();
    nodes_.hold_wait(node, std::move(w), wait->timeout_ms);
    nodes_.after_command(node);
    return;
  }
  {
    HistoryEvent& e = life_.record_event(EventKind::kCommand, link.process, t.id);
    e.server = static_cast<int32_t>(link.server);
    e.argv = intern_command(link, m);
    e.reply = life_.intern_reply(reply);
    // Who sent it: the process incarnation then (a restart may have come
    // since), and whether its caller still waits for it or had given up
    // (timed out, its connection broken, its process gone): an orphaned
    // command's effects are nobody's decision.
    e.value = static_cast<int64_t>(m.incarnation);
    if (t.state != Task::State::kBlocked || t.block_token != token ||
        m.incarnation != link.process->incarnation) {
      e.orphaned = true;
    }
  }
  nodes_.note_key_states(link.server, link.process, t.id);
  if (m.lost) {
    HistoryEvent l = life_.event(EventKind::kMessageLost, link.process, t.id);
    l.server = static_cast<int32_t>(link.server);
    l.text = "reply (connection reset after the command ran)";
    life_.record(std::move(l));
    break_link(link, "reset after the command ran", draw_latency(link));
  } else if (m.reply_lost) {
    HistoryEvent l = life_.event(EventKind::kMessageLost, link.process, t.id);
    l.server = static_cast<int32_t>(link.server);
    l.text = "reply";
    life_.record(std::move(l));
  } else {
    // The reply moves along (message, pause hold, task): each action runs
    // once. A plain reply on the task's own connection touches that task
    // only (exhaustive.h, case 4); an on_arrival hook may touch more.
    const TaskId only = !m.on_arrival && link.task == t.id ? t.id : 0;
    if (!link.broken) {
      auto [r, id] = new_message(Message::Kind::kReply);
      r->task = &t;
      r->token = token;
      r->reply = std::move(reply);
      r->on_arrival = std::move(m.on_arrival);
      send_message(link, link.last_to_client_us, id, "reply", nullptr, only);
    }
  }
  nodes_.serve_unblocked(node);
  nodes_.after_command(node);
}

HistoryArgv Network::intern_command(Link& link, Message& m) {
  const lock::Argv& argv = m.command();
  if (const HistoryArgv* recent = link.recent_argv.find(argv)) return *recent;
  HistoryArgv value = m.borrowed_argv != nullptr ? life_.intern_argv(*m.borrowed_argv)
                                                 : life_.intern_argv(std::move(m.argv));
  link.recent_argv.remember(value);
  return value;
}

namespace {
// The reply reaching a task that waits for it (its own block, not a
// later one's).
void take_reply(Processes& procs, Task& t, uint64_t token, resp::Reply& reply,
                const std::function<void(const resp::Reply&)>& on_arrival) {
  if (t.state != Task::State::kBlocked || t.block_token != token) return;
  if (on_arrival) on_arrival(reply);
  t.reply = std::move(reply);
  procs.wake(t, token);
}
}  // namespace

void Network::reply_arrived(Message& m) {
  // Through Processes::deliver: taken now, held by a pause (then the held
  // action owns the reply), dropped when the process is gone. Taken now is
  // the same as deliver running it at once, without a std::function.
  Process& p = *m.link->process;
  if (!p.dying && !p.paused) {
    take_reply(procs_, *m.task, m.token, m.reply, m.on_arrival);
    return;
  }
  procs_.deliver(p, [this, t = m.task, token = m.token, reply = std::move(m.reply),
                     on_arrival = std::move(m.on_arrival)]() mutable {
    take_reply(procs_, *t, token, reply, on_arrival);
  });
}

void Network::push_arrived(Message& m) {
  // Through Processes::deliver, as reply_arrived.
  Process& p = *m.link->process;
  const size_t server = m.link->server;
  if (!p.dying && !p.paused) {
    if (m.message) dispatch_push(p, server, m.text, m.reply);
    return;
  }
  if (!m.message) {
    procs_.deliver(p, [] {});
    return;
  }
  procs_.deliver(p, [this, &p, server, channel = std::move(m.text), payload = std::move(m.reply)] {
    dispatch_push(p, server, channel, payload);
  });
}

resp::Reply Network::round_trip(Task& t, Link& link, const lock::Argv& argv,
                                std::function<void(const resp::Reply&)> on_arrival,
                                int64_t timeout_us) {
  Process& p = *link.process;
  const FaultPlan& plan = life_.options().faults;
  const uint64_t token = procs_.block(t);
  t.call_end = CallEnd::kReply;
  link.in_flight.push_back(InFlight{&t, token});
  bool lost = false, lost_after_run = false, reply_lost = false;
  if (life_.chooser() != nullptr) {
    // Exhaustive: the plan's loss and lost-reply faults are in its fixed
    // fault set (explore/exhaustive.h): a reset (before the command ran,
    // after it ran, or both options when the plan draws both), then a lost
    // reply, each a choice point of this call when its fault is on.
    if (plan.loss_ppm) {
      const bool before = plan.loss_executed_ppm.parts() < Ppm::kMillion;
      const bool after = plan.loss_executed_ppm.parts() > 0;
      const uint32_t option = life_.choose(before && after ? 3 : 2, ChoiceKind::kReset);
      lost = option > 0;
      lost_after_run = option == 2 || (option == 1 && !before);
    }
    // A lost reply holds the caller for its whole timeout: offered only when
    // the stall budget has room for it (as the random draw below is kept).
    const int64_t held_us = timeout_us > 0 ? p.clock.true_duration(timeout_us) : 0;
    const bool fits = !plan.stall_budget || (held_us > 0 && held_us <= procs_.stall_allowance(p));
    if (!lost && plan.lost_reply_ppm && fits)
      reply_lost = life_.choose(2, ChoiceKind::kLostReply) == 1;
  } else {
    // Each draw only when its fault is on (chance(0) draws nothing).
    lost = p.loss_rng.chance(plan.loss_ppm);
    lost_after_run = lost && p.loss_rng.chance(plan.loss_executed_ppm);
    reply_lost = !lost && p.lost_reply_rng.chance(plan.lost_reply_ppm);
  }
  if (reply_lost && plan.stall_budget) {
    // The caller is held up for its whole timeout: within the budget or not at all.
    const int64_t held_us = timeout_us > 0 ? p.clock.true_duration(timeout_us) : 0;
    reply_lost = held_us > 0 && held_us <= procs_.stall_allowance(p);
    if (reply_lost) procs_.note_stall(p, held_us);
  }
  for (const Window& w : losses_) {
    if (w.pid != p.pid || w.server != link.server || life_.now() < w.from_us ||
        life_.now() >= w.to_us) {
      continue;
    }
    const auto loss = static_cast<Loss>(w.extra_us);
    lost = loss != Loss::kReplyWithTimeout;
    lost_after_run = loss == Loss::kReplyAfterRun;
    reply_lost = loss == Loss::kReplyWithTimeout;
  }
  if (timeout_us > 0) {
    fail_call(t, token, CallEnd::kTimeout, "", life_.now() + p.clock.true_duration(timeout_us));
  }
  std::shared_ptr<const Footprint> footprint = footprint_of(link, &argv);
  // However this call returns (a reply, a timeout, a failure, an unwind), a
  // request still on the wire takes its own copy of argv, which the caller
  // may change from then on.
  struct Unborrow {
    Network& net;
    const lock::Argv& argv;
    uint32_t id = 0;
    uint64_t serial = 0;
    ~Unborrow() {
      if (serial == 0 || id >= net.messages_.size() || !net.messages_[id]) return;
      Message& m = *net.messages_[id];
      if (m.serial != serial || m.borrowed_argv != &argv) return;
      m.argv = argv;
      m.borrowed_argv = nullptr;
    }
  } unborrow{*this, argv};
  {
    auto [m, id] = new_message(Message::Kind::kRequest);
    unborrow.id = id;
    unborrow.serial = m->serial;
    m->task = &t;
    m->token = token;
    m->borrowed_argv = &argv;
    m->on_arrival = std::move(on_arrival);
    m->lost = lost;
    m->lost_after_run = lost_after_run;
    m->reply_lost = reply_lost;
    m->incarnation = p.incarnation;
    // A request belongs to its connection's task (send_to_server).
    send_message(link, link.last_to_server_us, id, "request", std::move(footprint), link.task);
  }
  try {
    procs_.suspend(t);
  } catch (const lock::ClosedError&) {
    std::erase_if(link.in_flight, [&](const InFlight& f) { return f.task == &t; });
    throw;
  }
  std::erase_if(link.in_flight, [&](const InFlight& f) { return f.task == &t; });
  switch (t.call_end) {
    case CallEnd::kReply:
      break;
    case CallEnd::kTimeout: {
      if (!link.broken && !link.closed) {
        HistoryEvent e = life_.event(EventKind::kLinkBroken, &p, t.id);
        e.server = static_cast<int32_t>(link.server);
        e.text = "timeout";
        life_.record(std::move(e));
        close_link(link);
        if (link.task == 0) {
          // The server drops this connection's subscriptions: subscribe the
          // process's channels again on a new one.
          const size_t server = link.server;
          life_.sched().at(life_.now(), [this, &p, server] {
            procs_.deliver(p, [this, &p, server] { resubscribe(p, server); });
          });
        }
      }
      throw lock::TimeoutError("no reply from server " + std::to_string(link.server) + " within " +
                               std::to_string(timeout_us) + " us");
    }
    case CallEnd::kIoError:
      throw lock::IoError(t.call_error);
  }
  return std::move(t.reply);
}

void Network::refuse(Task& t, size_t server, int64_t timeout_us) {
  Process& p = *t.process;
  const uint64_t token = procs_.block(t);
  t.call_end = CallEnd::kReply;
  const std::string why = "connection to server " + std::to_string(server) + " refused";
  const int64_t refuse_at = life_.now() + std::max<int64_t>(life_.options().connect_refused_us, 1);
  if (timeout_us > 0) {
    const int64_t timeout_at = life_.now() + p.clock.true_duration(timeout_us);
    if (timeout_at < refuse_at) {
      fail_call(t, token, CallEnd::kTimeout, "", timeout_at);
    }
  }
  fail_call(t, token, CallEnd::kIoError, why, refuse_at);
  procs_.suspend(t);
  if (t.call_end == CallEnd::kTimeout) {
    throw lock::TimeoutError("connecting to server " + std::to_string(server) + " timed out");
  }
  throw lock::IoError(why);
}

bool Network::partitioned(const Process& p, size_t server) const {
  for (const Window& w : partitions_) {
    if (w.pid == p.pid && w.server == server && life_.now() >= w.from_us && life_.now() < w.to_us)
      return true;
  }
  return false;
}

bool Network::unreachable(const Process& p, size_t server) const {
  return !nodes_.primary(server).up || partitioned(p, server);
}

void Network::close_link(Link& link) {
  if (link.closed || link.broken) return;
  link.closed = true;
  send_to_server(
      link,
      [this, &link] {
        nodes_.forget_blocked(link);
        link.session.reset();  // the server forgets WATCHes, drops subscriptions
        std::erase(link.node->links, &link);
        HistoryEvent e = life_.event(EventKind::kDisconnect, link.process, link.task);
        e.server = static_cast<int32_t>(link.server);
        life_.record(std::move(e));
      },
      "close", footprint_of(link, nullptr));
}

void Network::break_link(Link& link, std::string why, int64_t notify_after_us) {
  if (link.broken) return;
  link.broken = true;
  nodes_.forget_blocked(link);
  link.session.reset();
  std::erase(link.node->links, &link);
  nodes_.drop_waits(link);
  Process& p = *link.process;
  if (!p.dying && !link.closed) {
    HistoryEvent e = life_.event(EventKind::kLinkBroken, &p, link.task);
    e.server = static_cast<int32_t>(link.server);
    e.text = why;
    life_.record(std::move(e));
  }
  for (const InFlight& f : link.in_flight) {
    fail_call(*f.task, f.token, CallEnd::kIoError,
              "connection to server " + std::to_string(link.server) + " broken: " + why,
              life_.now() + std::max<int64_t>(notify_after_us, 0));
  }
  link.in_flight.clear();
  if (link.task == 0 && p.pubsub_links[link.server] == &link) {
    p.pubsub_links[link.server] = nullptr;
    // The subscriptions of the process still stand: once the client sees the
    // reset it connects again and subscribes again (or, while the server is
    // unreachable, when the partition heals or the server restarts).
    const size_t server = link.server;
    life_.sched().at(life_.now() + std::max<int64_t>(notify_after_us, 0), [this, &p, server] {
      procs_.deliver(p, [this, &p, server] { resubscribe(p, server); });
    });
  }
}

void Network::start_partition(Process& p, size_t server, int64_t until_us) {
  if (p.dying) return;
  // It breaks links of any task of the process (exhaustive.h, case 14).
  life_.sched().note_process_wide();
  partitions_.push_back(Window{p.pid, server, life_.now(), until_us, 0});
  HistoryEvent e = life_.event(EventKind::kPartitionStart, &p, 0);
  e.server = static_cast<int32_t>(server);
  e.value = until_us;
  life_.record(std::move(e));
  std::vector<Link*> cut;
  for (Link* link : p.links) {
    if (link->server == server && !link->broken && !link->closed) cut.push_back(link);
  }
  for (Link* link : cut) break_link(*link, "partition", until_us - life_.now());
  life_.sched().at(until_us, [this, &p, server] {
    if (p.dying) return;
    HistoryEvent h = life_.event(EventKind::kPartitionHeal, &p, 0);
    h.server = static_cast<int32_t>(server);
    life_.record(std::move(h));
    procs_.deliver(p, [this, &p, server] { resubscribe(p, server); });
  });
}

void Network::resubscribe(Process& p, size_t server) {
  if (p.dying || unreachable(p, server)) return;
  std::vector<std::string> channels;
  for (const auto& [id, sub] : p.subscriptions) {
    if (sub.server == server &&
        std::find(channels.begin(), channels.end(), sub.channel) == channels.end()) {
      channels.push_back(sub.channel);
    }
  }
  if (channels.empty()) return;
  Link* existing = p.pubsub_links[server];
  if (existing != nullptr && !existing->broken && !existing->closed) return;
  Link& link = pubsub_link(p, server);
  for (const std::string& channel : channels) {
    const lock::Argv subscribe{"SUBSCRIBE", channel};
    send_to_server(
        link,
        [this, &link, channel] {
          if (!link.session) return;
          lock::Argv argv{"SUBSCRIBE", channel};
          resp::Reply reply = link.node->server_->execute(*link.session, argv);
          HistoryEvent e = life_.event(EventKind::kCommand, link.process, 0);
          e.server = static_cast<int32_t>(link.server);
          e.argv = std::move(argv);
          e.reply = std::move(reply);
          life_.record(std::move(e));
          // Nobody waits for it: it touches no state (exhaustive.h, case 8).
          send_to_client(
              link, [] {}, "reply", Scheduler::kNoTask);
        },
        "request", footprint_of(link, &subscribe));
  }
}

void Network::dispatch_push(Process& p, size_t server, const std::string& channel,
                            const resp::Reply& payload) {
  {
    HistoryEvent& e = life_.record_event(EventKind::kPush, &p, 0);
    e.server = static_cast<int32_t>(server);
    if (const HistoryText* recent = p.recent_channels.find(channel)) {
      e.text = *recent;
    } else {
      e.text = life_.intern_text(channel);
      p.recent_channels.remember(e.text);
    }
    if (const HistoryReply* recent = p.recent_payloads.find(payload)) {
      e.reply = *recent;
    } else {
      e.reply = life_.intern_reply(payload);
      p.recent_payloads.remember(e.reply);
    }
  }
  // Collect first: a callback may subscribe or unsubscribe. (Nearly always
  // a few: on the stack, the rest in a vector.)
  std::array<lock::SubscriptionId, 8> few;
  size_t count = 0;
  std::vector<lock::SubscriptionId> more;
  for (const auto& [id, sub] : p.subscriptions) {
    if (sub.server != server || sub.channel != channel) continue;
    if (count < few.size()) {
      few[count++] = id;
    } else {
      more.push_back(id);
    }
  }
  const auto run = [&](lock::SubscriptionId id) {
    auto it = p.subscriptions.find(id);
    if (it == p.subscriptions.end() || p.dying) return;
    // Held: the callback may erase itself.
    const std::shared_ptr<const std::function<void(const std::string&)>> callback =
        it->second.on_message;
    (*callback)(payload.str());
  };
  for (size_t i = 0; i < count; ++i) run(few[i]);
  for (lock::SubscriptionId id : more) run(id);
}

lock::SubscriptionId Network::subscribe(Process& p, const std::string& channel,
                                        std::function<void(const std::string&)> on_message,
                                        size_t server) {
  Task& t = procs_.current_task(p);
  if (p.dying) {
    procs_.call_after_crash(t);
    throw lock::ClosedError(gone(p));
  }
  if (server >= nodes_.server_count()) {
    throw std::out_of_range("no server " + std::to_string(server) + " in this world");
  }
  procs_.fault_point(p, t);
  const Link* existing = p.pubsub_links[server];
  if ((existing == nullptr || existing->broken || existing->closed) && unreachable(p, server)) {
    refuse(t, server, life_.options().command_timeout.value_or(Micros{0}).count());
  }
  Link& link = pubsub_link(p, server);
  const lock::SubscriptionId id = p.next_subscription++;
  // Registered when the confirmation reaches the process: every message
  // published after the server ran SUBSCRIBE arrives after it (FIFO).
  resp::Reply reply = round_trip(
      t, link, {"SUBSCRIBE", channel},
      [&p, id, server, channel,
       on_message = std::make_shared<const std::function<void(const std::string&)>>(
           std::move(on_message))](const resp::Reply& r) {
        if (!r.is_error()) p.subscriptions[id] = Subscription{server, channel, on_message};
      },
      life_.options().command_timeout.value_or(Micros{0}).count());
  if (reply.is_error()) throw lock::UnexpectedReply("SUBSCRIBE " + channel + ": " + reply.str());
  return id;
}

void Network::unsubscribe(Process& p, lock::SubscriptionId id) {
  auto it = p.subscriptions.find(id);
  if (it == p.subscriptions.end()) return;
  const size_t server = it->second.server;
  const std::string channel = it->second.channel;
  p.subscriptions.erase(it);
  if (p.dying) return;
  for (const auto& [other_id, sub] : p.subscriptions) {
    if (sub.server == server && sub.channel == channel) return;  // still wanted
  }
  Link* link = p.pubsub_links[server];
  if (link == nullptr || link->closed || link->broken) return;
  const Task* current = procs_.current();
  const TaskId task = current != nullptr && current->process == &p ? current->id : 0;
  // The footprint (exhaustive reduction) only when footprints are on: the
  // argv is not built otherwise.
  std::shared_ptr<const Footprint> footprint;
  if (life_.footprints()) {
    const lock::Argv unsubscribe{"UNSUBSCRIBE", channel};
    footprint = footprint_of(*link, &unsubscribe);
  }
  send_to_server(
      *link,
      [this, link, task, channel] {
        if (!link->session) return;
        lock::Argv argv{"UNSUBSCRIBE", channel};
        resp::Reply reply = link->node->server_->execute(*link->session, argv);
        HistoryEvent e = life_.event(EventKind::kCommand, link->process, task);
        e.server = static_cast<int32_t>(link->server);
        e.argv = std::move(argv);
        e.reply = std::move(reply);
        life_.record(std::move(e));
        // Nobody waits for this reply; it only keeps its place in the FIFO
        // and touches no state (exhaustive.h, case 8).
        send_to_client(
            *link, [] {}, "reply", Scheduler::kNoTask);
      },
      "request", std::move(footprint));
}

void Network::add_loss_window(ProcessId pid, size_t server, int64_t from_us, int64_t to_us,
                              Loss loss) {
  losses_.push_back(Window{pid, server, from_us, to_us, static_cast<int64_t>(loss)});
}

void Network::add_delay_window(ProcessId pid, size_t server, int64_t from_us, int64_t to_us,
                               int64_t extra_us) {
  delays_.push_back(Window{pid, server, from_us, to_us, extra_us});
}

void Network::drop_sessions() {
  for (auto& link : links_) link->session.reset();
}

}  // namespace redsim::world::detail
