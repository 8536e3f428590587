// WallClock: the sim::Clock of `redsim server --clock real`. It reads the
// system clock (so TIME, EXPIREAT and TTLs agree with the clients' own
// clocks) and its sleep_us really blocks the calling thread, which is how
// DEBUG SLEEP blocks a single-threaded Redis (but see set_interrupt_fd). Only tools/ may read the
// wall clock; sim/ is always handed a Clock.
//
//   server::WallClock clock;
//   sim::Server fake(clock);
#pragma once

#include <poll.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>

#include "sim/clock.h"

namespace redsim::server {

class WallClock final : public sim::Clock {
 public:
  int64_t now_us() const override {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  // Blocks for `us`, or until the interrupt descriptor (if any) becomes
  // readable: a DEBUG SLEEP of a day must not keep SIGTERM from stopping
  // the server. The descriptor is not read, so its owner still sees it.
  void sleep_us(int64_t us) override {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
    while (true) {
      auto left =
          std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return;
      if (interrupt_fd_ < 0) {
        std::this_thread::sleep_until(deadline);
        return;
      }
      pollfd p{interrupt_fd_, POLLIN, 0};
      int wait_ms = static_cast<int>(std::min<int64_t>(left.count(), 1'000'000));
      if (::poll(&p, 1, wait_ms) > 0) return;  // interrupted (EINTR: poll again)
    }
  }
  // A descriptor that becomes readable when sleeping must end
  // (TcpServer::interrupt_fd()); -1: none.
  void set_interrupt_fd(int fd) { interrupt_fd_ = fd; }

 private:
  int interrupt_fd_ = -1;
};

}  // namespace redsim::server
