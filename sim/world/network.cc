// The simulated network: connections (Links), per-message latency with
// per-connection FIFO order, request/reply round trips, pub/sub pushes.
#include <stdexcept>
#include <utility>

#include "lock/errors.h"
#include "sim/world/runtime.h"

namespace redsim::world::detail {

resp::Reply SimConnection::call(const lock::Argv& argv) {
  Process& p = *link_.process;
  Task& t = rt_.current_task(p);
  if (p.dying || link_.closed)
    throw lock::ClosedError("process c" + std::to_string(p.pid) + " is gone");
  rt_.fault_point(p, t);
  return rt_.round_trip(t, link_, argv);
}

lock::Connection& Runtime::connection(Task& t, size_t server) {
  Process& p = *t.process;
  if (p.dying) throw lock::ClosedError("process c" + std::to_string(p.pid) + " is gone");
  if (server >= servers.size()) {
    throw std::out_of_range("no server " + std::to_string(server) + " in this world");
  }
  auto& slot = t.connections[server];
  if (!slot) slot = std::make_unique<SimConnection>(*this, new_link(p, t.id, server));
  return *slot;
}

Link& Runtime::new_link(Process& p, TaskId task, size_t server) {
  auto link = std::make_unique<Link>();
  link->server = server;
  link->process = &p;
  link->task = task;
  link->session = servers[server]->connect();
  link->rng = p.seed_rng.fork("link").fork(task).fork(server);
  Link& ref = *link;
  links.push_back(std::move(link));
  p.links.push_back(&ref);
  return ref;
}

Link& Runtime::pubsub_link(Process& p, size_t server) {
  Link*& slot = p.pubsub_links[server];
  if (slot != nullptr) return *slot;
  Link& link = new_link(p, 0, server);
  // The server calls this inside the PUBLISH (or SUBSCRIBE) it is running;
  // the push then travels to the client like any other message.
  link.session->set_push_handler([this, &link](const resp::Reply& push) {
    send_to_client(link, [this, &link, push] {
      deliver(*link.process,
              [this, &link, push] { dispatch_push(*link.process, link.server, push); });
    });
  });
  slot = &link;
  return link;
}

int64_t Runtime::draw_latency(Link& link) {
  const FaultPlan& plan = options.faults;
  switch (plan.latency_distribution) {
    case LatencyDistribution::kUniform:
      return link.rng.uniform(plan.latency_min_us, plan.latency_max_us);
  }
  return plan.latency_min_us;
}

void Runtime::send_to_server(Link& link, std::function<void()> fn) {
  // Never before an earlier message on this connection: FIFO. Equal times
  // keep their order through the scheduler's sequence numbers.
  const int64_t arrival = std::max(now() + draw_latency(link), link.last_to_server_us);
  link.last_to_server_us = arrival;
  sched.at(arrival, std::move(fn));
}

void Runtime::send_to_client(Link& link, std::function<void()> fn) {
  const int64_t arrival = std::max(now() + draw_latency(link), link.last_to_client_us);
  link.last_to_client_us = arrival;
  sched.at(arrival, std::move(fn));
}

resp::Reply Runtime::round_trip(Task& t, Link& link, lock::Argv argv,
                                std::function<void(const resp::Reply&)> on_arrival) {
  const uint64_t token = block(t);
  send_to_server(link, [this, &link, &t, token, argv = std::move(argv),
                        on_arrival = std::move(on_arrival)]() mutable {
    if (!link.session) return;  // cannot happen: a close is queued behind every request
    resp::Reply reply = servers[link.server]->execute(*link.session, argv);
    HistoryEvent e = event(EventKind::kCommand, link.process, t.id);
    e.server = static_cast<int32_t>(link.server);
    e.argv = std::move(argv);
    e.reply = format_reply(reply);
    record(std::move(e));
    note_key_states(link.server);
    send_to_client(link, [this, &link, &t, token, reply = std::move(reply),
                          on_arrival = std::move(on_arrival)] {
      deliver(*link.process, [this, &t, token, reply, on_arrival] {
        if (on_arrival) on_arrival(reply);
        t.reply = reply;
        wake(t, token);
      });
    });
  });
  suspend(t);
  return std::move(t.reply);
}

void Runtime::close_link(Link& link) {
  if (link.closed) return;
  link.closed = true;
  send_to_server(link, [this, &link] {
    link.session.reset();  // the server forgets WATCHes, drops subscriptions
    HistoryEvent e = event(EventKind::kDisconnect, link.process, link.task);
    e.server = static_cast<int32_t>(link.server);
    record(std::move(e));
  });
}

void Runtime::dispatch_push(Process& p, size_t server, const resp::Reply& push) {
  const auto& el = push.elements();
  if (!push.is_array() || el.size() != 3 || el[0].str() != "message") return;
  const std::string& channel = el[1].str();
  const std::string& payload = el[2].str();
  HistoryEvent e = event(EventKind::kPush, &p, 0);
  e.server = static_cast<int32_t>(server);
  e.text = channel;
  e.reply = format_reply(el[2]);
  record(std::move(e));
  // Collect first: a callback may subscribe or unsubscribe.
  std::vector<lock::SubscriptionId> ids;
  for (const auto& [id, sub] : p.subscriptions) {
    if (sub.server == server && sub.channel == channel) ids.push_back(id);
  }
  for (lock::SubscriptionId id : ids) {
    auto it = p.subscriptions.find(id);
    if (it == p.subscriptions.end() || p.dying) continue;
    auto callback = it->second.on_message;  // a copy: the callback may erase itself
    callback(payload);
  }
}

lock::SubscriptionId Runtime::subscribe(Process& p, const std::string& channel,
                                        std::function<void(const std::string&)> on_message,
                                        size_t server) {
  Task& t = current_task(p);
  if (p.dying) throw lock::ClosedError("process c" + std::to_string(p.pid) + " is gone");
  if (server >= servers.size()) {
    throw std::out_of_range("no server " + std::to_string(server) + " in this world");
  }
  fault_point(p, t);
  Link& link = pubsub_link(p, server);
  const lock::SubscriptionId id = p.next_subscription++;
  // Registered when the confirmation reaches the process: every message
  // published after the server ran SUBSCRIBE arrives after it (FIFO).
  resp::Reply reply = round_trip(
      t, link, {"SUBSCRIBE", channel},
      [&p, id, server, channel, on_message = std::move(on_message)](const resp::Reply& r) {
        if (!r.is_error()) p.subscriptions[id] = Subscription{server, channel, on_message};
      });
  if (reply.is_error()) throw lock::UnexpectedReply("SUBSCRIBE " + channel + ": " + reply.str());
  return id;
}

void Runtime::unsubscribe(Process& p, lock::SubscriptionId id) {
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
  if (link == nullptr || link->closed) return;
  const TaskId task = current != nullptr && current->process == &p ? current->id : 0;
  send_to_server(*link, [this, link, task, channel] {
    if (!link->session) return;
    lock::Argv argv{"UNSUBSCRIBE", channel};
    resp::Reply reply = servers[link->server]->execute(*link->session, argv);
    HistoryEvent e = event(EventKind::kCommand, link->process, task);
    e.server = static_cast<int32_t>(link->server);
    e.argv = std::move(argv);
    e.reply = format_reply(reply);
    record(std::move(e));
    // Nobody waits for this reply; it only keeps its place in the FIFO.
    send_to_client(*link, [] {});
  });
}

}  // namespace redsim::world::detail
