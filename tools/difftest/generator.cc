// The random command grammar of the differential tester: one function per
// command family, and generate(). The Lua scripts are in script_grammar.cc;
// the data-model families (lists, blocking, algebra, bits, geo, sort,
// stream, function) in generator_data_model.cc.
#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/prng.h"
#include "tools/difftest/difftest.h"
#include "tools/difftest/grammar.h"

namespace redsim::difftest {

namespace {

using Argv = std::vector<std::string>;
using grammar::Gen;

void add_string(Gen& g, std::vector<Step>& out) {
  Step s;
  switch (g.below(16)) {
    case 0:
    case 1: {
      s.argv = {"SET", g.key(), g.value()};
      if (g.chance(30)) s.argv.push_back(g.chance(50) ? "NX" : "XX");
      if (g.chance(15)) s.argv.push_back("GET");
      switch (g.below(6)) {
        case 0:
          s.argv.insert(s.argv.end(), {"PX", g.millis()});
          break;
        case 1:
          s.argv.insert(s.argv.end(), {"EX", g.seconds()});
          break;
        case 2:
          s.argv.push_back("KEEPTTL");
          break;
        case 3:
          if (g.chance(30)) s.argv.insert(s.argv.end(), {"EX", "10", "PX", "100"});
          break;
        default:
          break;
      }
      if (g.chance(5)) s.argv.push_back(g.chance(50) ? "NX" : "BOGUS");
      break;
    }
    case 2:
      s.argv = {"GET", g.key()};
      break;
    case 3:
      s.argv = {"GETDEL", g.key()};
      break;
    case 4:
      s.argv = {"GETSET", g.key(), g.value()};
      break;
    case 5:
      s.argv = {"SETNX", g.key(), g.value()};
      break;
    case 6:
      s.argv = {g.chance(50) ? "SETEX" : "PSETEX", g.key(), g.chance(50) ? "100" : g.integer(),
                g.value()};
      break;
    case 7:
      s.argv = {"MSET", g.key(), g.value()};
      if (g.chance(50)) s.argv.insert(s.argv.end(), {g.key(), g.value()});
      if (g.chance(10)) s.argv.push_back(g.key());
      break;
    case 8:
      s.argv = {"MGET", g.key(), g.key(), g.key()};
      break;
    case 9:
      s.argv = {"INCR", g.key()};
      break;
    case 10:
      s.argv = {"INCRBY", g.key(), g.integer()};
      break;
    case 11:
      s.argv = {g.chance(50) ? "DECR" : "DECRBY", g.key()};
      if (s.argv[0] == "DECRBY") s.argv.push_back(g.integer());
      break;
    case 12:
      s.argv = {"APPEND", g.key(), g.value()};
      break;
    case 13:
      s.argv = {"STRLEN", g.key()};
      break;
    case 14:
      s.argv = {g.chance(50) ? "INCR" : "GET"};  // wrong arity
      break;
    default:
      s.argv = {"SET", g.key()};  // wrong arity
      break;
  }
  out.push_back(std::move(s));
}

void add_hash(Gen& g, std::vector<Step>& out) {
  Step s;
  const std::string k = g.key();
  switch (g.below(13)) {
    case 0:
    case 1:
      s.argv = {"HSET", k, g.field(), g.value()};
      if (g.chance(40)) s.argv.insert(s.argv.end(), {g.field(), g.value()});
      if (g.chance(5)) s.argv.push_back(g.field());
      break;
    case 2:
      s.argv = {"HSETNX", k, g.field(), g.value()};
      break;
    case 3:
      s.argv = {"HGET", k, g.field()};
      break;
    case 4:
      s.argv = {"HMGET", k, g.field(), g.field()};
      break;
    case 5:
      s.argv = {"HMSET", k, g.field(), g.value()};
      break;
    case 6:
      s.argv = {"HDEL", k, g.field(), g.field()};
      break;
    case 7:
      s.argv = {"HEXISTS", k, g.field()};
      break;
    case 8:
      s.argv = {"HINCRBY", k, g.field(), g.integer()};
      break;
    case 9:
      s.argv = {"HGETALL", k};
      s.compare = Compare::kPairsUnordered;
      break;
    case 10:
      s.argv = {g.chance(50) ? "HKEYS" : "HVALS", k};
      s.compare = Compare::kUnordered;
      break;
    case 11:
      s.argv = {"HLEN", k};
      break;
    default:
      s.argv = {"HSET", k, g.field()};
      break;
  }
  out.push_back(std::move(s));
}

void add_keys(Gen& g, std::vector<Step>& out) {
  Step s;
  switch (g.below(7)) {
    case 0:
      s.argv = {"TYPE", g.key()};
      break;
    case 1:
      s.argv = {"EXISTS", g.key(), g.key()};
      break;
    case 2:
      s.argv = {g.chance(50) ? "DEL" : "UNLINK", g.key()};
      if (g.chance(40)) s.argv.push_back(g.key());
      break;
    case 3:
      s.argv = {"DBSIZE"};
      break;
    case 4:
      s.argv = {"SELECT", g.chance(80) ? "0" : (g.chance(50) ? "1" : "16")};
      break;
    case 5:
      s.argv = {"PING"};
      if (g.chance(50)) s.argv.push_back(g.value());
      break;
    default:
      s.argv = {"ECHO", g.value()};
      break;
  }
  out.push_back(std::move(s));
}

void add_expire(Gen& g, std::vector<Step>& out) {
  Step s;
  const std::string k = g.key();
  switch (g.below(9)) {
    case 0:
      s.argv = {"EXPIRE", k, g.seconds()};
      if (g.chance(30))
        s.argv.push_back(g.pick(std::array<std::string, 5>{"NX", "XX", "GT", "LT", "ZZ"}));
      break;
    case 1:
      s.argv = {"PEXPIRE", k, g.millis()};
      if (g.chance(30))
        s.argv.push_back(g.pick(std::array<std::string, 4>{"NX", "XX", "GT", "LT"}));
      break;
    case 2:
      // An absolute deadline far in the past or the future: timing-safe.
      s.argv = {g.chance(50) ? "EXPIREAT" : "PEXPIREAT", k, g.chance(50) ? "1" : "99999999999999"};
      break;
    case 3:
      s.argv = {"TTL", k};
      s.compare = Compare::kTtlSeconds;
      break;
    case 4:
      s.argv = {"PTTL", k};
      s.compare = Compare::kTtlMillis;
      break;
    case 5:
      s.argv = {"EXPIRETIME", k};
      s.compare = Compare::kTtlSeconds;
      break;
    case 6:
      s.argv = {"PEXPIRETIME", k};
      s.compare = Compare::kTtlMillis;
      break;
    case 7:
      s.argv = {"PERSIST", k};
      break;
    default:
      // Lets short leases run out on both sides.
      s.argv = {"DEBUG", "SLEEP", g.chance(70) ? "0" : "0.2"};
      break;
  }
  out.push_back(std::move(s));
}

void add_multi(Gen& g, std::vector<Step>& out) {
  const int conn = static_cast<int>(g.below(3));
  if (g.chance(20)) {
    out.push_back(Step{conn, {"WATCH", g.key()}, Compare::kExact});
    return;
  }
  out.push_back(Step{conn, {"MULTI"}, Compare::kExact});
  const size_t n = g.below(4);
  for (size_t i = 0; i < n; ++i) {
    std::vector<Step> inner;
    switch (g.below(3)) {
      case 0:
        add_string(g, inner);
        break;
      case 1:
        add_hash(g, inner);
        break;
      default:
        add_keys(g, inner);
        break;
    }
    for (Step& s : inner) {
      if (s.argv[0] == "SELECT" || s.argv[0] == "DEBUG") continue;
      s.conn = conn;
      out.push_back(std::move(s));
    }
    // Another connection may touch a watched key meanwhile.
    if (g.chance(20)) out.push_back(Step{(conn + 1) % 3, {"SET", g.key(), "x"}, Compare::kExact});
  }
  if (g.chance(10)) out.push_back(Step{conn, {"WATCH", g.key()}, Compare::kExact});
  out.push_back(Step{conn, {g.chance(85) ? "EXEC" : "DISCARD"}, Compare::kExact});
}

void add_pubsub(Gen& g, std::vector<Step>& out) {
  Step s;
  s.conn = 3;
  switch (g.below(7)) {
    case 0:
      s.argv = {"SUBSCRIBE", g.channel()};
      if (g.chance(40)) s.argv.push_back(g.channel());
      break;
    case 1:
      s.argv = {"UNSUBSCRIBE"};
      if (g.chance(60)) s.argv.push_back(g.channel());
      if (s.argv.size() == 1) s.compare = Compare::kUnsubscribeAll;
      break;
    case 2:
      s.argv = {"PSUBSCRIBE", g.chance(50) ? "news.*" : "ch?"};
      break;
    case 3:
      s.argv = {"PUNSUBSCRIBE"};
      if (g.chance(60)) s.argv.push_back(g.chance(50) ? "news.*" : "ch?");
      if (s.argv.size() == 1) s.compare = Compare::kUnsubscribeAll;
      break;
    case 4:
      s.argv = {"GET", g.key()};  // refused while subscribed
      break;
    default:
      s.conn = static_cast<int>(g.below(3));
      s.argv = {"PUBLISH", g.channel(), g.value()};
      break;
  }
  out.push_back(std::move(s));
}

std::string member(Gen& g) {
  static const std::vector<std::string> members = {"a", "b", "c", "1", "2", "10", "-3", "x y", ""};
  return g.pick(members);
}

std::string score(Gen& g) {
  static const std::vector<std::string> scores = {
      "0",   "1", "-1",  "2.5", "1e3",  "inf",  "-inf", "+inf",       "3",
      "nan", "x", "0.1", "(1",  "(2.5", "-0.0", "1e-5", "12345678901"};
  return g.pick(scores);
}

void add_list(Gen& g, std::vector<Step>& out) {
  Step s;
  const std::string k = g.key();
  switch (g.below(15)) {
    case 0:
    case 1:
      s.argv = {g.chance(50) ? "LPUSH" : "RPUSH", k, member(g)};
      if (g.chance(50)) s.argv.push_back(member(g));
      break;
    case 2:
      s.argv = {g.chance(50) ? "LPUSHX" : "RPUSHX", k, member(g)};
      break;
    case 3:
      s.argv = {g.chance(50) ? "LPOP" : "RPOP", k};
      if (g.chance(40)) s.argv.push_back(g.integer());
      break;
    case 4:
      s.argv = {"LRANGE", k, std::to_string(g.range(-4, 3)), std::to_string(g.range(-3, 5))};
      break;
    case 5:
      s.argv = {"LINDEX", k, std::to_string(g.range(-4, 4))};
      break;
    case 6:
      s.argv = {"LLEN", k};
      break;
    case 7:
      s.argv = {"LREM", k, std::to_string(g.range(-2, 2)), member(g)};
      break;
    case 8:
      s.argv = {"LSET", k, std::to_string(g.range(-3, 3)), member(g)};
      break;
    case 9:
      s.argv = {"LINSERT", k, g.chance(50) ? "BEFORE" : (g.chance(80) ? "AFTER" : "MIDDLE"),
                member(g), member(g)};
      break;
    case 10:
      s.argv = {"LPOS", k, member(g)};
      if (g.chance(40)) s.argv.insert(s.argv.end(), {"RANK", std::to_string(g.range(-2, 2))});
      if (g.chance(40)) s.argv.insert(s.argv.end(), {"COUNT", std::to_string(g.range(0, 3))});
      if (g.chance(20)) s.argv.insert(s.argv.end(), {"MAXLEN", std::to_string(g.range(0, 3))});
      break;
    case 11:
      s.argv = {"LMOVE", k, g.key(), g.chance(50) ? "LEFT" : "RIGHT",
                g.chance(50) ? "LEFT" : (g.chance(90) ? "RIGHT" : "UP")};
      break;
    case 12:
      s.argv = {"RPOPLPUSH", k, g.key()};
      break;
    case 13:
      s.argv = {"OBJECT", "ENCODING", k};
      break;
    default:
      s.argv = {"LPUSH", k};
      break;
  }
  out.push_back(std::move(s));
}

void add_set(Gen& g, std::vector<Step>& out) {
  Step s;
  const std::string k = g.key();
  switch (g.below(11)) {
    case 0:
    case 1:
      s.argv = {"SADD", k, member(g)};
      if (g.chance(60)) s.argv.push_back(member(g));
      if (g.chance(30)) s.argv.push_back(member(g));
      break;
    case 2:
      s.argv = {"SREM", k, member(g), member(g)};
      break;
    case 3:
      s.argv = {"SISMEMBER", k, member(g)};
      break;
    case 4:
      s.argv = {"SMISMEMBER", k, member(g), member(g)};
      break;
    case 5:
      s.argv = {"SMEMBERS", k};
      s.compare = Compare::kUnordered;
      break;
    case 6:
      s.argv = {"SCARD", k};
      break;
    case 7:
      // Redis's own random draws: compared by shape, then the key is dropped.
      s.argv = {g.chance(50) ? "SPOP" : "SRANDMEMBER", k};
      if (g.chance(60)) s.argv.push_back(std::to_string(g.range(-3, 4)));
      s.compare = Compare::kShape;
      break;
    case 8:
      s.argv = {"SSCAN", k, "0"};
      if (g.chance(40)) s.argv.insert(s.argv.end(), {"COUNT", "2"});
      s.compare = Compare::kScanAll;
      break;
    case 9:
      s.argv = {"OBJECT", "ENCODING", k};
      break;
    default:
      s.argv = {"SADD", k};
      break;
  }
  out.push_back(std::move(s));
}

void add_zset(Gen& g, std::vector<Step>& out) {
  Step s;
  const std::string k = g.key();
  switch (g.below(18)) {
    case 0:
    case 1:
    case 2: {
      s.argv = {"ZADD", k};
      static const std::vector<std::string> flags = {"NX", "XX", "GT", "LT", "CH", "INCR"};
      for (int i = 0; i < 2; ++i) {
        if (g.chance(20)) s.argv.push_back(g.pick(flags));
      }
      s.argv.insert(s.argv.end(), {score(g), member(g)});
      if (g.chance(40)) s.argv.insert(s.argv.end(), {score(g), member(g)});
      break;
    }
    case 3:
      s.argv = {"ZREM", k, member(g), member(g)};
      break;
    case 4:
      s.argv = {"ZSCORE", k, member(g)};
      break;
    case 5:
      s.argv = {"ZINCRBY", k, score(g), member(g)};
      break;
    case 6:
      s.argv = {"ZCARD", k};
      break;
    case 7:
      s.argv = {g.chance(50) ? "ZRANK" : "ZREVRANK", k, member(g)};
      break;
    case 8: {
      s.argv = {"ZRANGE", k};
      switch (g.below(3)) {
        case 0:
          s.argv.insert(s.argv.end(),
                        {std::to_string(g.range(-3, 2)), std::to_string(g.range(-2, 4))});
          break;
        case 1:
          s.argv.insert(s.argv.end(), {score(g), score(g), "BYSCORE"});
          break;
        default:
          s.argv.insert(s.argv.end(),
                        {g.pick(std::array<std::string, 5>{"-", "[a", "(b", "+", "c"}),
                         g.pick(std::array<std::string, 4>{"+", "[c", "(b", "-"}), "BYLEX"});
          break;
      }
      if (g.chance(30)) s.argv.push_back("REV");
      if (g.chance(30))
        s.argv.insert(s.argv.end(),
                      {"LIMIT", std::to_string(g.range(0, 2)), std::to_string(g.range(-1, 2))});
      if (g.chance(40)) s.argv.push_back("WITHSCORES");
      break;
    }
    case 9:
      s.argv = {g.chance(50) ? "ZRANGEBYSCORE" : "ZREVRANGEBYSCORE", k, score(g), score(g)};
      if (g.chance(40)) s.argv.push_back("WITHSCORES");
      break;
    case 10:
      s.argv = {"ZREMRANGEBYSCORE", k, score(g), score(g)};
      break;
    case 11:
      s.argv = {"ZREMRANGEBYRANK", k, std::to_string(g.range(-3, 1)),
                std::to_string(g.range(-2, 2))};
      break;
    case 12:
      s.argv = {"ZCOUNT", k, score(g), score(g)};
      break;
    case 13:
      s.argv = {g.chance(50) ? "ZPOPMIN" : "ZPOPMAX", k};
      if (g.chance(40)) s.argv.push_back(std::to_string(g.range(-1, 3)));
      break;
    case 14:
      s.argv = {"ZSCAN", k, "0"};
      s.compare = Compare::kScanAll;
      break;
    case 15:
      s.argv = {"OBJECT", "ENCODING", k};
      break;
    default:
      s.argv = {"ZADD", k, score(g)};
      break;
  }
  out.push_back(std::move(s));
}

// Keyspace, string and hash commands beyond the core set.
void add_more(Gen& g, std::vector<Step>& out) {
  Step s;
  const std::string k = g.key();
  switch (g.below(20)) {
    case 0:
      s.argv = {"KEYS", g.pick(std::array<std::string, 4>{"*", "k?", "{t}*", "k[0-2]"})};
      s.compare = Compare::kUnordered;
      break;
    case 1:
      s.argv = {"SCAN", "0"};
      if (g.chance(40)) s.argv.insert(s.argv.end(), {"MATCH", "k*"});
      if (g.chance(40)) s.argv.insert(s.argv.end(), {"COUNT", "3"});
      if (g.chance(30)) {
        s.argv.insert(
            s.argv.end(),
            {"TYPE", g.pick(std::array<std::string, 4>{"string", "hash", "zset", "list"})});
      }
      s.compare = Compare::kScanAll;
      break;
    case 2:
      s.argv = {g.chance(50) ? "RENAME" : "RENAMENX", k, g.key()};
      break;
    case 3:
      s.argv = {"COPY", k, g.key()};
      if (g.chance(40)) s.argv.push_back("REPLACE");
      break;
    case 4:
      s.argv = {"TOUCH", k, g.key()};
      break;
    case 5:
      s.argv = {"RANDOMKEY"};
      s.compare = Compare::kShape;
      break;
    case 6:
      s.argv = {"GETRANGE", k, std::to_string(g.range(-5, 3)), std::to_string(g.range(-3, 8))};
      break;
    case 7:
      s.argv = {"SETRANGE", k, std::to_string(g.range(-1, 12)), g.value()};
      break;
    case 8:
      s.argv = {
          "INCRBYFLOAT", k,
          g.pick(std::array<std::string, 7>{"1", "0.1", "-2.5", "1e3", "inf", "x", "5.0e-2"})};
      break;
    case 9:
      s.argv = {"GETEX", k};
      if (g.chance(50)) {
        if (g.chance(50)) {
          s.argv.insert(s.argv.end(), {"PX", g.millis()});
        } else {
          s.argv.push_back("PERSIST");
        }
      }
      break;
    case 10:
      s.argv = {"SETBIT", k, std::to_string(g.range(-1, 40)), g.chance(90) ? "1" : "2"};
      break;
    case 11:
      s.argv = {"GETBIT", k, std::to_string(g.range(0, 40))};
      break;
    case 12:
      s.argv = {"MSETNX", k, g.value(), g.key(), g.value()};
      break;
    case 13:
      s.argv = {"HSTRLEN", k, g.field()};
      break;
    case 14:
      s.argv = {"HINCRBYFLOAT", k, g.field(),
                g.pick(std::array<std::string, 5>{"1.5", "-1", "x", "1e2", "0"})};
      break;
    case 15:
      s.argv = {"HRANDFIELD", k};
      if (g.chance(60)) s.argv.push_back(std::to_string(g.range(-3, 3)));
      if (s.argv.size() == 3 && g.chance(50)) s.argv.push_back("WITHVALUES");
      s.compare = Compare::kShape;
      break;
    case 16:
      s.argv = {"HSCAN", k, "0"};
      s.compare = Compare::kScanAll;
      break;
    case 17:
      s.argv = {"OBJECT", "ENCODING", k};
      break;
    case 18:
      s.argv = {"OBJECT", g.chance(50) ? "FREQ" : "NOSUCH", k};
      break;
    default:
      s.argv = {"TYPE", k};
      break;
  }
  out.push_back(std::move(s));
}

// Issue 13's commands: set and sorted-set algebra, LTRIM, SORT, LCS,
// SUBSTR, bitmaps, geo, MOVE and SWAPDB.
void add_data(Gen& g, std::vector<Step>& out) {
  Step s;
  const std::string k = g.key();
  switch (g.below(22)) {
    case 0:
      s.argv = {g.pick(std::array<std::string, 3>{"SINTER", "SUNION", "SDIFF"}), k, g.key()};
      s.compare = Compare::kUnordered;
      break;
    case 1:
      s.argv = {g.pick(std::array<std::string, 3>{"SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"}),
                g.key(), k, g.key()};
      break;
    case 2:
      s.argv = {"SINTERCARD", "2", k, g.key()};
      if (g.chance(40)) s.argv.insert(s.argv.end(), {"LIMIT", std::to_string(g.range(-1, 2))});
      break;
    case 3:
      s.argv = {"SMOVE", k, g.key(), member(g)};
      break;
    case 4: {
      s.argv = {g.pick(std::array<std::string, 3>{"ZUNION", "ZINTER", "ZDIFF"}), "2", k, g.key()};
      if (s.argv[0] != "ZDIFF" && g.chance(40)) {
        s.argv.insert(s.argv.end(), {"WEIGHTS", score(g), score(g)});
      }
      if (s.argv[0] != "ZDIFF" && g.chance(40)) {
        s.argv.insert(s.argv.end(),
                      {"AGGREGATE", g.pick(std::array<std::string, 4>{"SUM", "MIN", "MAX", "X"})});
      }
      if (g.chance(50)) s.argv.push_back("WITHSCORES");
      break;
    }
    case 5:
      s.argv = {g.pick(std::array<std::string, 3>{"ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE"}),
                g.key(), "2", k, g.key()};
      break;
    case 6:
      s.argv = {"ZINTERCARD", "2", k, g.key()};
      break;
    case 7:
      s.argv = {"ZRANGESTORE", g.key(), k, std::to_string(g.range(-3, 1)),
                std::to_string(g.range(-2, 3))};
      break;
    case 8:
      s.argv = {g.chance(50) ? "ZLEXCOUNT" : "ZREMRANGEBYLEX", k,
                g.pick(std::array<std::string, 4>{"-", "[a", "(b", "+"}),
                g.pick(std::array<std::string, 4>{"+", "[c", "(b", "x"})};
      break;
    case 9:
      s.argv = {"ZRANDMEMBER", k};
      if (g.chance(60)) s.argv.push_back(std::to_string(g.range(-3, 4)));
      s.compare = Compare::kShape;
      break;
    case 10:
      s.argv = {"LTRIM", k, std::to_string(g.range(-4, 3)), std::to_string(g.range(-3, 5))};
      break;
    case 11:
      s.argv = {g.chance(80) ? "SORT" : "SORT_RO", k};
      if (g.chance(40)) s.argv.push_back("ALPHA");
      if (g.chance(30)) s.argv.push_back("DESC");
      if (g.chance(30))
        s.argv.insert(s.argv.end(),
                      {"LIMIT", std::to_string(g.range(-1, 2)), std::to_string(g.range(-1, 3))});
      if (g.chance(20)) s.argv.insert(s.argv.end(), {"GET", "#"});
      break;
    case 12:
      s.argv = {"LCS", k, g.key()};
      if (g.chance(50)) s.argv.push_back(g.chance(50) ? "LEN" : "IDX");
      break;
    case 13:
      s.argv = {"SUBSTR", k, std::to_string(g.range(-5, 3)), std::to_string(g.range(-3, 8))};
      break;
    case 14:
      s.argv = {"BITCOUNT", k};
      if (g.chance(60)) {
        s.argv.insert(s.argv.end(),
                      {std::to_string(g.range(-3, 3)), std::to_string(g.range(-3, 20))});
        if (g.chance(50)) s.argv.push_back(g.chance(50) ? "BIT" : "BYTE");
      }
      break;
    case 15:
      s.argv = {"BITPOS", k, g.chance(50) ? "0" : "1"};
      if (g.chance(60)) s.argv.push_back(std::to_string(g.range(-3, 3)));
      if (g.chance(40)) s.argv.push_back(std::to_string(g.range(-3, 20)));
      break;
    case 16:
      s.argv = {"BITOP", g.pick(std::array<std::string, 4>{"AND", "OR", "XOR", "NOT"}), g.key(), k};
      if (s.argv[1] != "NOT") s.argv.push_back(g.key());
      break;
    case 17:
      s.argv = {g.chance(80) ? "BITFIELD" : "BITFIELD_RO", k};
      if (g.chance(40)) {
        s.argv.insert(s.argv.end(),
                      {"OVERFLOW", g.pick(std::array<std::string, 3>{"WRAP", "SAT", "FAIL"})});
      }
      s.argv.insert(s.argv.end(),
                    {g.pick(std::array<std::string, 3>{"GET", "SET", "INCRBY"}),
                     g.pick(std::array<std::string, 5>{"u8", "i5", "i64", "u63", "u1"}),
                     g.chance(50) ? std::to_string(g.range(0, 20)) : "#1"});
      if (s.argv[s.argv.size() - 3] != "GET") s.argv.push_back(std::to_string(g.range(-300, 300)));
      break;
    case 18:
      s.argv = {"MOVE", k, std::to_string(g.range(0, 2))};
      break;
    case 19:
      s.argv = {"GEOADD", k, std::to_string(g.range(-181, 180)), std::to_string(g.range(-86, 85)),
                member(g)};
      break;
    case 20:
      s.argv = {g.pick(std::array<std::string, 4>{"GEOPOS", "GEODIST", "GEOHASH", "GEORADIUS"}), k};
      if (s.argv[0] == "GEORADIUS") {
        s.argv.insert(s.argv.end(), {std::to_string(g.range(-180, 180)),
                                     std::to_string(g.range(-85, 85)), "5000", "km"});
        if (g.chance(50)) s.argv.push_back("WITHDIST");
        if (g.chance(40)) s.argv.insert(s.argv.end(), {"COUNT", "2", "ANY"});
      } else {
        s.argv.insert(s.argv.end(), {member(g), member(g)});
      }
      break;
    default:
      // Not a real swap: one would bring db 1's volatile keys into db 0,
      // where RANDOMKEY's different draws on the two sides then expire
      // different keys.
      s.argv = {"SWAPDB", "0", g.pick(std::array<std::string, 3>{"0", "x", "99"})};
      break;
  }
  out.push_back(std::move(s));
}

// HyperLogLog: PFADD (a few elements, or a batch of numbered ones so the
// value crosses from sparse to dense), PFCOUNT of one key (the cached
// cardinality) or several, PFMERGE, PFDEBUG; the keys are the shared pool,
// so other commands read and damage HLL values too.
void add_hll(Gen& g, std::vector<Step>& out) {
  Step s;
  const std::string k = g.key();
  switch (g.below(6)) {
    case 0:
      s.argv = {"PFADD", k};
      for (uint64_t n = g.below(4); n > 0; --n) s.argv.push_back(member(g));
      break;
    case 1: {
      s.argv = {"PFADD", k};
      const int64_t base = g.range(0, 5000);
      for (int64_t i = 0; i < 200; ++i) s.argv.push_back("e" + std::to_string(base + i));
      break;
    }
    case 2:
      s.argv = {"PFCOUNT", k};
      if (g.chance(40)) s.argv.push_back(g.key());
      break;
    case 3:
      s.argv = {"PFMERGE", k, g.key()};
      if (g.chance(50)) s.argv.push_back(g.key());
      break;
    case 4:
      s.argv = {"PFDEBUG", g.pick(std::array<std::string, 4>{"ENCODING", "DECODE", "TODENSE", "X"}),
                k};
      break;
    default:
      s.argv = {g.chance(50) ? "GET" : "STRLEN", k};
      break;
  }
  out.push_back(std::move(s));
}

}  // namespace

std::vector<Step> generate(const GenOptions& options) {
  Gen g(base::mix64(options.seed ^ 0x6469666674657374ULL));  // "difftest"
  std::vector<std::string> families = options.families;
  if (families.empty()) {
    families = {"string", "string", "hash", "hash", "keys", "expire", "multi", "pubsub",
                "script", "script", "list", "set",  "zset", "more",   "data",  "hll"};
    for (const std::string& f : grammar::data_model_families()) families.push_back(f);
  }
  std::vector<Step> out;
  std::vector<std::string> loaded;
  while (out.size() < options.commands) {
    const std::string& f = g.pick(families);
    const size_t before = out.size();
    if (f == "string") {
      add_string(g, out);
    } else if (f == "hash") {
      add_hash(g, out);
    } else if (f == "keys") {
      add_keys(g, out);
    } else if (f == "expire") {
      add_expire(g, out);
    } else if (f == "multi") {
      add_multi(g, out);
    } else if (f == "pubsub") {
      add_pubsub(g, out);
    } else if (f == "script") {
      grammar::add_script(g, out, loaded);
    } else if (f == "list") {
      add_list(g, out);
    } else if (f == "set") {
      add_set(g, out);
    } else if (f == "zset") {
      add_zset(g, out);
    } else if (f == "more") {
      add_more(g, out);
    } else if (f == "data") {
      add_data(g, out);
    } else if (f == "hll") {
      add_hll(g, out);
    } else {
      grammar::add_data_model(f, g, out);
    }
    // Single-command steps go to any plain connection.
    if (out.size() == before + 1 && f != "pubsub" && f != "script" && f != "blocking" &&
        f != "function") {
      out.back().conn = static_cast<int>(g.below(3));
    }
  }
  out.resize(options.commands);
  return out;
}

}  // namespace redsim::difftest
