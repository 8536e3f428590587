// The command table of the fake server: one CommandSpec per Redis command,
// with Redis 7.0's arity convention and the flags the dispatcher enforces.
// Each family registers itself from its own file (cmd_string.cc, ...).
//
// Source: the arity and flags of each command in Redis 7.0's COMMAND INFO /
// src/commands/*.json (facts only).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/resp/reply.h"

namespace redsim::sim {

class Server;
class Session;
using Argv = std::vector<std::string>;

enum CommandFlag : uint32_t {
  kCmdWrite = 1u << 0,     // may modify data: refused by EVAL_RO / read-only scripts
  kCmdReadonly = 1u << 1,  // reads data only
  kCmdNoScript = 1u << 2,  // refused inside EVAL: "This Redis command is not allowed from script"
  kCmdPubSub = 1u << 3,    // allowed while a RESP2 session is subscribed
  kCmdNoMulti = 1u << 4,   // runs at once inside MULTI instead of being queued (EXEC, DISCARD, ...)
  kCmdFast = 1u << 5,      // informational, as Redis's @fast
  kCmdMayReplicate = 1u << 6,  // PUBLISH: not a write, yet refused by read-only scripts (7.0)
  kCmdContainer = 1u << 7,  // has subcommands (CLIENT, CONFIG): CLIENT LIST shows cmd=client|list
  // May grow memory: refused with -OOM while used memory > maxmemory under
  // the noeviction policy (Redis's denyoom; see Server::used_memory_bytes).
  kCmdDenyOom = 1u << 8,
  // Redis's no_multi (SHUTDOWN): refused inside MULTI with "ERR Command not
  // allowed inside a transaction" (kCmdNoMulti is another thing: run at once).
  kCmdDenyInMulti = 1u << 9,
};

struct CommandContext {
  Server& server;
  Session& session;
  const Argv& argv;  // argv[0] is the command name as the client sent it
  int64_t now_ms;    // the command's time: frozen for the whole command and its script
  bool in_script;    // called through redis.call / redis.pcall
  // Set when the handler may move argument strings out of argv instead of
  // copying them (Server::execute_consuming; never for EXEC's queue or a
  // script's redis.call).
  Argv* consumable = nullptr;
  // The changes this command counts towards Redis's server.dirty (INFO's
  // rdb_changes_since_last_save), when the handler counts them itself as
  // Redis does per element (`server.dirty += n`); -1: the default, one
  // change per key the command modified or deleted (signalModifiedKey).
  int64_t dirty = -1;

  void add_dirty(int64_t n) { dirty = (dirty < 0 ? 0 : dirty) + n; }

  // argv[i]'s bytes: moved out when allowed (argv[i] is then left
  // unspecified: take an argument last, after every other use), else copied.
  std::string take_arg(size_t i) {
    return consumable != nullptr ? std::move((*consumable)[i]) : argv[i];
  }
};

using CommandHandler = resp::Reply (*)(CommandContext& ctx);

struct CommandSpec {
  std::string_view name;  // lower case: "get", "script" (subcommands dispatched by the handler)
  int arity;              // Redis convention: N > 0 exactly N args (name included), -N at least N
  uint32_t flags;
  CommandHandler handler;
};

// One subcommand of a container command (CONFIG GET, SCRIPT KILL): Redis 7.0
// looks these up as commands of their own, so a script is refused or
// allowed per subcommand (CONFIG HELP runs in a script, CONFIG GET does
// not) and an unknown one is an unknown command there. Top-level arity and
// unknown-subcommand errors stay the container handler's business.
struct SubcommandSpec {
  std::string_view name;  // lower case: "get"
  int arity;              // as CommandSpec::arity, the container's name included
  uint32_t flags;
};

class CommandTable {
 public:
  void add(const CommandSpec& spec);
  // Registers the subcommands of `container` (already added; the table
  // keeps the span: pass static storage).
  void add_subcommands(std::string_view container, std::span<const SubcommandSpec> subs);
  // Case-insensitive; nullptr when `spec` has no subcommand table or none
  // is named `sub`. has_subcommands tells the two apart.
  bool has_subcommands(const CommandSpec& spec) const;
  const SubcommandSpec* find_subcommand(const CommandSpec& spec, std::string_view sub) const;
  // The subcommands of `spec` as registered (empty when it has none).
  std::span<const SubcommandSpec> subcommands(const CommandSpec& spec) const;
  size_t size() const { return entries_.size(); }
  // Every command, in no particular order (COMMAND, COMMAND DOCS).
  template <typename Fn>
  void for_each(Fn&& fn) const {
    for (const auto& entry : entries_) fn(entry->spec);
  }
  // Case-insensitive lookup; nullptr when unknown. The pointer stays valid
  // for the table's life.
  const CommandSpec* find(std::string_view name) const;

  // find() plus what the dispatcher asks of every command, in one probe:
  // whether it has a subcommand table (has_subcommands) and its index, a
  // number in [0, size()) fixed for the table's life (the server keeps its
  // INFO commandstats entry by it). spec is nullptr when unknown.
  struct Lookup {
    const CommandSpec* spec = nullptr;
    uint32_t index = 0;
    bool container = false;
  };
  Lookup lookup(std::string_view name) const;

 private:
  // Every command runs through find() (a script's redis.call too), so the
  // lookup is an open-addressing table hashed case-insensitively in one
  // pass over the name: no lower-cased copy, no library hash call.
  struct Entry {
    CommandSpec spec;  // spec.name is lower case
    uint64_t hash = 0;
    uint32_t index = 0;      // in entries_
    bool container = false;  // has a Container (add_subcommands)
  };
  struct Container {
    std::string_view name;  // the container's CommandSpec::name
    std::span<const SubcommandSpec> subs;
  };
  Entry* find_entry(std::string_view name) const;
  const Container* container_of(const CommandSpec& spec) const;
  void rehash();

  std::vector<std::unique_ptr<Entry>> entries_;  // stable addresses: find() hands them out
  std::vector<uint32_t> slots_;                  // index + 1 into entries_, 0 when empty
  std::vector<Container> containers_;            // a handful (CLIENT, CONFIG, SCRIPT, ...)
};

// Registration, one per family (each in its own cmd_*.cc).
void register_server_commands(
    CommandTable& table);                         // PING ECHO SELECT FLUSH* DBSIZE TIME DEBUG ...
void register_key_commands(CommandTable& table);  // TYPE EXISTS DEL UNLINK, EXPIRE family, TTL ...
void register_string_commands(CommandTable& table);  // SET GET INCR ...
void register_hash_commands(CommandTable& table);    // HSET HGET HINCRBY ...
void register_list_commands(CommandTable& table);    // LPUSH LPOP LRANGE LMOVE ...
void register_set_commands(CommandTable& table);     // SADD SREM SMEMBERS SPOP ...
void register_zset_commands(CommandTable& table);    // ZADD ZRANGE ZPOPMIN ...
void register_pubsub_commands(CommandTable& table);  // PUBLISH SUBSCRIBE ...
void register_multi_commands(CommandTable& table);   // MULTI EXEC DISCARD WATCH UNWATCH
void register_script_commands(CommandTable& table);  // EVAL EVALSHA *_RO SCRIPT (sim/lua/)
// FUNCTION FCALL FCALL_RO (sim/lua/functions.cc)
void register_function_commands(CommandTable& table);
void register_connection_commands(
    CommandTable& table);  // HELLO CLIENT CONFIG INFO COMMAND FUNCTION REDSIM.ADVANCE (cmd_admin.h)

// BLPOP BRPOP BLMOVE BRPOPLPUSH LMPOP BLMPOP BZPOPMIN BZPOPMAX ZMPOP BZMPOP
// (cmd_blocking.cc).
void register_blocking_commands(CommandTable& table);
// XADD XRANGE XREAD XGROUP ... (cmd_stream.cc).
void register_stream_commands(CommandTable& table);
// WAIT (cmd_replication.cc).
void register_replication_commands(CommandTable& table);
void register_memory_commands(CommandTable& table);  // MEMORY (sim/cmd_memory.cc)
// SAVE BGSAVE BGREWRITEAOF LASTSAVE LOLWUT MODULE (sim/cmd_persistence.cc).
void register_persistence_commands(CommandTable& table);

}  // namespace redsim::sim
