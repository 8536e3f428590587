// World, and the process lifecycle and blocking machinery of its Runtime.
#include "sim/world/world.h"

#include <cstdio>
#include <stdexcept>
#include <utility>

#include "lock/errors.h"
#include "sim/keyspace.h"
#include "sim/world/runtime.h"

namespace redsim::world {
namespace detail {

Runtime::Runtime(WorldOptions opts) : options(std::move(opts)), root(options.seed) {
  if (options.servers == 0) throw std::invalid_argument("WorldOptions::servers must be >= 1");
  history.set_server_count(options.servers);
  if (options.strategy.depth > 0) {
    // Its own stream: the random strategy's draws are left as they were.
    pct = std::make_unique<PctPriorities>(options.strategy.depth, options.pct_steps,
                                          root.fork("pct").next_u64());
    sched.set_priorities(pct.get());
  }
  if (options.strategy.exhaustive()) {
    chooser = std::make_unique<Chooser>(options.strategy.schedule);
    sched.set_chooser(chooser.get(), options.strategy.reduce);
    const FaultPlan& f = options.faults;
    footprints = options.strategy.reduce && !f.partition_ppm && !f.delay_ppm &&
                 !f.server_crash_ppm && !f.failover_ppm && !f.server_clock_jump_ppm &&
                 options.replicas == 0;
  }
  make_nodes();
  if (options.active_expire_interval) {
    sched.after(
        options.active_expire_interval->count(), [this] { expire_tick(); }, /*daemon=*/true);
  }
  if (options.persistence == Persistence::kAofEverysec) {
    sched.after(
        1000 * 1000, [this] { fsync_tick(); }, /*daemon=*/true);
  }
}

Runtime::~Runtime() {
  // Unwind every live fiber while everything it may touch still exists. No
  // history is written: the world is going away, not the process crashing.
  for (auto& p : processes) {
    p->dying = true;
    for (auto& t : p->tasks) {
      current = t.get();
      t->fiber.reset();
      t->state = Task::State::kDone;
    }
  }
  current = nullptr;
  for (auto& link : links) link->session.reset();
}

HistoryEvent Runtime::event(EventKind kind, const Process* p, TaskId task) const {
  HistoryEvent e;
  e.t_us = now();
  e.kind = kind;
  e.process = p != nullptr ? p->pid : 0;
  e.task = task;
  return e;
}

Process& Runtime::process(ProcessId pid) {
  if (pid == 0 || pid > processes.size()) throw std::out_of_range("no such process");
  return *processes[pid - 1];
}

void Runtime::start_process(Process& p) {
  if (p.state != ProcessState::kScheduled) return;
  p.state = ProcessState::kRunning;
  HistoryEvent e = event(EventKind::kProcessStart, &p, 0);
  e.text = p.name;
  e.client_id = p.client_id;
  record(std::move(e));
  add_task(p, "main", [&p] { p.main(*p.env); });
}

void Runtime::set_client_id(Process& p) {
  Prng ids = p.seed_rng.fork("client-id");
  if (p.incarnation > 0) ids = ids.fork(p.incarnation);
  char hex[16];
  std::snprintf(hex, sizeof hex, "%08x", static_cast<unsigned>(ids.next_u64() & 0xFFFFFFFFu));
  p.client_id = "c" + std::to_string(p.pid) + "-" + hex;
}

void Runtime::restart(Process& p, std::function<void(ProcessEnv&)> main) {
  if (p.state != ProcessState::kCrashed) return;
  ++p.incarnation;
  set_client_id(p);
  if (main) p.main = std::move(main);
  p.dying = false;
  p.paused = false;
  p.held.clear();
  p.links.clear();  // all closed; the Runtime still owns them
  std::fill(p.pubsub_links.begin(), p.pubsub_links.end(), nullptr);
  p.subscriptions.clear();
  p.state = ProcessState::kRunning;
  HistoryEvent e = event(EventKind::kProcessRestart, &p, 0);
  e.text = p.name;
  e.client_id = p.client_id;
  record(std::move(e));
  p.main_task = p.tasks.size() + 1;
  add_task(p, "main", [&p] { p.main(*p.env); });
}

Task& Runtime::add_task(Process& p, std::string name, std::function<void()> body) {
  auto task = std::make_unique<Task>();
  task->process = &p;
  task->id = p.tasks.size() + 1;
  task->name = std::move(name);
  task->fiber = std::make_unique<Fiber>(std::move(body), options.fiber_stack_bytes);
  task->connections.resize(server_count());
  Task& t = *task;
  p.tasks.push_back(std::move(task));
  if (t.id != p.main_task) {
    HistoryEvent e = event(EventKind::kTaskStart, &p, t.id);
    e.text = t.name;
    record(std::move(e));
  }
  sched.at(now(), [this, &t] { deliver(*t.process, [this, &t] { run_task(t); }); });
  return t;
}

void Runtime::run_task(Task& t) {
  Process& p = *t.process;
  if (p.dying || t.state != Task::State::kReady) return;
  if (p.paused) {
    p.held.push_back([this, &t] { run_task(t); });
    return;
  }
  t.state = Task::State::kRunning;
  current = &t;
  std::string error;
  try {
    t.fiber->resume();
  } catch (const std::exception& ex) {
    error = ex.what();
    if (error.empty()) error = "std::exception";
  } catch (...) {
    error = "unknown exception";
  }
  current = nullptr;
  if (!error.empty()) {
    HistoryEvent e = event(EventKind::kTaskError, &p, t.id);
    e.text = std::move(error);
    record(std::move(e));
    t.state = Task::State::kDone;
    t.fiber.reset();
    crash(p, "uncaught exception");
    return;
  }
  if (t.fiber->done()) finish_task(t);
}

void Runtime::finish_task(Task& t) {
  Process& p = *t.process;
  t.state = Task::State::kDone;
  t.fiber.reset();
  if (t.id != p.main_task) {
    record(event(EventKind::kTaskEnd, &p, t.id));
    return;
  }
  // main returned: the process exits, its other tasks stop with it.
  record(event(EventKind::kProcessEnd, &p, 0));
  p.state = ProcessState::kEnded;
  teardown(p);
}

void Runtime::crash(Process& p, std::string reason) {
  if (p.state == ProcessState::kEnded || p.state == ProcessState::kCrashed) return;
  HistoryEvent e = event(EventKind::kProcessCrash, &p, 0);
  e.text = std::move(reason);
  record(std::move(e));
  p.state = ProcessState::kCrashed;
  teardown(p);
  const FaultPlan& plan = options.faults;
  if (p.restart_rng.chance(plan.restart_ppm)) {
    sched.after(p.restart_rng.uniform(plan.restart_min.count(), plan.restart_max.count()),
                [this, &p] { restart(p, {}); });
  }
}

void Runtime::teardown(Process& p) {
  p.dying = true;
  p.paused = false;
  p.held.clear();
  Task* outer = current;
  for (auto& t : p.tasks) {
    if (t->state == Task::State::kDone) continue;
    current = t.get();
    // A task blocked in an Env call gets that call failed with ClosedError
    // and runs on (its Env calls fail or return at once) until it ends. Only
    // a task that then blocks again is unwound with forced_unwind. So an
    // unlock() suspended inside a noexcept destructor (std::unique_lock's)
    // returns normally instead of letting forced_unwind reach std::terminate.
    if (t->fiber->started() && !t->fiber->done() && t->state != Task::State::kRunning) {
      t->state = Task::State::kRunning;
      t->cancelling = true;
      try {
        t->fiber->resume();
      } catch (...) {
        // What escapes a task of a crashed process (ClosedError, mostly) is
        // not an error of the process: it is gone already.
      }
      t->cancelling = false;
    }
    t->fiber.reset();  // unwinds a fiber that suspended again (forced_unwind)
    t->state = Task::State::kDone;
  }
  current = outer;
  p.subscriptions.clear();
  for (Link* link : p.links) close_link(*link);
}

void Runtime::begin_pause(Process& p, int64_t duration_us, std::string_view why) {
  if (p.dying || p.state == ProcessState::kEnded || p.state == ProcessState::kCrashed) return;
  HistoryEvent e = event(EventKind::kProcessPause, &p, 0);
  e.value = duration_us;
  e.text = why;
  record(std::move(e));
  const int64_t until = now() + std::max<int64_t>(duration_us, 0);
  if (p.paused && until <= p.paused_until_us) return;
  p.paused = true;
  p.paused_until_us = until;
  const uint64_t generation = ++p.pause_generation;
  sched.at(until, [this, &p, generation] {
    if (p.paused && p.pause_generation == generation) end_pause(p);
  });
}

void Runtime::end_pause(Process& p) {
  p.paused = false;
  record(event(EventKind::kProcessResume, &p, 0));
  // Replay in arrival order, inline, so nothing that arrives later overtakes
  // them; an item that pauses the process again re-holds the rest.
  std::vector<std::function<void()>> held = std::move(p.held);
  p.held.clear();
  for (auto& fn : held) deliver(p, std::move(fn));
}

void Runtime::deliver(Process& p, std::function<void()> fn) {
  if (p.dying) return;
  if (p.paused) {
    p.held.push_back(std::move(fn));
    return;
  }
  fn();
}

void Runtime::track_key(const std::string& key) {
  if (!tracked_keys.insert(key).second) return;
  for (size_t i = 0; i < primaries.size(); ++i) note_key_states(i);
}

namespace {

// Whether `known` is what note_key_states would record for `entry` with
// this deadline: the same deadline and the same marks (a string's value, a
// hash's fields in order; none for other types).
bool same_marks(const Runtime::KeyState& known, int64_t deadline_us, const sim::Entry& entry) {
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

void Runtime::note_key_states(size_t server, Process* writer, TaskId task) {
  if (tracked_keys.empty()) return;
  if (key_states.size() < primaries.size()) key_states.resize(primaries.size());
  // The server clients reach at this index now (after a failover, the
  // promoted replica); while it is down, no key is live there.
  sim::Server* s = primaries[server]->up ? primaries[server]->server_.get() : nullptr;
  auto& known = key_states[server];
  const int64_t server_now_us = primaries[server]->clock->now_us();
  for (const std::string& key : tracked_keys) {
    // Looked at without side effects: a key past its deadline counts as gone.
    const sim::Entry* entry = s != nullptr ? s->keyspace().db(0).peek(key) : nullptr;
    const bool live = entry != nullptr && !entry->expired_at(server_now_us / 1000);
    auto it = known.find(key);
    if (!live && it == known.end()) continue;
    KeyState state;
    if (live) {
      // The deadline in true time: how far ahead it is on the server's clock.
      state.deadline_us =
          !entry->has_expire() ? -1 : now() + (entry->expire_ms * 1000 - server_now_us);
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
    HistoryEvent e = event(EventKind::kKeyState, writer, writer != nullptr ? task : 0);
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
    record(std::move(e));
  }
}

int64_t Runtime::stall_allowance(Process& p) {
  const FaultPlan& plan = options.faults;
  if (!plan.stall_budget) return std::numeric_limits<int64_t>::max();
  const int64_t since = now() - plan.stall_budget_window.count();
  std::erase_if(p.stalls, [since](const auto& s) { return s.second <= since; });
  int64_t used = 0;
  for (const auto& [from, to] : p.stalls) used += to - from;
  return std::max<int64_t>(0, plan.stall_budget->count() - used);
}

void Runtime::note_stall(Process& p, int64_t length_us) {
  if (!options.faults.stall_budget || length_us <= 0) return;
  p.stalls.emplace_back(now(), now() + length_us);
}

void Runtime::expire_tick() {
  for (size_t i = 0; i < primaries.size(); ++i) {
    if (!primaries[i]->up) continue;
    const size_t deleted = primaries[i]->server_->active_expire_cycle();
    if (deleted > 0) {
      HistoryEvent e = event(EventKind::kServerNote, nullptr, 0);
      e.server = static_cast<int32_t>(i);
      e.text = "active expire deleted " + std::to_string(deleted) + " key(s)";
      record(std::move(e));
    }
    note_key_states(i);
  }
  sched.after(
      options.active_expire_interval->count(), [this] { expire_tick(); }, /*daemon=*/true);
}

Task& Runtime::current_task(Process& p) {
  if (current == nullptr || current->process != &p) {
    throw std::logic_error("redsim world: process c" + std::to_string(p.pid) +
                           "'s Env used outside one of its tasks (pub/sub callbacks and "
                           "scheduled actions must not block)");
  }
  return *current;
}

uint64_t Runtime::block(Task& t) {
  t.state = Task::State::kBlocked;
  t.signaled = false;
  return ++t.block_token;
}

void Runtime::suspend(Task& t) {
  t.fiber->suspend();
  // Back on the fiber: run_task set state = kRunning and current = &t, or
  // the process crashed meanwhile and teardown() resumed us to fail the call.
  if (t.process->dying) {
    throw lock::ClosedError("process c" + std::to_string(t.process->pid) +
                            " is gone: it crashed while this call was waiting");
  }
}

void Runtime::call_after_crash(Task& t) {
  if (!t.cancelling || ++t.calls_after_crash <= kCallsAfterCrash) return;
  // Back to teardown(), which unwinds the fiber from here (forced_unwind).
  t.fiber->suspend();
}

bool Runtime::wake(Task& t, uint64_t token) {
  if (t.state != Task::State::kBlocked || t.block_token != token) return false;
  t.state = Task::State::kReady;
  sched.at(now(), [this, &t] { run_task(t); });
  return true;
}

void Runtime::yield(Task& t) {
  const uint64_t token = block(t);
  wake(t, token);
  suspend(t);
}

void Runtime::crash_at_fault_point(Process& p, Task& t, const char* why) {
  sched.at(now(), [this, &p, why] { crash(p, why); });
  block(t);
  suspend(t);  // throws ClosedError: the crash's teardown resumes this fiber
  throw lock::ClosedError("process crashed");
}

void Runtime::pause_at_fault_point(Process& p, Task& t, int64_t length, const char* why) {
  note_stall(p, length);
  begin_pause(p, length, why);
  yield(t);  // held until the pause ends
}

void Runtime::pause_task_at_fault_point(Process& p, Task& t, int64_t length, const char* why) {
  // Only this task stalls (a descheduled thread): the process's other
  // tasks, its watchdog included, run on.
  note_stall(p, length);
  HistoryEvent e = event(EventKind::kTrace, &p, t.id);
  e.text = "task paused for " + format_time_ms(length) + " (" + why + ")";
  record(std::move(e));
  const uint64_t token = block(t);
  sched.after(length, [this, task = &t, token] { wake(*task, token); });
  suspend(t);
}

void Runtime::exhaustive_fault_point(Process& p, Task& t) {
  // The fixed fault set (explore/exhaustive.h): each fault the plan can draw is one
  // binary choice here, in this order; a pause takes its longest length.
  const FaultPlan& plan = options.faults;
  if (plan.crash_ppm && choose(2) == 1) crash_at_fault_point(p, t, "chosen");
  const int64_t length = std::min<int64_t>(plan.pause_max.count(), stall_allowance(p));
  if (length <= 0 || length < plan.pause_min.count()) return;
  if (plan.pause_ppm && choose(2) == 1) {
    pause_at_fault_point(p, t, length, "chosen");
    return;
  }
  if (plan.task_pause_ppm && choose(2) == 1) pause_task_at_fault_point(p, t, length, "chosen");
}

void Runtime::random_fault_point(Process& p, Task& t) {
  const FaultPlan& plan = options.faults;
  if (p.fault_rng.chance(plan.crash_ppm)) crash_at_fault_point(p, t, "random");
  // A pause's length: drawn in [pause_min, pause_max], cut to the stall
  // budget; nothing when the cut leaves less than pause_min.
  const auto draw_length = [&]() -> int64_t {
    const int64_t length = std::min(
        p.fault_rng.uniform(plan.pause_min.count(), plan.pause_max.count()), stall_allowance(p));
    return length > 0 && length >= plan.pause_min.count() ? length : 0;
  };
  if (p.fault_rng.chance(plan.pause_ppm)) {
    if (const int64_t length = draw_length()) pause_at_fault_point(p, t, length, "random");
  }
  if (p.fault_rng.chance(plan.task_pause_ppm)) {
    if (const int64_t length = draw_length()) pause_task_at_fault_point(p, t, length, "fault");
  }
}

void Runtime::fault_point(Process& p, Task& t) {
  const FaultPlan& plan = options.faults;
  if (chooser) {
    exhaustive_fault_point(p, t);
  } else {
    random_fault_point(p, t);
  }
  if (p.clock_rng.chance(plan.clock_jump_ppm)) {
    const int64_t delta =
        p.clock_rng.uniform(-plan.clock_jump_max.count(), plan.clock_jump_max.count());
    p.clock.jump(now(), delta);
    HistoryEvent e = event(EventKind::kClockJump, &p, t.id);
    e.value = delta;
    record(std::move(e));
  }
  if (p.partition_rng.chance(plan.partition_ppm)) {
    const size_t server = static_cast<size_t>(p.partition_rng.below(server_count()));
    const int64_t length =
        std::min(p.partition_rng.uniform(plan.partition_min.count(), plan.partition_max.count()),
                 stall_allowance(p));
    if (length > 0 && length >= plan.partition_min.count()) {
      note_stall(p, length);
      start_partition(p, server, now() + length);
    }
  }
}

}  // namespace detail

// ---------------------------------------------------------------- World

World::World(WorldOptions options) : rt_(std::make_unique<detail::Runtime>(std::move(options))) {}

World::~World() = default;

ProcessId World::spawn_process(std::string name, std::function<void(ProcessEnv&)> main,
                               Micros start_at, std::optional<uint64_t> stream) {
  detail::Runtime& rt = *rt_;
  auto p = std::make_unique<detail::Process>();
  p->pid = static_cast<ProcessId>(rt.processes.size() + 1);
  p->name = std::move(name);
  p->main = std::move(main);
  // Two processes never share a random stream, whatever their `stream`
  // (RapidCheck draws equal streams for several clients, at size 0 all of
  // them 1): the n-th reuse of a stream forks a sub-stream of it. The first
  // user keeps the plain stream, so a plan without repeats replays as before.
  const uint64_t stream_key = stream.value_or(p->pid);
  p->seed_rng = rt.root.fork("process").fork(stream_key);
  if (const uint64_t reuse = rt.stream_uses[stream_key]++; reuse > 0) {
    p->seed_rng = p->seed_rng.fork("reuse").fork(reuse);
  }
  p->random = p->seed_rng.fork("random");
  p->fault_rng = p->seed_rng.fork("faults");
  p->loss_rng = p->seed_rng.fork("loss");
  p->lost_reply_rng = p->seed_rng.fork("lost-reply");
  p->partition_rng = p->seed_rng.fork("partition");
  p->clock_rng = p->seed_rng.fork("clock");
  p->restart_rng = p->seed_rng.fork("restart");
  const int64_t drift = rt.options.faults.clock_drift_ppm_max;
  if (drift != 0) p->clock.set_drift(0, p->clock_rng.uniform(-drift, drift));
  rt.set_client_id(*p);
  p->pubsub_links.resize(rt.server_count(), nullptr);
  p->env = std::make_unique<ProcessEnv>(rt, *p);
  detail::Process& ref = *p;
  rt.processes.push_back(std::move(p));
  rt.sched.at(
      start_at.count(), [&rt, &ref] { rt.deliver(ref, [&rt, &ref] { rt.start_process(ref); }); },
      /*daemon=*/false, ref.pid);
  return ref.pid;
}

void World::pause_process(ProcessId pid, Micros at, Micros duration) {
  detail::Process& p = rt_->process(pid);
  detail::Runtime& rt = *rt_;
  rt.sched.at(at.count(),
              [&rt, &p, duration] { rt.begin_pause(p, duration.count(), "scheduled"); });
}

void World::crash_process(ProcessId pid, Micros at) {
  detail::Process& p = rt_->process(pid);
  detail::Runtime& rt = *rt_;
  rt.sched.at(at.count(), [&rt, &p] { rt.crash(p, "scheduled"); });
}

void World::restart_process(ProcessId pid, Micros at, std::function<void(ProcessEnv&)> main) {
  detail::Process& p = rt_->process(pid);
  detail::Runtime& rt = *rt_;
  rt.sched.at(at.count(),
              [&rt, &p, main = std::move(main)]() mutable { rt.restart(p, std::move(main)); });
}

void World::at(Micros at, std::function<void()> action) {
  rt_->sched.at(at.count(), std::move(action));
}

void World::partition(ProcessId pid, size_t server, Micros from, Micros to) {
  detail::Process& p = rt_->process(pid);
  detail::Runtime& rt = *rt_;
  if (server >= rt.server_count()) throw std::out_of_range("no such server");
  rt.sched.at(from.count(), [&rt, &p, server, to] { rt.start_partition(p, server, to.count()); });
}

void World::lose_messages(ProcessId pid, size_t server, Micros from, Micros to, Loss loss) {
  rt_->process(pid);
  if (server >= rt_->server_count()) throw std::out_of_range("no such server");
  rt_->losses.push_back(
      detail::Runtime::Window{pid, server, from.count(), to.count(), static_cast<int64_t>(loss)});
}

void World::delay_messages(ProcessId pid, size_t server, Micros from, Micros to, Micros extra) {
  rt_->process(pid);
  if (server >= rt_->server_count()) throw std::out_of_range("no such server");
  rt_->delays.push_back(
      detail::Runtime::Window{pid, server, from.count(), to.count(), extra.count()});
}

void World::set_process_clock_drift(ProcessId pid, int64_t drift_ppm, Micros at) {
  detail::Process& p = rt_->process(pid);
  detail::Runtime& rt = *rt_;
  rt.sched.at(at.count(), [&rt, &p, drift_ppm] {
    p.clock.set_drift(rt.now(), drift_ppm);
    HistoryEvent e = rt.event(EventKind::kClockDrift, &p, 0);
    e.value = drift_ppm;
    rt.record(std::move(e));
  });
}

void World::jump_process_clock(ProcessId pid, Micros at, Micros delta) {
  detail::Process& p = rt_->process(pid);
  detail::Runtime& rt = *rt_;
  rt.sched.at(at.count(), [&rt, &p, delta] {
    p.clock.jump(rt.now(), delta.count());
    HistoryEvent e = rt.event(EventKind::kClockJump, &p, 0);
    e.value = delta.count();
    rt.record(std::move(e));
  });
}

void World::set_server_clock_drift(size_t node, int64_t drift_ppm, Micros at) {
  detail::Node& n = *rt_->nodes.at(node);
  detail::Runtime& rt = *rt_;
  rt.sched.at(at.count(), [&rt, &n, drift_ppm] {
    n.clock->drift.set_drift(rt.now(), drift_ppm);
    HistoryEvent e = rt.event(EventKind::kClockDrift, nullptr, 0);
    e.server = static_cast<int32_t>(n.server);
    e.text = n.name;
    e.value = drift_ppm;
    rt.record(std::move(e));
  });
}

void World::jump_server_clock(size_t node, Micros at, Micros delta) {
  detail::Node& n = *rt_->nodes.at(node);
  detail::Runtime& rt = *rt_;
  rt.sched.at(at.count(), [&rt, &n, delta] { rt.jump_node_clock(n, delta.count(), ""); });
}

size_t World::node_of(size_t server, size_t replica) const {
  const WorldOptions& o = rt_->options;
  if (server >= o.servers || replica >= o.replicas) throw std::out_of_range("no such replica");
  return o.servers + server * o.replicas + replica;
}

void World::crash_server(size_t node, Micros at) {
  detail::Node& n = *rt_->nodes.at(node);
  detail::Runtime& rt = *rt_;
  rt.sched.at(at.count(), [&rt, &n] { rt.crash_node(n, "scheduled", /*schedule_restart=*/false); });
}

void World::restart_server(size_t node, Micros at) {
  detail::Node& n = *rt_->nodes.at(node);
  detail::Runtime& rt = *rt_;
  rt.sched.at(at.count(), [&rt, &n] { rt.restart_node(n); });
}

void World::failover(size_t server, Micros at, size_t replica) {
  detail::Runtime& rt = *rt_;
  if (server >= rt.server_count()) throw std::out_of_range("no such server");
  rt.sched.at(at.count(), [&rt, server, replica] { rt.failover(server, replica); });
}

World::RunEnd World::run() {
  const Scheduler::Stop stop = rt_->sched.run(rt_->options.time_limit_us);
  rt_->history.set_end_us(rt_->now());
  if (stop == Scheduler::Stop::kPruned) return RunEnd::kPruned;
  return stop == Scheduler::Stop::kIdle ? RunEnd::kIdle : RunEnd::kTimeLimit;
}

std::vector<ChoicePoint> World::choice_points() const {
  return rt_->chooser ? rt_->chooser->points() : std::vector<ChoicePoint>{};
}

void World::run_until(Micros t) {
  rt_->sched.run_until(t.count());
  rt_->history.set_end_us(rt_->now());
}

Micros World::now() const { return Micros{rt_->now()}; }

sim::Server& World::server(size_t i) { return node(rt_->primaries.at(i)->index); }
size_t World::server_count() const { return rt_->server_count(); }

sim::Server& World::node(size_t node) {
  detail::Node& n = *rt_->nodes.at(node);
  if (!n.up) throw std::logic_error("server node " + n.name + " is down");
  return *n.server_;
}

bool World::node_up(size_t node) const { return rt_->nodes.at(node)->up; }

int64_t World::process_clock_us(ProcessId pid) const {
  return rt_->process(pid).clock.read(rt_->now());
}
const History& World::history() const { return rt_->history; }

ProcessState World::process_state(ProcessId pid) const {
  const detail::Process& p = rt_->process(pid);
  if (p.state == ProcessState::kRunning && p.paused) return ProcessState::kPaused;
  return p.state;
}

std::string World::client_id(ProcessId pid) const { return rt_->process(pid).client_id; }
uint64_t World::seed() const { return rt_->options.seed; }

}  // namespace redsim::world
