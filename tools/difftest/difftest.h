// The differential tester: random command sequences run against a real
// redis-server 7.0 and against the fake, reply by reply, byte for byte.
//
//   difftest::GenOptions g;
//   g.seed = 42;
//   g.commands = 3000;
//   std::vector<difftest::Step> steps = difftest::generate(g);
//   difftest::Result r = difftest::run(steps, {"127.0.0.1", port});
//   if (r.mismatch) {
//     auto small = difftest::shrink(steps, {"127.0.0.1", port});
//     std::cout << difftest::describe(small, difftest::run(small, {"127.0.0.1", port}));
//   }
//
// What is compared: the RESP2 bytes of every reply (a RESP2 value has one
// encoding, so comparing decoded-then-encoded replies is comparing bytes),
// and the pub/sub messages each subscribed connection received, collected
// after every step behind a PING. Where Redis leaves something unspecified
// or it depends on the wall clock, the step says how to compare it:
// KEYS/SMEMBERS/HKEYS/... as a multiset, HGETALL as a multiset of pairs
// (inside MULTI too: EXEC's elements are compared each by its command's rule),
// TTL/PTTL/EXPIRETIME within a tolerance, replies drawn from Redis's own
// random generator (SPOP, SRANDMEMBER, RANDOMKEY) by shape only, after which
// the key is deleted on both sides to keep them equal; SRANDMEMBER and
// ZRANDMEMBER with a count above the set's size (the whole set) and
// SINTER/SUNION/SDIFF and SORT ... BY nosort of a set (hash order) as a
// multiset; XPENDING's idle times within kTimingMarginMs.
//
// Blocking commands (BLPOP ... timeout 0.01): the real server answers after
// at most its timeout; when the fake blocked instead, the runner times its
// block out on the fake's clock and compares the reply it hands over.
//
// Time: the fake's clock follows the wall clock from the start of a run, so
// both servers see nearly the same time; DEBUG SLEEP really sleeps on the
// real server (started with --enable-debug-command yes) and the fake's
// clock catches up. Active expiry is switched off on the real server (DEBUG
// SET-ACTIVE-EXPIRE 0); the fake has none outside a world. A mismatch on a
// step run within kTimingMarginMs of a key's deadline is timing noise, not
// a difference: both sides are flushed and the run goes on (counted).
//
// Excluded on purpose (the fake's documented gaps, sim/lua/script_engine.h
// and README): concatenating integral floats in Lua, Lua 5.3+ operators,
// arithmetic on non-numeric strings, cmsgpack/struct, math.random, error({}),
// and scripts returning a whole hash or set (HGETALL inside EVAL): once
// Redis converts it to a hashtable its order is Redis's hash order, which a
// script's reply passes on unsorted.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/resp/reply.h"

namespace redsim::difftest {

inline constexpr int kConnections = 4;  // connection 3 is the one that subscribes
inline constexpr int64_t kTimingMarginMs = 40;

enum class Compare : uint8_t {
  kExact,           // the reply bytes
  kUnordered,       // an array as a multiset of its elements
  kPairsUnordered,  // a flat field/value array as a multiset of pairs
  kTtlSeconds,      // integers within 1 (TTL, EXPIRETIME)
  kTtlMillis,       // integers within kTimingMarginMs (PTTL, PEXPIRETIME)
  kShape,           // random replies: same type and length; then argv[1] is deleted on both
  kScanAll,         // a SCAN-family command iterated to cursor 0; the union as a set
  kUnsubscribeAll,  // (P)UNSUBSCRIBE with no argument: Redis walks a dict, so the
                    // channels come in hash order; compared as a set, counts in order
  kIdleTimes,       // XPENDING's extended form: exact but for each entry's idle
                    // milliseconds (its third element), within kTimingMarginMs
};

struct Step {
  int conn = 0;
  std::vector<std::string> argv;
  Compare compare = Compare::kExact;
};

struct GenOptions {
  uint64_t seed = 1;
  size_t commands = 1000;
  // Families to draw from; empty = all. Names: "string", "hash", "list",
  // "set", "zset", "keys", "more" (KEYS, SCAN, RENAME, COPY, GETEX, SETBIT,
  // HRANDFIELD, OBJECT, ...), "expire", "multi", "pubsub", "script", "data"
  // (set/sorted-set algebra, LTRIM, SORT, LCS, bitmaps, MOVE, SWAPDB), "hll"
  // (PFADD, PFCOUNT, PFMERGE, PFDEBUG, and GET of the bytes), and the
  // data-model families of generator_data_model.cc: "lists", "blocking",
  // "algebra", "bits", "geo", "sort", "stream", "function".
  std::vector<std::string> families;
};

// The steps of one run; the same options give the same steps.
std::vector<Step> generate(const GenOptions& options);

struct Endpoint {
  std::string host = "127.0.0.1";
  int port = 6379;
};

struct Mismatch {
  size_t step = 0;   // index into the steps
  std::string what;  // "reply" or "pushes on connection N"
  std::string real;  // the real server's bytes, printable
  std::string fake;  // the fake's
};

struct Result {
  size_t steps_run = 0;
  size_t commands_sent = 0;   // to each side, barriers and SCAN iterations included
  size_t timing_resyncs = 0;  // mismatches put down to timing noise
  std::optional<Mismatch> mismatch;
};

struct RunOptions {
  // Test hook: may rewrite each reply of the fake before it is compared
  // (the tester's own tests plant a difference and check it is found).
  std::function<void(const std::vector<std::string>& argv, resp::Reply& fake_reply)> tamper;
};

// Runs `steps` on a real server at `endpoint` (flushed first) and on a fresh
// fake, stopping at the first mismatch. Throws difftest::RawClientError
// when the real server cannot be reached.
Result run(const std::vector<Step>& steps, const Endpoint& endpoint,
           const RunOptions& options = {});

// A smaller sequence that still mismatches (greedy: drops chunks, then
// single steps, while the mismatch persists). `steps` must mismatch.
std::vector<Step> shrink(const std::vector<Step>& steps, const Endpoint& endpoint,
                         size_t* runs = nullptr, const RunOptions& options = {});

// One line per step ("[c0] SET k0 v") and the mismatch, for humans.
std::string describe(const std::vector<Step>& steps, const Result& result);

// Printable form of reply bytes: escapes CR/LF and non-printables.
std::string printable(const std::string& bytes);

}  // namespace redsim::difftest
