// Keyspace notifications against Redis 7.0: for a table of write commands
// covering every family, the same setup and command run on the fake (an
// in-process Server whose subscribing session has PSUBSCRIBE *) and on a
// live redis-server 7.0 (a subscriber connection), with
// notify-keyspace-events KEA on both; after every step the exact sequence of
// (channel, message) pushes must be the same (difftest::run compares the
// subscriber's pushes byte for byte behind a PING barrier, and the replies).
// Expiry by time ("expired", "evicted") is out of this table.
// Source of the events: Redis 7.0 src/t_*.c, db.c, expire.c, sort.c,
// bitops.c, geo.c, cluster.c (RESTORE) notifyKeyspaceEvent calls.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "sim/clock.h"
#include "sim/resp/codec.h"
#include "sim/server.h"
#include "tools/difftest/difftest.h"
#include "tools/difftest/raw_client.h"
#include "tools/testing/shared_redis_server.h"

namespace redsim::difftest {
namespace {

// The binary's real redis-server (SharedRedisServer).
Endpoint endpoint() {
  const auto& redis = testing::SharedRedisServer::server();
  return Endpoint{redis.host(), redis.port()};
}

using Argv = std::vector<std::string>;

struct Case {
  std::vector<Argv> setup;  // run (and compared) before the commands
  std::vector<Argv> commands;
};

// The subscriber is connection 3 (difftest::kConnections - 1); commands run on 0.
std::vector<Step> steps_of(const Case& c) {
  std::vector<Step> s;
  s.push_back({0, {"CONFIG", "SET", "notify-keyspace-events", "KEA"}});
  s.push_back({kConnections - 1, {"PSUBSCRIBE", "*"}});
  for (const Argv& a : c.setup) s.push_back({0, a});
  for (const Argv& a : c.commands) {
    // SPOP with a count of the whole set: Redis replies in its dict order.
    const bool whole = a[0] == "SPOP" && a.size() == 3;
    s.push_back({0, a, whole ? Compare::kUnordered : Compare::kExact});
  }
  return s;
}

// A DUMP payload of a small list, from the real server (the fake restores
// Redis's RDB encodings).
std::string list_payload() {
  const Endpoint ep = endpoint();
  RawClient c(ep.host, ep.port);
  c.call({"DEL", "dumped"});
  c.call({"RPUSH", "dumped", "a", "b"});
  std::string p = c.call({"DUMP", "dumped"}).str();
  c.call({"DEL", "dumped"});
  return p;
}

std::vector<Case> table() {
  const Argv s1 = {"SET", "s", "10"};
  const Argv l3 = {"RPUSH", "l", "a", "b", "c"};
  const Argv h2 = {"HSET", "h", "f", "1", "g", "2"};
  const Argv st2 = {"SADD", "t", "a", "b"};
  const Argv z3 = {"ZADD", "z", "1", "a", "2", "b", "3", "c"};
  const Argv x1 = {"XADD", "x", "1-1", "f", "v"};
  return {
      // strings
      {{}, {{"SET", "s", "v"}, {"SET", "s", "v", "EX", "100"}, {"SET", "s", "v", "KEEPTTL"}}},
      {{}, {{"SET", "s", "v", "NX"}, {"SET", "s", "v", "NX"}, {"SET", "s", "w", "XX", "GET"}}},
      {{}, {{"SETNX", "s", "v"}, {"SETNX", "s", "v"}}},
      {{}, {{"SETEX", "s", "100", "v"}, {"PSETEX", "s", "100000", "v"}}},
      {{}, {{"GETSET", "s", "v"}, {"MSET", "a", "1", "b", "2"}, {"MSETNX", "c", "1", "d", "2"}}},
      {{}, {{"APPEND", "s", "ab"}, {"APPEND", "s", "cd"}, {"SETRANGE", "s", "1", "X"}}},
      {{}, {{"SETRANGE", "n", "2", "X"}, {"SETRANGE", "n", "0", ""}}},
      {{s1},
       {{"INCR", "s"},
        {"INCRBY", "s", "5"},
        {"DECR", "s"},
        {"DECRBY", "s", "2"},
        {"INCRBYFLOAT", "s", "1.5"}}},
      {{s1}, {{"GETDEL", "s"}, {"GETDEL", "s"}}},
      {{s1},
       {{"GETEX", "s", "EX", "100"},
        {"GETEX", "s", "PERSIST"},
        {"GETEX", "s"},
        {"GETEX", "s", "PX", "-1"}}},
      // bitops
      {{}, {{"SETBIT", "b", "7", "1"}, {"SETBIT", "b", "7", "1"}}},
      {{{"SET", "a", "x"}, {"SET", "b", "y"}},
       {{"BITOP", "AND", "d", "a", "b"}, {"BITOP", "OR", "d", "nope", "nope2"}}},
      {{},
       {{"BITFIELD", "bf", "SET", "u8", "0", "5", "INCRBY", "u8", "0", "1"},
        {"BITFIELD", "bf", "GET", "u8", "0"}}},
      // lists
      {{},
       {{"LPUSH", "l", "a"},
        {"RPUSH", "l", "b"},
        {"LPUSHX", "l", "c"},
        {"RPUSHX", "l", "d"},
        {"LPUSHX", "n", "c"}}},
      {{l3},
       {{"LINSERT", "l", "BEFORE", "b", "x"},
        {"LSET", "l", "0", "y"},
        {"LREM", "l", "0", "b"},
        {"LTRIM", "l", "0", "0"},
        {"LTRIM", "l", "1", "0"}}},
      {{l3}, {{"LPOP", "l"}, {"RPOP", "l", "5"}}},
      {{l3}, {{"LMPOP", "1", "l", "LEFT", "COUNT", "2"}, {"LMPOP", "1", "l", "RIGHT"}}},
      {{l3},
       {{"RPOPLPUSH", "l", "m"},
        {"LMOVE", "l", "m", "LEFT", "RIGHT"},
        {"LMOVE", "l", "l2", "RIGHT", "LEFT"}}},
      {{l3},
       {{"BLMOVE", "l", "m", "LEFT", "LEFT", "0"},
        {"BRPOPLPUSH", "l", "m", "0"},
        {"BLPOP", "l", "0"}}},
      {{l3}, {{"LMOVE", "l", "l", "LEFT", "RIGHT"}}},
      // hashes
      {{},
       {{"HSET", "h", "f", "1"},
        {"HMSET", "h", "g", "2"},
        {"HSETNX", "h", "f", "3"},
        {"HSETNX", "h", "k", "3"}}},
      {{h2},
       {{"HINCRBY", "h", "f", "2"},
        {"HINCRBYFLOAT", "h", "g", "0.5"},
        {"HDEL", "h", "f", "x"},
        {"HDEL", "h", "g"}}},
      // sets
      {{}, {{"SADD", "t", "a"}, {"SADD", "t", "a"}, {"SREM", "t", "x"}, {"SREM", "t", "a"}}},
      {{{"SADD", "t", "a"}}, {{"SPOP", "t"}, {"SPOP", "t"}}},
      {{{"SADD", "t", "a"}}, {{"SPOP", "t", "5"}}},
      {{{"SADD", "t", "a", "b", "c"}}, {{"SPOP", "t", "3"}}},
      {{st2}, {{"SMOVE", "t", "u", "a"}, {"SMOVE", "t", "u", "b"}, {"SMOVE", "u", "u", "a"}}},
      {{st2, {"SADD", "u", "b", "c"}},
       {{"SINTERSTORE", "d", "t", "u"},
        {"SUNIONSTORE", "d", "t", "u"},
        {"SDIFFSTORE", "d", "t", "u"},
        {"SINTERSTORE", "d", "t", "nope"},
        {"SINTERSTORE", "d", "t", "nope"}}},
      // sorted sets
      {{},
       {{"ZADD", "z", "1", "a"},
        {"ZADD", "z", "INCR", "1", "a"},
        {"ZINCRBY", "z", "1", "a"},
        {"ZADD", "z", "1", "a"},
        {"ZREM", "z", "a"}}},
      {{z3}, {{"ZPOPMIN", "z"}, {"ZPOPMAX", "z", "5"}, {"ZPOPMIN", "z"}}},
      {{z3},
       {{"ZREMRANGEBYSCORE", "z", "0", "1"},
        {"ZREMRANGEBYSCORE", "z", "7", "9"},
        {"ZREMRANGEBYSCORE", "z", "-inf", "inf"}}},
      {{z3},
       {{"ZREMRANGEBYRANK", "z", "0", "0"},
        {"ZREMRANGEBYRANK", "z", "5", "9"},
        {"ZREMRANGEBYRANK", "z", "0", "-1"}}},
      {{{"ZADD", "z", "0", "a", "0", "b"}},
       {{"ZREMRANGEBYLEX", "z", "[a", "[a"}, {"ZREMRANGEBYLEX", "z", "-", "+"}}},
      {{z3},
       {{"ZMPOP", "1", "z", "MIN", "COUNT", "1"},
        {"BZPOPMAX", "z", "0"},
        {"BZMPOP", "0", "1", "z", "MIN"}}},
      {{z3}, {{"BZPOPMIN", "z", "0"}, {"BZMPOP", "0", "1", "z", "MAX", "COUNT", "9"}}},
      {{z3, {"ZADD", "w", "5", "b"}},
       {{"ZUNIONSTORE", "d", "2", "z", "w"},
        {"ZINTERSTORE", "d", "2", "z", "w"},
        {"ZDIFFSTORE", "d", "2", "z", "w"},
        {"ZINTERSTORE", "d", "2", "z", "nope"},
        {"ZINTERSTORE", "d", "2", "z", "nope"},
        {"ZRANGESTORE", "d", "z", "0", "1"},
        {"ZRANGESTORE", "d", "z", "5", "9"}}},
      // geo
      {{},
       {{"GEOADD", "g", "13.361389", "38.115556", "a", "15.087269", "37.502669", "b"},
        {"GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ASC"},
        {"GEORADIUS", "g", "15", "37", "200", "km", "STORE", "e"},
        {"GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"}}},
      // streams
      {{},
       {x1,
        // an explicit id: a "*" id is the server's clock, which differs by a
        // millisecond between the two servers now and then (not an event matter)
        {"XADD", "x", "MAXLEN", "1", "1-2", "f", "v"},
        {"XADD", "y", "NOMKSTREAM", "*", "f", "v"}}},
      {{x1, {"XADD", "x", "1-2", "f", "v"}, {"XADD", "x", "1-3", "f", "v"}},
       {{"XDEL", "x", "1-1", "9-9"},
        {"XTRIM", "x", "MAXLEN", "1"},
        {"XTRIM", "x", "MAXLEN", "5"},
        {"XSETID", "x", "5-5"}}},
      {{x1},
       {{"XGROUP", "CREATE", "x", "g", "0"},
        {"XGROUP", "CREATE", "n", "g", "$", "MKSTREAM"},
        {"XGROUP", "SETID", "x", "g", "0"},
        {"XGROUP", "CREATECONSUMER", "x", "g", "c"},
        {"XGROUP", "CREATECONSUMER", "x", "g", "c"},
        {"XREADGROUP", "GROUP", "g", "c2", "STREAMS", "x", ">"},
        {"XCLAIM", "x", "g", "c3", "0", "1-1"},
        {"XAUTOCLAIM", "x", "g", "c4", "0", "0"},
        {"XACK", "x", "g", "1-1"},
        {"XGROUP", "DELCONSUMER", "x", "g", "c"},
        {"XGROUP", "DESTROY", "x", "g"},
        {"XGROUP", "DESTROY", "x", "g"}}},
      // SORT STORE
      {{{"RPUSH", "l", "3", "1", "2"}},
       {{"SORT", "l", "STORE", "d"},
        {"SORT", "nope", "STORE", "d"},
        {"SORT", "nope", "STORE", "d"}}},
      // keyspace
      {{s1, l3}, {{"DEL", "s", "nope", "l"}, {"UNLINK", "s"}}},
      {{s1, l3}, {{"UNLINK", "s", "l"}}},
      {{s1},
       {{"COPY", "s", "c"},
        {"COPY", "s", "c"},
        {"COPY", "s", "c", "REPLACE"},
        {"COPY", "s", "c", "DB", "1"}}},
      {{s1, {"SET", "o", "1"}},
       {{"RENAME", "s", "r"},
        {"RENAMENX", "r", "o"},
        {"RENAMENX", "r", "q"},
        {"RENAME", "q", "q"},
        {"RENAME", "q", "o"}}},
      {{s1},
       {{"MOVE", "s", "1"},
        {"MOVE", "s", "1"},
        {"SELECT", "1"},
        {"MOVE", "s", "0"},
        {"SELECT", "0"}}},
      {{s1, {"SELECT", "1"}, {"SET", "s1", "x"}, {"SELECT", "0"}},
       {{"SWAPDB", "0", "1"}, {"SWAPDB", "1", "1"}}},
      {{s1},
       {{"EXPIRE", "s", "100"},
        {"PEXPIRE", "s", "100000", "NX"},
        {"EXPIREAT", "s", "99999999999"},
        {"PEXPIREAT", "s", "99999999999000", "GT"},
        {"PERSIST", "s"},
        {"PERSIST", "s"},
        {"EXPIRE", "s", "-1"},
        {"EXPIRE", "s", "100"}}},
      {{s1, {"SET", "p", "1"}, {"SET", "q", "1"}},
       {{"PEXPIRE", "s", "0"}, {"EXPIREAT", "p", "1"}, {"PEXPIREAT", "q", "1"}}},
      {{},
       {{"RESTORE", "r", "0", list_payload()},
        {"RESTORE", "r", "0", list_payload(), "REPLACE"},
        {"RESTORE", "e", "0", list_payload(), "ABSTTL", "1"},
        {"RESTORE", "f", "99999999999999", list_payload(), "ABSTTL"}}},
      // more edges: no-op writes, overwrites, other types, empty results
      {{s1, {"SET", "s", "v", "GET"}},
       {{"SET", "s", "v", "EXAT", "1"},
        {"SET", "n", "v", "PX", "100000", "GET"},
        {"SET", "l2", "v", "XX"},
        {"SETNX", "n", "w"},
        {"MSETNX", "n", "1", "fresh", "2"},
        {"INCR", "fresh"},
        {"DECRBY", "fresh", "3"},
        {"INCRBYFLOAT", "fresh2", "2"},
        {"APPEND", "fresh3", ""},
        {"SETRANGE", "n", "10", ""},
        {"GETDEL", "nope"},
        {"GETEX", "n", "EXAT", "1"},
        {"GETEX", "nope", "EX", "5"}}},
      {{l3, s1}, {{"SET", "l", "v"}, {"SET", "s", "v", "KEEPTTL"}, {"SETEX", "s", "0", "v"}}},
      {{{"SETBIT", "b", "3", "1"}},
       {{"SETBIT", "b", "5", "0"},
        {"SETBIT", "b", "100", "0"},
        {"BITOP", "NOT", "c", "b"},
        {"BITOP", "XOR", "c", "nope"},
        {"BITFIELD", "b", "OVERFLOW", "FAIL", "INCRBY", "u2", "0", "9"},
        {"BITFIELD", "b", "GET", "u2", "0", "SET", "u2", "0", "0"}}},
      {{l3},
       {{"LPOP", "l", "0"},
        {"LPOP", "nope"},
        {"LSET", "l", "9", "x"},
        {"LREM", "l", "0", "nope"},
        {"LTRIM", "l", "0", "-1"},
        {"LINSERT", "l", "AFTER", "nope", "x"},
        {"LMPOP", "2", "nope", "l", "RIGHT", "COUNT", "9"},
        {"RPOPLPUSH", "nope", "l"}}},
      {{{"RPUSH", "l", "a"}, {"RPUSH", "m", "b"}},
       {{"LMOVE", "l", "m", "LEFT", "LEFT"}, {"BLMPOP", "0", "1", "m", "LEFT", "COUNT", "5"}}},
      {{h2},
       {{"HSET", "h", "f", "1"},
        {"HINCRBY", "new", "f", "1"},
        {"HINCRBYFLOAT", "new2", "f", "1"},
        {"HDEL", "h", "f", "g", "x"},
        {"HDEL", "nope", "f"},
        {"HSETNX", "h3", "f", "v"}}},
      {{st2, {"SADD", "u", "a"}},
       {{"SMOVE", "t", "u", "a"},
        {"SMOVE", "t", "u", "x"},
        {"SMOVE", "t", "nope", "b"},
        {"SPOP", "nope"},
        {"SPOP", "nope", "2"},
        {"SINTERSTORE", "u", "u", "u"},
        {"SDIFFSTORE", "u", "u", "u"},
        {"SUNIONSTORE", "d", "nope"}}},
      {{z3},
       {{"ZADD", "z", "GT", "0", "c"},
        {"ZADD", "z", "XX", "5", "nope"},
        {"ZADD", "z", "NX", "INCR", "5", "a"},
        {"ZADD", "z", "CH", "9", "a", "1", "b"},
        {"ZINCRBY", "fresh", "2", "m"},
        {"ZREM", "fresh", "m"},
        {"ZPOPMIN", "z", "0"},
        {"ZPOPMAX", "nope"},
        {"ZREMRANGEBYLEX", "z", "[x", "[y"},
        {"ZMPOP", "2", "nope", "z", "MAX", "COUNT", "9"}}},
      {{z3, {"ZADD", "w", "5", "b"}},
       {{"ZUNIONSTORE", "z", "2", "z", "w", "WEIGHTS", "2", "3", "AGGREGATE", "MAX"},
        {"ZINTERSTORE", "w", "1", "w"},
        {"ZRANGESTORE", "d", "z", "(1", "+inf", "BYSCORE", "LIMIT", "0", "1"},
        {"ZRANGESTORE", "d", "z", "[x", "[y", "BYLEX"},
        {"ZDIFFSTORE", "w", "1", "nope"}}},
      {{{"GEOADD", "g", "13.361389", "38.115556", "a", "15.087269", "37.502669", "b"}},
       {{"GEOADD", "g", "13.361389", "38.115556", "a"},
        {"GEOADD", "g", "NX", "1", "1", "a"},
        {"GEOADD", "g", "XX", "CH", "1", "1", "a"},
        {"GEORADIUSBYMEMBER", "g", "a", "500", "km", "STORE", "d"},
        {"GEORADIUS", "g", "15", "37", "500", "km", "STOREDIST", "e"},
        {"GEOSEARCHSTORE", "e", "g", "FROMMEMBER", "b", "BYBOX", "1", "1", "km", "STOREDIST"},
        {"GEORADIUSBYMEMBER", "g", "a", "1", "m", "STORE", "d"}}},
      {{x1, {"XADD", "x", "1-2", "f", "v"}},
       {{"XADD", "x", "MINID", "1-2", "2-1", "f", "v"},
        {"XTRIM", "x", "MINID", "2-0"},
        {"XDEL", "x", "9-9"},
        {"XGROUP", "CREATE", "x", "g", "$"},
        {"XREADGROUP", "GROUP", "g", "c", "NOACK", "STREAMS", "x", "0"},
        {"XADD", "x", "3-1", "f", "v"},
        {"XREADGROUP", "GROUP", "g", "c", "STREAMS", "x", ">"},
        {"XCLAIM", "x", "g", "d", "0", "3-1", "JUSTID"},
        {"XAUTOCLAIM", "x", "g", "e", "0", "0", "JUSTID"},
        {"XGROUP", "DELCONSUMER", "x", "g", "nope"},
        {"XSETID", "x", "9-9", "ENTRIESADDED", "9", "MAXDELETEDID", "0-1"},
        {"XADD", "nope", "NOMKSTREAM", "*", "f", "v"}}},
      {{{"RPUSH", "l", "3", "1", "2"}, {"SET", "w_1", "5"}},
       {{"SORT", "l", "BY", "nosort", "GET", "#", "STORE", "d"},
        {"SORT", "l", "BY", "w_*", "DESC", "LIMIT", "0", "2", "STORE", "l"},
        {"SORT_RO", "l"}}},
      {{s1, {"SET", "o", "1"}, {"EXPIRE", "o", "100"}},
       {{"DEL", "nope"},
        {"UNLINK", "nope", "o2"},
        {"EXPIRE", "nope", "100"},
        {"EXPIRE", "s", "100", "XX"},
        {"EXPIRE", "o", "10", "GT"},
        {"EXPIRE", "o", "1000", "LT"},
        {"PERSIST", "nope"},
        {"RENAME", "o", "s"},
        {"COPY", "s", "o", "DB", "1", "REPLACE"},
        {"COPY", "s", "o", "DB", "1", "REPLACE"},
        {"COPY", "nope", "o"},
        {"MOVE", "nope", "1"},
        {"TOUCH", "s"},
        {"RESTORE", "s", "0", list_payload()}}},
      {{s1, {"SELECT", "1"}, {"SET", "a", "1"}}, {{"FLUSHDB"}, {"SELECT", "0"}, {"FLUSHALL"}}},
      {{},
       {{"EVAL",
         "redis.call('SET', KEYS[1], 'v'); redis.call('LPUSH', KEYS[2], 'x'); "
         "return redis.call('DEL', KEYS[1], KEYS[2])",
         "2", "a", "l"}}},
      // another db, and class filters (K/E and the type letters)
      {{{"SELECT", "1"}},
       {{"LPUSH", "l", "x"}, {"SET", "s", "1"}, {"RENAME", "s", "r"}, {"SELECT", "0"}}},
      {{},
       {{"CONFIG", "SET", "notify-keyspace-events", "Elz"},
        {"SET", "a", "1"},
        {"LPUSH", "l", "x"},
        {"ZADD", "z", "1", "a"},
        {"DEL", "l"},
        {"CONFIG", "SET", "notify-keyspace-events", "Kg$"},
        {"SET", "a", "2"},
        {"INCR", "n"},
        {"LPUSH", "l", "x"},
        {"EXPIRE", "a", "100"},
        {"CONFIG", "SET", "notify-keyspace-events", "Kh"},
        {"HSET", "h", "f", "v"},
        {"HDEL", "h", "f"}}},
      // HyperLogLog
      {{},
       {{"PFADD", "p", "a"},
        {"PFADD", "p", "a"},
        {"PFADD", "q"},
        {"PFMERGE", "d", "p", "q"},
        {"PFCOUNT", "p", "d"}}},
      // transactions: the events of the queued commands, in order
      {{}, {{"MULTI"}, {"SET", "a", "1"}, {"LPUSH", "l", "x"}, {"DEL", "a"}, {"EXEC"}}},
  };
}

TEST(KeyspaceEvents, SameEventsAsRedis) {
  const std::vector<Case> cases = table();
  const Endpoint ep = endpoint();
  size_t differing = 0, commands = 0;
  std::string report;
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::vector<Step> steps = steps_of(cases[i]);
    commands += cases[i].commands.size();
    Result r;
    try {
      r = run(steps, ep);
    } catch (const RawClientError& e) {
      ADD_FAILURE() << "case " << i << ": " << e.what();
      continue;
    }
    if (r.mismatch) {
      ++differing;
      report += "case " + std::to_string(i) + ":\n" + describe(steps, r) + "\n";
    }
  }
  std::cout << cases.size() << " cases, " << commands << " commands, " << differing
            << " differing\n";
  EXPECT_EQ(differing, 0u) << report;
  RawClient(ep.host, ep.port).call({"CONFIG", "SET", "notify-keyspace-events", ""});
}

// A blocked client served by another client's write: the writer's events,
// then the pop's (and "del", and for BLMOVE the push on the destination),
// as Redis 7.0 serves blocked clients after the command that made the key
// ready (blocked.c handleClientsBlockedOnKeys). run() cannot block, so
// these go by hand: on the real server the blocking command is sent and the
// write waits until INFO shows the client blocked; on the fake, the blocked
// session is served inside the write (Server::take_unblocked()).
struct BlockedCase {
  Argv setup;
  Argv blocking;
  std::vector<Argv> writes;
};

std::string real_events(RawClient& sub) {
  std::string bytes;
  sub.send({"PING", "barrier"});
  for (;;) {
    const resp::Reply r = sub.read();
    if (r.is_array() && r.elements().size() == 2 && r.elements()[0].is_bulk() &&
        r.elements()[0].str() == "pong") {
      break;
    }
    bytes += resp::encode(r);
  }
  return bytes;
}

void wait_blocked(RawClient& admin) {
  for (int i = 0; i < 1000; ++i) {
    if (admin.call({"INFO", "clients"}).str().find("blocked_clients:1") != std::string::npos) {
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  FAIL() << "the real client never blocked";
}

TEST(KeyspaceEvents, BlockedClientsServedLikeRedis) {
  const std::vector<BlockedCase> cases = {
      {{"DEL", "l"}, {"BLPOP", "l", "0"}, {{"RPUSH", "l", "a"}}},
      {{"DEL", "l"}, {"BRPOP", "l", "0"}, {{"RPUSH", "l", "a", "b"}}},
      {{"DEL", "l"}, {"BLMOVE", "l", "m", "LEFT", "RIGHT", "0"}, {{"LPUSH", "l", "a"}}},
      {{"DEL", "l"}, {"BRPOPLPUSH", "l", "l", "0"}, {{"LPUSH", "l", "a"}}},
      {{"DEL", "l"}, {"BLMPOP", "0", "1", "l", "LEFT", "COUNT", "3"}, {{"RPUSH", "l", "a", "b"}}},
      {{"DEL", "z"}, {"BZPOPMIN", "z", "0"}, {{"ZADD", "z", "1", "a"}}},
      {{"DEL", "z"},
       {"BZMPOP", "0", "1", "z", "MAX", "COUNT", "1"},
       {{"ZADD", "z", "1", "a", "2", "b"}}},
      {{"DEL", "l"},
       {"BLPOP", "l", "0"},
       {{"MULTI"}, {"RPUSH", "l", "a"}, {"DEL", "l"}, {"RPUSH", "l", "b"}, {"EXEC"}}},
      {{"DEL", "x"},
       {"XREAD", "BLOCK", "0", "STREAMS", "x", "$"},
       {{"XADD", "x", "1-1", "f", "v"}}},
      {{"XGROUP", "CREATE", "x", "g", "$", "MKSTREAM"},
       {"XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "x", ">"},
       {{"XADD", "x", "9-1", "f", "v"}}},
  };
  const Endpoint ep = endpoint();
  size_t differing = 0;
  std::string report;
  for (size_t i = 0; i < cases.size(); ++i) {
    const BlockedCase& c = cases[i];
    // The real server.
    RawClient admin(ep.host, ep.port), blocked(ep.host, ep.port), writer(ep.host, ep.port),
        sub(ep.host, ep.port);
    admin.call({"FLUSHALL"});
    admin.call({"CONFIG", "SET", "notify-keyspace-events", "KEA"});
    writer.call(c.setup);
    sub.call({"PSUBSCRIBE", "*"});
    blocked.send(c.blocking);
    wait_blocked(admin);
    std::string real_replies;
    for (const Argv& w : c.writes) real_replies += resp::encode(writer.call(w));
    real_replies += resp::encode(blocked.read());
    const std::string real = real_events(sub);
    // The fake.
    sim::ManualClock clock;
    sim::Server server(clock);
    auto fb = server.connect(), fw = server.connect(), fs = server.connect();
    server.execute(*fw, {"CONFIG", "SET", "notify-keyspace-events", "KEA"});
    server.execute(*fw, c.setup);
    server.execute(*fs, {"PSUBSCRIBE", "*"});
    fs->take_pushes();
    server.execute(*fb, c.blocking);
    EXPECT_TRUE(fb->blocked()) << i;
    std::string fake_replies;
    for (const Argv& w : c.writes) fake_replies += resp::encode(server.execute(*fw, w));
    for (auto& u : server.take_unblocked()) fake_replies += resp::encode(u.reply);
    std::string fake;
    for (const resp::Reply& p : fs->take_pushes()) fake += resp::encode(p);
    // XREADGROUP/XREAD replies carry ids only; compare them too.
    if (real != fake || real_replies != fake_replies) {
      ++differing;
      report += "case " + std::to_string(i) + " (" + c.blocking[0] +
                "):\n  redis-server: " + printable(real_replies) + " / " + printable(real) +
                "\n  redsim:       " + printable(fake_replies) + " / " + printable(fake) + "\n";
    }
  }
  std::cout << cases.size() << " blocked cases, " << differing << " differing\n";
  EXPECT_EQ(differing, 0u) << report;
  RawClient(ep.host, ep.port).call({"CONFIG", "SET", "notify-keyspace-events", ""});
}

// The comparison can fail: a case where the fake is told to publish nothing
// (notify-keyspace-events "" on the fake only is not possible through run(),
// so the real side gets an extra PUBLISH on a channel the subscriber sees).
TEST(KeyspaceEvents, APlantedEventIsFound) {
  const Endpoint ep = endpoint();
  std::vector<Step> steps = steps_of({{}, {{"SET", "a", "1"}}});
  RunOptions tamper;
  bool planted = false;
  tamper.tamper = [&](const Argv& argv, resp::Reply&) {
    if (argv[0] == "SET" && !planted) {
      planted = true;
      RawClient(ep.host, ep.port).call({"PUBLISH", "__keyspace@0__:a", "set"});
    }
  };
  const Result r = run(steps, ep, tamper);
  ASSERT_TRUE(r.mismatch);
  EXPECT_EQ(r.mismatch->what, "pushes on connection 3");
  RawClient(ep.host, ep.port).call({"CONFIG", "SET", "notify-keyspace-events", ""});
}

}  // namespace
}  // namespace redsim::difftest
