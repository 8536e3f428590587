// Blocking: the clients blocked on keys (BLPOP, BLMOVE, BLMPOP, BZPOPMIN,
// BZMPOP, XREAD BLOCK, XREADGROUP BLOCK, ...) of one Server, and Redis's
// order of serving them. Private to sim/: the public face is
// Session::blocked() and Server::take_unblocked() / time_out_blocked().
//
// A blocking command's handler that finds nothing to serve calls
// block_or_reply(): at top level the session blocks on its keys (the reply
// the handler returns is a placeholder nobody sends); inside MULTI/EXEC or
// a script it answers the timeout reply at once, as Redis's
// CLIENT_DENY_BLOCKING makes it. After every top-level command (a whole
// EXEC or script included) the server serves the keys the command made
// ready: for each ready key in signal order, the clients blocked on it in
// the order they blocked (first blocked, first served) run their command
// again; one that still finds nothing keeps its place. Serving may make
// further keys ready (BLMOVE into a list others wait on): the loop runs
// until none is left. Sources: Redis 7.0 src/blocked.c
// (blockForKeys, handleClientsBlockedOnKeys, serveClientsBlockedOnKey,
// checkBlockedClientTimeout: a client times out once now > deadline) and
// src/timeout.c (getTimeoutFromObjectOrReply); Redis 7.2 re-runs the
// command the same way (facts only).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/command.h"
#include "sim/keyspace.h"
#include "sim/resp/reply.h"
#include "sim/server.h"

namespace redsim::sim {

// Redis's getTimeoutFromObjectOrReply. `seconds`: a float of seconds
// (BLPOP & co; "ERR timeout is not a float or out of range"), else integer
// ms (XREAD BLOCK; "ERR timeout is not an integer or out of range");
// "ERR timeout is negative" below 0 (and, as on x86 Redis, for seconds
// whose ms do not fit an int64). On success *deadline_ms is the absolute
// server-clock deadline, or nullopt for 0 (wait for ever).
bool parse_block_timeout(const CommandContext& ctx, std::string_view arg, bool seconds,
                         std::optional<int64_t>* deadline_ms, resp::Reply* error);

// True when the running command may block (a top-level command of a
// client, not inside EXEC nor a script).
bool may_block(const CommandContext& ctx);

// The end of a blocking command that found nothing: blocks the session on
// `keys` (in the command's db) until `deadline_ms`, to run `argv` again
// when one is ready, and returns a placeholder; or, when it may not block,
// returns `timeout_reply`. While the server re-runs a blocked command,
// calling this keeps the client blocked where it was.
// A client waits for a key of `type`: a key of another type does not serve
// it (serveClientsBlockedOnKey checks the type).
resp::Reply block_or_reply(CommandContext& ctx, const std::vector<std::string>& keys,
                           std::optional<int64_t> deadline_ms, resp::Reply timeout_reply, Argv argv,
                           ValueType type);

// CLIENT UNBLOCK: ends the block of the session with id `session_id` with
// its timeout reply, or with -UNBLOCKED when `error`; false when that
// session is not blocked.
bool unblock_client(Server& server, uint64_t session_id, bool error);

class Blocking {
 public:
  struct Client {
    Session* session = nullptr;
    int db = 0;
    std::vector<std::string> keys;
    std::optional<int64_t> deadline_ms;
    resp::Reply timeout_reply;
    Argv argv;
    ValueType type = ValueType::kList;
  };

  // A client's Session::blocked() is true from block() until its block
  // ends (unblock, timeout, forget): Server::call asks it for every command.
  size_t size() const { return clients_.size(); }
  const Client* find(uint64_t session_id) const {
    auto it = clients_.find(session_id);
    return it == clients_.end() ? nullptr : &it->second;
  }
  void block(Server& server, Client client);
  // Ends the block of `session` with `reply` (queued for take_unblocked).
  // False when it was not blocked.
  bool unblock(Server& server, Session& session, resp::Reply reply);
  // Ends it with its timeout reply / silently (disconnect).
  bool unblock_timeout(Server& server, Session& session);
  void forget(Server& server, Session& session);
  // handleClientsBlockedOnKeys.
  void serve(Server& server);
  // Clients whose deadline is before `now_ms` get their timeout reply.
  size_t time_out(Server& server, int64_t now_ms);
  std::optional<int64_t> next_deadline_ms() const;
  std::vector<Server::Unblocked> take_unblocked() { return std::exchange(unblocked_, {}); }

  // Re-run state (see block_or_reply).
  bool rerunning = false;
  bool still_blocked = false;

 private:
  void remove(Server& server, uint64_t session_id);

  std::map<uint64_t, Client> clients_;  // by session id
  // (db, key) -> session ids in blocking order.
  std::map<std::pair<int, std::string>, std::deque<uint64_t>> by_key_;
  std::vector<Server::Unblocked> unblocked_;
};

}  // namespace redsim::sim
