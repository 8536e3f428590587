// Private to the differential tester's generator: the random source every
// part of the command grammar draws from (Gen: seeded choices, and the small
// pools of keys, fields and values that make commands meet each other's
// keys), and the Lua script grammar. generator.cc holds the original command
// families and generate(); generator_data_model.cc the data-model families
// (streams, algebra, bitmaps, geo, SORT, functions, blocking commands);
// script_grammar.cc the EVAL/EVALSHA/SCRIPT LOAD steps and the random Lua
// they carry. Not part of the public API (difftest.h is).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/prng.h"
#include "tools/difftest/difftest.h"

namespace redsim::difftest::grammar {

class Gen {
 public:
  explicit Gen(uint64_t seed) : rng_(seed) {}

  uint64_t below(uint64_t n) { return rng_.below(n); }
  bool chance(int percent) { return static_cast<int>(rng_.below(100)) < percent; }
  int64_t range(int64_t lo, int64_t hi) { return rng_.uniform(lo, hi); }
  template <typename T, size_t N>
  const T& pick(const std::array<T, N>& a) {
    return a[rng_.below(N)];
  }
  const std::string& pick(const std::vector<std::string>& v) { return v[rng_.below(v.size())]; }

  // A small key pool so that commands meet each other's keys.
  std::string key() {
    static const std::vector<std::string> keys = {"k0", "k1", "k2", "k3", "k4", "{t}k5"};
    return pick(keys);
  }
  std::string field() {
    static const std::vector<std::string> fields = {"f0", "f1", "f2", "f3", "", "f\xff"};
    return pick(fields);
  }
  std::string value() {
    static const std::vector<std::string> values = {"",
                                                    "0",
                                                    "1",
                                                    "-1",
                                                    "42",
                                                    "007",
                                                    "3.5",
                                                    "-2.25",
                                                    "abc",
                                                    " 1",
                                                    "1e3",
                                                    "10 ",
                                                    "0x10",
                                                    "inf",
                                                    "nan",
                                                    "a b",
                                                    "x\r\ny",
                                                    std::string("z\0z", 3),
                                                    "9223372036854775807",
                                                    "-9223372036854775808",
                                                    "9223372036854775808",
                                                    "\xe2\x82\xac",
                                                    std::string(70, 'v')};
    return pick(values);
  }
  std::string integer() {
    static const std::vector<std::string> ints = {
        "0", "1", "-1", "2", "10", "-5", "100", "9223372036854775807", "abc", "1.5", ""};
    return pick(ints);
  }
  // Expiry lengths: far from the run's timing noise (see kTimingMarginMs).
  std::string seconds() {
    static const std::vector<std::string> s = {"1", "100", "0", "-1", "x", "1000000"};
    return pick(s);
  }
  std::string millis() {
    static const std::vector<std::string> ms = {"150", "400", "1000", "100000", "0", "-5", "x"};
    return pick(ms);
  }
  std::string channel() {
    static const std::vector<std::string> ch = {"ch0", "ch1", "news.a", "news.b"};
    return pick(ch);
  }

 private:
  base::Prng rng_;
};

// One scripting step (EVAL, EVAL_RO, EVALSHA or SCRIPT LOAD) on a random
// connection. `loaded` holds the scripts SCRIPT LOAD sent so far; EVALSHA
// picks one of them as "$SHA:" + source, which the runner turns into its SHA1.
void add_script(Gen& g, std::vector<Step>& out, std::vector<std::string>& loaded);

// The data-model families (generator_data_model.cc): "lists", "blocking",
// "algebra", "bits", "geo", "sort", "stream", "function". add_data_model
// appends one step (or a push and a blocking pop) of `family` and returns
// false for a name that is not one of them.
const std::vector<std::string>& data_model_families();
bool add_data_model(const std::string& family, Gen& g, std::vector<Step>& out);

}  // namespace redsim::difftest::grammar
