// The differential tester's grammar for the rest of Redis 7.0's data model
// (issue 13) and the non-blocking forms of the blocking commands, one
// function per family; generator.cc holds the original families and
// generate(), which draws these through add_data_model(). The families:
//   "lists"     LMPOP, LTRIM, LPOS with RANK/COUNT/MAXLEN, LMOVE, LINSERT
//   "blocking"  BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP, BZPOPMIN/MAX,
//               BZMPOP with a 0.01 s timeout, usually right after a push to
//               the first key (so they answer at once; otherwise the fake's
//               block times out like the real one, see difftest.cc)
//   "algebra"   SINTER/SUNION/SDIFF[STORE], SINTERCARD, SMOVE, SMISMEMBER,
//               ZUNION/ZINTER/ZDIFF[STORE] with WEIGHTS/AGGREGATE,
//               ZINTERCARD, ZRANGESTORE, ZLEXCOUNT, ZREMRANGEBYLEX, ZMPOP,
//               ZRANDMEMBER (the whole set with a count above its size, as a
//               multiset; a negative count by shape)
//   "bits"      BITCOUNT BYTE/BIT, BITPOS, BITOP, BITFIELD, BITFIELD_RO
//   "geo"       GEOADD, GEODIST, GEOHASH, GEOPOS, GEOSEARCH[STORE],
//               GEORADIUS[_RO], GEORADIUSBYMEMBER[_RO]
//   "sort"      SORT/SORT_RO with BY, GET, LIMIT, ALPHA, DESC, STORE; LCS;
//               SUBSTR
//   "stream"    XADD with explicit ids, XRANGE/XREVRANGE, XLEN, XDEL, XTRIM,
//               XGROUP, XREADGROUP and XREAD without BLOCK, XACK, XPENDING,
//               XCLAIM, XAUTOCLAIM, XINFO GROUPS, XSETID
//   "function"  FUNCTION LOAD [REPLACE] of two fixed libraries, FCALL,
//               FCALL_RO, FUNCTION DELETE/FLUSH/STATS/LIST LIBRARYNAME
// Unordered replies: see difftest.h (Compare) and docs/fuzzing.md.
#include <array>
#include <string>
#include <vector>

#include "tools/difftest/difftest.h"
#include "tools/difftest/grammar.h"

namespace redsim::difftest::grammar {

namespace {

using Arr3 = std::array<std::string, 3>;
using Arr4 = std::array<std::string, 4>;

std::string num(int64_t n) { return std::to_string(n); }

std::string mem(Gen& g) {
  static const std::vector<std::string> members = {"a", "b", "c", "1", "2", "10", "-3", "x y", ""};
  return g.pick(members);
}

std::string zscore(Gen& g) {
  static const std::vector<std::string> scores = {"0",    "1",   "-1",  "2.5", "3",  "inf",
                                                  "-inf", "1e3", "0.1", "x",   "(1", "7"};
  return g.pick(scores);
}

std::string side(Gen& g) { return g.chance(50) ? "LEFT" : "RIGHT"; }

// numkeys and that many keys; now and then a wrong count.
void keys_with_count(Gen& g, std::vector<std::string>& argv) {
  if (g.chance(5)) {
    argv.push_back(g.pick(Arr3{"0", "x", "-1"}));
    argv.push_back(g.key());
    return;
  }
  const int64_t n = g.range(1, 3);
  argv.push_back(num(n));
  for (int64_t i = 0; i < n; ++i) argv.push_back(g.key());
}

void add_lists(Gen& g, std::vector<Step>& out) {
  Step s;
  const std::string k = g.key();
  switch (g.below(9)) {
    case 0:
    case 1:
      s.argv = {g.chance(50) ? "RPUSH" : "LPUSH", k, mem(g), mem(g)};
      if (g.chance(50)) s.argv.push_back(mem(g));
      break;
    case 2:
    case 3:
      s.argv = {"LMPOP"};
      keys_with_count(g, s.argv);
      s.argv.push_back(g.chance(95) ? side(g) : "UP");
      if (g.chance(50)) s.argv.insert(s.argv.end(), {"COUNT", num(g.range(-1, 4))});
      break;
    case 4:
      s.argv = {"LTRIM", k, num(g.range(-5, 4)), num(g.range(-4, 6))};
      break;
    case 5:
      s.argv = {"LPOS", k, mem(g)};
      if (g.chance(50)) s.argv.insert(s.argv.end(), {"RANK", num(g.range(-3, 3))});
      if (g.chance(50)) s.argv.insert(s.argv.end(), {"COUNT", num(g.range(-1, 3))});
      if (g.chance(30)) s.argv.insert(s.argv.end(), {"MAXLEN", num(g.range(-1, 4))});
      break;
    case 6:
      s.argv = {"LMOVE", k, g.key(), side(g), side(g)};
      break;
    case 7:
      s.argv = {"LINSERT", k, g.chance(50) ? "BEFORE" : "AFTER", mem(g), mem(g)};
      break;
    default:
      s.argv = {"LRANGE", k, "0", "-1"};
      break;
  }
  out.push_back(std::move(s));
}

void add_blocking(Gen& g, std::vector<Step>& out) {
  const int conn = static_cast<int>(g.below(3));
  const std::string k = g.key();
  const bool zset = g.chance(35);
  if (g.chance(85)) {
    // The key present: the blocking command answers at once.
    Step push;
    push.conn = static_cast<int>(g.below(3));
    if (zset) {
      push.argv = {"ZADD", k, zscore(g), mem(g)};
    } else {
      push.argv = {"RPUSH", k, mem(g)};
    }
    if (g.chance(40)) push.argv.push_back(push.argv[0] == "ZADD" ? "3" : mem(g));
    if (push.argv.size() == 5 && push.argv[0] == "ZADD") push.argv.push_back(mem(g));
    out.push_back(std::move(push));
  }
  const std::string timeout = g.chance(95) ? "0.01" : g.pick(Arr3{"-1", "x", "0.01"});
  Step s;
  s.conn = conn;
  if (zset) {
    switch (g.below(3)) {
      case 0:
      case 1:
        s.argv = {g.chance(50) ? "BZPOPMIN" : "BZPOPMAX", k};
        if (g.chance(30)) s.argv.push_back(g.key());
        s.argv.push_back(timeout);
        break;
      default:
        s.argv = {"BZMPOP", timeout, "1", k};
        if (g.chance(30)) s.argv = {"BZMPOP", timeout, "2", k, g.key()};
        s.argv.push_back(g.chance(50) ? "MIN" : "MAX");
        if (g.chance(50)) s.argv.insert(s.argv.end(), {"COUNT", num(g.range(1, 3))});
        break;
    }
  } else {
    switch (g.below(5)) {
      case 0:
      case 1:
        s.argv = {g.chance(50) ? "BLPOP" : "BRPOP", k};
        if (g.chance(30)) s.argv.push_back(g.key());
        s.argv.push_back(timeout);
        break;
      case 2:
        s.argv = {"BLMOVE", k, g.key(), side(g), side(g), timeout};
        break;
      case 3:
        s.argv = {"BRPOPLPUSH", k, g.key(), timeout};
        break;
      default:
        s.argv = {"BLMPOP", timeout, "1", k};
        if (g.chance(30)) s.argv = {"BLMPOP", timeout, "2", k, g.key()};
        s.argv.push_back(side(g));
        if (g.chance(50)) s.argv.insert(s.argv.end(), {"COUNT", num(g.range(1, 3))});
        break;
    }
  }
  out.push_back(std::move(s));
}

void add_algebra(Gen& g, std::vector<Step>& out) {
  Step s;
  const std::string k = g.key();
  switch (g.below(16)) {
    case 0:
      s.argv = {"SADD", k, mem(g), mem(g), mem(g)};
      break;
    case 1:
      s.argv = {"ZADD", k, zscore(g), mem(g), zscore(g), mem(g)};
      break;
    case 2:
      // Same scores: the lexicographic commands' precondition.
      s.argv = {"ZADD", k, "0", mem(g), "0", mem(g), "0", mem(g)};
      break;
    case 3: {
      static const std::vector<std::string> ops = {"SINTER", "SUNION", "SDIFF"};
      s.argv = {g.pick(ops), k, g.key()};
      if (g.chance(40)) s.argv.push_back(g.key());
      s.compare = Compare::kUnordered;
      if (g.chance(40)) {
        s.argv.insert(s.argv.begin() + 1, g.key());
        s.argv[0] += "STORE";
        s.compare = Compare::kExact;
      }
      break;
    }
    case 4:
      s.argv = {"SINTERCARD"};
      keys_with_count(g, s.argv);
      if (g.chance(40)) s.argv.insert(s.argv.end(), {"LIMIT", num(g.range(-1, 3))});
      break;
    case 5:
      s.argv = {g.chance(60) ? "SMOVE" : "SMISMEMBER", k, g.key(), mem(g)};
      if (s.argv[0] == "SMISMEMBER") s.argv[2] = mem(g);
      break;
    case 6:
    case 7: {
      static const std::vector<std::string> ops = {"ZUNION", "ZINTER", "ZDIFF"};
      s.argv = {g.pick(ops)};
      const bool store = g.chance(40);
      if (store) {
        s.argv[0] += "STORE";
        s.argv.push_back(g.key());
      }
      keys_with_count(g, s.argv);
      const bool diff = s.argv[0].rfind("ZDIFF", 0) == 0;
      const size_t nkeys = s.argv.size() - (store ? 3 : 2);
      if (!diff && g.chance(40)) {
        s.argv.push_back("WEIGHTS");
        for (size_t i = 0; i < nkeys; ++i) {
          s.argv.push_back(g.pick(Arr4{"1", "2", "-1.5", "0"}));
        }
        if (g.chance(5)) s.argv.push_back("x");
      }
      if (!diff && g.chance(40)) {
        s.argv.insert(s.argv.end(), {"AGGREGATE", g.pick(Arr4{"SUM", "MIN", "MAX", "sum"})});
      }
      if (!store && g.chance(50)) s.argv.push_back("WITHSCORES");
      break;
    }
    case 8:
      s.argv = {"ZINTERCARD"};
      keys_with_count(g, s.argv);
      if (g.chance(40)) s.argv.insert(s.argv.end(), {"LIMIT", num(g.range(-1, 3))});
      break;
    case 9:
      s.argv = {"ZRANGESTORE", g.key(), k};
      switch (g.below(3)) {
        case 0:
          s.argv.insert(s.argv.end(), {num(g.range(-3, 1)), num(g.range(-2, 3))});
          break;
        case 1:
          s.argv.insert(s.argv.end(), {zscore(g), zscore(g), "BYSCORE"});
          break;
        default:
          s.argv.insert(s.argv.end(), {g.pick(Arr4{"-", "[a", "(b", "+"}),
                                       g.pick(Arr4{"+", "[c", "(b", "-"}), "BYLEX"});
          break;
      }
      if (g.chance(30)) s.argv.push_back("REV");
      if (g.chance(30))
        s.argv.insert(s.argv.end(), {"LIMIT", num(g.range(0, 2)), num(g.range(-1, 2))});
      break;
    case 10:
      s.argv = {g.chance(50) ? "ZLEXCOUNT" : "ZREMRANGEBYLEX", k,
                g.pick(Arr4{"-", "[a", "(1", "+"}), g.pick(Arr4{"+", "[c", "(b", "x"})};
      break;
    case 11:
      s.argv = {"ZMPOP"};
      keys_with_count(g, s.argv);
      s.argv.push_back(g.chance(95) ? (g.chance(50) ? "MIN" : "MAX") : "MID");
      if (g.chance(50)) s.argv.insert(s.argv.end(), {"COUNT", num(g.range(0, 4))});
      break;
    case 12:
      // More than the set holds: the whole set, in an order Redis leaves open.
      s.argv = {"ZRANDMEMBER", k, "100"};
      s.compare = Compare::kUnordered;
      if (g.chance(50)) {
        s.argv.push_back("WITHSCORES");
        s.compare = Compare::kPairsUnordered;
      }
      break;
    case 13:
      s.argv = {"ZRANDMEMBER", k};
      if (g.chance(50)) s.argv.push_back(g.pick(Arr3{"0", "-2", "x"}));
      s.compare = Compare::kShape;
      break;
    case 14:
      s.argv = {"ZRANGE", k, "0", "-1", "WITHSCORES"};
      break;
    default:
      s.argv = {"SRANDMEMBER", k, "100"};
      s.compare = Compare::kUnordered;
      break;
  }
  out.push_back(std::move(s));
}

std::string bit_type(Gen& g) {
  static const std::vector<std::string> types = {"u1",  "u8", "i8", "u16", "i5",  "u63",
                                                 "i64", "u3", "i1", "u64", "i65", "x8"};
  return g.pick(types);
}

std::string bit_offset(Gen& g) {
  if (g.chance(30)) return "#" + num(g.range(0, 5));
  if (g.chance(3)) return "-1";
  return num(g.range(0, 40));
}

void add_bits(Gen& g, std::vector<Step>& out) {
  Step s;
  const std::string k = g.key();
  switch (g.below(10)) {
    case 0:
      s.argv = {"SETBIT", k, num(g.range(0, 40)), g.chance(70) ? "1" : "0"};
      break;
    case 1:
      s.argv = {"SET", k, g.pick(Arr4{"foobar", "\xff\xf0", std::string("\x00\x01", 2), "abc"})};
      break;
    case 2:
      s.argv = {"BITCOUNT", k};
      if (g.chance(70)) {
        s.argv.insert(s.argv.end(), {num(g.range(-10, 10)), num(g.range(-10, 40))});
        if (g.chance(60)) s.argv.push_back(g.pick(Arr3{"BIT", "BYTE", "bit"}));
      }
      break;
    case 3:
    case 4:
      s.argv = {"BITPOS", k, g.chance(50) ? "0" : "1"};
      if (g.chance(70)) {
        s.argv.push_back(num(g.range(-10, 10)));
        if (g.chance(60)) {
          s.argv.push_back(num(g.range(-10, 40)));
          if (g.chance(60)) s.argv.push_back(g.pick(Arr3{"BIT", "BYTE", "BIT"}));
        }
      }
      break;
    case 5: {
      s.argv = {"BITOP", g.pick(Arr4{"AND", "OR", "XOR", "NOT"}), g.key(), k};
      if (s.argv[1] != "NOT" || g.chance(5)) s.argv.push_back(g.key());
      if (s.argv[1] != "NOT" && g.chance(40)) s.argv.push_back(g.key());
      break;
    }
    case 6:
    case 7:
    case 8: {
      s.argv = {"BITFIELD", k};
      const int64_t ops = g.range(1, 3);
      for (int64_t i = 0; i < ops; ++i) {
        if (g.chance(30))
          s.argv.insert(s.argv.end(), {"OVERFLOW", g.pick(Arr4{"WRAP", "SAT", "FAIL", "NO"})});
        const std::string op = g.pick(Arr3{"GET", "SET", "INCRBY"});
        s.argv.insert(s.argv.end(), {op, bit_type(g), bit_offset(g)});
        if (op != "GET") {
          s.argv.push_back(g.pick(std::array<std::string, 7>{"1", "-1", "100", "-200", "300",
                                                             "9223372036854775807", "x"}));
        }
      }
      break;
    }
    default:
      s.argv = {"BITFIELD_RO", k, "GET", bit_type(g), bit_offset(g)};
      if (g.chance(30)) s.argv.insert(s.argv.end(), {"GET", bit_type(g), bit_offset(g)});
      if (g.chance(5)) s.argv.insert(s.argv.end(), {"SET", "u8", "0", "1"});
      break;
  }
  out.push_back(std::move(s));
}

std::string lon(Gen& g) {
  if (g.chance(3)) return g.pick(Arr3{"181", "x", "-180"});
  return "13." + num(g.range(100, 999));
}
std::string lat(Gen& g) {
  if (g.chance(3)) return g.pick(Arr3{"85.06", "-86", "y"});
  return "38." + num(g.range(100, 999));
}
std::string unit(Gen& g) { return g.pick(Arr4{"m", "km", "mi", "ft"}); }

// The shared tail of GEORADIUS*, GEOSEARCH*: options in a random order-free form.
void geo_options(Gen& g, std::vector<std::string>& argv, bool store) {
  if (!store) {
    if (g.chance(40)) argv.push_back("WITHCOORD");
    if (g.chance(40)) argv.push_back("WITHDIST");
    if (g.chance(30)) argv.push_back("WITHHASH");
  }
  if (g.chance(40)) {
    argv.insert(argv.end(), {"COUNT", num(g.range(0, 4))});
    if (g.chance(30)) argv.push_back("ANY");
  }
  if (g.chance(50)) argv.push_back(g.chance(50) ? "ASC" : "DESC");
}

void add_geo(Gen& g, std::vector<Step>& out) {
  Step s;
  const std::string k = g.key();
  switch (g.below(11)) {
    case 0:
    case 1:
    case 2:
      s.argv = {"GEOADD", k};
      if (g.chance(20)) s.argv.push_back(g.pick(Arr3{"NX", "XX", "CH"}));
      s.argv.insert(s.argv.end(), {lon(g), lat(g), mem(g)});
      if (g.chance(50)) s.argv.insert(s.argv.end(), {lon(g), lat(g), mem(g)});
      break;
    case 3:
      s.argv = {"GEODIST", k, mem(g), mem(g)};
      if (g.chance(60)) s.argv.push_back(g.chance(95) ? unit(g) : "yd");
      break;
    case 4:
      s.argv = {g.chance(50) ? "GEOHASH" : "GEOPOS", k, mem(g), mem(g)};
      break;
    case 5:
    case 6: {
      const bool store = g.chance(30);
      s.argv = {store ? "GEOSEARCHSTORE" : "GEOSEARCH"};
      if (store) s.argv.push_back(g.key());
      s.argv.push_back(k);
      if (g.chance(50)) {
        s.argv.insert(s.argv.end(), {"FROMMEMBER", mem(g)});
      } else {
        s.argv.insert(s.argv.end(), {"FROMLONLAT", lon(g), lat(g)});
      }
      if (g.chance(50)) {
        s.argv.insert(s.argv.end(), {"BYRADIUS", num(g.range(1, 80)), unit(g)});
      } else {
        s.argv.insert(s.argv.end(), {"BYBOX", num(g.range(1, 80)), num(g.range(1, 80)), unit(g)});
      }
      geo_options(g, s.argv, store);
      if (store && g.chance(40)) s.argv.push_back("STOREDIST");
      break;
    }
    case 7:
    case 8: {
      const bool ro = g.chance(30);
      s.argv = {ro ? "GEORADIUS_RO" : "GEORADIUS", k, lon(g), lat(g), num(g.range(1, 80)), unit(g)};
      geo_options(g, s.argv, false);
      if (!ro && g.chance(20))
        s.argv.insert(s.argv.end(), {g.chance(50) ? "STORE" : "STOREDIST", g.key()});
      break;
    }
    case 9:
      s.argv = {g.chance(70) ? "GEORADIUSBYMEMBER" : "GEORADIUSBYMEMBER_RO", k, mem(g),
                num(g.range(1, 80)), unit(g)};
      geo_options(g, s.argv, false);
      break;
    default:
      s.argv = {"ZRANGE", k, "0", "-1", "WITHSCORES"};
      break;
  }
  out.push_back(std::move(s));
}

void add_sort(Gen& g, std::vector<Step>& out) {
  Step s;
  const std::string k = g.key();
  switch (g.below(10)) {
    case 0:
      // Weights and hash fields SORT's BY and GET patterns read.
      s.argv = {"SET", "w_" + mem(g), g.pick(Arr4{"1", "-2", "3.5", "x"})};
      break;
    case 1:
      s.argv = {"HSET", "h_" + mem(g), "f", g.pick(Arr4{"1", "v", "", "9"})};
      break;
    case 2:
      s.argv = {g.pick(Arr3{"RPUSH", "SADD", "RPUSH"}), k, mem(g), mem(g), mem(g)};
      if (g.chance(40)) s.argv = {"ZADD", k, zscore(g), mem(g), zscore(g), mem(g)};
      break;
    case 3:
    case 4:
    case 5: {
      const bool ro = g.chance(20);
      s.argv = {ro ? "SORT_RO" : "SORT", k};
      std::string by;
      if (g.chance(40)) {
        by = g.pick(Arr4{"w_*", "h_*->f", "nosort", "nokey"});
        s.argv.insert(s.argv.end(), {"BY", by});
      }
      // BY without a '*' does not sort: a set comes in Redis's hash order.
      const bool dontsort = by == "nosort" || by == "nokey";
      const bool alpha = g.chance(40);
      // ALPHA BY a pattern leaves equal weights in input order (sortCompare
      // has no tie-break there), a set's or sorted set's being hash order.
      const bool ties_open = alpha && !by.empty() && !dontsort;
      if (!dontsort && !ties_open && g.chance(30)) {
        s.argv.insert(s.argv.end(), {"LIMIT", num(g.range(-1, 2)), num(g.range(-1, 3))});
      }
      size_t gets = 0;
      for (int i = 0; i < 2; ++i) {
        if (g.chance(30)) {
          s.argv.insert(s.argv.end(), {"GET", g.pick(Arr4{"#", "w_*", "h_*->f", "h_*->g"})});
          ++gets;
        }
      }
      if (alpha) s.argv.push_back("ALPHA");
      if (g.chance(30)) s.argv.push_back(g.chance(50) ? "DESC" : "ASC");
      // (a STORE of a set BY nosort sorts it, as a script's SORT does)
      const bool store = !ro && !ties_open && g.chance(20);
      if (store) s.argv.insert(s.argv.end(), {"STORE", g.key()});
      if ((dontsort && !store) || ties_open) {
        // A multiset of elements, each with its GET values.
        s.compare = gets == 2 ? Compare::kPairsUnordered : Compare::kUnordered;
      }
      break;
    }
    case 6:
      s.argv = {"SET", k, g.pick(Arr4{"ohmytext", "mynewtext", "abcabc", ""})};
      break;
    case 7:
    case 8:
      s.argv = {"LCS", k, g.key()};
      if (g.chance(30)) s.argv.push_back("LEN");
      if (g.chance(50)) {
        s.argv.push_back("IDX");
        if (g.chance(50)) s.argv.insert(s.argv.end(), {"MINMATCHLEN", num(g.range(0, 4))});
        if (g.chance(50)) s.argv.push_back("WITHMATCHLEN");
      }
      break;
    default:
      s.argv = {"SUBSTR", k, num(g.range(-6, 4)), num(g.range(-4, 10))};
      break;
  }
  out.push_back(std::move(s));
}

std::string stream_id(Gen& g) {
  const int64_t ms = g.range(0, 12);
  switch (g.below(6)) {
    case 0:
      return num(ms);
    case 1:
      return num(ms) + "-*";
    default:
      return num(ms) + "-" + num(g.range(0, 3));
  }
}

std::string range_id(Gen& g, bool start) {
  if (g.chance(30)) return start ? "-" : "+";
  if (g.chance(15)) return "(" + num(g.range(0, 12)) + "-" + num(g.range(0, 3));
  return stream_id(g);
}

std::string group(Gen& g) { return g.chance(80) ? "g1" : "g2"; }
std::string consumer(Gen& g) { return g.pick(Arr3{"c1", "c2", "c3"}); }

void add_stream(Gen& g, std::vector<Step>& out) {
  Step s;
  const std::string k = g.key();
  switch (g.below(20)) {
    case 0:
    case 1:
    case 2:
    case 3: {
      s.argv = {"XADD", k};
      if (g.chance(10)) s.argv.push_back("NOMKSTREAM");
      if (g.chance(20)) {
        s.argv.insert(s.argv.end(),
                      {g.chance(60) ? "MAXLEN" : "MINID", g.pick(Arr3{"=", "", "="})});
        s.argv.push_back(s.argv[s.argv.size() - 2] == "MAXLEN" ? num(g.range(0, 4)) : stream_id(g));
        if (s.argv[s.argv.size() - 2].empty()) s.argv.erase(s.argv.end() - 2);
      }
      // No out-of-range id: strtoull's ERANGE stays in errno, and a later
      // SORT BY reads it as a failed strtod (a Redis quirk the fake leaves out).
      s.argv.push_back(g.chance(97) ? stream_id(g) : g.pick(Arr3{"0-0", "x", "1-x"}));
      s.argv.insert(s.argv.end(), {g.field(), g.value()});
      if (g.chance(30)) s.argv.insert(s.argv.end(), {g.field(), g.value()});
      break;
    }
    case 4:
    case 5:
      s.argv = {g.chance(70) ? "XRANGE" : "XREVRANGE", k};
      if (s.argv[0] == "XRANGE") {
        s.argv.insert(s.argv.end(), {range_id(g, true), range_id(g, false)});
      } else {
        s.argv.insert(s.argv.end(), {range_id(g, false), range_id(g, true)});
      }
      if (g.chance(30)) s.argv.insert(s.argv.end(), {"COUNT", num(g.range(-1, 3))});
      break;
    case 6:
      s.argv = {"XLEN", k};
      break;
    case 7:
      s.argv = {"XDEL", k, stream_id(g)};
      if (g.chance(40)) s.argv.push_back(stream_id(g));
      break;
    case 8:
      s.argv = {"XTRIM", k, g.chance(50) ? "MAXLEN" : "MINID"};
      if (g.chance(40)) s.argv.push_back("=");
      s.argv.push_back(s.argv[2] == "MAXLEN" ? num(g.range(-1, 4)) : stream_id(g));
      break;
    case 9:
    case 10: {
      s.argv = {"XGROUP", "CREATE", k, group(g), g.pick(Arr4{"$", "0", "3-0", "0-0"})};
      if (g.chance(60)) s.argv.push_back("MKSTREAM");
      if (g.chance(20)) s.argv.insert(s.argv.end(), {"ENTRIESREAD", num(g.range(-1, 5))});
      break;
    }
    case 11:
      switch (g.below(4)) {
        case 0:
          s.argv = {"XGROUP", "SETID", k, group(g), g.pick(Arr4{"$", "0", "2-0", "x"})};
          break;
        case 1:
          s.argv = {"XGROUP", "DESTROY", k, group(g)};
          break;
        case 2:
          s.argv = {"XGROUP", "CREATECONSUMER", k, group(g), consumer(g)};
          break;
        default:
          s.argv = {"XGROUP", "DELCONSUMER", k, group(g), consumer(g)};
          break;
      }
      break;
    case 12:
    case 13:
      s.argv = {"XREADGROUP", "GROUP", group(g), consumer(g)};
      if (g.chance(50)) s.argv.insert(s.argv.end(), {"COUNT", num(g.range(1, 3))});
      if (g.chance(15)) s.argv.push_back("NOACK");
      s.argv.insert(s.argv.end(),
                    {"STREAMS", k, g.chance(75) ? ">" : g.pick(Arr3{"0", "0-0", "3"})});
      break;
    case 14:
      s.argv = {"XREAD"};
      if (g.chance(50)) s.argv.insert(s.argv.end(), {"COUNT", num(g.range(1, 3))});
      s.argv.insert(s.argv.end(), {"STREAMS", k, g.pick(Arr3{"0", "2-1", "5"})});
      break;
    case 15:
      s.argv = {"XACK", k, group(g), stream_id(g)};
      if (g.chance(40)) s.argv.push_back(stream_id(g));
      break;
    case 16:
      s.argv = {"XPENDING", k, group(g)};
      if (g.chance(60)) {
        // The extended form: its idle times are compared within a margin.
        s.argv.insert(s.argv.end(), {range_id(g, true), range_id(g, false), num(g.range(1, 4))});
        if (g.chance(30)) s.argv.push_back(consumer(g));
        s.compare = Compare::kIdleTimes;
      }
      break;
    case 17:
      s.argv = {"XCLAIM", k, group(g), consumer(g), "0", stream_id(g)};
      if (g.chance(30)) s.argv.push_back(stream_id(g));
      if (g.chance(40)) s.argv.push_back("JUSTID");
      break;
    case 18:
      s.argv = {"XAUTOCLAIM", k, group(g), consumer(g), "0", g.pick(Arr3{"0-0", "0", "3-1"})};
      if (g.chance(50)) s.argv.insert(s.argv.end(), {"COUNT", num(g.range(1, 3))});
      if (g.chance(30)) s.argv.push_back("JUSTID");
      break;
    default:
      if (g.chance(50)) {
        s.argv = {"XINFO", "GROUPS", k};
      } else {
        // Never back below the ids XADD draws (ms <= 12): Redis appends to
        // the last listpack node, which may still hold deleted entries with
        // higher ids, and XTRIM MINID's walk stops at the first of them.
        s.argv = {"XSETID", k, g.pick(Arr4{"20-0", "25-3", "30", "x"})};
        if (g.chance(30)) {
          s.argv.insert(s.argv.end(), {"ENTRIESADDED", num(g.range(0, 20)), "MAXDELETEDID", "1-0"});
        }
      }
      break;
  }
  out.push_back(std::move(s));
}

// Two fixed libraries: dtlib (several functions, one of them no-writes)
// and dtone (one function, so FUNCTION LIST has a single order).
const std::string kLibrary =
    "#!lua name=dtlib\n"
    "redis.register_function('dt_get', function(keys, args) return redis.call('GET', keys[1]) "
    "end)\n"
    "redis.register_function('dt_set', function(keys, args) return redis.call('SET', keys[1], "
    "args[1]) end)\n"
    "redis.register_function{function_name='dt_len', callback=function(keys, args) "
    "return redis.call('STRLEN', keys[1]) end, flags={'no-writes'}}\n"
    "redis.register_function('dt_err', function(keys, args) return redis.call('INCR', keys[1]) "
    "end)\n";
const std::string kLibraryOne =
    "#!lua name=dtone\n"
    "redis.register_function{function_name='dt_one', callback=function(keys, args) "
    "return {#keys, #args, args[1]} end, flags={'no-writes'}, description='one'}\n";

void add_function(Gen& g, std::vector<Step>& out) {
  Step s;
  s.conn = static_cast<int>(g.below(3));
  switch (g.below(10)) {
    case 0:
    case 1:
      s.argv = {"FUNCTION", "LOAD"};
      if (g.chance(60)) s.argv.push_back("REPLACE");
      s.argv.push_back(g.chance(60) ? kLibrary : kLibraryOne);
      break;
    case 2:
    case 3:
    case 4:
    case 5: {
      static const std::vector<std::string> fns = {"dt_get", "dt_set", "dt_len",
                                                   "dt_err", "dt_one", "dt_none"};
      s.argv = {g.chance(70) ? "FCALL" : "FCALL_RO", g.pick(fns)};
      if (g.chance(5)) {
        s.argv.push_back(g.pick(Arr3{"-1", "x", "5"}));
      } else {
        s.argv.insert(s.argv.end(), {"1", g.key()});
      }
      s.argv.push_back(g.value());
      break;
    }
    case 6:
      s.argv = {"FUNCTION", "LIST"};
      if (g.chance(50)) s.argv.push_back("WITHCODE");
      s.argv.insert(s.argv.end(), {"LIBRARYNAME", "dtone"});
      break;
    case 7:
      s.argv = {"FUNCTION", "DELETE", g.pick(Arr3{"dtlib", "dtone", "nolib"})};
      break;
    case 8:
      s.argv = {"FUNCTION", "STATS"};
      break;
    default:
      s.argv = {"FUNCTION", "FLUSH"};
      if (g.chance(30)) s.argv.push_back(g.chance(50) ? "SYNC" : "ASYNC");
      break;
  }
  out.push_back(std::move(s));
}

}  // namespace

const std::vector<std::string>& data_model_families() {
  static const std::vector<std::string> families = {"lists", "blocking", "algebra", "bits",
                                                    "geo",   "sort",     "stream",  "function"};
  return families;
}

bool add_data_model(const std::string& family, Gen& g, std::vector<Step>& out) {
  if (family == "lists") {
    add_lists(g, out);
  } else if (family == "blocking") {
    add_blocking(g, out);
  } else if (family == "algebra") {
    add_algebra(g, out);
  } else if (family == "bits") {
    add_bits(g, out);
  } else if (family == "geo") {
    add_geo(g, out);
  } else if (family == "sort") {
    add_sort(g, out);
  } else if (family == "stream") {
    add_stream(g, out);
  } else if (family == "function") {
    add_function(g, out);
  } else {
    return false;
  }
  return true;
}

}  // namespace redsim::difftest::grammar
