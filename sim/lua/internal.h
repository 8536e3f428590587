// Internals of the Lua engine shared by the files of sim/lua/: the per-state
// context the redis.* functions reach through lua_getextraspace, the value
// conversions between Lua and Reply, and the pieces of the 5.1 sandbox.
// Not a public header: only sim/lua/*.cc include it.
//
// Lua here is the C++ build of 5.4 (lua5.4-c++): lua_error throws a C++
// exception, so every function below that may raise relies on RAII only,
// and none catches `...` around a Lua API call.
#pragma once

#include <cstdint>
#include <deque>
#include <lua.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/sha1.h"
#include "sim/command.h"
#include "sim/resp/reply.h"

namespace redsim::sim::lua {

// The limits' view of the script that is running (script_engine.cc).
struct ScriptRun {
  int64_t start_us = 0;      // server clock when the script started (ScriptTime::kClock)
  int64_t instructions = 0;  // Lua instructions counted by the hook so far
  bool busy = false;         // ran for busy-reply-threshold ms: others get BUSY
  bool killed = false;       // SCRIPT KILL accepted: the script fails at the next hook
  bool wrote = false;        // called a write command (Redis's SCRIPT_WRITE_DIRTY)
  int depth_skip = 0;        // calls before the call hook measures the depth again
};

// What redis.call and friends need while a script runs. One per lua_State,
// reached with state_of(L); owned by ScriptEngine::Impl.
struct EngineState {
  Server* server = nullptr;
  Session* session = nullptr;  // the EVAL caller while a script runs, else null
  bool read_only = false;      // EVAL_RO / EVALSHA_RO / shebang no-writes
  bool allow_oom = false;      // shebang allow-oom: writes past maxmemory
  // math.random's state (Redis's redisLrand48): a process global in Redis,
  // so one per server here, kept across SCRIPT FLUSH; it starts from
  // rand48's standard initial value X = 0x1234ABCD330E, never reseeded by
  // Redis (redis-server 7.0.15's first math.random() after start is
  // 0.39646477363839, then 0.84048536971234, from script to script).
  uint64_t rand48 = 0x1234ABCD330EULL;
  Argv argv;  // scratch argv reused by redis.call
  // redis.call's command lookups, indexed by the address of the name's Lua
  // string (a script's literal 'hincrby' is one interned string for as long
  // as its chunk lives). A hit is checked against the command's own name, so
  // an address reused by another string costs a lookup, never a wrong command.
  static constexpr size_t kCommandHints = 32;  // a power of two
  CommandTable::Lookup command_hints[kCommandHints];
  std::deque<std::string> log;  // redis.log lines, newest last, bounded
  ScriptRun run;                // reset when a script starts
  int resp = 2;                 // redis.setresp: how redis.call replies reach the script
  // While FUNCTION LOAD runs a library's code: where redis.register_function
  // puts what it registers (null otherwise: registering then fails).
  struct LibraryLoad* load = nullptr;
  bool frames_grown = false;  // a script of this state overflowed the call depth
};

// A function redis.register_function registered (functions.cc).
struct RegisteredFunction {
  std::string name;
  std::string description;
  bool has_description = false;
  uint32_t flags = 0;   // ScriptFlag bits
  int ref = LUA_NOREF;  // the callback, in the registry
};
struct LibraryLoad {
  std::vector<RegisteredFunction> functions;  // in registration order
};

inline EngineState*& state_slot(lua_State* L) {
  return *static_cast<EngineState**>(lua_getextraspace(L));
}
inline EngineState& state_of(lua_State* L) { return *state_slot(L); }

// ---- conversions.cc -------------------------------------------------------

// Redis reply -> Lua value (the redis.call result rules of Redis 7.0, RESP2):
// integer -> number, bulk -> string, nil bulk / nil array -> false, array ->
// table, status -> {ok=s}, error -> {err=s}. Pushes exactly one value.
// Integers of 15+ digits become floats, as every 5.1 number is a double.
void push_reply(lua_State* L, const resp::Reply& reply);

// Pushes {err=text} after Redis's error normalisation: a leading '-' is
// dropped, a text without a code gets "ERR ", trailing CR/LF trimmed. With
// `from_call` the table also carries ignore_error_stats_update=true, as the
// tables redis.call / redis.pcall produce do.
void push_error_table(lua_State* L, std::string_view text, bool from_call);
// push_error_table(L, text, true) then lua_error: what redis.call raises.
[[noreturn]] void raise_error_table(lua_State* L, std::string_view text);

// Lua value at `idx` -> Redis reply (the script return rules): number ->
// integer by truncation, string -> bulk, true -> 1, false/nil -> nil,
// {err=s} -> error, {ok=s} -> status, other tables -> array up to the first
// nil. Never raises; iterative, so deep tables cannot overflow the C stack.
resp::Reply to_reply(lua_State* L, int idx);

// A Lua number as Redis 7.0's Lua 5.1 turns it into an integer reply: a C
// cast of the double (truncation; NaN and out of range give INT64_MIN, as on
// x86-64).
int64_t number_to_integer(lua_State* L, int idx);

// The C cast (int64_t)d as x86-64 performs it, which is what Redis's 5.1
// does wherever it needs an integer: truncation; NaN and out-of-range
// values give INT64_MIN.
int64_t cast_to_int64(double d);

// Appends a number argument of redis.call as Redis 7.0 formats it ("%.17g").
void append_number_arg(std::string& out, lua_State* L, int idx);

// Lua 5.1's tostring() of the number at idx ("%.14g").
std::string number_to_string51(lua_State* L, int idx);

// Pushes a double as 5.1 code would see it: integral values that fit become
// Lua integers so that `..` and string coercion print "5", not "5.0".
void push_number51(lua_State* L, double value);

// ---- bit.cc ---------------------------------------------------------------

// Pushes the `bit` table (LuaBitOp semantics, 32-bit).
int open_bit(lua_State* L);

// ---- shebang.cc -----------------------------------------------------------

enum ScriptFlag : uint32_t {
  kScriptFlagNoWrites = 1u << 0,
  kScriptFlagAllowOom = 1u << 1,
  kScriptFlagAllowStale = 1u << 2,
  kScriptFlagNoCluster = 1u << 3,
  kScriptFlagAllowCrossSlot = 1u << 4,
};

struct Shebang {
  bool present = false;    // the body starts with "#!"
  uint32_t flags = 0;      // ScriptFlag bits from "flags=a,b"
  size_t code_offset = 0;  // where the Lua code starts (the shebang's '\n')
  std::string error;       // non-empty: Redis's error reply text
};

// Parses Redis 7.0's "#!lua [flags=...]" first line of a script body.
Shebang parse_shebang(std::string_view body);

// ---- source51.cc ----------------------------------------------------------

struct Source51 {
  std::string code;    // what to hand the 5.4 parser (5.1 escapes and numbers)
  std::string error;   // non-empty: 5.3+ syntax, as 5.1 reports it
  int error_line = 0;  // the line of `error`
};

// One lexical pass over a script body (source51.cc has the rules): unknown
// string escapes read as 5.1 reads them; with `number_model` every number
// literal a float (5.1 has only doubles) and every `..` chain a call of
// kConcatName (5.1's number printing), else only integer literals of 2^32
// or more made floats (the compile-error path: 5.4's messages then quote
// the script's own tokens); `goto` as a name renamed kGotoName; and the
// first syntax 5.1 does not have (// & | ~ << >> :: goto, <const>)
// reported as 5.1 does ("user_script:3: unexpected symbol near '&'").
Source51 adapt_source51(std::string_view code, bool number_model = true);

// The variable adapt_source51 gives 5.1's name `goto` (a 5.4 keyword).
inline constexpr std::string_view kGotoName = "__goto";
// The concat function of rewritten `..` chains: a chunk that has any
// starts with "local __redsim_concat51=__redsim_concat51;" (no newline, so
// lines keep their numbers); the globals' __index hands it out without it
// being a global (pairs(_G) does not show it).
inline constexpr std::string_view kConcatName = "__redsim_concat51";

// kConcatName(names, v1, v2, ...): 5.1's `v1 .. v2 .. ...`: numbers printed
// "%.14g", __concat metamethods from the right, and on a value that is
// neither string nor number 5.1's "attempt to concatenate local 'x' (a nil
// value)" with the operand's name taken from `names` ('|'-separated, empty
// for none).
int concat51(lua_State* L);

// ---- cjson_compat.cc ------------------------------------------------------

// Pushes the `cjson` table (Debian's lua-cjson 2.1.0, the version Redis
// embeds) with decode() returning integral numbers as 5.4 integers.
int open_cjson(lua_State* L);

// ---- cmsgpack.cc / struct.cc ------------------------------------------------

// Pushes the `cmsgpack` table (lua-cmsgpack 0.4.0 as Redis ships it).
int open_cmsgpack(lua_State* L);
// Pushes the `struct` table (Roberto's struct library as Redis ships it).
int open_struct(lua_State* L);

// ---- compat51.cc ---------------------------------------------------------

// Replaces, adds and removes functions of the globals table at the top of
// the stack (and of its string, table, math, coroutine tables) so they
// behave as Redis 7.0's Lua 5.1 does. The stack is left as it was.
void install_compat51(lua_State* L);

// ---- math51.cc / string51.cc / table51.cc -----------------------------------

// Redis's redisSrand48(seed) for math.random / math.randomseed.
void seed_rand48(EngineState& state, int32_t seed);
// Replaces the math table at the top of the stack's functions with 5.1's.
void install_math51(lua_State* L);
// Puts 5.1's versions into the string / table library at the top of the
// stack and removes what 5.1 did not have.
void install_string51(lua_State* L);
void install_table51(lua_State* L);

// ---- sandbox.cc -----------------------------------------------------------

// Turns a fresh state (state_slot already set) into Redis 7.0's script
// environment: opens the libraries, adds bit, cjson and redis, applies the
// 5.1 compatibility layer, publishes the error handler as
// __redis__err__handler, then locks everything: afterwards the registry's
// globals table (every chunk's _ENV) is a read-only proxy. Leaves nothing
// on the stack.
void install_sandbox(lua_State* L);

// The message handler EVAL runs scripts under (Redis's __redis__err__handler):
// turns any error object into {err=..., source=..., line=...}.
int error_handler(lua_State* L);

// Pushes the real globals table of a sandboxed state (the one behind the
// read-only _G proxy), where the engine sets KEYS and ARGV.
void push_real_globals(lua_State* L);

// ---- messages51.cc --------------------------------------------------------

// Lua 5.4 runtime error wording -> Lua 5.1's, e.g. "attempt to index a nil
// value (local 'x')" -> "attempt to index local 'x' (a nil value)".
std::string rewrite_message51(std::string_view message);
// Lua 5.4 parser wording -> Lua 5.1's where the two differ only in form,
// e.g. "near <eof>" -> "near '<eof>'".
std::string compile_message51(std::string_view message);

// ---- redis_lib.cc ---------------------------------------------------------

// Pushes the `redis` table: call, pcall, error_reply, status_reply, sha1hex,
// log, setresp, constants, and the no-op replication/debug helpers.
int open_redis(lua_State* L);

// Lower-case hex SHA1 (base/sha1.h: OpenSSL's EVP interface).
using base::sha1_hex;

}  // namespace redsim::sim::lua
