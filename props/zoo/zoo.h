// The bug zoo: locks that users write against lock::Env, buggy ones drawn
// from the literature and from real issue trackers, and correct ones, each
// with what the harness's DEFAULT property for its fault profile must say
// about it (issue 10, item 6). zoo_test.cc asserts both directions:
// every buggy entry is found by gen_plan + run_plan + the default checks
// and shrunk to a small plan; every correct entry stays clean.
//
//   for (const zoo::Entry& e : zoo::entries()) {
//     const auto plan = *harness::gen_plan(e.lease, e.plan);
//     harness::rc_assert_safe(plan, harness::run_plan(plan, e.factory, e.run));
//   }
//
// Every lock here is written as a user would write it: it calls only its
// lock::Env (connection(), now(), sleep_for(), spawn(), random_u64()).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "sim/world/testing/generators.h"
#include "sim/world/testing/harness.h"

namespace redsim::zoo {

struct Entry {
  std::string name;    // "get-then-del"
  std::string source;  // article or issue it comes from
  std::string what;    // one line: the mistake, or why the correct lock is correct
  bool buggy = true;
  std::chrono::milliseconds lease{100};
  harness::LockFactory factory;
  // Buggy: the profile it is judged under and what gen_plan draws. Correct:
  // what gen_plan draws under both profiles (the profile is set by the test).
  harness::PlanOptions plan;
  // Correct only: the faults its unbounded profile may draw, when not all.
  std::optional<world::FaultSet> unbounded_faults{};
  harness::RunOptions run{};  // shared_lock for locks shared by a process's tasks
  // Buggy: the checkers any of which may find it (the first one is the
  // usual finder), and what the failure's excerpt must show of the cause
  // (any of these: the offending command, or the broken call).
  std::vector<std::string> checkers;
  std::vector<std::string> causes;
  // Buggy: shrunk plans (RapidCheck's, then harness::minimize_plan's) must
  // have at most this many clients: the target, 3, which every
  // entry meets on every seed that finds it (README.md's bug-zoo table).
  size_t shrunk_clients_max = 3;
};

// Families, each in its own file.
void add_unlock_bugs(std::vector<Entry>& out);
void add_acquire_bugs(std::vector<Entry>& out);
void add_watchdog_bugs(std::vector<Entry>& out);
void add_fencing_and_redlock_bugs(std::vector<Entry>& out);
void add_correct_locks(std::vector<Entry>& out);
// WATCH/MULTI unlocks, Redisson-style hash locks, pub/sub waiters: buggy and correct.
void add_transaction_hash_pubsub_bugs(std::vector<Entry>& out);
void add_transaction_hash_pubsub_correct(std::vector<Entry>& out);
// Lease locks that promise a validity (harness::ReportsValidUntil), judged
// with sections that use all of it: buggy and correct.
void add_validity_bugs(std::vector<Entry>& out);
void add_validity_correct(std::vector<Entry>& out);

// Every entry, buggy first, in a fixed order.
std::vector<Entry> entries();

// A correct lock's entry (buggy = false, no expected checker).
Entry correct(std::string name, std::string source, std::string what,
              std::chrono::milliseconds lease, harness::LockFactory f);

// The plan options for a correct entry under `profile`.
harness::PlanOptions plan_for(const Entry& e, harness::FaultProfile profile);

// The name of a profile ("budgeted", "unbounded", "none").
const char* profile_name(harness::FaultProfile p);

}  // namespace redsim::zoo
