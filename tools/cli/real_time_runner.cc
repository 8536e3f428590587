#include "tools/cli/real_time_runner.h"

#include <map>
#include <stdexcept>
#include <thread>

#include "sim/world/forwarding_env.h"

namespace redsim::cli {

using namespace world;  // NOLINT: the history's event kinds and names

namespace {

// A client's Env in the real world: every call goes to the wrapped Env; the
// ClientEnv calls, the commands and the traces also become history events.
class RecordingEnv final : public ForwardingEnv<ClientEnv> {
 public:
  RecordingEnv(lock::Env& inner, RealTimeRunner& runner, ProcessId pid)
      : ForwardingEnv(inner), runner_(runner), pid_(pid) {
    tasks_[std::this_thread::get_id()] = 1;  // constructed on the main thread
    for (size_t i = 0; i < inner_.server_count(); ++i) connections_.emplace_back(*this, i);
  }

  // After the main task ends nothing more is recorded (the watchdog may
  // still run while the Env shuts down).
  void end() {
    std::lock_guard<std::mutex> lock(mu_);
    ended_ = true;
  }

  lock::Connection& connection(size_t server) override { return connections_.at(server); }
  void trace(std::string_view what) override {
    HistoryEvent e = event(EventKind::kTrace);
    e.text = std::string(what);
    add(std::move(e));
  }

  void enter_critical(std::string_view resource) override {
    HistoryEvent e = event(EventKind::kEnterCritical);
    e.resource = std::string(resource);
    add(std::move(e));
  }
  void leave_critical(std::string_view resource) override {
    HistoryEvent e = event(EventKind::kLeaveCritical);
    e.resource = std::string(resource);
    add(std::move(e));
  }
  void record_acquire_start(std::string_view resource, lock::Micros wait) override {
    HistoryEvent e = event(EventKind::kAcquireStart);
    e.resource = std::string(resource);
    e.value = wait == lock::Micros::max() || wait.count() < 0 ? -1 : wait.count();
    add(std::move(e));
  }
  void record_acquire_end(std::string_view resource, bool acquired) override {
    HistoryEvent e = event(EventKind::kAcquireEnd);
    e.resource = std::string(resource);
    e.value = acquired ? 1 : 0;
    add(std::move(e));
  }
  void record_hold(std::string_view resource, HoldOp op, int64_t observed_count) override {
    HistoryEvent e = event(EventKind::kHold);
    e.resource = std::string(resource);
    e.hold_op = op;
    e.value = observed_count;
    add(std::move(e));
  }
  void record(std::string_view result) override {
    HistoryEvent e = event(EventKind::kResult);
    e.text = std::string(result);
    add(std::move(e));
  }

 private:
  class RecordingConnection final : public lock::Connection {
   public:
    RecordingConnection(RecordingEnv& env, size_t server) : env_(env), server_(server) {}

   private:
    lock::Reply do_call(const lock::Argv& argv, std::optional<lock::Micros> timeout) override {
      return recorded(argv, [&] { return env_.inner_.connection(server_).call(argv, timeout); });
    }

    template <class Fn>
    lock::Reply recorded(const lock::Argv& argv, Fn fn) {
      HistoryEvent e = env_.event(EventKind::kCommand);
      e.server = static_cast<int32_t>(server_);
      e.argv = argv;
      try {
        lock::Reply reply = fn();
        e.reply = reply;
        env_.add(std::move(e));
        return reply;
      } catch (const std::exception& error) {
        e.kind = EventKind::kTrace;
        e.argv.clear();
        e.text = format_argv(argv, 48) + " failed: " + error.what();
        env_.add(std::move(e));
        throw;
      }
    }
    RecordingEnv& env_;
    size_t server_;
  };

  HistoryEvent event(EventKind kind) {
    HistoryEvent e;
    e.kind = kind;
    e.process = pid_;
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, fresh] = tasks_.try_emplace(std::this_thread::get_id(), tasks_.size() + 1);
    e.task = it->second;
    return e;
  }
  void add(HistoryEvent e) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (ended_) return;
    }
    runner_.add_event(std::move(e));
  }

  RealTimeRunner& runner_;
  ProcessId pid_;
  std::vector<RecordingConnection> connections_;
  std::mutex mu_;
  std::map<std::thread::id, TaskId> tasks_;
  bool ended_ = false;
};

}  // namespace

RealTimeRunner::RealTimeRunner(RealRunnerOptions options) : options_(std::move(options)) {
  if (!options_.make_env) throw std::invalid_argument("RealTimeRunner needs make_env");
}

RealTimeRunner::~RealTimeRunner() = default;

void RealTimeRunner::spawn(std::string name, std::function<void(ClientEnv&)> main,
                           Micros start_at) {
  clients_.push_back({std::move(name), std::move(main), start_at});
}

lock::Reply RealTimeRunner::command(const lock::Argv& argv) {
  if (!admin_) admin_ = options_.make_env();
  return admin_->connection().call(argv);
}

void RealTimeRunner::add_event(HistoryEvent e) {
  std::lock_guard<std::mutex> lock(mu_);
  e.t_us = std::chrono::duration_cast<Micros>(std::chrono::steady_clock::now() - start_).count();
  history_.add(std::move(e));
}

void RealTimeRunner::run_client(ProcessId pid, const Client& client) {
  std::this_thread::sleep_until(start_ + client.start_at);
  std::unique_ptr<lock::Env> env;
  try {
    env = options_.make_env();
  } catch (const std::exception& e) {
    HistoryEvent crash;
    crash.kind = EventKind::kProcessCrash;
    crash.process = pid;
    crash.text = std::string("could not create its Env: ") + e.what();
    add_event(std::move(crash));
    return;
  }
  HistoryEvent start;
  start.kind = EventKind::kProcessStart;
  start.process = pid;
  start.text = client.name;
  start.client_id = env->client_id();
  add_event(std::move(start));

  RecordingEnv recording(*env, *this, pid);
  HistoryEvent last;
  last.process = pid;
  try {
    client.main(recording);
    last.kind = EventKind::kProcessEnd;
  } catch (const std::exception& e) {
    HistoryEvent error;
    error.kind = EventKind::kTaskError;
    error.process = pid;
    error.task = 1;
    error.text = e.what();
    add_event(std::move(error));
    last.kind = EventKind::kProcessCrash;
    last.text = "uncaught exception";
  }
  recording.end();
  add_event(std::move(last));
  env.reset();  // stops its background tasks
}

void RealTimeRunner::run() {
  start_ = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (size_t i = 0; i < clients_.size(); ++i) {
    threads.emplace_back([this, i] { run_client(static_cast<ProcessId>(i + 1), clients_[i]); });
  }
  for (auto& t : threads) t.join();
  std::lock_guard<std::mutex> lock(mu_);
  history_.set_end_us(
      std::chrono::duration_cast<Micros>(std::chrono::steady_clock::now() - start_).count());
}

}  // namespace redsim::cli
