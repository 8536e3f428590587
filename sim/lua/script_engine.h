// ScriptEngine: EVAL on a real Lua 5.4 interpreter (the C++ build, so C++
// destructors run when Lua raises) made to behave like Redis 7.0's Lua 5.1.
// One Lua state per Server; scripts compiled once (text chunks only) and
// cached by SHA1; EVAL caches too, so EVALSHA works after EVAL.
//
//   // Registered by register_script_commands(); the Server calls:
//   Reply r = ServerAccess::scripts(server).eval(ctx, /*by_sha=*/false, /*read_only=*/false);
//
// What a script sees (all checked against redis-server 7.0.15):
// - globals: exactly Redis 7.0's set (no io, os, print, require, dofile,
//   loadfile); reading an unknown global raises "Script attempted to access
//   nonexistent global variable 'x'", writing any global or library table
//   raises "Attempt to modify a readonly table"; KEYS and ARGV hold exactly
//   this call's keys and arguments.
// - 5.1 names and behaviour: unpack, loadstring, table.getn/maxn/foreach,
//   math.mod/pow/log10/atan2, string.gfind, 5.1 number printing in tostring
//   and string.format ("%.14g": tostring(10/2) is "5"), error(12) with a
//   position, Redis's pcall (redis.call errors come back as strings), bit
//   (LuaBitOp), cjson, cmsgpack, struct, Redis's rand48 math.random.
// - redis.call/pcall/error_reply/status_reply/sha1hex/log/setresp(2), the
//   LOG_* and REPL_* constants, REDIS_VERSION "7.0.15".
// - "#!lua flags=no-writes,..." shebang lines, with Redis 7.0's errors
//   ("Unexpected engine in script shebang: ...", "Unknown lua shebang
//   option: ...", "Unexpected flag in script shebang: ...", "Invalid script
//   shebang"); no-writes refuses writes as EVAL_RO does; allow-oom lets a
//   script write past maxmemory. allow-stale, no-cluster and
//   allow-cross-slot-keys are accepted and change nothing (no replicas or
//   cluster here).
// - redis.setresp(3): replies of redis.call reach the script in Redis 7.0's
//   RESP3 forms ({map=...}, {set=...}, {double=n}, {big_number=s},
//   {verbatim_string={format=, string=}}, booleans, null as nil); returned
//   tables of those forms become RESP3 replies (RESP2 clients get the
//   RESP2 form), and booleans RESP3 booleans. Each script starts at RESP2.
//
// Functions (sim/lua/functions.cc): FUNCTION LOAD [REPLACE] of a
// "#!lua name=<lib>" library whose code calls redis.register_function
// (name, callback) or {function_name=, callback=, description=, flags={
// no-writes, allow-oom, allow-stale, no-cluster, allow-cross-slot-keys}};
// FCALL / FCALL_RO name numkeys keys... args... (the callback gets the two
// tables as arguments); LIST [LIBRARYNAME pattern] [WITHCODE], DELETE,
// FLUSH, DUMP / RESTORE [FLUSH|APPEND|REPLACE] (redsim's own checksummed
// payload, see functions.cc), STATS, KILL. Functions run in a Lua state of
// their own with the same sandbox, 5.1 rules and limits; error replies
// name the function ("script: f1, on @user_function:2."). While a function
// is busy others get "-BUSY ... You can only call FUNCTION KILL or SHUTDOWN
// NOSAVE." and SCRIPT KILL answers that too; FUNCTION KILL while an EVAL
// script is busy answers the SCRIPT KILL text. allow-stale and no-cluster
// change nothing (no replicas, no cluster).
//
// Limits (see "Script limits" in sim/server.h):
// - Time: busy-reply-threshold (CONFIG SET busy-reply-threshold /
//   lua-time-limit, default 5000 ms, 0 = off). A count hook runs every
//   kHookInstructions Lua instructions and measures the script's run time:
//   in the simulation (ServerOptions::script_time = kInstructions) virtual
//   time charged at ServerOptions::lua_instructions_per_ms (default
//   200,000 instructions = 1 ms; redis.call's own work is not charged), on
//   the wall clock (kClock, redsim server --clock real) real time. Past the
//   threshold the server's busy-script handler runs from the hook: others
//   get -BUSY, SCRIPT KILL ends the script ("ERR Script killed by user with
//   SCRIPT KILL... script: <sha>, on @user_script:<line>."), -UNKILLABLE
//   once it wrote, -NOTBUSY when no script runs.
// - Memory: a script may grow the Lua heap's live data by at most
//   ServerOptions::lua_memory_limit_bytes (default 128 MB, 0 = no cap) over
//   the live data at its start (measured after a full collection, run when
//   more than 64 KB were allocated since the last one, so garbage earlier
//   scripts left does not move the cap by more than that); past it
//   allocations fail (after an emergency collection) and the script answers
//   "ERR Script exceeded the Lua memory limit of <n> bytes script: <sha>"
//   (our text: Redis has no cap). A script's pcall can catch the failure
//   ("not enough memory"), as any Lua error. The state stays usable.
// Errors: a failing script answers Redis 7.0's text, e.g.
//   "ERR user_script:1: Script attempted to access nonexistent global
//    variable 'x' script: <sha>, on @user_script:1."
//   "ERR Error compiling script (new function): user_script:1: ..."
//
// Known differences from Redis 7.0 (Lua 5.4 underneath):
// - Numbers: every number literal is a float (5.1 has only doubles), so
//   arithmetic never wraps (65536*65536*65536*65536 is 1.8e19) and x % 0
//   is nan; each `..` chain is compiled as one call that prints numbers as
//   5.1 does and names a bad operand as 5.1 does ("attempt to concatenate
//   local 'x' (a nil value)"; sim/lua/source51.cc, concat51.cc). Values
//   library functions return (#t, string.len, reply integers below 10^14)
//   are still 5.4 integers: arithmetic on two of them past 2^63 wraps, and
//   % 0 on two of them raises. 5.4's VM coercion of a number to a string
//   outside `..` and the string library (e.g. a number as a pattern of
//   string.find) prints an integral float as "5.0". 5.1 shares one constant
//   for 0 and -0 within a function (`local z = 0 return tostring(-0)` is
//   "0" there); here -0 is always -0.
// - 5.3+ syntax (// & | ~ << >> :: goto <const> <close>) fails to compile
//   with 5.1's message (sim/lua/source51.cc, a tokenizer run before 5.4
//   compiles; checked against redis-server 7.0.15 in lua51_real_test.cc);
//   `goto` is an ordinary name as in 5.1 (but `t:goto()` does not compile);
//   _ENV keeps its 5.4 meaning; "break" outside a loop and some other
//   parser messages are worded differently.
// - Call depth: "stack overflow" at 5.1's depth (16,381 nested Lua calls
//   on a fresh state, 19,997 after the first overflow); unpack gives at
//   most 5.1's 8,000 stack slots ("too many results to unpack").
// - Arithmetic on a non-numeric string names no variable ("attempt to
//   perform arithmetic on a string value", 5.1 adds "field '?'" etc.).
// - cmsgpack and struct are Redis's byte for byte (checked over 600 seeded
//   scripts); cmsgpack packs a map in Lua 5.1's table order, rebuilt from
//   the keys (sim/lua/cmsgpack.cc): exact unless two keys collide in 5.1's
//   node array, where 5.1's order depends on the order the script inserted
//   them (9 of 14 map shapes tried match redis-server 7.0.15; 3 of the
//   first 12 did before, in an order that changed from run to run with
//   5.4's seeded string hashes). SCRIPT DEBUG YES is refused;
//   math.random is Redis's rand48 from its standard initial state, one
//   sequence per server (Redis: per process), never reseeded but by
//   math.randomseed;
//   error({}) answers "ERR unknown error" (redis-server 7.0.15 crashes).
// - Script time in the simulation is instruction-charged, not measured
//   (see Limits); Redis's hook runs every 100,000 instructions, ours every
//   10,000, so BUSY may start up to one hook period apart. SHUTDOWN NOSAVE
//   ends a busy script, even after writes; so does a transport that stops
//   (Server::set_stop_check, checked even with busy-reply-threshold 0).
//   After a kill every instruction raises (Redis raises on every new line):
//   either way a pcall in the script cannot keep it alive.
// - Better than Redis 7.0: an xpcall message handler never runs for a
//   kill, so xpcall(function() while true do end end, function(e) while
//   true do end end) is killable (Redis 7.0.15 hangs: its hook is off while
//   the handler of an error raised by the hook runs).
// - maxmemory (noeviction): a shebang script without allow-oom or
//   no-writes is refused with -OOM at once, as Redis refuses such an EVAL;
//   other scripts get -OOM from their first denyoom redis.call before any
//   write (Redis's scriptVerifyOOM).
// - The Lua memory cap (Redis has none) may fail a script Redis would run.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>

#include "sim/command.h"
#include "sim/resp/reply.h"

namespace redsim::sim {

class ScriptEngine {
 public:
  explicit ScriptEngine(Server& server);
  ~ScriptEngine();
  ScriptEngine(const ScriptEngine&) = delete;
  ScriptEngine& operator=(const ScriptEngine&) = delete;

  // EVAL / EVAL_RO (by_sha = false) and EVALSHA / EVALSHA_RO (by_sha = true),
  // ctx.argv exactly as the client sent it. Never throws: bad input and
  // script errors are error replies with Redis 7.0's text.
  resp::Reply eval(CommandContext& ctx, bool by_sha, bool read_only);
  // SCRIPT LOAD | EXISTS | FLUSH [ASYNC|SYNC] | KILL | DEBUG | HELP.
  resp::Reply script_command(CommandContext& ctx);
  // True while a script runs (redis.call re-enters the server).
  bool running() const;

  // ---- Limits of the running script (see "Script limits" in sim/server.h).
  // Lua instructions between two calls of the hook that charges a script's
  // time and lets others in while it is busy (Redis's hook runs every
  // 100,000; finer here so the simulated time moves in 0.05 ms steps at
  // the default rate).
  static constexpr int kHookInstructions = 10'000;
  // True while the running script has run at least busy-reply-threshold ms:
  // the server answers other clients BUSY.
  bool busy() const;
  // The running script's run time so far in ms (0 when none runs), measured
  // as ServerOptions::script_time says.
  int64_t elapsed_ms() const;
  // SCRIPT KILL: +OK and the running script fails at its next hook with
  // "ERR Script killed by user with SCRIPT KILL..."; "-NOTBUSY No scripts in
  // execution right now." when none runs; "-UNKILLABLE Sorry the script
  // already executed write commands ..." after a write, unless `force`
  // (a transport shutting down ends the script even then).
  resp::Reply kill(bool force = false);
  // Called by the server when the running script's redis.call runs a write
  // command (Redis's SCRIPT_WRITE_DIRTY: SCRIPT KILL is refused from then on).
  void note_write();
  // True once the running script called a write command (false when none runs).
  bool wrote() const;
  // True when the running script's shebang has allow-oom.
  bool allows_oom() const;

  // ---- Functions (Redis 7.0's FUNCTION and FCALL; sim/lua/functions.cc).
  // FCALL / FCALL_RO (read_only), ctx.argv as sent: "ERR Function not
  // found", Redis's numkeys errors, -OOM, "ERR Can not execute a script
  // with write flag using *_ro command.", else the function's reply.
  resp::Reply fcall(CommandContext& ctx, bool read_only);
  // FUNCTION LOAD [REPLACE] | LIST [LIBRARYNAME p] [WITHCODE] | DELETE |
  // FLUSH [ASYNC|SYNC] | DUMP | RESTORE p [FLUSH|APPEND|REPLACE] | STATS |
  // KILL | HELP, with Redis 7.0.15's replies and error texts.
  resp::Reply function_command(CommandContext& ctx);
  // True while a function (not an EVAL script) runs.
  bool function_running() const;
  // What other clients get while a script is busy: Redis's BUSY text
  // naming SCRIPT KILL for an EVAL script, FUNCTION KILL for a function.
  std::string_view busy_error() const;
  // Number of libraries loaded.
  size_t library_count() const;

  // Number of cached scripts (SCRIPT FLUSH empties the cache).
  size_t script_count() const;
  // The last lines scripts passed to redis.log (at most 256, oldest first),
  // each the arguments after the level joined by spaces.
  const std::deque<std::string>& log() const;

 private:
  struct Impl;
  struct Functions;
  // The engine whose script runs now (EVAL's or the functions'), or null.
  Impl* active() const;
  // The functions' engine, opened on first use.
  Functions& functions(Server& server);
  std::unique_ptr<Impl> impl_;
  std::unique_ptr<Functions> functions_;
};

}  // namespace redsim::sim
