// PubSub: the channel and pattern subscriptions of one fake Redis server and
// PUBLISH's delivery. Each Session also lists its own subscriptions, in
// subscription order (Session::channels_, Session::patterns_).
//
//   server.execute(a, {"SUBSCRIBE", "ch"});        // ["subscribe", "ch", 1]
//   server.execute(b, {"PUBLISH", "ch", "hi"});    // (integer) 1
//   a.take_pushes();                               // [["message", "ch", "hi"]]
//
// Delivery order is deterministic: first the channel's subscribers in the
// order they subscribed, then every (pattern, session) subscription whose
// pattern matches, in the order those subscriptions were made. (Real Redis
// walks the pattern dict in hash order; the receiver count is the same.)
// Source: Redis 7.0 "Pub/Sub" docs and src/pubsub.c behaviour
// (pubsubCommand, ssubscribeCommand, spublishCommand).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/keyspace.h"  // StringHash

namespace redsim::sim {

class Session;

// Keyspace notification classes (notify-keyspace-events), as Redis 7.0's
// NOTIFY_* bits and their letters: K keyspace, E keyevent, g generic, $
// string, l list, s set, h hash, z zset, x expired, e evicted, t stream,
// m key miss, d module, n new key; A is g$lshzxetd. Source: Redis docs
// "Redis keyspace notifications" and src/notify.c.
// Events published (notify_keyspace_event, sim/internal.h), with Redis's
// names: SET/SETNX/SETEX/PSETEX "set" (+ "expire" with a deadline), DEL "del", EXPIRE family
// "expire" (or "del" for a past deadline), LPUSH/RPUSH(X) "lpush"/"rpush", LPOP/RPOP "lpop"/"rpop",
// SADD "sadd", SREM "srem", ZADD "zadd"/"zincr", ZINCRBY "zincr", ZREM "zrem", HSET/HMSET "hset",
// HINCRBY "hincrby", and "del" when a pop or removal empties the key; "expired" (class x) when
// lazy or active expiry deletes a key (deleteExpiredKeyAndPropagate, in the key's db, outside
// any command for the active cycle), "new" (class n) when a key is created (dbAdd). Every other
// write command publishes Redis 7.0's events in Redis's order
// (tools/difftest/keyspace_events_test.cc compares a table of them with a live redis-server).
// "evicted" (class e) when a maxmemory policy other than noeviction deletes a key
// (Server::evicted_keys). Not yet: "keymiss".
namespace notify {
inline constexpr int kKeyspace = 1 << 0;
inline constexpr int kKeyevent = 1 << 1;
inline constexpr int kGeneric = 1 << 2;
inline constexpr int kString = 1 << 3;
inline constexpr int kList = 1 << 4;
inline constexpr int kSet = 1 << 5;
inline constexpr int kHash = 1 << 6;
inline constexpr int kZset = 1 << 7;
inline constexpr int kExpired = 1 << 8;
inline constexpr int kEvicted = 1 << 9;
inline constexpr int kStream = 1 << 10;
inline constexpr int kKeyMiss = 1 << 11;
inline constexpr int kModule = 1 << 12;
inline constexpr int kNew = 1 << 13;
inline constexpr int kAll =
    kGeneric | kString | kList | kSet | kHash | kZset | kExpired | kEvicted | kStream | kModule;
// The flags of a CONFIG SET value; -1 for a character outside
// "Ag$lshzxeKEtmdn".
int parse_flags(std::string_view classes);
// CONFIG GET's spelling: "A" when every class of kAll is set (then 'n' is
// not shown, as in Redis), else the letters in g$lshzxetdn order; then K,
// E, m.
std::string flags_string(int flags);
}  // namespace notify

class PubSub {
 public:
  // Each returns true when the subscription set changed (a new subscription,
  // or one that existed and was removed).
  bool subscribe(Session& session, std::string_view channel);
  bool unsubscribe(Session& session, std::string_view channel);
  bool psubscribe(Session& session, std::string_view pattern);
  bool punsubscribe(Session& session, std::string_view pattern);
  // Shard channels (SSUBSCRIBE/SUNSUBSCRIBE): a namespace of their own,
  // reached only by SPUBLISH, never by patterns (Redis 7.0 has one shard).
  bool ssubscribe(Session& session, std::string_view channel);
  bool sunsubscribe(Session& session, std::string_view channel);
  // Drops every subscription of `session` without replying (disconnect, RESET).
  void remove_session(Session& session);

  // PUBLISH: pushes ["message", channel, message] to each channel subscriber
  // and ["pmessage", pattern, channel, message] to each matching pattern
  // subscription. Returns the number of deliveries (a session matching two
  // patterns counts twice, as in Redis).
  int64_t publish(std::string_view channel, std::string_view message);
  // SPUBLISH: pushes ["smessage", channel, message] to each shard channel
  // subscriber; returns their number.
  int64_t spublish(std::string_view channel, std::string_view message);

  // PUBSUB CHANNELS/SHARDCHANNELS: the channels with a subscriber whose name
  // matches the glob `pattern` (nullptr: all), sorted (Redis: hash order).
  std::vector<std::string> channels(const std::string* pattern, bool shard) const;
  // PUBSUB NUMSUB/SHARDNUMSUB: subscribers of one channel, patterns excluded.
  int64_t subscribers(std::string_view channel, bool shard) const;
  // PUBSUB NUMPAT: distinct patterns with a subscriber (Redis 7.0 counts
  // dictSize(server.pubsub_patterns), not pattern subscriptions).
  size_t distinct_pattern_count() const;

  // Channels with at least one subscriber; pattern subscriptions in total.
  size_t channel_count() const { return channels_.size(); }
  size_t pattern_count() const { return patterns_.size(); }

 private:
  std::unordered_map<std::string, std::vector<Session*>, StringHash, std::equal_to<>> channels_;
  std::vector<std::pair<std::string, Session*>> patterns_;
  std::unordered_map<std::string, std::vector<Session*>, StringHash, std::equal_to<>>
      shard_channels_;
};

}  // namespace redsim::sim
