// Server: one fake Redis 7.0 instance. It runs one command at a time,
// atomically, at its clock's current time, and returns the Reply a real
// Redis 7.0 would. It knows nothing of locks.
//
//   sim::ManualClock clock;
//   sim::Server server(clock);
//   auto session = server.connect();            // one client connection
//   server.execute(*session, {"SET", "k", "v", "PX", "100"});   // +OK
//   clock.advance_ms(101);
//   server.execute(*session, {"GET", "k"});     // (nil): expired, now > deadline
//
// Errors: a bad command is never an exception; it is an error Reply with
// Redis 7.0's exact text (arity, syntax, WRONGTYPE, NOSCRIPT, ...).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/clock.h"
#include "sim/command.h"
#include "sim/resp/reply.h"

namespace redsim::sim {

class Keyspace;
class ScriptEngine;
class PubSub;

struct ServerOptions {
  int databases = 16;                     // SELECT 0..databases-1
  uint64_t seed = 0;                      // drives every random choice of the server
  int active_expire_keys_per_cycle = 20;  // keys examined per db by active_expire_cycle()
};

// One client connection's state: selected db, MULTI queue, WATCHed keys,
// subscriptions, and the out-of-band pushes (pub/sub messages) it received.
// Created by Server::connect(); destroying it disconnects the client
// (unsubscribes everything, forgets its WATCHes).
class Session {
 public:
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  uint64_t id() const { return id_; }
  int db() const { return db_; }
  bool in_multi() const { return in_multi_; }
  // Channels plus patterns this session is subscribed to.
  size_t subscription_count() const;

  // Pushes are the replies a client reads without having sent a command for
  // them: pub/sub "message"/"pmessage" arrays, and the confirmations of a
  // SUBSCRIBE-family command beyond the first (Server::execute returns the
  // first). Without a handler they queue here in arrival order; with one,
  // the handler receives each push as it happens and nothing queues.
  void set_push_handler(std::function<void(const resp::Reply&)> handler);
  std::vector<resp::Reply> take_pushes();

 private:
  friend class Server;
  friend class PubSub;
  friend struct SessionAccess;  // for the command families in sim/*.cc
  Session(Server& server, uint64_t id) : server_(server), id_(id) {}
  void push(resp::Reply reply);

  Server& server_;
  uint64_t id_;
  int db_ = 0;
  // MULTI / EXEC
  bool in_multi_ = false;
  bool multi_dirty_ = false;  // a command failed to queue: EXEC answers EXECABORT
  std::vector<Argv> queued_;
  // WATCH: (db, key) pairs and whether one was touched since
  struct Watched {
    int db;
    std::string key;
    bool expired_at_watch;
  };
  std::vector<Watched> watched_;
  bool watch_dirty_ = false;
  // pub/sub, in subscription order
  std::vector<std::string> channels_;
  std::vector<std::string> patterns_;
  std::function<void(const resp::Reply&)> push_handler_;
  std::deque<resp::Reply> pushes_;
};

class Server {
 public:
  explicit Server(Clock& clock, ServerOptions options = {});
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // A new client connection. The caller owns it; it must not outlive the server.
  std::unique_ptr<Session> connect();

  // Runs one command as `session` at the clock's current time (read once,
  // frozen for the command). argv[0] is the command name, any case.
  // Never throws for bad input: the Reply carries Redis 7.0's error text.
  resp::Reply execute(Session& session, const Argv& argv);

  // redis.call / redis.pcall from a running script: the same command table,
  // with the script rules applied (no-script commands refused, writes refused
  // when `read_only`), at the script's frozen time. Used by sim/lua only.
  resp::Reply execute_from_script(Session& session, const Argv& argv, bool read_only);

  // One active expiry cycle (Redis's activeExpireCycle, made deterministic):
  // examines up to options.active_expire_keys_per_cycle keys with a TTL per
  // db, in key order from a rotating cursor, and deletes those expired.
  // Returns the number of keys deleted.
  size_t active_expire_cycle();

  // The time commands see, in ms: frozen while a command (or script) runs,
  // otherwise the clock's now.
  int64_t now_ms() const;
  Clock& clock() { return clock_; }
  const ServerOptions& options() const { return options_; }
  Keyspace& keyspace() { return *keyspace_; }
  ScriptEngine& scripts() { return *scripts_; }
  PubSub& pubsub() { return *pubsub_; }
  const CommandTable& commands() const { return commands_; }
  uint64_t commands_processed() const { return commands_processed_; }

  // The server's own random stream, seeded from options.seed: a uniform
  // value in [0, n) (0 when n == 0). Drives SPOP, SRANDMEMBER, HRANDFIELD
  // and RANDOMKEY, so a seed replays their choices exactly. Algorithm:
  // splitmix64 (Steele, Lea & Flood 2014) with Lemire's unbiased
  // multiply-shift rejection.
  uint64_t random_below(uint64_t n);

 private:
  friend class Session;
  friend struct ServerAccess;  // for the command families in sim/*.cc
  // processCommand (client) or scriptCall (redis.call): lookup, arity and
  // the state checks, then call().
  resp::Reply dispatch(Session& session, const Argv& argv, bool in_script, bool read_only);
  // Runs the handler with the time frozen (read once by the outermost call).
  resp::Reply call(Session& session, const CommandSpec& spec, const Argv& argv, bool in_script);
  void disconnect(Session& session);

  Clock& clock_;
  ServerOptions options_;
  CommandTable commands_;
  std::unique_ptr<Keyspace> keyspace_;
  std::unique_ptr<PubSub> pubsub_;
  std::unique_ptr<ScriptEngine> scripts_;
  uint64_t next_session_id_ = 1;
  uint64_t commands_processed_ = 0;
  int64_t frozen_ms_ = -1;  // >= 0 while a command runs
  // A script's SELECT changes the db for the rest of the script only; the
  // command that ran the script restores the caller's db when this is set.
  bool script_changed_db_ = false;
  uint64_t random_state_;  // splitmix64 state, see random_below()
};

}  // namespace redsim::sim
