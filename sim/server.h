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

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/clock.h"
#include "sim/command.h"
#include "sim/latency_histogram.h"
#include "sim/resp/reply.h"

namespace redsim::sim {

class Keyspace;
class ScriptEngine;
class PubSub;
class Tracking;  // CLIENT TRACKING (sim/tracking.h, internal)
class AclUsers;  // sim/acl.h
struct AclCheck;
struct Monitor;  // SLOWLOG and LATENCY (sim/monitor.h, internal)

// A copy of one stored key, as Server::peek sees it: shapes as the read
// commands reply, without running them.
struct StoredKey {
  // TYPE's answer: "string", "hash", "list", "set", "zset" or "stream".
  std::string type;
  // The absolute deadline in unix ms on the server's clock (PEXPIRETIME);
  // nullopt for a key without a TTL.
  std::optional<int64_t> expire_at_ms;
  // The deadline has passed on the server's clock (Redis's keyIsExpired:
  // now > deadline) but nothing deleted the key yet; a command would see no
  // key.
  bool expired = false;
  // The value, in the order of the read command named:
  //   string  {the bytes}                              GET
  //   hash    {field1, value1, field2, value2, ...}   HGETALL
  //   list    the elements, head first                LRANGE key 0 -1
  //   set     the members                             SMEMBERS
  //   zset    the members, lowest score first         ZRANGE key 0 -1
  //   stream  the entry ids ("ms-seq"), oldest first  XRANGE key - + (ids only)
  std::vector<std::string> elements;
  // zset: the score of each member of `elements`, same order; empty otherwise.
  std::vector<double> scores;
};
class Blocking;

// How a running script's run time is measured, for busy-reply-threshold and
// SCRIPT KILL (see "Script limits" below).
enum class ScriptTime {
  // Virtual time charged for the Lua VM instructions the script executed:
  // ServerOptions::lua_instructions_per_ms instructions are 1 ms. The same
  // script always takes the same time, whatever the machine: the simulation.
  kInstructions,
  // The server clock's time since the script started: redsim server on the
  // wall clock (a virtual clock never moves during a command).
  kClock,
};

struct ServerOptions {
  int databases = 16;                     // SELECT 0..databases-1
  uint64_t seed = 0;                      // drives every random choice of the server
  int active_expire_keys_per_cycle = 20;  // keys examined per db by active_expire_cycle()
  ScriptTime script_time = ScriptTime::kInstructions;
  // kInstructions' rate: Lua VM instructions per ms of script time. The
  // default (5 ns an instruction) is the order measured on redis-server
  // 7.0.15: a `for` loop of 10^8 empty iterations (one VM instruction
  // each) took 0.44 s, about 230,000 instructions per ms, on a shared
  // 2-core x86-64 VM. Only Lua instructions are charged: a redis.call costs
  // the instructions that call it, not the command's own work.
  int64_t lua_instructions_per_ms = 200'000;
  // How much a script may grow the Lua heap, in bytes, above its size when
  // the script started (compiled scripts in the cache do not count against
  // it); 0: no cap. Redis 7.0 has no such cap (its Lua grows until the
  // process runs out of memory). The default leaves room for the deepest
  // recursion Lua allows (a runaway recursion peaks near 90 MB before
  // "stack overflow", the error Redis gives).
  int64_t lua_memory_limit_bytes = 128LL * 1024 * 1024;
};

// The settings CONFIG GET / CONFIG SET read and write (sim/cmd_config.cc).
// Only `hz` and `active_expire_enabled` change behaviour here: a transport runs
// active_expire_cycle() every 1000 / hz ms of the server clock. The others are reported as a real
// Redis 7.0 with persistence off reports them. A transport (redsim server)
// fills in `port` and `bind`.
struct ServerConfig {
  int hz = 10;                             // 1..500, Redis's default 10
  bool active_expire_enabled = true;       // DEBUG SET-ACTIVE-EXPIRE
  int64_t busy_reply_threshold_ms = 5000;  // alias lua-time-limit
  // maxmemory: with the noeviction policy, commands flagged denyoom are
  // refused while Server::used_memory_bytes() > maxmemory_bytes (see there).
  // The other policies evict keys before each command while used memory is
  // over the limit (Server::evicted_keys), then refuse denyoom commands
  // if it still is.
  int64_t maxmemory_bytes = 0;       // 0: no limit
  bool maxmemory_noeviction = true;  // maxmemory-policy is noeviction (the default)
  // Enforced by a transport (redsim server), kept here for CONFIG GET/SET:
  // the most connections at once (Redis's maxclients; a transport may lower
  // it to what its file-descriptor limit allows), and the seconds after
  // which an idle client is closed (Redis's timeout; 0: never).
  int64_t maxclients = 10000;
  int64_t timeout_s = 0;
  int port = 6379;  // the TCP port, 0 when not listening
  // Set by a transport that listens: CONFIG SET port asks it to move its
  // listener to `port` (Redis's changeListenPort) and stores the new value
  // only when it returns true; false (the port taken) makes CONFIG SET fail
  // with "Unable to listen on this port" and roll back every parameter of
  // the call. Unset: the port is stored and reported only.
  std::function<bool(int port)> change_port;
  std::string bind = "* -::*";                       // Redis's default bind list
  int64_t proto_max_bulk_len = 512LL * 1024 * 1024;  // bytes: the transport's bulk limit
  int64_t client_query_buffer_limit = 1024LL * 1024 * 1024;
  // notify-keyspace-events as notify::k* flags (sim/pubsub.h); 0: off.
  int notify_keyspace_events = 0;
  // tracking-table-max-keys: the most keys CLIENT TRACKING remembers
  // (0: no limit); beyond it keys are invalidated as if written.
  int64_t tracking_table_max_keys = 1'000'000;
  // SLOWLOG: a command a client sent that ran at least this long (us) is
  // logged (< 0: none, 0: all), the newest slowlog_max_len kept.
  int64_t slowlog_log_slower_than_us = 10000;
  int64_t slowlog_max_len = 128;
  // LATENCY: events of at least this many ms are recorded; 0: off.
  int64_t latency_monitor_threshold_ms = 0;
  // latency-tracking: each command's durations are kept for LATENCY
  // HISTOGRAM and INFO latencystats (which prints nothing while off), and
  // latency-tracking-info-percentiles: the percentiles (each in [0, 100])
  // INFO latencystats reports, Redis's defaults.
  bool latency_tracking = true;
  std::vector<double> latency_tracking_info_percentiles = {50.0, 99.0, 99.9};
  // min-replicas-to-write (alias min-slaves-to-write): with N > 0 and
  // min-replicas-max-lag > 0, write commands (and scripts that may write)
  // are refused with NOREPLICAS, as a master without N good replicas does
  // (Redis's checkGoodReplicasStatus; the fake has no replicas).
  int64_t min_replicas_to_write = 0;
  int64_t min_replicas_max_lag_s = 10;
  // Other parameters CONFIG SET stored (reported back by CONFIG GET only).
  std::map<std::string, std::string, std::less<>> others;
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
  // Channels plus patterns this session is subscribed to (the count in
  // SUBSCRIBE/PSUBSCRIBE confirmations; shard channels are counted apart).
  size_t subscription_count() const;
  // Shard channels (SSUBSCRIBE) this session is subscribed to.
  size_t shard_subscription_count() const { return shard_channels_.size(); }
  // Any subscription at all, shard channels included: Redis's CLIENT_PUBSUB
  // flag (RESP2 subscribed context, PING's pub/sub shape, CLIENT LIST 'P').
  bool subscribed() const {
    return !channels_.empty() || !patterns_.empty() || !shard_channels_.empty();
  }

  // Pushes are the replies a client reads without having sent a command for
  // them: pub/sub "message"/"pmessage" arrays, and the confirmations of a
  // SUBSCRIBE-family command beyond the first (Server::execute returns the
  // first). Without a handler they queue here in arrival order; with one,
  // the handler receives each push as it happens and nothing queues.
  void set_push_handler(std::function<void(const resp::Reply&)> handler);
  std::vector<resp::Reply> take_pushes();

  // ---- What a network transport (tools/server) tells the server, and asks it.
  // The peer as CLIENT LIST / CLIENT INFO show it ("127.0.0.1:53012"); an
  // in-process session keeps the defaults (empty addresses, fd -1).
  struct Peer {
    std::string addr;
    std::string laddr;
    int fd = -1;
  };
  void set_peer(Peer peer) { peer_ = std::move(peer); }
  const Peer& peer() const { return peer_; }
  // CLIENT SETNAME / HELLO SETNAME; empty when unnamed.
  const std::string& name() const { return name_; }
  // The ACL user the connection is authenticated as (AUTH; "default").
  const std::string& user() const { return user_; }
  // HELLO's protover (RESP2 until HELLO 3; RESET goes back to RESP2). The
  // replies and pushes of a RESP2 session come in their RESP2 forms
  // (resp::to_resp2); a transport encodes with this protocol.
  resp::Protocol protocol() const { return protocol_; }
  // CLIENT REPLY OFF / SKIP: true when the reply of the command that just ran
  // (and any push) must not be sent. A transport asks after each command,
  // then calls command_done(), which moves a SKIP on to the next command.
  bool reply_suppressed() const { return reply_off_ || reply_skip_; }
  void command_done() {
    reply_skip_ = reply_skip_next_;
    reply_skip_next_ = false;
  }
  // CLIENT KILL chose this session: whoever runs the connection closes it
  // (redsim server: at once, or after the reply when it killed itself, as
  // Redis's CLIENT_CLOSE_AFTER_REPLY). Server::take_kill_requests() tells a
  // transport when to look. An in-process session keeps answering.
  bool kill_requested() const { return kill_requested_; }
  // False until AUTH / HELLO AUTH when requirepass was set as it connected.
  bool authenticated() const { return authenticated_; }
  // Server-clock times (ms) for CLIENT LIST's age= and idle=.
  int64_t created_ms() const { return created_ms_; }
  int64_t last_command_ms() const { return last_command_ms_; }
  // Replication (used by a world that models replicas; see
  // Server::set_replication_hooks). The primary's replication offset right
  // after this session's last command that propagated a write: what WAIT
  // waits for (Redis's client->woff). 0 until the session writes.
  uint64_t repl_offset() const { return repl_offset_; }
  void set_repl_offset(uint64_t offset) { repl_offset_ = offset; }
  // A WAIT that could not be answered at once from a top-level command:
  // the reply Server::execute returned is the current count, and whoever
  // runs the connection may instead hold it until `numreplicas` replicas
  // acknowledged repl_offset() or `timeout_ms` passed (0 = no limit).
  struct BlockedWait {
    int64_t numreplicas = 0;
    int64_t timeout_ms = 0;
  };
  std::optional<BlockedWait> take_blocked_wait() { return std::exchange(blocked_wait_, {}); }
  // A blocking command (BLPOP, BLMOVE, BZPOPMIN, XREAD BLOCK, ...) found
  // nothing and blocked this session: the Reply execute() returned is a
  // placeholder that must not be sent, and the connection must not be
  // served until Server::take_unblocked() hands over the real reply (see
  // "Blocked clients" there). Inside MULTI or a script a blocking command
  // never blocks (it answers as on timeout). O(1): a flag the server's
  // blocked-client table sets and clears.
  bool blocked() const { return blocked_; }

  // sim/'s own access to a session's state (the command families, pub/sub):
  // defined in sim/internal.h, which is not installed; not part of the API.
  struct Internal;

 private:
  friend class Server;
  Session(Server& server, uint64_t id, int64_t now_ms)
      : server_(server), id_(id), created_ms_(now_ms), last_command_ms_(now_ms) {}
  void push(resp::Reply reply);
  // push() of a reply already in this session's protocol's form, shared by
  // many sessions (PUBLISH): handed to the push handler as it is, copied
  // only where it is kept.
  void push_shared(const resp::Reply& reply);

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
  std::vector<std::string> shard_channels_;
  std::function<void(const resp::Reply&)> push_handler_;
  std::deque<resp::Reply> pushes_;
  // connection facts (see set_peer) and CLIENT settings
  Peer peer_;
  std::string name_;
  std::string user_ = "default";
  resp::Protocol protocol_ = resp::Protocol::kResp2;
  int64_t created_ms_;
  int64_t last_command_ms_;
  std::string_view last_command_ = "NULL";  // CLIENT LIST cmd=; a CommandSpec name
  std::string last_subcommand_;             // its subcommand for container commands
  bool reply_off_ = false;
  bool reply_skip_ = false;
  bool reply_skip_next_ = false;
  bool kill_requested_ = false;
  // AUTH: false while the default user has a password (requirepass) this
  // connection has not given (Redis's c->authenticated).
  bool authenticated_ = true;
  // replication
  uint64_t repl_offset_ = 0;
  std::optional<BlockedWait> blocked_wait_;
  bool blocked_ = false;  // in the server's blocked clients (sim/blocking.h)
};

// What a server tells a replication model, and asks it (WAIT). Without hooks
// a server has no replicas: WAIT answers 0 at once.
struct ReplicationHooks {
  // After every top-level command that may write (a write-flagged command,
  // EXEC, EVAL, EVALSHA) ran on `session`, errors included. The model
  // decides what changed and may call session.set_repl_offset().
  std::function<void(Session& session)> after_write;
  // The number of replicas that acknowledged the stream up to `offset`.
  std::function<int64_t(uint64_t offset)> acked_replicas;
  // redsim server's replication link (sim/replication.h); unset in the
  // simulated world. `propagate` receives the replication stream.
  std::function<void(int db, const Argv& argv)> propagate;
  std::function<resp::Reply(Session& session, const Argv& argv)> sync;  // SYNC, PSYNC
  std::function<resp::Reply(const Argv& argv)> replicaof;               // REPLICAOF, SLAVEOF
  std::function<void(Session& session, const Argv& argv)> replconf;     // its checked options
  std::function<resp::Reply()> role;                                    // ROLE
  std::function<std::string()> info;  // INFO's "# Replication" section, whole
  // Writes of ordinary clients are refused with -READONLY while true.
  std::function<bool()> read_only;
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
  // As execute(), but the command may move argument strings out of `argv`
  // instead of copying them: SET, SETNX, SETEX, PSETEX and GETSET store
  // their value string itself, MULTI queues the argv itself. Afterwards
  // argv's strings are valid but unspecified. For a transport that reads
  // each request into strings of its own (redsim server: a 100 MB SET then
  // holds the value once).
  resp::Reply execute_consuming(Session& session, Argv& argv);

  // ---- Script limits (Redis 7.0's busy-reply-threshold and SCRIPT KILL).
  // A script that has run for at least busy-reply-threshold ms (CONFIG SET
  // busy-reply-threshold / lua-time-limit; default 5000; 0 turns the limit
  // off), measured as options().script_time says, is "busy". Redis then
  // re-enters its event loop from inside the script (processEventsWhileBlocked)
  // so other clients get answers; here the Lua engine calls the busy-script
  // handler instead, from its instruction-count hook, every
  // ScriptEngine::kHookInstructions Lua instructions while the script stays
  // busy. Inside the handler the owner (a test, the world, redsim server)
  // plays the other clients: execute() on any session answers
  //   -BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.
  // for every command but Redis's allow_busy ones (SCRIPT KILL, MULTI,
  // DISCARD, WATCH, UNWATCH, HELLO, RESET, AUTH, QUIT, SHUTDOWN), after the
  // lookup, arity and subscribed-context checks, as processCommand does.
  // SCRIPT KILL answers +OK and the script fails when the handler returns,
  // its caller getting
  //   -ERR Script killed by user with SCRIPT KILL... script: <sha>, on @user_script:<line>.
  // or -UNKILLABLE once the script called a write command. Without a handler
  // a busy script simply runs on (nobody else can be served in-process).
  //
  //   server.execute(*a, {"CONFIG", "SET", "busy-reply-threshold", "100"});
  //   server.set_busy_script_handler([&](Session&) {
  //     server.execute(*b, {"GET", "k"});         // -BUSY ...
  //     server.execute(*b, {"SCRIPT", "KILL"});   // +OK
  //   });
  //   server.execute(*a, {"EVAL", "while true do end", "0"});  // -ERR Script killed ...
  //
  // The handler receives the session that runs the script (Redis protects
  // that client: a transport reads nothing more from it meanwhile).
  using BusyScriptHandler = std::function<void(Session& script_caller)>;
  void set_busy_script_handler(BusyScriptHandler handler) {
    busy_script_handler_ = std::move(handler);
  }
  const BusyScriptHandler& busy_script_handler() const { return busy_script_handler_; }

  // What the scripts of the running commands did, for the exhaustive
  // explorer's footprints (sim/world/explore/exhaustive.h, case 16): while
  // a log is set, each command a script asks to run (redis.call,
  // redis.pcall; refused ones too) is appended to `calls`, and `shared` is
  // set when a script used what scripts share besides keys: math.random's
  // stream, loadstring's arithmetic sites, the call depth grown by an
  // overflow. Null (the default): nothing is logged.
  struct ScriptCallLog {
    std::vector<Argv> calls;
    bool shared = false;
  };
  void log_script_calls(ScriptCallLog* log) { script_call_log_ = log; }
  ScriptCallLog* script_call_log() const { return script_call_log_; }

  // One active expiry cycle (Redis's activeExpireCycle, made deterministic):
  // examines up to options.active_expire_keys_per_cycle keys with a TTL per
  // db, in key order from a rotating cursor, and deletes those expired.
  // Returns the number of keys deleted; deletes nothing after
  // DEBUG SET-ACTIVE-EXPIRE 0. Each deletion publishes the "expired"
  // keyspace event when notify-keyspace-events enables it (x with K or E).
  // It is also the server's cron for client-side caching: the tracking
  // table is cut to tracking-table-max-keys, and BCAST invalidations of
  // what it deleted are sent (Redis: serverCron and beforeSleep).
  size_t active_expire_cycle();

  // The time commands see, in ms: frozen while a command (or script) runs,
  // otherwise the clock's now.
  int64_t now_ms() const;
  Clock& clock() { return clock_; }
  const ServerOptions& options() const { return options_; }

  // ---- Inspection (tests, tools): a read-only look at the stored data.
  // Nothing here has a side effect: no lazy expiry (a key past its deadline
  // is reported as stored, with `expired` set, until a command or active
  // expiry deletes it), no LRU/LFU access, no keyspace notification, no
  // WATCH invalidation, no command statistics. `db` is a SELECT index in
  // [0, databases()); std::out_of_range otherwise. The data structures
  // themselves (keyspace, scripts, pub/sub) are internal.
  int databases() const;
  // Keys stored in `db`, expired ones not yet deleted included (DBSIZE counts
  // the same: Redis's dictSize).
  size_t key_count(int db = 0) const;
  // Every key stored in `db`, in bytewise order.
  std::vector<std::string> stored_keys(int db = 0) const;
  // A copy of `key` in `db` as stored; nullopt when absent.
  std::optional<StoredKey> peek(std::string_view key, int db = 0) const;
  // Self-check of each db's indexes (keys, deadlines, no empty collection or
  // watcher list; Db::inconsistency): "" when they agree, else "db N: why".
  // O(keys), between commands, for fuzzers: non-empty is a bug in redsim.
  std::string inconsistency() const;
  const CommandTable& commands() const { return commands_; }
  // Installs the hooks; with `propagate` set, key changes are recorded for
  // the replication stream (sim/replication.cc).
  void set_replication_hooks(ReplicationHooks hooks);
  const ReplicationHooks& replication_hooks() const { return replication_; }
  // Commands running now, nested ones included (EXEC's queue, redis.call):
  // 1 inside a top-level command's handler.
  int call_depth() const { return call_depth_; }
  uint64_t commands_processed() const { return commands_processed_; }
  // INFO commandstats, keyed as Redis names them ("get", "client|list"):
  // calls counts every run (a script's redis.call and EXEC's queue
  // included), failed_calls the runs whose reply was an error,
  // rejected_calls the commands refused before running (arity, OOM,
  // subscribed context, BUSY, not allowed in MULTI). The fake times
  // nothing: INFO reports usec as 0. CONFIG RESETSTAT clears them.
  // latency (LATENCY HISTOGRAM, INFO latencystats) holds the durations on
  // the server clock of the runs of a command a client sent (EXEC's queue
  // included, a script's redis.call not) while latency-tracking is yes
  // (ServerConfig::latency_tracking, Redis's default); see
  // sim/latency_histogram.h for what it reports and how it matches Redis's
  // hdr histogram.
  struct CommandStats {
    uint64_t calls = 0;
    uint64_t failed_calls = 0;
    uint64_t rejected_calls = 0;
    LatencyHistogram latency;
  };
  const std::map<std::string, CommandStats, std::less<>>& command_stats() const {
    return command_stats_;
  }
  void reset_stats() {
    command_stats_.clear();
    stats_by_index_.clear();
    error_stats_.clear();
    total_error_replies_ = 0;
  }
  // INFO errorstats and total_error_replies: error replies by their code
  // (the first word: "ERR", "WRONGTYPE"), counted where Redis counts them:
  // a client's error reply, each failed command EXEC ran, and an error a
  // script's redis.call / redis.pcall met (once: the script's own error
  // reply that carries it is not counted again).
  const std::map<std::string, uint64_t, std::less<>>& error_stats() const { return error_stats_; }
  uint64_t total_error_replies() const { return total_error_replies_; }
  ServerConfig& config() { return config_; }
  // The default user's password (CONFIG SET requirepass, redsim server's
  // --requirepass); empty: none, every connection is authenticated.
  const std::string& requirepass() const;
  // Redis 7.0 authRequired: a new or RESET connection must AUTH first,
  // because the default user has a password (requirepass, ACL SETUSER
  // default >pw) or is off.
  bool auth_required() const { return auth_required_; }
  // The connected sessions by id (CLIENT LIST, INFO clients).
  const std::map<uint64_t, Session*>& sessions() const { return sessions_; }
  // True once after CLIENT KILL marked sessions (Session::kill_requested).
  bool take_kill_requests() { return std::exchange(kill_requests_, false); }

  // ---- Blocked clients (sim/blocking.h).
  // A session blocked by a blocking command (Session::blocked()) is served
  // as Redis serves it: after each top-level command (a whole EXEC or
  // script) the keys it made ready are served to their blocked clients in
  // the order they blocked; a client whose deadline passed (now > deadline
  // on this server's clock) gets its command's timeout reply (a nil or
  // null array) once time_out_blocked() runs; CLIENT UNBLOCK ends a block
  // with the timeout reply or -UNBLOCKED. Each ended block comes out of
  // take_unblocked(), in the order the blocks ended, with the reply to
  // send (in the session's protocol). A transport calls take_unblocked()
  // after every command it ran and after time_out_blocked(), and wakes
  // up for next_block_deadline_ms() (the earliest deadline, in server ms;
  // the client is due one ms later). Disconnecting a blocked session ends
  // its block without a reply.
  //
  //   server.execute(*a, {"BLPOP", "q", "5"});   // a->blocked()
  //   server.execute(*b, {"RPUSH", "q", "x"});   // :1
  //   server.take_unblocked();                   // {a, ["q", "x"]}
  struct Unblocked {
    Session* session = nullptr;
    resp::Reply reply;
    // Pushes the session gets right after `reply`: the CLIENT TRACKING
    // invalidations its own unblocked command caused (Redis sends them
    // after the reply, afterCommand); in the session's protocol. Usually
    // empty.
    std::vector<resp::Reply> pushes = {};
  };
  std::vector<Unblocked> take_unblocked();
  std::optional<int64_t> next_block_deadline_ms() const;
  // Times out the blocked clients whose deadline is before now_ms();
  // returns how many.
  size_t time_out_blocked();
  size_t blocked_clients() const;

  // ---- SHUTDOWN and stopping (sim/cmd_server.cc).
  // SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT] answers as Redis 7.0.15 and,
  // when it would stop Redis, answers +OK and sets shutdown_requested(): the
  // owner stops serving (redsim server closes every connection, sending
  // nothing more, and exits, as Redis does). The fake has no persistence:
  // SAVE saves nothing, so SAVE and NOSAVE stop alike (but a busy script
  // still lets only SHUTDOWN NOSAVE through, as Redis does, and it ends the
  // script even after writes). In process nothing else changes: the server
  // keeps answering whoever still calls it.
  bool shutdown_requested() const { return shutdown_requested_; }
  // A transport that must stop (a signal) while a script runs: `check` is
  // called from the script hook every ScriptEngine::kHookInstructions Lua
  // instructions, whatever busy-reply-threshold says (also 0); once it
  // returns true the script fails as if killed, even after writes. Must be
  // cheap; the simulation sets none, so its scripts run unhooked as before.
  using StopCheck = std::function<bool()>;
  void set_stop_check(StopCheck check) { stop_check_ = std::move(check); }
  const StopCheck& stop_check() const { return stop_check_; }
  // Called by CONFIG SET after it changed a parameter, with the name CONFIG
  // GET shows: for a transport that acts on one (redsim server rewrites its
  // process title on proc-title-template). Unset: nothing is called.
  using ConfigChangeHandler = std::function<void(std::string_view name)>;
  void set_config_change_handler(ConfigChangeHandler handler) {
    config_change_handler_ = std::move(handler);
  }
  const ConfigChangeHandler& config_change_handler() const { return config_change_handler_; }

  // ---- Memory (maxmemory).
  // What the fake counts as used memory, in bytes: a fixed base of
  // kBaseUsedMemoryBytes (about what an empty redis-server 7.0.15 reports
  // as used_memory, so `CONFIG SET maxmemory 1` refuses writes as there),
  // plus for every key kKeyOverheadBytes, the key's bytes and its value's
  // payload: a string's bytes; each hash field and value, list element or
  // set member's bytes plus kElementOverheadBytes; each sorted-set member's
  // bytes plus 8 for the score plus kElementOverheadBytes. Scripts, clients
  // and buffers are not counted. Computed by a walk over the keyspace, only
  // when maxmemory is set and a command may be refused: O(data) then.
  static constexpr int64_t kBaseUsedMemoryBytes = 876'000;
  static constexpr int64_t kKeyOverheadBytes = 56;
  static constexpr int64_t kElementOverheadBytes = 16;
  int64_t used_memory_bytes();
  // Keys evicted by a maxmemory policy other than noeviction (INFO's
  // evicted_keys): before each command, while used memory > maxmemory, keys
  // are deleted in the policy's order (Server::evict_to_fit in server_memory.cc).
  uint64_t evicted_keys() const { return evicted_keys_; }
  // True while keys are evicted before a command runs: the pushes raised
  // now (invalidations, "evicted" events) go out before that command's
  // reply (tracking.tcl), unlike those its own writes raise.
  bool evicting() const { return evicting_; }
  // Redis's server.script_oom: used memory was over maxmemory (noeviction)
  // when the running EVAL was dispatched.
  bool script_oom() const { return script_oom_; }
  // Redis's !checkGoodReplicasStatus(): min-replicas-to-write asks for
  // replicas this server does not have, so writes are refused with
  // kNoReplicasError.
  bool lacks_good_replicas() const {
    return config_.min_replicas_to_write > 0 && config_.min_replicas_max_lag_s > 0;
  }
  // After ACL SETUSER / DELUSER: whether commands need an ACL check.
  void note_acl_change();
  static constexpr std::string_view kNoReplicasError =
      "NOREPLICAS Not enough good replicas to write.";
  // Server-clock time (ms) the server was created: INFO's uptime.
  int64_t start_ms() const { return start_ms_; }
  // Server-clock time (ms) of the last SAVE/BGSAVE (LASTSAVE), the start
  // until then; the fake persists nothing, so a save completes at once.
  int64_t last_save_ms() const { return last_save_ms_ < 0 ? start_ms_ : last_save_ms_; }
  void note_save(int64_t now_ms) { last_save_ms_ = now_ms; }
  uint64_t connections_received() const { return next_session_id_ - 1; }
  // Redis's server.dirty, INFO's rdb_changes_since_last_save: the changes
  // to the data set since the last save (never negative). Each command adds
  // what its Redis counterpart adds (`server.dirty++` / `+= n` in Redis 7.0's
  // t_*.c, db.c, bitops.c: mostly one per modified key, one per element for
  // HSET, LPUSH, pops, SADD, SREM, ZADD, ZREM, LREM, LTRIM, HDEL, BITFIELD);
  // FLUSHALL with `save` parameters set and DEBUG RELOAD reset it to 0.
  int64_t dirty() const { return dirty_; }

  // Redis's ACLLoadUsersAtStartup (src/acl.c): the config file's `user`
  // lines (each "name rule...", "default" reset first), else the users of
  // `aclfile` (a path, "" for none; ACL LOAD and SAVE use it too). Returns
  // "" or the error Redis exits with. Defined in sim/cmd_acl.cc.
  std::string load_acl_users(const std::vector<std::string>& user_lines,
                             const std::string& aclfile);

  // The server's own random stream, seeded from options.seed: a uniform
  // value in [0, n) (0 when n == 0). Drives SPOP, SRANDMEMBER, HRANDFIELD
  // and RANDOMKEY, so a seed replays their choices exactly. Algorithm:
  // splitmix64 (Steele, Lea & Flood 2014) with Lemire's unbiased
  // multiply-shift rejection.
  uint64_t random_below(uint64_t n);

  // sim/'s own access to the server's internals (the command families, the
  // Lua engine's redis.call): defined in sim/internal.h, which is not
  // installed; not part of the API.
  struct Internal;

 private:
  friend class Session;
  // redis.call / redis.pcall from a running script: the same command table,
  // with the script rules applied (no-script commands refused, writes refused
  // when `read_only`), at the script's frozen time (Internal, for sim/lua).
  resp::Reply execute_from_script(Session& session, const Argv& argv, bool read_only);
  // The same with argv[0] already looked up in commands() (`command.spec`
  // non-null): redis.call keeps the lookup of each command name it sees.
  resp::Reply execute_from_script(Session& session, const CommandTable::Lookup& command,
                                  const Argv& argv, bool read_only);
  // processCommand's maxmemory check: the -OOM reply when `argv` must be
  // refused, else nullopt (also records script_oom_ for EVAL).
  std::optional<resp::Reply> check_oom(Session& session, const CommandSpec& spec, const Argv& argv);
  void evict_to_fit();
  uint64_t evicted_keys_ = 0;
  bool evicting_ = false;
  // processCommand (client) or scriptCall (redis.call): lookup, arity and
  // the state checks, then call().
  resp::Reply dispatch(Session& session, const Argv& argv, bool in_script, bool read_only);
  resp::Reply dispatch(Session& session, const CommandTable::Lookup& command, const Argv& argv,
                       bool in_script, bool read_only);
  // Runs the handler with the time frozen (read once by the outermost call).
  resp::Reply call(Session& session, const CommandTable::Lookup& command, const Argv& argv,
                   bool in_script);
  void count_error(std::string_view text);
  resp::Reply note_script_error(resp::Reply reply);
  void note_client_reply(bool exec, const resp::Reply& reply);
  void note_client_reply(const Argv& argv, const resp::Reply& reply);
  // The ACL verdict on `session`'s user running argv (sim/acl.h).
  AclCheck acl_check(const Session& session, const CommandTable::Lookup& command,
                     const Argv& argv) const;
  // "get", "config|get": a container's known subcommand joined to it.
  std::string full_name(const CommandSpec& spec, const Argv& argv) const;
  // After a client's command ran for duration_us: its latency histogram,
  // SLOWLOG and LATENCY (sim/monitor.h).
  void record_duration(Session& session, const CommandSpec& spec, const Argv& argv,
                       CommandStats& stats, int64_t end_us, int64_t duration_us);
  void disconnect(Session& session);
  // After a command ran (call()): CLIENT TRACKING's trackingRememberKeys.
  void remember_tracked_keys(Session& session, const CommandSpec& spec, const Argv& argv,
                             bool in_script);
  // After a top-level command: CLIENT CACHING's flag ends, held
  // invalidations go out, BCAST messages are sent.
  void finish_tracking(Session& session, const Argv& argv);

  Clock& clock_;
  ServerOptions options_;
  // Every Server shares one table, built on first use and read-only after
  // (standard_command_table() in server.cc): building it cost a new Server
  // about 240 registrations, a fifth of an exploration run's or a fuzz
  // input's setup.
  const CommandTable& commands_;
  std::unique_ptr<Keyspace> keyspace_;
  std::unique_ptr<PubSub> pubsub_;
  std::unique_ptr<ScriptEngine> scripts_;
  std::unique_ptr<Monitor> monitor_;  // SLOWLOG, LATENCY
  std::unique_ptr<Blocking> blocking_;
  std::unique_ptr<Tracking> tracking_;
  std::unique_ptr<AclUsers> acl_;  // ACL SETUSER's users (sim/acl.h)
  bool acl_default_all_ = true;    // "default" may run anything: no check needed
  bool auth_required_ = false;     // see auth_required()
  std::map<std::string, uint64_t, std::less<>> error_stats_;
  uint64_t total_error_replies_ = 0;
  std::vector<std::string> script_errors_;  // counted in the running command's scripts
  ServerConfig config_;
  std::map<uint64_t, Session*> sessions_;
  int64_t start_ms_;
  int64_t dirty_ = 0;  // see dirty()
  int64_t last_save_ms_ = -1;
  uint64_t next_session_id_ = 1;
  uint64_t commands_processed_ = 0;
  std::map<std::string, CommandStats, std::less<>> command_stats_;
  // command_stats_'s entry of each command without subcommands, by
  // CommandTable index (null until its first run): every command counts
  // itself, so the name is not looked up each time. Emptied with
  // command_stats_ (map entries keep their address until then).
  std::vector<CommandStats*> stats_by_index_;
  CommandStats& stats_of(const CommandTable::Lookup& command, const Argv& argv);
  int64_t frozen_ms_ = -1;      // >= 0 while a command runs
  Argv* consumable_ = nullptr;  // the argv of execute_consuming, while it runs
  // A script's SELECT changes the db for the rest of the script only; the
  // command that ran the script restores the caller's db when this is set.
  bool script_changed_db_ = false;
  ReplicationHooks replication_;
  int call_depth_ = 0;
  uint64_t random_state_;  // splitmix64 state, see random_below()
  BusyScriptHandler busy_script_handler_;
  ScriptCallLog* script_call_log_ = nullptr;
  StopCheck stop_check_;
  ConfigChangeHandler config_change_handler_;
  bool shutdown_requested_ = false;
  bool kill_requests_ = false;  // see take_kill_requests()
  // Redis's server.script_oom: out of memory when the running EVAL started.
  bool script_oom_ = false;
  // Redis's server.current_client: the session whose top-level command runs
  // (nullptr between commands); and the client whose command writes now
  // (nullptr inside a script, as Redis's lua client), for CLIENT TRACKING.
  Session* current_ = nullptr;
  Session* writer_ = nullptr;
  // While a blocked client's command is served, its own pushes are held
  // here for Unblocked::pushes (Session::push looks).
  Session* deferring_ = nullptr;
  std::map<uint64_t, std::vector<resp::Reply>> deferred_pushes_;
  // The argv of the innermost command a client sent (EXEC's queued
  // command, EVAL): the keys a read in a script makes tracked.
  const Argv* caller_argv_ = nullptr;
  const CommandSpec* caller_spec_ = nullptr;
};

}  // namespace redsim::sim
