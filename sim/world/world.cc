// World over its Runtime (runtime.h): each call reaches the component it needs.
#include "sim/world/world.h"

#include <stdexcept>
#include <utility>

#include "sim/world/runtime.h"

namespace redsim::world {
namespace detail {

Runtime::Runtime(WorldOptions opts) : life(std::move(opts)) { nodes.start(); }

Runtime::~Runtime() {
  procs.unwind_all();
  net.drop_sessions();
}

}  // namespace detail

// ---------------------------------------------------------------- World

World::World(WorldOptions options) : rt_(std::make_unique<detail::Runtime>(std::move(options))) {}

World::~World() = default;

ProcessId World::spawn_process(std::string name, std::function<void(ProcessEnv&)> main,
                               Micros start_at, std::optional<uint64_t> stream) {
  detail::Runtime& rt = *rt_;
  return rt.procs.spawn(std::move(name), std::move(main), start_at.count(), stream,
                        [&rt](detail::Process& p) { return std::make_unique<ProcessEnv>(rt, p); });
}

void World::pause_process(ProcessId pid, Micros at, Micros duration) {
  detail::Processes& procs = rt_->procs;
  detail::Process& p = procs.process(pid);
  rt_->life.sched().at(
      at.count(), [&procs, &p, duration] { procs.begin_pause(p, duration.count(), "scheduled"); });
}

void World::crash_process(ProcessId pid, Micros at) {
  detail::Processes& procs = rt_->procs;
  detail::Process& p = procs.process(pid);
  rt_->life.sched().at(at.count(), [&procs, &p] { procs.crash(p, "scheduled"); });
}

void World::restart_process(ProcessId pid, Micros at, std::function<void(ProcessEnv&)> main) {
  detail::Processes& procs = rt_->procs;
  detail::Process& p = procs.process(pid);
  rt_->life.sched().at(at.count(), [&procs, &p, main = std::move(main)]() mutable {
    procs.restart(p, std::move(main));
  });
}

void World::at(Micros at, std::function<void()> action) {
  rt_->life.sched().at(at.count(), std::move(action));
}

void World::partition(ProcessId pid, size_t server, Micros from, Micros to) {
  detail::Process& p = rt_->procs.process(pid);
  if (server >= rt_->nodes.server_count()) throw std::out_of_range("no such server");
  detail::Network& net = rt_->net;
  rt_->life.sched().at(from.count(),
                       [&net, &p, server, to] { net.start_partition(p, server, to.count()); });
}

void World::lose_messages(ProcessId pid, size_t server, Micros from, Micros to, Loss loss) {
  rt_->procs.process(pid);
  if (server >= rt_->nodes.server_count()) throw std::out_of_range("no such server");
  rt_->net.add_loss_window(pid, server, from.count(), to.count(), loss);
}

void World::delay_messages(ProcessId pid, size_t server, Micros from, Micros to, Micros extra) {
  rt_->procs.process(pid);
  if (server >= rt_->nodes.server_count()) throw std::out_of_range("no such server");
  rt_->net.add_delay_window(pid, server, from.count(), to.count(), extra.count());
}

void World::set_process_clock_drift(ProcessId pid, int64_t drift_ppm, Micros at) {
  detail::Process& p = rt_->procs.process(pid);
  detail::Lifecycle& life = rt_->life;
  life.sched().at(at.count(), [&life, &p, drift_ppm] {
    p.clock.set_drift(life.now(), drift_ppm);
    HistoryEvent e = life.event(EventKind::kClockDrift, &p, 0);
    e.value = drift_ppm;
    life.record(std::move(e));
  });
}

void World::jump_process_clock(ProcessId pid, Micros at, Micros delta) {
  detail::Process& p = rt_->procs.process(pid);
  detail::Lifecycle& life = rt_->life;
  life.sched().at(at.count(), [&life, &p, delta] {
    p.clock.jump(life.now(), delta.count());
    HistoryEvent e = life.event(EventKind::kClockJump, &p, 0);
    e.value = delta.count();
    life.record(std::move(e));
  });
}

void World::set_server_clock_drift(size_t node, int64_t drift_ppm, Micros at) {
  detail::Node& n = rt_->nodes.node(node);
  detail::Lifecycle& life = rt_->life;
  life.sched().at(at.count(), [&life, &n, drift_ppm] {
    n.clock->drift.set_drift(life.now(), drift_ppm);
    HistoryEvent e = life.event(EventKind::kClockDrift, nullptr, 0);
    e.server = static_cast<int32_t>(n.server);
    e.text = n.name;
    e.value = drift_ppm;
    life.record(std::move(e));
  });
}

void World::jump_server_clock(size_t node, Micros at, Micros delta) {
  detail::Nodes& nodes = rt_->nodes;
  detail::Node& n = nodes.node(node);
  rt_->life.sched().at(at.count(),
                       [&nodes, &n, delta] { nodes.jump_node_clock(n, delta.count(), ""); });
}

size_t World::node_of(size_t server, size_t replica) const {
  const WorldOptions& o = rt_->life.options();
  if (server >= o.servers || replica >= o.replicas) throw std::out_of_range("no such replica");
  return o.servers + server * o.replicas + replica;
}

void World::crash_server(size_t node, Micros at) {
  detail::Nodes& nodes = rt_->nodes;
  detail::Node& n = nodes.node(node);
  rt_->life.sched().at(
      at.count(), [&nodes, &n] { nodes.crash_node(n, "scheduled", /*schedule_restart=*/false); });
}

void World::restart_server(size_t node, Micros at) {
  detail::Nodes& nodes = rt_->nodes;
  detail::Node& n = nodes.node(node);
  rt_->life.sched().at(at.count(), [&nodes, &n] { nodes.restart_node(n); });
}

void World::failover(size_t server, Micros at, size_t replica) {
  detail::Nodes& nodes = rt_->nodes;
  if (server >= nodes.server_count()) throw std::out_of_range("no such server");
  rt_->life.sched().at(at.count(), [&nodes, server, replica] { nodes.failover(server, replica); });
}

World::RunEnd World::run() {
  const Scheduler::Stop stop = rt_->life.run();
  if (stop == Scheduler::Stop::kPruned) return RunEnd::kPruned;
  return stop == Scheduler::Stop::kIdle ? RunEnd::kIdle : RunEnd::kTimeLimit;
}

std::vector<ChoicePoint> World::choice_points() const { return rt_->life.choice_points(); }

void World::run_until(Micros t) { rt_->life.run_until(t.count()); }

Micros World::now() const { return Micros{rt_->life.now()}; }

sim::Server& World::server(size_t i) { return node(rt_->nodes.primary(i).index); }
size_t World::server_count() const { return rt_->nodes.server_count(); }

sim::Server& World::node(size_t node) {
  detail::Node& n = rt_->nodes.node(node);
  if (!n.up) throw std::logic_error("server node " + n.name + " is down");
  return *n.server_;
}

bool World::node_up(size_t node) const { return rt_->nodes.node(node).up; }

int64_t World::process_clock_us(ProcessId pid) const {
  return rt_->procs.process(pid).clock.read(rt_->life.now());
}
const History& World::history() const { return rt_->life.history(); }

ProcessState World::process_state(ProcessId pid) const {
  const detail::Process& p = rt_->procs.process(pid);
  if (p.state == ProcessState::kRunning && p.paused) return ProcessState::kPaused;
  return p.state;
}

std::string World::client_id(ProcessId pid) const { return rt_->procs.process(pid).client_id; }
uint64_t World::seed() const { return rt_->life.options().seed; }

}  // namespace redsim::world
