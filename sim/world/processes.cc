// The processes component (processes.h): spawn, tasks on fibers, blocking
// and waking, pauses, crashes and their teardown, restarts, and the
// client-side fault points.
#include "sim/world/processes.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <utility>

#include "lock/errors.h"
#include "sim/world/runtime.h"

namespace redsim::world::detail {

ProcessId Processes::spawn(std::string name, std::function<void(ProcessEnv&)> main,
                           int64_t start_at_us, std::optional<uint64_t> stream,
                           const std::function<std::unique_ptr<ProcessEnv>(Process&)>& make_env) {
  auto p = std::make_unique<Process>();
  p->pid = static_cast<ProcessId>(processes_.size() + 1);
  p->name = std::move(name);
  p->main = std::move(main);
  // Two processes never share a random stream, whatever their `stream`
  // (RapidCheck draws equal streams for several clients, at size 0 all of
  // them 1): the n-th reuse of a stream forks a sub-stream of it. The first
  // user keeps the plain stream, so a plan without repeats replays as before.
  const uint64_t stream_key = stream.value_or(p->pid);
  p->seed_rng = life_.root().fork("process").fork(stream_key);
  if (const uint64_t reuse = stream_uses_[stream_key]++; reuse > 0) {
    p->seed_rng = p->seed_rng.fork("reuse").fork(reuse);
  }
  p->random = p->seed_rng.fork("random");
  p->fault_rng = p->seed_rng.fork("faults");
  p->loss_rng = p->seed_rng.fork("loss");
  p->lost_reply_rng = p->seed_rng.fork("lost-reply");
  p->partition_rng = p->seed_rng.fork("partition");
  p->clock_rng = p->seed_rng.fork("clock");
  p->restart_rng = p->seed_rng.fork("restart");
  const int64_t drift = life_.options().faults.clock_drift_ppm_max;
  if (drift != 0) p->clock.set_drift(0, p->clock_rng.uniform(-drift, drift));
  set_client_id(*p);
  p->pubsub_links.resize(nodes_.server_count(), nullptr);
  p->env = make_env(*p);
  Process& ref = *p;
  processes_.push_back(std::move(p));
  life_.sched().at(
      start_at_us, [this, &ref] { deliver(ref, [this, &ref] { start_process(ref); }); },
      /*daemon=*/false, ref.pid);
  return ref.pid;
}

void Processes::unwind_all() {
  // Unwind every live fiber while everything it may touch still exists. No
  // history is written: the world is going away, not the process crashing.
  for (auto& p : processes_) {
    p->dying = true;
    for (auto& t : p->tasks) {
      current_ = t.get();
      t->fiber.reset();
      t->state = Task::State::kDone;
    }
  }
  current_ = nullptr;
}

FencedResource& Processes::fenced_resource(std::string_view name) {
  auto it = fenced_resources_.find(name);
  if (it == fenced_resources_.end()) {
    const std::string key(name);
    it = fenced_resources_.emplace(key, std::make_unique<FencedResource>(key)).first;
  }
  return *it->second;
}

Process& Processes::process(ProcessId pid) const {
  if (pid == 0 || pid > processes_.size()) throw std::out_of_range("no such process");
  return *processes_[pid - 1];
}

void Processes::start_process(Process& p) {
  if (p.state != ProcessState::kScheduled) return;
  p.state = ProcessState::kRunning;
  HistoryEvent e = life_.event(EventKind::kProcessStart, &p, 0);
  e.text = p.name;
  e.client_id = p.client_id;
  life_.record(std::move(e));
  add_task(p, "main", [&p] { p.main(*p.env); });
}

void Processes::set_client_id(Process& p) {
  Prng ids = p.seed_rng.fork("client-id");
  if (p.incarnation > 0) ids = ids.fork(p.incarnation);
  char hex[16];
  std::snprintf(hex, sizeof hex, "%08x", static_cast<unsigned>(ids.next_u64() & 0xFFFFFFFFu));
  p.client_id = "c" + std::to_string(p.pid) + "-" + hex;
}

void Processes::restart(Process& p, std::function<void(ProcessEnv&)> main) {
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
  HistoryEvent e = life_.event(EventKind::kProcessRestart, &p, 0);
  e.text = p.name;
  e.client_id = p.client_id;
  life_.record(std::move(e));
  p.main_task = p.tasks.size() + 1;
  add_task(p, "main", [&p] { p.main(*p.env); });
}

Task& Processes::add_task(Process& p, std::string name, std::function<void()> body) {
  auto task = std::make_unique<Task>();
  task->process = &p;
  task->id = p.tasks.size() + 1;
  task->name = std::move(name);
  task->fiber = std::make_unique<Fiber>(std::move(body), life_.options().fiber_stack_bytes);
  task->connections.resize(nodes_.server_count());
  life_.sched().note_process_wide();  // a new task of the process (exhaustive reduction)
  Task& t = *task;
  p.tasks.push_back(std::move(task));
  if (t.id != p.main_task) {
    HistoryEvent e = life_.event(EventKind::kTaskStart, &p, t.id);
    e.text = t.name;
    life_.record(std::move(e));
  }
  life_.sched().at_task(
      life_.now(), [this, &t] { deliver(*t.process, [this, &t] { run_task(t); }); }, t.id,
      /*runs_code=*/true);
  return t;
}

void Processes::run_task(Task& t) {
  Process& p = *t.process;
  if (p.dying || t.state != Task::State::kReady) return;
  if (p.paused) {
    life_.sched().note_process_wide();  // the held order is the process's (exhaustive reduction)
    p.held.push_back([this, &t] { run_task(t); });
    return;
  }
  t.state = Task::State::kRunning;
  current_ = &t;
  std::string error;
  try {
    t.fiber->resume();
  } catch (const std::exception& ex) {
    error = ex.what();
    if (error.empty()) error = "std::exception";
  } catch (...) {
    error = "unknown exception";
  }
  current_ = nullptr;
  if (!error.empty()) {
    HistoryEvent e = life_.event(EventKind::kTaskError, &p, t.id);
    e.text = std::move(error);
    life_.record(std::move(e));
    t.state = Task::State::kDone;
    t.fiber.reset();
    crash(p, "uncaught exception");
    return;
  }
  if (t.fiber->done()) finish_task(t);
}

void Processes::finish_task(Task& t) {
  Process& p = *t.process;
  t.state = Task::State::kDone;
  t.fiber.reset();
  if (t.id != p.main_task) {
    // What it leaves behind, other tasks read (exhaustive reduction, cases 5
    // and 6).
    life_.sched().note_task_end();
    life_.record(life_.event(EventKind::kTaskEnd, &p, t.id));
    return;
  }
  // main returned: the process exits, its other tasks stop with it
  // (exhaustive reduction, case 9).
  life_.sched().note_process_end();
  life_.record(life_.event(EventKind::kProcessEnd, &p, 0));
  p.state = ProcessState::kEnded;
  teardown(p);
}

void Processes::crash(Process& p, std::string reason) {
  if (p.state == ProcessState::kEnded || p.state == ProcessState::kCrashed) return;
  HistoryEvent e = life_.event(EventKind::kProcessCrash, &p, 0);
  e.text = std::move(reason);
  life_.record(std::move(e));
  p.state = ProcessState::kCrashed;
  teardown(p);
  const FaultPlan& plan = life_.options().faults;
  if (p.restart_rng.chance(plan.restart_ppm)) {
    life_.sched().after(p.restart_rng.uniform(plan.restart_min.count(), plan.restart_max.count()),
                        [this, &p] { restart(p, {}); });
  }
}

void Processes::teardown(Process& p) {
  life_.sched().note_process_wide();  // every task's state changes (exhaustive reduction)
  p.dying = true;
  p.paused = false;
  p.held.clear();
  Task* outer = current_;
  for (auto& t : p.tasks) {
    if (t->state == Task::State::kDone) continue;
    current_ = t.get();
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
  current_ = outer;
  p.subscriptions.clear();
  for (Link* link : p.links) net_.close_link(*link);
}

void Processes::begin_pause(Process& p, int64_t duration_us, std::string_view why) {
  if (p.dying || p.state == ProcessState::kEnded || p.state == ProcessState::kCrashed) return;
  HistoryEvent e = life_.event(EventKind::kProcessPause, &p, 0);
  e.value = duration_us;
  e.text = why;
  life_.record(std::move(e));
  const int64_t until = life_.now() + std::max<int64_t>(duration_us, 0);
  if (p.paused && until <= p.paused_until_us) return;
  life_.sched().note_process_wide();  // every task's deliveries are held (exhaustive reduction)
  p.paused = true;
  p.paused_until_us = until;
  const uint64_t generation = ++p.pause_generation;
  life_.sched().at(until, [this, &p, generation] {
    if (p.paused && p.pause_generation == generation) end_pause(p);
  });
}

void Processes::end_pause(Process& p) {
  p.paused = false;
  life_.record(life_.event(EventKind::kProcessResume, &p, 0));
  // Replay in arrival order, inline, so nothing that arrives later overtakes
  // them; an item that pauses the process again re-holds the rest.
  std::vector<std::function<void()>> held = std::move(p.held);
  p.held.clear();
  // A task resumed here must not run ahead: the rest of `held` comes first.
  struct Replaying {
    int& depth;
    explicit Replaying(int& d) : depth(d) { ++depth; }
    ~Replaying() { --depth; }
  } replaying(replaying_);
  for (auto& fn : held) deliver(p, std::move(fn));
}

void Processes::deliver(Process& p, std::function<void()> fn) {
  if (p.dying) return;
  if (p.paused) {
    life_.sched().note_process_wide();  // the held order is the process's (exhaustive reduction)
    p.held.push_back(std::move(fn));
    return;
  }
  fn();
}

int64_t Processes::stall_allowance(Process& p) {
  const FaultPlan& plan = life_.options().faults;
  if (!plan.stall_budget) return std::numeric_limits<int64_t>::max();
  const int64_t since = life_.now() - plan.stall_budget_window.count();
  std::erase_if(p.stalls, [since](const auto& s) { return s.second <= since; });
  int64_t used = 0;
  for (const auto& [from, to] : p.stalls) used += to - from;
  return std::max<int64_t>(0, plan.stall_budget->count() - used);
}

void Processes::note_stall(Process& p, int64_t length_us) {
  if (!life_.options().faults.stall_budget || length_us <= 0) return;
  life_.sched().note_process_wide();  // the budget is the process's (exhaustive reduction)
  p.stalls.emplace_back(life_.now(), life_.now() + length_us);
}

Task& Processes::current_task(Process& p) {
  if (current_ == nullptr || current_->process != &p) {
    throw std::logic_error("redsim world: process c" + std::to_string(p.pid) +
                           "'s Env used outside one of its tasks (pub/sub callbacks and "
                           "scheduled actions must not block)");
  }
  return *current_;
}

uint64_t Processes::block(Task& t) {
  t.state = Task::State::kBlocked;
  t.signaled = false;
  return ++t.block_token;
}

bool Processes::run_ahead(Task& t) {
  Scheduler& sched = life_.sched();
  // Only when t was resumed by the last thing its event does (a run: not a
  // pause's replay, which has more to deliver, nor a crash's teardown).
  if (replaying_ > 0 || t.cancelling || t.fiber->stack_left() < kAheadStackBytes) return false;
  for (;;) {
    const Scheduler::NextAhead next = sched.next_ahead();
    if (next.ahead == Scheduler::Ahead::kSafe) {
      // As from the scheduler's loop: no task is running.
      current_ = nullptr;
      sched.run_next_ahead();
      current_ = &t;
      continue;
    }
    if (next.ahead != Scheduler::Ahead::kRun || next.run_of != &t) return false;
    // run_task(t) would resume t now: the same test it makes.
    const Process& p = *t.process;
    if (p.dying || p.paused || t.state != Task::State::kReady) return false;
    sched.take_next_ahead();
    t.state = Task::State::kRunning;
    return true;
  }
}

void Processes::suspend(Task& t) {
  if (!run_ahead(t)) t.fiber->suspend();
  // Back on the fiber: run_task set state = kRunning and current_ = &t, or
  // the process crashed meanwhile and teardown() resumed us to fail the call.
  if (t.process->dying) {
    throw lock::ClosedError("process c" + std::to_string(t.process->pid) +
                            " is gone: it crashed while this call was waiting");
  }
}

void Processes::call_after_crash(Task& t) {
  if (!t.cancelling || ++t.calls_after_crash <= kCallsAfterCrash) return;
  // Back to teardown(), which unwinds the fiber from here (forced_unwind).
  t.fiber->suspend();
}

bool Processes::wake(Task& t, uint64_t token) {
  // A task's fiber waking another task (an Event signal) touched that task.
  if (current_ != nullptr && current_ != &t) life_.sched().note_process_wide();
  if (t.state != Task::State::kBlocked || t.block_token != token) return false;
  t.state = Task::State::kReady;
  life_.sched().at_task(
      life_.now(), [this, &t] { run_task(t); }, t.id, /*runs_code=*/true);
  life_.sched().mark_ahead(Scheduler::Ahead::kRun, &t);
  return true;
}

void Processes::yield(Task& t) {
  const uint64_t token = block(t);
  wake(t, token);
  suspend(t);
}

void Processes::crash_at_fault_point(Process& p, Task& t, const char* why) {
  life_.sched().at(life_.now(), [this, &p, why] { crash(p, why); });
  block(t);
  suspend(t);  // throws ClosedError: the crash's teardown resumes this fiber
  throw lock::ClosedError("process crashed");
}

void Processes::pause_at_fault_point(Process& p, Task& t, int64_t length, const char* why) {
  note_stall(p, length);
  begin_pause(p, length, why);
  yield(t);  // held until the pause ends
}

void Processes::pause_task_at_fault_point(Process& p, Task& t, int64_t length, const char* why) {
  // Only this task stalls (a descheduled thread): the process's other
  // tasks, its watchdog included, run on.
  note_stall(p, length);
  HistoryEvent e = life_.event(EventKind::kTrace, &p, t.id);
  e.text = "task paused for " + format_time_ms(length) + " (" + why + ")";
  life_.record(std::move(e));
  const uint64_t token = block(t);
  // Touches task t only (exhaustive.h, case 4).
  life_.sched().after_task(
      length, [this, task = &t, token] { wake(*task, token); }, t.id);
  suspend(t);
}

void Processes::exhaustive_fault_point(Process& p, Task& t) {
  // The fixed fault set (explore/exhaustive.h): each fault the plan can draw is one
  // binary choice here, in this order; a pause takes its longest length.
  const FaultPlan& plan = life_.options().faults;
  if (plan.crash_ppm && life_.choose(2, ChoiceKind::kCrash) == 1)
    crash_at_fault_point(p, t, "chosen");
  const int64_t length = std::min<int64_t>(plan.pause_max.count(), stall_allowance(p));
  if (length <= 0 || length < plan.pause_min.count()) return;
  if (plan.pause_ppm && life_.choose(2, ChoiceKind::kPause) == 1) {
    pause_at_fault_point(p, t, length, "chosen");
    return;
  }
  if (plan.task_pause_ppm && life_.choose(2, ChoiceKind::kTaskPause) == 1)
    pause_task_at_fault_point(p, t, length, "chosen");
}

void Processes::random_fault_point(Process& p, Task& t) {
  const FaultPlan& plan = life_.options().faults;
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

void Processes::fault_point(Process& p, Task& t) {
  const FaultPlan& plan = life_.options().faults;
  if (life_.chooser()) {
    exhaustive_fault_point(p, t);
  } else {
    random_fault_point(p, t);
  }
  if (p.clock_rng.chance(plan.clock_jump_ppm)) {
    const int64_t delta =
        p.clock_rng.uniform(-plan.clock_jump_max.count(), plan.clock_jump_max.count());
    p.clock.jump(life_.now(), delta);
    HistoryEvent e = life_.event(EventKind::kClockJump, &p, t.id);
    e.value = delta;
    life_.record(std::move(e));
  }
  if (p.partition_rng.chance(plan.partition_ppm)) {
    const size_t server = static_cast<size_t>(p.partition_rng.below(nodes_.server_count()));
    const int64_t length =
        std::min(p.partition_rng.uniform(plan.partition_min.count(), plan.partition_max.count()),
                 stall_allowance(p));
    if (length > 0 && length >= plan.partition_min.count()) {
      note_stall(p, length);
      net_.start_partition(p, server, life_.now() + length);
    }
  }
}

}  // namespace redsim::world::detail
