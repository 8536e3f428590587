// ProcessEnv: lock::Env for a simulated process, and its Event.
#include <limits>
#include <utility>

#include "lock/errors.h"
#include "sim/world/runtime.h"
#include "sim/world/world.h"

namespace redsim::world {

namespace {

// lock::Event in virtual time. Wake-ups go through the scheduler, so a
// signal() from a pub/sub callback or from another task is safe.
class SimEvent final : public lock::Event {
 public:
  SimEvent(detail::Processes& procs, detail::Lifecycle& life, detail::Process& p)
      : procs_(procs), life_(life), p_(p) {}

  void signal() override {
    life_.sched().note_process_wide();  // the Event is the process's (exhaustive reduction)
    bool woke = false;
    for (const Waiter& w : waiters_) {
      if (w.task->state == detail::Task::State::kBlocked && w.task->block_token == w.token) {
        w.task->signaled = true;
        woke = procs_.wake(*w.task, w.token) || woke;
      }
    }
    waiters_.clear();
    if (!woke) signaled_ = true;
  }

  bool wait_for(lock::Micros timeout) override {
    detail::Task& t = procs_.current_task(p_);
    if (p_.dying) {
      procs_.call_after_crash(t);
      return false;
    }
    procs_.fault_point(p_, t);
    if (signaled_) {
      signaled_ = false;
      return true;
    }
    if (timeout.count() <= 0) return false;
    std::erase_if(waiters_, [](const Waiter& w) {
      return w.task->state != detail::Task::State::kBlocked || w.task->block_token != w.token;
    });
    const uint64_t token = procs_.block(t);
    waiters_.push_back(Waiter{&t, token});
    // Touches task t only (exhaustive.h, case 4).
    life_.sched().after_task(
        p_.clock.true_duration(timeout.count()),
        [procs = &procs_, task = &t, token] { procs->wake(*task, token); }, t.id);
    procs_.suspend(t);
    return t.signaled;
  }

 private:
  struct Waiter {
    detail::Task* task;
    uint64_t token;
  };
  detail::Processes& procs_;
  detail::Lifecycle& life_;
  detail::Process& p_;
  bool signaled_ = false;
  std::vector<Waiter> waiters_;
};

std::string str(std::string_view s) { return std::string(s); }

}  // namespace

ProcessEnv::ProcessEnv(detail::Runtime& runtime, detail::Process& process)
    : rt_(runtime), p_(process) {}

lock::Connection& ProcessEnv::connection(size_t server) {
  return rt_.net.connection(rt_.procs.current_task(p_), server);
}

size_t ProcessEnv::server_count() const { return rt_.nodes.server_count(); }

lock::SubscriptionId ProcessEnv::subscribe(const std::string& channel,
                                           std::function<void(const std::string&)> on_message,
                                           size_t server) {
  return rt_.net.subscribe(p_, channel, std::move(on_message), server);
}

void ProcessEnv::unsubscribe(lock::SubscriptionId id) { rt_.net.unsubscribe(p_, id); }

lock::EnvTime ProcessEnv::now() {
  return lock::EnvTime{lock::Micros{p_.clock.read(rt_.life.now())}};
}

void ProcessEnv::sleep_for(lock::Micros d) {
  detail::Processes& procs = rt_.procs;
  detail::Task& t = procs.current_task(p_);
  if (p_.dying) {
    procs.call_after_crash(t);
    return;
  }
  procs.fault_point(p_, t);
  if (d.count() <= 0) {
    procs.yield(t);
    return;
  }
  const uint64_t token = procs.block(t);
  // Touches task t only (exhaustive.h, case 4).
  rt_.life.sched().after_task(
      p_.clock.true_duration(d.count()),
      [procs = &procs, task = &t, token] { procs->wake(*task, token); }, t.id);
  procs.suspend(t);
}

std::unique_ptr<lock::Event> ProcessEnv::make_event() {
  return std::make_unique<SimEvent>(rt_.procs, rt_.life, p_);
}

void ProcessEnv::spawn(std::string name, std::function<void()> fn) {
  if (p_.dying) return;
  rt_.procs.add_task(p_, std::move(name), std::move(fn));
}

std::string ProcessEnv::client_id() { return p_.client_id; }

uint64_t ProcessEnv::task_id() {
  const detail::Task* t = rt_.procs.current();
  return t != nullptr && t->process == &p_ ? t->id : 0;
}

uint64_t ProcessEnv::random_u64() { return p_.random.next_u64(); }

void ProcessEnv::trace(std::string_view what) {
  if (p_.dying) return;
  HistoryEvent& e = rt_.life.record_event(EventKind::kTrace, &p_, task_id());
  if (const HistoryText* recent = p_.recent_traces.find(what)) {
    e.text = *recent;
    return;
  }
  e.text = rt_.life.intern_text(what);
  p_.recent_traces.remember(e.text);
}

void ProcessEnv::enter_critical(std::string_view resource) {
  if (p_.dying) return;
  HistoryEvent e = rt_.life.event(EventKind::kEnterCritical, &p_, task_id());
  e.resource = str(resource);
  rt_.life.record(std::move(e));
  rt_.nodes.track_key(str(resource));
}

void ProcessEnv::leave_critical(std::string_view resource) {
  if (p_.dying) return;
  HistoryEvent e = rt_.life.event(EventKind::kLeaveCritical, &p_, task_id());
  e.resource = str(resource);
  rt_.life.record(std::move(e));
}

void ProcessEnv::record_acquire_start(std::string_view resource, Micros wait) {
  if (p_.dying) return;
  HistoryEvent e = rt_.life.event(EventKind::kAcquireStart, &p_, task_id());
  e.resource = str(resource);
  e.value = wait == Micros::max() || wait.count() < 0 ? -1 : wait.count();
  rt_.life.record(std::move(e));
  rt_.nodes.track_key(str(resource));
}

void ProcessEnv::record_acquire_end(std::string_view resource, bool acquired) {
  if (p_.dying) return;
  HistoryEvent e = rt_.life.event(EventKind::kAcquireEnd, &p_, task_id());
  e.resource = str(resource);
  e.value = acquired ? 1 : 0;
  rt_.life.record(std::move(e));
}

void ProcessEnv::record_hold(std::string_view resource, HoldOp op, int64_t observed_count) {
  if (p_.dying) return;
  HistoryEvent e = rt_.life.event(EventKind::kHold, &p_, task_id());
  e.resource = str(resource);
  e.hold_op = op;
  e.value = observed_count;
  rt_.life.record(std::move(e));
}

void ProcessEnv::record(std::string_view result) {
  if (p_.dying) return;
  HistoryEvent e = rt_.life.event(EventKind::kResult, &p_, task_id());
  e.text = str(result);
  rt_.life.record(std::move(e));
}

void ProcessEnv::record_fenced_write(std::string_view resource, int64_t token, bool accepted) {
  // The resource's highest token is memory every process shares
  // (exhaustive.h, case 13): FencedResource::write changed it already.
  rt_.life.sched().note_fence_write();
  if (p_.dying) return;
  HistoryEvent e = rt_.life.event(EventKind::kFencedWrite, &p_, task_id());
  e.resource = str(resource);
  e.value = token;
  e.verdict = accepted ? FenceVerdict::kAccepted : FenceVerdict::kRejected;
  rt_.life.record(std::move(e));
}

void ProcessEnv::record_acquire_error(std::string_view resource, std::string_view what) {
  if (p_.dying) return;
  HistoryEvent e = rt_.life.event(EventKind::kAcquireEnd, &p_, task_id());
  e.resource = str(resource);
  e.value = 2;
  e.text = str(what);
  rt_.life.record(std::move(e));
}

void ProcessEnv::record_unlock_end(std::string_view resource, UnlockOutcome outcome,
                                   std::string_view detail) {
  if (p_.dying) return;
  HistoryEvent e = rt_.life.event(EventKind::kUnlockEnd, &p_, task_id());
  e.resource = str(resource);
  e.value = static_cast<int64_t>(outcome);
  e.text = str(detail);
  rt_.life.record(std::move(e));
}

void ProcessEnv::record_validity(std::string_view resource, lock::EnvTime valid_until) {
  if (p_.dying) return;
  HistoryEvent e = rt_.life.event(EventKind::kValidity, &p_, task_id());
  e.resource = str(resource);
  const int64_t now_us = rt_.life.now();
  e.value = now_us +
            p_.clock.true_duration(valid_until.time_since_epoch().count() - p_.clock.read(now_us));
  rt_.life.record(std::move(e));
}

FencedResource& ProcessEnv::fenced_resource(std::string_view name) {
  return rt_.procs.fenced_resource(name);
}

const std::string& ProcessEnv::process_name() const { return p_.name; }
ProcessId ProcessEnv::process_id() const { return p_.pid; }

}  // namespace redsim::world
