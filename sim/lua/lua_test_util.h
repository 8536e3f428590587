// Test helpers for sim/lua/*_test.cc: a ServerTest with EVAL shortcuts and a
// clock that ticks on every read.
#pragma once

#include <initializer_list>
#include <string>

#include "sim/lua/internal.h"
#include "sim/lua/script_engine.h"
#include "sim/sim_test_util.h"

namespace redsim::sim::testing {

class ScriptTest : public ServerTest {
 protected:
  // EVAL script with KEYS = keys and ARGV = args.
  resp::Reply eval(const std::string& script, std::initializer_list<std::string> keys = {},
                   std::initializer_list<std::string> args = {}) {
    Argv argv = {"EVAL", script, std::to_string(keys.size())};
    argv.insert(argv.end(), keys.begin(), keys.end());
    argv.insert(argv.end(), args.begin(), args.end());
    return server_->execute(*s_, argv);
  }
  resp::Reply eval_ro(const std::string& script) {
    return server_->execute(*s_, {"EVAL_RO", script, "0"});
  }
  // Redis 7.0's reply for `script` failing with `msg` raised at `line`.
  static resp::Reply script_err(const std::string& msg, const std::string& script, int line = 1) {
    return resp::Reply::error(msg + " script: " + lua::sha1_hex(script) +
                              ", on @user_script:" + std::to_string(line) + ".");
  }
};

// A clock that moves 1 ms every time it is read: only a server that reads
// it once per command gives a script a single time, and a script's busy time
// measured on it (ScriptTime::kClock) grows with every read.
class TickingClock final : public Clock {
 public:
  int64_t now_us() const override { return now_us_ += 1000; }
  void sleep_us(int64_t us) override { now_us_ += us; }

 private:
  mutable int64_t now_us_ = ManualClock::kDefaultEpochUs;
};

}  // namespace redsim::sim::testing
