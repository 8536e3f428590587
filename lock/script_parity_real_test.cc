// Every lock script (scripts/*.lua, as embedded) on a real redis-server (7.0,
// Lua 5.1) against the fake: a seeded random sequence of calls of every
// script, with the KEYS and ARGV each script's header documents, must give
// the same replies and leave the same keys with the same contents on both.
// It extends FairLockScriptsMatchTheFake (lock/fair_lock_real_test.cc) to all
// scripts, the new interop kinds' included.
//
// How the arguments are drawn: each script gets as many KEYS and ARGV as its
// text indexes (KEYS[n], ARGV[n]; two keys where it walks KEYS with ipairs),
// the keys shared by its family (the name's first word: "fair", "rw",
// "redis_py", ...), so acquires, unlocks and extends of one family meet on
// the same keys. An ARGV whose header line speaks of a number (ms, lease,
// now, permits, count, ...) is drawn from numbers, else from owners/tokens;
// one draw in ten comes from the other pool, to reach the error paths.
// The fake's clock follows the wall clock (the permit-expirable semaphore
// scripts read TIME); numbers (integers, numeric strings, scores) and TTLs
// may differ by the few ms the real round trips take, and a key with less
// than a second to live is dropped on both sides after each call (a lease of
// a few ms may have run out on one side and not yet on the other).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "lock/embedded_scripts.h"
#include "lock/script.h"
#include "sim/world/direct_env.h"
#include "sim/world/prng.h"
#include "tools/testing/blocking_redis_env.h"

namespace redsim::lock {
namespace {

using redsim::testing::RedisServerProcess;
using testing::SocketEnv;

constexpr int64_t kSlack = 2000;

bool numeric(const std::string& s, long long* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  *out = std::strtoll(s.c_str(), &end, 10);
  return *end == '\0';
}

// Equal, except that integers and numeric strings may differ by kSlack.
bool close_enough(const Reply& a, const Reply& b) {
  if (a.is_integer() && b.is_integer()) return std::llabs(a.integer() - b.integer()) <= kSlack;
  if (a.is_bulk() && b.is_bulk() && a.str() != b.str()) {
    long long x = 0, y = 0;
    return numeric(a.str(), &x) && numeric(b.str(), &y) && std::llabs(x - y) <= kSlack;
  }
  if (a.is_array() && b.is_array()) {
    if (a.elements().size() != b.elements().size()) return false;
    for (size_t i = 0; i < a.elements().size(); ++i) {
      if (!close_enough(a.elements()[i], b.elements()[i])) return false;
    }
    return true;
  }
  return a == b;
}

struct Shape {
  std::string name, family;
  int keys = 0;
  std::vector<bool> numeric_arg;  // per ARGV position
};

// The largest N of `table[N]` in `text` (KEYS[2], ARGV[5]); 0 when none.
// A plain scan: std::regex trips gcc 12's -Wmaybe-uninitialized under ASan.
int max_index(const std::string& text, const std::string& table) {
  int n = 0;
  const std::string open = table + "[";
  for (size_t at = text.find(open); at != std::string::npos; at = text.find(open, at + 1)) {
    size_t i = at + open.size();
    int value = 0;
    bool digits = false;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      value = value * 10 + (text[i] - '0');
      digits = true;
      ++i;
    }
    if (digits && i < text.size() && text[i] == ']') n = std::max(n, value);
  }
  return n;
}

Shape shape_of(const EmbeddedScript& script) {
  const std::string text(script.text);
  Shape s;
  s.name = std::string(script.name);
  const size_t cut = s.name.find('_');
  s.family = s.name.substr(0, cut);
  if (s.family == "redis" || s.family == "node" || s.family == "pe") {
    s.family = s.name.substr(0, s.name.find('_', cut + 1));  // redis_py, node_redlock, pe_semaphore
  }
  s.keys = max_index(text, "KEYS");
  if (text.find("ipairs(KEYS)") != std::string::npos) s.keys = std::max(s.keys, 2);
  const int args = max_index(text, "ARGV");
  static const std::vector<std::string> kNumberWords = {
      " ms",      "lease",      "now",   "permit", "count", "number", "timeout",
      "duration", "additional", "\"0\"", "\"1\"",  "mode",  "wait",   "time"};
  for (int i = 1; i <= args; ++i) {
    // The header line "--   ARGV[i]  ..." says what the argument is.
    const std::string tag = "ARGV[" + std::to_string(i) + "]";
    bool number = false;
    size_t line_start = 0;
    while (line_start < text.size()) {
      size_t line_end = text.find('\n', line_start);
      if (line_end == std::string::npos) line_end = text.size();
      const std::string line = text.substr(line_start, line_end - line_start);
      if (line.rfind("--", 0) == 0 && line.find(tag) != std::string::npos) {
        for (const std::string& w : kNumberWords) number |= line.find(w) != std::string::npos;
        break;
      }
      line_start = line_end + 1;
    }
    s.numeric_arg.push_back(number);
  }
  return s;
}

// Every key of the server with its type, TTL and contents, in key order.
std::vector<Reply> snapshot(Connection& c) {
  std::vector<Reply> out;
  const Reply keys = c.call({"KEYS", "*"});
  std::vector<std::string> names;
  for (const Reply& k : keys.elements()) names.push_back(k.str());
  std::sort(names.begin(), names.end());
  for (const std::string& k : names) {
    out.push_back(Reply::bulk(k));
    const Reply type = c.call({"TYPE", k});
    out.push_back(type);
    const Reply pttl = c.call({"PTTL", k});
    out.push_back(Reply::integer(pttl.integer() < 0 ? pttl.integer() : pttl.integer() / 1000));
    const std::string t = type.str();
    if (t == "string") {
      out.push_back(c.call({"GET", k}));
    } else if (t == "hash") {
      out.push_back(c.call({"HGETALL", k}));
    } else if (t == "list") {
      out.push_back(c.call({"LRANGE", k, "0", "-1"}));
    } else if (t == "zset") {
      out.push_back(c.call({"ZRANGE", k, "0", "-1", "WITHSCORES"}));
    } else if (t == "set") {
      Reply members = c.call({"SMEMBERS", k});
      std::vector<std::string> m;
      for (const Reply& e : members.elements()) m.push_back(e.str());
      std::sort(m.begin(), m.end());
      std::vector<Reply> sorted;
      for (const std::string& e : m) sorted.push_back(Reply::bulk(e));
      out.push_back(Reply::array(std::move(sorted)));
    }
  }
  return out;
}

int64_t wall_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

TEST(RealRedis, EveryScriptMatchesTheFake) {
  RedisServerProcess server;
  SocketEnv real({server.port()}, "client-r");
  world::DirectWorld fake_world;
  world::DirectEnv fake(fake_world, "client-f");
  std::vector<Shape> shapes;
  for (int i = 0; i < kEmbeddedScriptCount; ++i) shapes.push_back(shape_of(kEmbeddedScripts[i]));
  ASSERT_GE(shapes.size(), 32u) << "every script of scripts/, the interop kinds' included";
  const std::vector<std::string> owners = {"o:1", "o:2", "o:3"};
  const std::vector<std::string> numbers = {"0", "1", "2", "3", "100000", "1000000"};
  world::Prng rng(2026);
  std::vector<int> calls(shapes.size(), 0), ones(shapes.size(), 0);
  int errors = 0;
  const int kSteps = 40 * static_cast<int>(shapes.size());
  for (int step = 0; step < kSteps; ++step) {
    const size_t pick = rng.uniform(0, shapes.size() - 1);
    const Shape& s = shapes[pick];
    const Script& script = Script::get(s.name);
    Argv keys, args;
    for (int k = 1; k <= s.keys; ++k) keys.push_back("{" + s.family + "}:" + std::to_string(k));
    for (bool number : s.numeric_arg) {
      const bool other = rng.uniform(0, 9) == 0;
      const auto& pool = (number != other) ? numbers : owners;
      args.push_back(pool[rng.uniform(0, pool.size() - 1)]);
    }
    fake_world.clock.set_us(wall_us());
    const Reply want = run_script(real.connection(), script, keys, args);
    const Reply got = run_script(fake.connection(), script, keys, args);
    ++calls[pick];
    ones[pick] += want.is_integer() && want.integer() == 1;
    errors += want.is_error();
    std::string argv_text;
    for (const std::string& a : args) argv_text += " " + a;
    ASSERT_TRUE(close_enough(want, got))
        << "step " << step << ": " << s.name << " ARGV" << argv_text
        << "\nreal: " << want.debug_string() << "\nfake: " << got.debug_string();
    // A key about to expire (a lease of a few ms drawn) may be gone on one
    // side and not yet on the other: both drop it, so they stay in step.
    for (Connection* side : {&real.connection(), &fake.connection()}) {
      const Reply keys_now = side->call({"KEYS", "*"});
      for (const Reply& k : keys_now.elements()) {
        const Reply pttl = side->call({"PTTL", k.str()});
        if (pttl.integer() >= 0 && pttl.integer() < 1000) {
          real.connection().call({"DEL", k.str()});
          fake.connection().call({"DEL", k.str()});
        }
      }
    }
    const std::vector<Reply> r = snapshot(real.connection());
    fake_world.clock.set_us(wall_us());
    const std::vector<Reply> f = snapshot(fake.connection());
    ASSERT_TRUE(close_enough(Reply::array(r), Reply::array(f)))
        << "step " << step << ": after " << s.name << " ARGV" << argv_text
        << "\nreal: " << Reply::array(r).debug_string()
        << "\nfake: " << Reply::array(f).debug_string();
  }
  for (size_t i = 0; i < shapes.size(); ++i) {
    EXPECT_GE(calls[i], 10) << shapes[i].name << ": every script is called";
  }
  int answered_one = 0;
  for (size_t i = 0; i < shapes.size(); ++i) answered_one += ones[i] > 0;
  EXPECT_GE(answered_one, 8) << "the sequence must reach the scripts' success paths";
  EXPECT_LT(errors, kSteps / 2) << "most calls must be well-formed";
  RecordProperty("calls", kSteps);
  RecordProperty("error_replies", errors);
  RecordProperty("scripts_answering_1", answered_one);
}

}  // namespace
}  // namespace redsim::lock
