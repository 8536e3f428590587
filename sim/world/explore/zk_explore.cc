#include "sim/world/explore/zk_explore.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lock/zk_mutex.h"
#include "sim/world/explore/explore_internal.h"
#include "sim/world/fenced_resource.h"
#include "sim/world/prng.h"
#include "sim/world/zk_world.h"

namespace redsim::world {

namespace {

constexpr int64_t kMs = 1000;
constexpr int64_t kSessionTimeoutMs = 1000;
constexpr int64_t kWaitMs = 6000;
// Curator's RetryNTimes sleep (ZkMutexOptions::retry_sleep).
constexpr int64_t kRetrySleepUs = 10 * kMs;

// The faults a ZooKeeper world models, and the budgeted profile's set.
// No partitions: in this model a partition stalls the connection until the
// client's read timeout, which counts from the last message the client heard
// (watch notifications too), so one lost ping can leave the node without
// news of a live client for its whole timeout (TCP would retransmit through
// a short partition); `--faults partition` has them, unbounded.
constexpr FaultSet kZkBudgetedFaults{
    .pause = true, .latency = true, .loss = true, .lost_reply = true, .crash = true};

lock::ZkMutexOptions mutex_options(ZkLockKind kind) {
  lock::ZkMutexOptions o;
  o.protected_mode = kind != ZkLockKind::kUnprotected;
  o.watch_parent = kind == ZkLockKind::kHerd;
  o.retry_sleep = Micros(kRetrySleepUs);
  return o;
}

// One client: a session, one mutex, its attempts. An error ends the client
// (and, with the process, its session).
void run_zk_client(const ExplorePlan& plan, const ClientPlan& client, ZkWorld& zk,
                   FencedResource& storage, ProcessEnv& env) {
  auto session = zk.connect(env, std::chrono::milliseconds(plan.lease_ms));
  lock::InterProcessMutex m(env, *session, kZkExplorePath, mutex_options(*plan.zk));
  const Micros wait = std::chrono::milliseconds(plan.wait_ms);
  for (const Attempt& a : client.attempts) {
    env.sleep_for(Micros(a.think_us));
    env.record_acquire_start(kExploreKey, wait);
    auto got = m.acquire(wait);
    if (!got) {
      env.record_acquire_error(kExploreKey, lock::zk_code_name(got.error()));
      env.record(std::string("client stops after an error: acquire: ") +
                 lock::zk_code_name(got.error()));
      return;
    }
    env.record_acquire_end(kExploreKey, *got);
    if (!*got) continue;
    env.record("acquired " + m.lock_path().value_or("?"));
    env.enter_critical(kExploreKey);
    env.sleep_for(Micros(a.work_us));
    if (*plan.zk == ZkLockKind::kFenced) storage.write(env, m.token().value_or(-1));
    env.leave_critical(kExploreKey);
    if (auto r = m.release(); !r) {
      env.record(std::string("client stops after an error: release: ") +
                 lock::zk_code_name(r.error()));
      return;
    }
  }
}

}  // namespace

std::string_view zk_lock_kind_name(ZkLockKind kind) {
  switch (kind) {
    case ZkLockKind::kMutex:
      return "zk-mutex";
    case ZkLockKind::kFenced:
      return "zk-mutex-fenced";
    case ZkLockKind::kUnprotected:
      return "zk-mutex-unprotected";
    case ZkLockKind::kHerd:
      return "zk-mutex-herd";
  }
  return "?";
}

std::optional<ZkLockKind> parse_zk_lock_kind(std::string_view name) {
  for (ZkLockKind k : kZkLockKinds) {
    if (zk_lock_kind_name(k) == name) return k;
  }
  return std::nullopt;
}

std::optional<std::string> find_orphan_wait(const History& history) {
  constexpr std::string_view kMade = "zk: unseen by the client, the lost create made ";
  constexpr std::string_view kWaits = " waits for ";
  std::map<ProcessId, std::vector<std::string>> lost;  // names each process made unseen
  for (const HistoryEvent& e : history.events()) {
    if (e.kind != EventKind::kTrace) continue;
    if (e.text.starts_with(kMade)) {
      const std::string path = e.text.substr(kMade.size());
      lost[e.process].push_back(path.substr(path.rfind('/') + 1));
      continue;
    }
    const size_t at = e.text.find(kWaits);
    if (!e.text.starts_with("zk-mutex: ") || at == std::string::npos) continue;
    const std::string pred = e.text.substr(at + kWaits.size());
    const auto& names = lost[e.process];
    if (std::find(names.begin(), names.end(), pred) == names.end()) continue;
    char at_ms[32];
    std::snprintf(at_ms, sizeof at_ms, "%.3fms", static_cast<double>(e.t_us) / 1000.0);
    return "orphan znode: at t=" + std::string(at_ms) + " c" + std::to_string(e.process) +
           " queues behind " + pred +
           ", its own znode made by a create whose answer was lost (the retry made another); "
           "nobody deletes it while the session lives (Curator's protected mode finds it: "
           "CreateBuilderImpl.withProtection)";
  }
  return std::nullopt;
}

std::string zk_fault_problem(const FaultSet& f) {
  std::string out;
  if (f.restart) out += "restart";
  if (f.failover) out += std::string(out.empty() ? "" : ", ") + "failover";
  if (f.clock) out += std::string(out.empty() ? "" : ", ") + "clock";
  if (out.empty()) return out;
  return out +
         ": not modelled for the ZooKeeper kinds (one coordination node without crashes, "
         "quorum or clock drift: sim/world/zk_world.h); they take pause, latency, loss, "
         "lost-reply, partition, crash";
}

ExplorePlan generate_zk_plan(ZkLockKind kind, uint64_t seed, int clients,
                             std::optional<FaultSet> faults) {
  Prng rng = Prng(seed).fork("zk-explore-plan");
  ExplorePlan plan;
  plan.zk = kind;
  plan.seed = seed;
  plan.lease_ms = kSessionTimeoutMs;
  plan.wait_ms = kWaitMs;
  plan.retry_backoff_max_us = kRetrySleepUs;
  const int n = clients > 0 ? clients : static_cast<int>(rng.uniform(2, 8));
  plan.clients.resize(static_cast<size_t>(n));
  for (size_t i = 0; i < plan.clients.size(); ++i) {
    plan.clients[i].stream = i + 1;
    plan.clients[i].attempts.resize(static_cast<size_t>(rng.uniform(1, 4)));
    for (Attempt& a : plan.clients[i].attempts) {
      a.think_us = rng.uniform(0, 200) * kMs;
      a.work_us = rng.uniform(0, 1200) * kMs;
    }
  }
  const FaultMode mode = faults ? FaultMode::kUnbounded : FaultMode::kBudgeted;
  draw_faults(plan, faults.value_or(kZkBudgetedFaults), mode, plan.lease_ms * kMs, seed);
  plan.fault_mode = mode;
  if (!plan.faults.latency_max.count()) plan.faults.latency_max = Micros(kMs);
  plan.command_timeout.reset();  // ZooKeeper's clients time out by their read timeout
  const bool fenced = kind == ZkLockKind::kFenced;
  // Liveness is judged but under explicit pauses: a waiting task (not its
  // process) stalled for seconds is, to the checker, a waiter that runs.
  uint32_t checks = 0;
  if (!faults || !faults->pause) checks |= kCheckLiveness;
  if (fenced) checks |= kCheckFencing;
  if (!fenced || !faults) checks |= kCheckMutualExclusion;
  plan.checks = checks;
  return plan;
}

int64_t zk_liveness_bound_us(const ExplorePlan& plan, int64_t sessions_expired) {
  return (2 + sessions_expired) * plan.lease_ms * kMs + 10 * plan.faults.latency_max.count() +
         100 * kMs;
}

ExploreOutcome run_zk_plan(const ExplorePlan& plan) {
  const FaultPlan& fp = plan.faults;
  WorldOptions options;
  options.seed = plan.seed;
  options.strategy = plan.strategy;
  // The fenced storage is memory the clients share outside the world.
  if (*plan.zk == ZkLockKind::kFenced) options.strategy.reduce = false;
  options.pct_steps = pct_steps(plan);
  options.time_limit_us = int64_t{600} * 1000 * kMs;
  // The world keeps the process faults; the network ones are the node's.
  options.faults = fp;
  options.faults.latency_min = options.faults.latency_max = Micros(0);
  options.faults.latency_tail_ppm = Ppm();
  options.faults.loss_ppm = options.faults.lost_reply_ppm = options.faults.partition_ppm = Ppm();
  options.faults.delay_ppm = Ppm();
  World world(options);
  ZkWorldOptions zo;
  zo.latency_min = fp.latency_min;
  zo.latency_max = std::max(fp.latency_min, fp.latency_max);
  zo.lost_reply_ppm = fp.lost_reply_ppm;
  zo.loss_ppm = fp.loss_ppm;
  zo.loss_executed_ppm = fp.loss_executed_ppm;
  zo.partition_ppm = fp.partition_ppm;
  zo.partition_min = fp.partition_min;
  zo.partition_max = fp.partition_max;
  if (plan.fault_mode == FaultMode::kBudgeted) {
    zo.network_fault_gap = Micros(2 * plan.lease_ms * kMs);
  }
  auto zk = std::make_shared<ZkWorld>(world, zo);
  FencedResource storage(kExploreKey);
  ExploreOutcome out =
      run_clients(world, plan, [&plan, zk, &storage](const ClientPlan& client, ProcessEnv& env) {
        run_zk_client(plan, client, *zk, storage, env);
      });
  if (out.pruned) return out;
  // No Redis commands here: count the node's operations (its zxid counts
  // the writes; the reads are not counted).
  out.commands = static_cast<uint64_t>(zk->node().zxid());
  auto add = [&out](const std::vector<Violation>& v) { add_violations(&out, v); };
  if (plan.checks & kCheckMutualExclusion) add(check_mutual_exclusion(out.history));
  if (plan.checks & kCheckLiveness) {
    add(check_liveness(out.history, zk_liveness_bound_us(plan, zk->sessions_expired())));
  }
  if (plan.checks & kCheckFencing) add(check_fencing(out.history));
  return out;
}

}  // namespace redsim::world
