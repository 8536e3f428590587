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
// Source: Redis 7.0 "Pub/Sub" docs and src/pubsub.c behaviour.
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

class PubSub {
 public:
  // Each returns true when the subscription set changed (a new subscription,
  // or one that existed and was removed).
  bool subscribe(Session& session, std::string_view channel);
  bool unsubscribe(Session& session, std::string_view channel);
  bool psubscribe(Session& session, std::string_view pattern);
  bool punsubscribe(Session& session, std::string_view pattern);
  // Drops every subscription of `session` without replying (disconnect, RESET).
  void remove_session(Session& session);

  // PUBLISH: pushes ["message", channel, message] to each channel subscriber
  // and ["pmessage", pattern, channel, message] to each matching pattern
  // subscription. Returns the number of deliveries (a session matching two
  // patterns counts twice, as in Redis).
  int64_t publish(std::string_view channel, std::string_view message);

  // Channels with at least one subscriber; pattern subscriptions in total.
  size_t channel_count() const { return channels_.size(); }
  size_t pattern_count() const { return patterns_.size(); }

 private:
  std::unordered_map<std::string, std::vector<Session*>, StringHash, std::equal_to<>> channels_;
  std::vector<std::pair<std::string, Session*>> patterns_;
};

}  // namespace redsim::sim
