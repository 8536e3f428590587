// Fencing tokens that do not fence, and a Redlock that counts wrong.
#include <string>

#include "props/zoo/user_lock.h"

namespace redsim::zoo {
namespace {

// A fencing token the client counts itself (its own acquisitions: 1, 2,
// ...) instead of one the lock service issues. Source: Kleppmann, "How to
// do distributed locking" (2016): the token must come from the lock
// service and grow with every grant. What goes wrong: two clients both
// write with token 1; the storage cannot tell their writes apart.
class ClientCountedFenceLock : public PollingSetNxLock {
 public:
  using PollingSetNxLock::PollingSetNxLock;
  bool try_lock_for(Micros wait) {
    if (!PollingSetNxLock::try_lock_for(wait)) return false;
    ++fence_;
    return true;
  }
  int64_t fence() const { return fence_; }

 private:
  int64_t fence_ = 0;
};

// A fencing token drawn at random with each acquisition ("unique is
// enough"). Source: Kleppmann, "How to do distributed locking" (2016): the
// storage can only reject a stale holder if tokens grow with every grant.
// What goes wrong: a holder paused past its lease writes after the next
// holder, and its token is larger half of the time: the stale write is
// accepted.
class RandomFenceLock : public PollingSetNxLock {
 public:
  using PollingSetNxLock::PollingSetNxLock;
  bool try_lock_for(Micros wait) {
    if (!PollingSetNxLock::try_lock_for(wait)) return false;
    fence_ = static_cast<int64_t>(env_.random_u64() >> 2);
    return true;
  }
  int64_t fence() const { return fence_; }

 private:
  int64_t fence_ = 0;
};

// A fencing counter incremented by GET, then SET n+1, "safe because we hold
// the lock". Source: Kleppmann 2016 (the holder may be paused anywhere;
// the token must be issued with the grant). What goes wrong: a holder
// paused between its GET and its SET past its lease hands out the same
// token as the next holder; both writes are accepted.
class GetSetFenceLock : public PollingSetNxLock {
 public:
  GetSetFenceLock(lock::Env& env, std::string key, Millis lease)
      : PollingSetNxLock(env, key, lease), fence_key_("{" + key + "}:fence") {}
  bool try_lock_for(Micros wait) {
    if (!PollingSetNxLock::try_lock_for(wait)) return false;
    const auto current = env_.connection().call({"GET", fence_key_});
    const int64_t n = current.is_bulk() ? std::stoll(current.str()) : 0;
    env_.connection().call({"SET", fence_key_, std::to_string(n + 1)});
    fence_ = n + 1;
    return true;
  }
  int64_t fence() const { return fence_; }

 private:
  std::string fence_key_;
  int64_t fence_ = 0;
};

// Redlock with a quorum of N/2 (2 of 5) instead of N/2 + 1. Source:
// antirez, "Distributed locks with Redis" (the Redlock algorithm: a
// majority, N/2 + 1) and Kleppmann 2016. What goes wrong: two clients
// each set the key on two servers and both believe they hold the lock.
class HalfQuorumRedlock : public SetNxLock {
 public:
  using SetNxLock::SetNxLock;
  bool try_lock_for(Micros wait) {
    token_ = random_token(env_);
    bool unknown = false;  // a server's outcome was lost: it may hold our key
    const bool got = poll(env_, wait, [this, &unknown] {
      const size_t n = env_.server_count();
      size_t got = 0;
      for (size_t i = 0; i < n; ++i) {
        try {
          got += set_nx(token_, i) ? 1 : 0;
        } catch (const lock::ConnectionError&) {
          unknown = true;
        }
      }
      if (got >= n / 2) return true;  // the bug: N/2 is not a majority
      unknown = !release_everywhere() || unknown;
      return false;
    });
    if (!got && unknown) throw lock::TimeoutError("redlock: some servers' outcome unknown");
    return got;
  }
  // False when a server's release failed (its key may live on).
  bool unlock() { return release_everywhere(); }
};

template <class L>
harness::LockFactory fenced_factory(Millis lease) {
  return harness::lock_factory(
      [lease](lock::Env& env, const std::string& key) { return L(env, key, lease); },
      [](harness::Section& s, L& lock) {
        s.do_work();
        s.write_fenced(lock.fence());
      });
}

}  // namespace

void add_fencing_and_redlock_bugs(std::vector<Entry>& out) {
  const Millis lease = 100ms;
  harness::PlanOptions unbounded{.profile = harness::FaultProfile::kUnbounded};
  harness::PlanOptions budgeted{.profile = harness::FaultProfile::kBudgeted};
  out.push_back({.name = "client-counted-fence",
                 .source = "Kleppmann 2016 (tokens come from the lock service)",
                 .what = "the fencing token counts the client's own acquisitions: two clients "
                         "write token 1",
                 .lease = lease,
                 .factory = fenced_factory<ClientCountedFenceLock>(lease),
                 .plan = budgeted,
                 .checkers = {"fencing"},
                 .causes = {"WRITE lock:test token"}});
  out.push_back({.name = "random-fence-token",
                 .source = "Kleppmann 2016 (fencing tokens must increase with every grant)",
                 .what = "the fencing token is random: a paused holder's stale write is "
                         "accepted whenever its token happens to be larger",
                 .lease = lease,
                 .factory = fenced_factory<RandomFenceLock>(lease),
                 .plan = unbounded,
                 .checkers = {"fencing"},
                 .causes = {"WRITE lock:test token"}});
  out.push_back({.name = "get-set-fence-counter",
                 .source = "Kleppmann 2016 (pauses anywhere; token issued with the grant)",
                 .what = "the fencing counter is GET, then SET n+1: a paused holder reissues the "
                         "next holder's token",
                 .lease = lease,
                 .factory = fenced_factory<GetSetFenceLock>(lease),
                 .plan = unbounded,
                 .checkers = {"fencing"},
                 .causes = {"WRITE lock:test token"}});
  harness::PlanOptions five = budgeted;
  five.servers = 5;
  out.push_back({.name = "redlock-half-quorum",
                 .source = "antirez, Distributed locks with Redis (Redlock: N/2+1)",
                 .what = "Redlock counts 2 of 5 servers as a majority: two holders at once",
                 .lease = lease,
                 .factory = harness::lock_factory([lease](lock::Env& env, const std::string& key) {
                   return HalfQuorumRedlock(env, key, lease);
                 }),
                 .plan = five,
                 .checkers = {"held-past-lease", "mutual-exclusion"},
                 .causes = {"SET"}});
}

}  // namespace redsim::zoo
