#include "props/zoo/zoo.h"

namespace redsim::zoo {

std::vector<Entry> entries() {
  std::vector<Entry> out;
  add_unlock_bugs(out);
  add_acquire_bugs(out);
  add_watchdog_bugs(out);
  add_fencing_and_redlock_bugs(out);
  add_transaction_hash_pubsub_bugs(out);
  add_validity_bugs(out);
  add_correct_locks(out);
  add_transaction_hash_pubsub_correct(out);
  add_validity_correct(out);
  return out;
}

harness::PlanOptions plan_for(const Entry& e, harness::FaultProfile profile) {
  harness::PlanOptions o = e.plan;
  o.profile = profile;
  if (profile == harness::FaultProfile::kUnbounded && e.unbounded_faults) {
    o.faults = *e.unbounded_faults;
  }
  return o;
}

const char* profile_name(harness::FaultProfile p) {
  switch (p) {
    case harness::FaultProfile::kNone:
      return "none";
    case harness::FaultProfile::kBudgeted:
      return "budgeted";
    case harness::FaultProfile::kUnbounded:
      return "unbounded";
  }
  return "?";
}

Entry correct(std::string name, std::string source, std::string what,
              std::chrono::milliseconds lease, harness::LockFactory f) {
  Entry e;
  e.name = std::move(name);
  e.source = std::move(source);
  e.what = std::move(what);
  e.buggy = false;
  e.lease = lease;
  e.factory = std::move(f);
  return e;
}

}  // namespace redsim::zoo
