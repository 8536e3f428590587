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
#include <utility>
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
  // The next call event is the run's own function (set just before
  // ScriptEngine::Impl::call's lua_pcall, so no finalizer comes first).
  bool entry_call_pending = false;
};

struct ArithSite51;

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
  // 256 slots chosen by a multiplicative hash of the address: with 32 slots
  // picked by address bits 4-8, two of a lock cycle's six names shared a
  // slot and missed every time (~1.8 lookups a cycle).
  static constexpr size_t kCommandHints = 256;  // a power of two
  CommandTable::Lookup command_hints[kCommandHints];
  std::deque<std::string> log;  // redis.log lines, newest last, bounded
  ScriptRun run;                // reset when a script starts
  int resp = 2;                 // redis.setresp: how redis.call replies reach the script
  // While FUNCTION LOAD runs a library's code: where redis.register_function
  // puts what it registers (null otherwise: registering then fails).
  struct LibraryLoad* load = nullptr;
  bool frames_grown = false;  // a script of this state overflowed the call depth
  // The arithmetic sites (Source51::arith) of the chunk that runs (an EVAL
  // script, a FUNCTION library), for naming operands in string arithmetic
  // errors; null when not known (errors then name no operand).
  const std::vector<ArithSite51>* arith_sites = nullptr;
  // The last string arithmetic error whose 5.1 line (ArithSite51::line51)
  // differs from 5.4's current line, and that line: error_handler's "on
  // @user_script:<line>" takes it for that message.
  std::string arith_error;
  int arith_error_line = 0;
  // The arithmetic sites of the chunks loadstring() compiled, by chunk name
  // (the code itself unless given), newest last, at most kLoadedSites.
  static constexpr size_t kLoadedSites = 16;
  std::vector<std::pair<std::string, std::vector<ArithSite51>>> loaded_sites;
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

// A script used state that scripts share besides keys (math.random's
// stream, loadstring's sites, the grown call depth): noted in the server's
// script call log when one is set (Server::log_script_calls), since two
// such scripts do not commute (sim/world/explore/exhaustive.h, case 16).
// Defined in redis_lib.cc.
void note_shared_state(EngineState& st);

// ---- conversions.cc -------------------------------------------------------

// The number model. In Redis's Lua 5.1 every number is a double; here every
// number a script can see is a 5.4 float, so the VM's arithmetic is 5.1's
// (no integer wrap, x % 0 is nan, -0 exists): literals are compiled as
// floats (source51.cc), `#x` becomes `(#x+0.0)`, `a % b` a call of 5.1's
// modulo (mod51), and every function that hands a number to a script
// pushes a float: our own library functions
// (compat51, string51, table51, math51, bit, cjson, cmsgpack, struct, redis
// constants), the replies of redis.call (push_reply), next/pairs/ipairs
// keys, string arithmetic ("10" * "10"), and the 5.4 originals we keep
// (string.find/match/gmatch/gsub, collectgarbage), which run inside a
// function of ours and have their integer results turned into floats
// (numbers51.cc). Printing goes through number_to_string51 ("%.14g": 3.0
// prints "3"), table keys are normalised by 5.4 (t[1.0] is t[1]), and
// number_to_integer truncates for replies as Redis does.

// Redis reply -> Lua value (the redis.call result rules of Redis 7.0, RESP2):
// integer -> number (a float), bulk -> string, nil bulk / nil array -> false,
// array -> table, status -> {ok=s}, error -> {err=s}. Pushes exactly one
// value.
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

// Pushes a double as 5.1 code sees it: a float (the number model above).
void push_number51(lua_State* L, double value);

// Turns the 5.4 integers among the top n stack values into floats.
void floats_at_top(lua_State* L, int n);

// ---- numbers51.cc -----------------------------------------------------------

// Wraps the 5.4 library functions kept as they are whose results can be
// integers (string.find, match, gmatch and its iterator, gsub;
// collectgarbage) so those become floats and number arguments they read as
// strings print as 5.1 prints them; gives the string metatable arithmetic
// that works on doubles. The globals table is at the top of the stack,
// before install_compat51 replaces what it replaces. Stack unchanged.
void install_numbers51(lua_State* L);

// The number model hands next()'s keys out as floats; 5.4's lua_next wants
// an array key back as an integer. Converts the integral float at idx.
void key_for_next(lua_State* L, int idx);

// kSelfCallName(obj, "name", args...): obj:name(args...), for method names
// 5.4 cannot parse after ':' (`t:goto()`); raises 5.1's "attempt to call
// method 'goto' (a nil value)".
int self_call51(lua_State* L);
inline constexpr std::string_view kSelfCallName = "__redsim_self51";

// kModName(names, a, b): 5.1's `a % b` for numbers (a - floor(a/b)*b),
// strings converted to numbers, else a __mod metamethod, else 5.1's
// "attempt to perform arithmetic on local 'x' (a nil value)" with the
// operand named from `names` ("left|right", as kConcatName's).
int mod51(lua_State* L);
inline constexpr std::string_view kModName = "__redsim_mod51";

// kLenName(name, v): 5.1's `#v`: a table's or string's raw length as a
// number (5.1 never calls a table's __len: redis-server 7.0.15 answers 2
// for `#setmetatable({1,2}, {__len = ...})`), else a __len metamethod,
// else "attempt to get length of local 'x' (a nil value)" with the operand
// named by `name` (empty: "attempt to get length of a nil value").
int len51(lua_State* L);
inline constexpr std::string_view kLenName = "__redsim_len51";

// The function behind a helper name the source rewrite uses
// (kSelfCallName, kModName, kLenName), else null: the globals' __index hands these
// out without their being globals.
lua_CFunction helper51(std::string_view name);

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

// An arithmetic expression of a script (binary + - * / ^, unary -; `%` is
// kModName's) with the names 5.1 gives its operands in an error ("local
// 'x'", "upvalue 'u'", "global 'g'", "field 'f'", "field '?'", or empty
// for a temporary or a constant), from which string_arith51 words 5.1's
// "attempt to perform arithmetic on local 'x' (a string value)".
struct ArithSite51 {
  int line = 0;       // the operator's line: where 5.4 reports the error
  int line51 = 0;     // the operand's last line: where 5.1 reports it
  char op = 0;        // '+', '-', '*', '/', '^', or 'u' for unary minus
  std::string left;   // the operand's name (unary minus: the only one)
  std::string right;  // empty for unary minus
  // The operand is a number literal or an arithmetic, `#` or `not` result:
  // never the operand that failed to convert (tells sites on one line apart).
  bool left_numeric = false;
  bool right_numeric = false;
};

struct Source51 {
  std::string code;    // what to hand the 5.4 parser (5.1 escapes and numbers)
  std::string error;   // non-empty: 5.3+ syntax, as 5.1 reports it
  int error_line = 0;  // the line of `error`
  // With the number model: every arithmetic expression, in source order.
  std::vector<ArithSite51> arith;
};

// One lexical pass over a script body (source51.cc has the rules): unknown
// string escapes read as 5.1 reads them; with `number_model` every number
// literal a float (5.1 has only doubles) and every `..` chain a call of
// kConcatName (5.1's number printing), else only integer literals of 2^32
// or more made floats (the compile-error path: 5.4's messages then quote
// the script's own tokens); `goto` as a name renamed kGotoName; and the
// first syntax 5.1 does not have (// & | ~ << >> :: goto, <const>)
// reported as 5.1 does ("user_script:3: unexpected symbol near '&'").
// Pure in (code, number_model); each thread remembers its last 16 results
// for bodies up to 16 KiB (a world's servers compile the same scripts).
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
// embeds); decode()'s numbers are floats, its errors carry a position.
int open_cjson(lua_State* L);

// ---- cmsgpack.cc / struct.cc ------------------------------------------------

// Pushes the `cmsgpack` table (lua-cmsgpack 0.4.0 as Redis ships it).
int open_cmsgpack(lua_State* L);
// Pushes the `struct` table (Roberto's struct library as Redis ships it).
int open_struct(lua_State* L);

// ---- order51.cc: Lua 5.1's table order, for cmsgpack's maps ------------------

// Registry key (its address) of the weak-keyed table cmsgpack.unpack
// records each decoded map's keys in (map -> sequence of its keys, in
// insertion order).
extern char kInsertionOrderKey;
// The order (indices 0..count-1 into the sequence keys_table holds at that
// stack index) in which Redis's 5.1 lua_next gives the keys of the map at
// stack index `table` that cmsgpack.unpack built: its recorded keys, then
// keys added since (sorted). Empty when the table was not decoded, lost a
// key, or has a key of another type than string, number, boolean.
std::vector<int> recorded_order51(lua_State* L, int table, int keys_table, int count);
// The 5.1 lua_next order of the keys in keys_table (1..count) inserted
// into a fresh table in a fixed sorted order; empty when a key has no 5.1
// hash we can compute (tables, functions as keys).
std::vector<int> order51(lua_State* L, int keys_table, int count);

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
// redis.call and redis.pcall are C closures whose one upvalue is the light
// userdata &kCallMark (see is_marked_c_call).
int open_redis(lua_State* L);

inline constexpr char kCallMark = 0;

// Inside a call hook: true when the function being called is redis.call or
// redis.pcall, told without lua_getinfo (~190 instructions a call). Lua
// 5.4's index2value reads an upvalue pseudo-index of the running frame's
// function: a C closure's upvalue, and nil for a light C function or (in a
// hook) a Lua function, so only our marked closures answer true.
inline bool is_marked_c_call(lua_State* L) {
  return lua_touserdata(L, lua_upvalueindex(1)) == &kCallMark;
}

// Lower-case hex SHA1 (base/sha1.h: OpenSSL's EVP interface).
using base::sha1_hex;

}  // namespace redsim::sim::lua
