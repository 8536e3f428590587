// Private to sim/: Redis 7.0's client-side caching (CLIENT TRACKING), the
// server's side of it: which client may cache which key, and the
// invalidation messages a write sends them. Not part of the public API.
//
//   CLIENT TRACKING ON                   the default mode: every key a read-only
//                                        command of the client reads is
//                                        remembered in the tracking table
//   SET k v   (another client)           -> ["invalidate", ["k"]] to it, once:
//                                        the key leaves the table
//   CLIENT TRACKING ON BCAST PREFIX a:   broadcast mode: every write to a key
//                                        starting with "a:" is announced, keys
//                                        gathered per prefix and sent after the
//                                        command as one message per prefix
//
// Where messages go (Redis's sendTrackingMessage): to the tracking client
// itself as a RESP3 push ["invalidate", keys]; with REDIRECT id to that
// client, as a RESP3 push, or in RESP2 as a pub/sub message ["message",
// "__redis__:invalidate", keys] when it is subscribed to anything; nothing
// for a RESP2 client without REDIRECT. A redirect target that disconnected
// makes the client "broken_redirect" and, in RESP3, it gets
// ["tracking-redir-broken", id]. FLUSHDB/FLUSHALL send every tracking
// client a null instead of keys. A message for the client running the
// command is held until the command (a whole EXEC or script) ended, so it
// follows the command's reply.
//
// Ordering differences from Redis: BCAST keys are sent after each top-level
// command (and after each active expiry cycle), not once per event-loop
// pass, so pipelined commands give one message each. In the simulated
// world a process's command connection has no push handler: invalidations
// reach a world process only as RESP2 messages through REDIRECT to its
// pub/sub connection.
//
// Sources (facts, not code): Redis 7.0.15 src/tracking.c (enableTracking,
// disableTracking, checkPrefixCollisionsOrReply, trackingRememberKeys,
// sendTrackingMessage, trackingInvalidateKey, trackingInvalidateKeysOnFlush,
// trackingLimitUsedSlots, trackingBroadcastInvalidationMessages), src/server.c
// call() and afterCommand(), src/networking.c clientCommand's TRACKING,
// CACHING, GETREDIR and TRACKINGINFO and resetClient(); the docs page
// "Client-side caching in Redis". Where Redis's order is a hash or a
// pointer's, the fake's is fixed: clients by id, keys and prefixes bytewise.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/resp/reply.h"

namespace redsim::sim {

class Server;
class Session;

class Tracking {
 public:
  // One client with tracking on (Redis's CLIENT_TRACKING_* flags).
  struct Client {
    uint64_t redirect = 0;  // 0: none
    bool bcast = false;
    bool optin = false;
    bool optout = false;
    bool noloop = false;
    bool caching = false;  // CLIENT CACHING yes (OPTIN) / no (OPTOUT), for the next command
    bool broken_redirect = false;
    std::set<std::string> prefixes;  // BCAST only; "" for every key
  };

  // Tracking on for `id` (enableTracking): the options replace the
  // previous ones, BCAST prefixes are added to those it had. The caller
  // checked the options (see client_tracking in sim/cmd_connection.cc).
  void enable(uint64_t id, uint64_t redirect, bool bcast, bool optin, bool optout, bool noloop,
              const std::vector<std::string>& prefixes);
  // Tracking off (disableTracking; disconnect, RESET). Keys the client read
  // stay in the table (Redis removes them lazily).
  void disable(uint64_t id);
  // The state of a client with tracking on; nullptr when off.
  Client* find(uint64_t id);
  const Client* find(uint64_t id) const;
  // checkPrefixCollisionsOrReply: the error text when a new prefix overlaps
  // one the client has or another new one; nullopt when none does.
  std::optional<std::string> prefix_collision(uint64_t id,
                                              const std::vector<std::string>& prefixes) const;

  // server.tracking_clients: clients with tracking on.
  size_t clients() const { return clients_.size(); }
  // The table exists once a client ever turned tracking on (Redis creates
  // it then and never frees it): writes look keys up from then on.
  bool table_created() const { return table_created_; }
  // INFO's tracking_total_keys / _items / _prefixes.
  size_t total_keys() const { return table_.size(); }
  size_t total_items() const { return total_items_; }
  size_t total_prefixes() const { return prefix_table_.size(); }

  // trackingRememberKeys: after a read-only command of a client in the
  // default mode (OPTIN/OPTOUT and CLIENT CACHING decide), its keys.
  void remember_keys(uint64_t id, const std::vector<std::string_view>& keys);
  // trackingInvalidateKey(c, key, bcast): `key` was written (or deleted,
  // or expired). `writer` is the client whose command wrote it (nullptr
  // for expiry and for a script's writes, as Redis's lua client), for
  // BCAST's NOLOOP; `current` the client whose command runs now (nullptr
  // outside commands), for NOLOOP and for holding its own messages.
  void invalidate_key(Server& server, std::string_view key, const Session* writer, Session* current,
                      bool bcast = true);
  // trackingInvalidateKeysOnFlush: a null to every tracking client; the
  // table is emptied.
  void invalidate_all(Server& server, Session* current);
  // trackingHandlePendingKeyInvalidations: the messages held for
  // `current`, after its command.
  void send_pending(Server& server, Session* current);
  // The held messages, taken out and put back around a blocked client's
  // command served inside another's (each is the current client's).
  std::vector<std::optional<std::string>> take_pending() { return std::exchange(pending_, {}); }
  void restore_pending(std::vector<std::optional<std::string>> pending) {
    pending_ = std::move(pending);
  }
  // trackingBroadcastInvalidationMessages: the keys each prefix gathered.
  void broadcast(Server& server);
  // trackingLimitUsedSlots: while the table has more than `max_keys` keys
  // (0: no limit), invalidates keys as if written (without BCAST), at most
  // 100 * (number of consecutive calls that found it over) per call.
  // Redis picks them by a random walk; the fake takes them in key order.
  void limit_used_slots(Server& server, Session* current, uint64_t max_keys);

  // RESET and CLIENT CACHING's "for the next command only".
  void clear_caching(uint64_t id) {
    if (Client* c = find(id)) c->caching = false;
  }

 private:
  struct Prefix {
    std::map<std::string, uint64_t, std::less<>> keys;  // written key -> writer id (0: none)
    std::set<uint64_t> clients;
  };
  // sendTrackingMessage to `id`'s client (or its redirect): `payload` is
  // the keys array or a null (flush).
  void send(Server& server, Session& client, Client& state, const resp::Reply& payload);

  std::map<uint64_t, Client> clients_;
  bool table_created_ = false;
  std::map<std::string, std::set<uint64_t>, std::less<>> table_;  // key -> client ids
  size_t total_items_ = 0;
  std::map<std::string, Prefix, std::less<>> prefix_table_;
  // Messages for the running command's client: a key, or nullopt for a flush.
  std::vector<std::optional<std::string>> pending_;
  unsigned limit_rounds_ = 0;  // trackingLimitUsedSlots' timeout_counter
};

}  // namespace redsim::sim
