#include "sim/world/fenced_resource.h"

#include <gtest/gtest.h>

#include "lock/fenced_lock.h"
#include "lock/reentrant_lock.h"
#include "sim/world/checkers.h"

namespace redsim::world {
namespace {

using namespace std::chrono_literals;

HistoryEvent write_event(int64_t t_ms, ProcessId p, int64_t token, bool accepted) {
  HistoryEvent e;
  e.t_us = t_ms * 1000;
  e.kind = EventKind::kFencedWrite;
  e.process = p;
  e.task = 1;
  e.resource = "storage";
  e.value = token;
  e.verdict = accepted ? FenceVerdict::kAccepted : FenceVerdict::kRejected;
  return e;
}

TEST(CheckFencing, AcceptsIncreasingTokensAndRightfulRejections) {
  History h;
  h.add(write_event(1, 1, 1, true));
  h.add(write_event(2, 1, 1, true));  // the same holder writes again
  h.add(write_event(3, 2, 3, true));
  h.add(write_event(4, 1, 1, false));  // stale, rejected
  h.add(write_event(5, 3, 2, false));  // stale, rejected
  EXPECT_TRUE(check_fencing(h).empty()) << format_violations(check_fencing(h));
}

TEST(CheckFencing, FindsAStaleWriteAccepted) {
  History h;
  h.add(write_event(1, 2, 5, true));
  h.add(write_event(2, 1, 4, true));
  const auto v = check_fencing(h);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].checker, "fencing");
  EXPECT_NE(v[0].description.find("stale write accepted"), std::string::npos) << v[0].description;
  EXPECT_EQ(v[0].events, (std::vector<size_t>{0, 1}));
}

TEST(CheckFencing, FindsATokenFromTwoOwnersAndAWrongRejection) {
  History h;
  h.add(write_event(1, 1, 7, true));
  h.add(write_event(2, 2, 7, true));   // a duplicated token
  h.add(write_event(3, 3, 8, false));  // a current token refused
  const auto v = check_fencing(h);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_NE(v[0].description.find("already accepted from c1/1"), std::string::npos);
  EXPECT_NE(v[1].description.find("rejected although"), std::string::npos);
}

TEST(CheckFencing, ResourcesAreJudgedApart) {
  History h;
  h.add(write_event(1, 1, 9, true));
  HistoryEvent other = write_event(2, 2, 1, true);
  other.resource = "other";
  h.add(other);
  EXPECT_TRUE(check_fencing(h).empty());
}

// Kleppmann's figure: the holder pauses past its lease, another client takes
// the lock and writes; the first client's write after the pause carries the
// older token and is rejected. With a ReentrantLock and no fencing the same
// run breaks mutual exclusion; the history shows both.
TEST(FencedResource, RejectsTheWriteOfAHolderPausedPastItsLease) {
  WorldOptions options;
  options.seed = 11;
  options.faults.latency_max = Micros{500};
  World w(options);
  FencedResource storage("storage");
  std::vector<std::pair<int64_t, bool>> writes;  // token, accepted
  auto client = [&](ProcessEnv& env) {
    lock::FencedLock lock(env, "k", {.default_lease = 100ms});
    const auto token = lock.try_lock_and_get_token(1s, 100ms);
    if (!token) return;
    env.enter_critical("k");
    env.sleep_for(50ms);
    writes.emplace_back(*token, storage.write(env, *token));
    env.leave_critical("k");
    lock.unlock();
  };
  const ProcessId first = w.spawn_process("first", client);
  w.spawn_process("second", client, Micros(10000));
  w.pause_process(first, Micros(20000), Micros(200000));  // 200 ms, twice the lease
  w.run();
  ASSERT_EQ(writes.size(), 2u);
  EXPECT_EQ(writes[0], std::make_pair(int64_t{2}, true)) << "the second client wrote first";
  EXPECT_EQ(writes[1], std::make_pair(int64_t{1}, false)) << "the paused client's write";
  EXPECT_EQ(storage.max_token(), 2);
  EXPECT_TRUE(check_fencing(w.history()).empty());
  EXPECT_FALSE(check_mutual_exclusion(w.history()).empty())
      << "the lock alone did not keep the paused holder out";
  EXPECT_NE(render_timeline(w.history()).find("WRITE storage token 1: rejected"),
            std::string::npos);
}

}  // namespace
}  // namespace redsim::world
