// Clock: the time a fake Redis server runs on. The server never reads the
// wall clock; it is handed one of these (abseil's injected-clock habit).
//
//   sim::ManualClock clock;              // starts at kDefaultEpochUs
//   sim::Server server(clock);
//   clock.advance_us(1500 * 1000);       // 1.5 s pass; keys may now be expired
#pragma once

#include <cstdint>

namespace redsim::sim {

class Clock {
 public:
  virtual ~Clock() = default;
  // Microseconds since the Unix epoch as this server believes it (TIME,
  // EXPIREAT and PTTL all derive from it). May jump in either direction when
  // a simulation injects a clock fault.
  virtual int64_t now_us() const = 0;
  // DEBUG SLEEP: the server is blocked for `us`. A simulated clock moves
  // forward by `us`; a wall clock really sleeps.
  virtual void sleep_us(int64_t us) = 0;
};

// A clock that moves only when told to. The default start is
// 2026-01-01T00:00:00Z so that TIME and EXPIREAT see plausible timestamps.
class ManualClock final : public Clock {
 public:
  static constexpr int64_t kDefaultEpochUs = 1767225600LL * 1000 * 1000;

  explicit ManualClock(int64_t start_us = kDefaultEpochUs) : now_us_(start_us) {}
  int64_t now_us() const override { return now_us_; }
  void sleep_us(int64_t us) override { advance_us(us); }
  void advance_us(int64_t us) { now_us_ += us; }
  void advance_ms(int64_t ms) { now_us_ += ms * 1000; }
  void set_us(int64_t us) { now_us_ = us; }

 private:
  int64_t now_us_;
};

}  // namespace redsim::sim
