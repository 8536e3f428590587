// Internals of ScriptEngine shared by script_engine.cc (EVAL, SCRIPT) and
// functions.cc (FUNCTION, FCALL): the engine's Lua state with its limits,
// one per kind of script (Redis 7.0 too runs functions in a Lua state of
// their own). Not a public header: only sim/lua/*.cc include it.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "sim/args.h"
#include "sim/lua/internal.h"
#include "sim/lua/script_engine.h"
#include "sim/server.h"

namespace redsim::sim {
namespace script_detail {

// Fixed slots at the bottom of the state's stack.
constexpr int kHandlerIndex = 1;   // the error handler
constexpr int kGlobalsIndex = 2;   // the real globals table (KEYS, ARGV are set here)
constexpr int kKeysNameIndex = 3;  // the string "KEYS" (kept: no interning per script)
constexpr int kArgvNameIndex = 4;  // the string "ARGV"
// The _ENV of chunks with ChunkFacts::direct_redis: `redis` is the real
// table, KEYS and ARGV are set here, anything else reads through to the
// real globals (its metatable's __index).
constexpr int kDirectEnvIndex = 5;
constexpr int kBaseTop = kDirectEnvIndex;

// The script cache is keyed by lower-case hex SHA1s: their first 16 digits
// are already uniformly spread, so every EVALSHA need not hash all 40 bytes.
struct ShaHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const {
    if (s.size() != 40) return std::hash<std::string_view>{}(s);
    uint64_t h = 0;
    std::memcpy(&h, s.data(), sizeof h);
    uint64_t l = 0;
    std::memcpy(&l, s.data() + sizeof h, sizeof l);
    return static_cast<size_t>(h ^ (l * 0x9E3779B97F4A7C15ULL));
  }
};

struct CachedScript {
  int ref = LUA_NOREF;       // the compiled chunk, in the registry
  int keys_ref = LUA_NOREF;  // this script's KEYS table from its last call
  int argv_ref = LUA_NOREF;  // and its ARGV table
  uint32_t flags = 0;        // shebang flags
  bool shebang = false;
  // The compiled chunk cannot run kHookInstructions instructions by itself
  // (bounded_chunk): its count hook waits for its first Lua function call.
  bool bounded = false;
  std::vector<lua::ArithSite51> arith;  // the chunk's arithmetic sites (Source51::arith)
  // ChunkFacts::keeps_arrays: a run leaves KEYS and ARGV as filled, so
  // these copies of what they hold are all the next fill has to compare.
  bool keeps_arrays = false;
  bool direct_redis = false;  // ChunkFacts::direct_redis: its _ENV is kDirectEnvIndex's
  // bounded && ChunkFacts::c_calls_only: it runs with no hook at all. The
  // call hook's two jobs cannot arise: it arms the count hook at the first
  // call of a Lua function (there is none to call), and it checks the call
  // depth (a C function called from the chunk calls no Lua: the depth stays
  // at a few frames). A bounded run without Lua calls is never charged
  // instructions, busy or killed either way.
  bool hookless = false;
  std::vector<std::string> keys_held;
  std::vector<std::string> argv_held;
};

// True when `code`, the text handed to the Lua compiler, makes a main
// function that runs fewer than ScriptEngine::kHookInstructions VM
// instructions by itself: at most kBoundedSourceBytes bytes (Lua 5.4 emits
// at most a few instructions per source byte) and none of the words while,
// for, repeat, goto or function outside comments and strings, so no
// instruction of the chunk runs twice (a string holding such a word is
// code only through loadstring(), whose function arms the hook when called).
// Conservative: an unfinished string or comment, or a string continued past
// a line break, answers false.
bool bounded_chunk(std::string_view code);
constexpr size_t kBoundedSourceBytes = 2000;

// True when the compiled chunk at the top of the stack (a main function)
// reads globals and never writes one (no SETTABUP), never takes its _ENV
// as a value (no GETUPVAL or SETUPVAL) and makes no closure (which would
// share its _ENV): read from its bytecode (lua_dump, Lua 5.4's format);
// false for anything unexpected. Such a chunk may run with the real
// globals table as its _ENV instead of the read-only proxy (see compile()).
bool reads_globals_only(lua_State* L);

// What chunk_facts() reads from the compiled chunk at the top of the stack.
struct ChunkFacts {
  bool reads_globals_only = false;  // as reads_globals_only()
  // Also: every global it reads is one of a list that cannot reach the
  // globals table or a table it is not handed (redis, KEYS, ARGV, tonumber,
  // string, ... but not _G, load, loadstring, getmetatable), and KEYS and
  // ARGV are only ever read into a register that the next instruction
  // indexes and overwrites (KEYS[1], ARGV[i]). A run of such a chunk
  // leaves both tables exactly as the engine filled them.
  bool keeps_arrays = false;
  // Also: the only globals it reads are redis, KEYS and ARGV, and each read
  // of redis is a register the next instruction indexes by a constant name
  // and overwrites (redis.call): the chunk may read the real redis table.
  bool direct_redis = false;
  // Also: it indexes nothing but those reads (no SELF, no other GETTABLE,
  // GETI or GETFIELD), so the only functions it can hold are the real redis
  // table's (C functions, see Impl::open) and the only others it can reach
  // are the strings' arithmetic metamethods (C): never a Lua function, as a
  // string method could give (gsub wraps its callback in one). A bounded
  // chunk of this kind needs no hook (see CachedScript::hookless).
  bool c_calls_only = false;
};
ChunkFacts chunk_facts(lua_State* L);

// The line of a compile error "user_script:<line>: ..." (0 if none).
int error_line(const char* msg);
// Text with CR and LF turned into spaces (an error reply is one line).
std::string one_line(std::string text);
// The running script's run time in ms, as ServerOptions::script_time says.
int64_t elapsed_ms(const lua::EngineState& st);
// The hook of a running script: call events check the depth, count events
// charge the time.
void script_hook(lua_State* L, lua_Debug* ar);

// Bytes allocated since the last full collection above which a script with
// a memory cap starts with a full collection (see ScriptEngine::Impl::run).
constexpr size_t kGarbageSlack = 64 * 1024;

// Wraps the allocator luaL_newstate installed, counting the bytes the state
// holds, and refuses to grow past `limit` (Lua then runs an emergency full
// collection and retries once before raising "not enough memory"). Freeing
// and shrinking never fail, as Lua requires.
struct LuaHeap {
  lua_Alloc base = nullptr;
  void* base_ud = nullptr;
  size_t used = 0;
  size_t limit = SIZE_MAX;  // SIZE_MAX outside scripts
  size_t live = 0;          // `used` right after the last full collection
  bool refused = false;     // a growth was refused since the script started

  static void* alloc(void* ud, void* ptr, size_t osize, size_t nsize) {
    auto& heap = *static_cast<LuaHeap*>(ud);
    size_t old = ptr != nullptr ? osize : 0;  // for a new block osize is a type tag
    if (nsize > old && heap.used - old + nsize > heap.limit) {
      heap.refused = true;
      return nullptr;
    }
    void* p = heap.base(heap.base_ud, ptr, osize, nsize);
    if (p != nullptr || nsize == 0) heap.used = heap.used - old + nsize;
    return p;
  }
};

}  // namespace script_detail

using namespace script_detail;  // NOLINT: internal header of sim/lua only

struct ScriptEngine::Impl {
  explicit Impl(Server& server) { state.server = &server; }
  ~Impl() { close(); }

  void open() {
    L = luaL_newstate();
    heap.base = lua_getallocf(L, &heap.base_ud);
    heap.used = static_cast<size_t>(lua_gc(L, LUA_GCCOUNT, 0)) * 1024 +
                static_cast<size_t>(lua_gc(L, LUA_GCCOUNTB, 0));
    heap.limit = SIZE_MAX;
    heap.live = heap.used;
    lua_setallocf(L, &LuaHeap::alloc, &heap);
    lua::state_slot(L) = &state;
    state.frames_grown = false;  // a new state's call frame array is small again
    lua::install_sandbox(L);
    lua_pushcfunction(L, lua::error_handler);  // slot kHandlerIndex
    lua::push_real_globals(L);                 // slot kGlobalsIndex
    lua_pushliteral(L, "KEYS");                // slot kKeysNameIndex
    lua_pushliteral(L, "ARGV");                // slot kArgvNameIndex
    lua_createtable(L, 0, 3);                  // slot kDirectEnvIndex
    lua_pushliteral(L, "redis");
    lua_rawget(L, kGlobalsIndex);  // the read-only proxy of redis
    lua_getmetatable(L, -1);
    lua_getfield(L, -1, "__index");  // the table behind it
    redis_c_only = c_functions_only(L, -1, false);
    lua_setfield(L, kDirectEnvIndex, "redis");
    lua_pop(L, 2);
    lua_pushliteral(L, "");
    lua_getmetatable(L, -1);  // the strings' metamethods (__index: the string table)
    redis_c_only = redis_c_only && c_functions_only(L, -1, true);
    lua_pop(L, 2);
    lua_createtable(L, 0, 1);
    lua_pushvalue(L, kGlobalsIndex);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, kDirectEnvIndex);
  }

  // True when every value of the table at `idx` is a C function, a number,
  // a string or a boolean (or, with `tables`, a table): calling one of
  // them, or a metamethod of a string, runs no Lua function.
  static bool c_functions_only(lua_State* L, int idx, bool tables) {
    const int table = lua_absindex(L, idx);
    bool c_only = true;
    lua_pushnil(L);
    while (lua_next(L, table) != 0) {
      const int type = lua_type(L, -1);
      c_only = c_only &&
               (type == LUA_TFUNCTION ? lua_iscfunction(L, -1) != 0
                                      : type == LUA_TNUMBER || type == LUA_TSTRING ||
                                            type == LUA_TBOOLEAN || (tables && type == LUA_TTABLE));
      lua_pop(L, 1);
    }
    return c_only;
  }

  void close() {
    scripts.clear();
    if (L != nullptr) lua_close(L);
    L = nullptr;
  }

  // Compiles `code` (no shebang) with 5.1's rules as chunk `chunkname`
  // ("@user_script", "@user_function"). LUA_OK leaves the chunk on the
  // stack; otherwise nothing is left and `error` holds the compile message
  // as 5.1 words it ("user_script:1: ...").
  // `bounded` (when given) gets bounded_chunk() of the compiled text,
  // `arith` (when given) the chunk's arithmetic sites (Source51::arith).
  int load_code(std::string_view code, const char* chunkname, std::string& error,
                bool* bounded = nullptr, std::vector<lua::ArithSite51>* arith = nullptr) {
    if (bounded != nullptr) *bounded = false;
    int status;
    if (!code.empty() && code[0] == LUA_SIGNATURE[0]) {
      // Redis's 5.1 parses a precompiled chunk as text and fails on its
      // first byte; 5.4's "attempt to load a binary chunk" would differ.
      lua_pushfstring(L, "%s:1: unexpected symbol near 'char(27)'", chunkname + 1);
      status = LUA_ERRSYNTAX;
    } else {
      lua::Source51 source = lua::adapt_source51(code);
      status = luaL_loadbufferx(L, source.code.data(), source.code.size(), chunkname, "t");
      if (status != LUA_OK) {
        // The message from the script's own tokens, not the rewritten ones.
        lua_pop(L, 1);
        source = lua::adapt_source51(code, /*number_model=*/false);
        status = luaL_loadbufferx(L, source.code.data(), source.code.size(), chunkname, "t");
      }
      // 5.3+ syntax is an error for Redis's 5.1 whether or not 5.4 accepted
      // it; a parse error 5.4 found on an earlier line comes first.
      if (!source.error.empty() &&
          (status == LUA_OK || error_line(lua_tostring(L, -1)) >= source.error_line)) {
        lua_pop(L, 1);
        std::string text = source.error;
        constexpr std::string_view kScriptChunk = "user_script:";
        if (text.starts_with(kScriptChunk)) text.replace(0, kScriptChunk.size() - 1, chunkname + 1);
        lua_pushlstring(L, text.data(), text.size());
        status = LUA_ERRSYNTAX;
      }
      if (status == LUA_OK && bounded != nullptr) *bounded = bounded_chunk(source.code);
      if (status == LUA_OK && arith != nullptr) *arith = std::move(source.arith);
    }
    if (status != LUA_OK) {
      const char* msg = lua_tostring(L, -1);
      error = lua::compile_message51(msg != nullptr ? msg : "unknown error");
      lua_pop(L, 1);
    }
    return status;
  }

  // Compiles `body` (whose SHA1 is `sha`) into the cache. Returns the cached
  // entry, or nullptr with `error` set to the reply text.
  CachedScript* compile(std::string_view body, const std::string& sha, std::string& error) {
    lua::Shebang shebang = lua::parse_shebang(body);
    if (!shebang.error.empty()) {
      error = shebang.error;
      return nullptr;
    }
    std::string message;
    bool bounded = false;
    std::vector<lua::ArithSite51> arith;
    if (load_code(body.substr(shebang.code_offset), "@user_script", message, &bounded, &arith) !=
        LUA_OK) {
      error = one_line("ERR Error compiling script (new function): " + message);
      return nullptr;
    }
    // Every read of a global through the proxy _ENV costs a metamethod
    // hop (redis, KEYS, ARGV: 19 of a lock cycle's 26). A chunk that only
    // reads globals sees the same values from the real table: a name it
    // has is found at once, an unknown one reaches the same __index
    // (nonexistent_global, called with the real table either way), and
    // the chunk has no way to write through or hand out its _ENV; _G and
    // the libraries it reads are still their proxies.
    // A chunk that reads nothing but redis.<name>, KEYS and ARGV (the lock
    // scripts) reads `redis` as the real table: the redis.call hop goes too.
    // It cannot write the table or hand it out: each read of `redis` is
    // indexed and overwritten by the next instruction (ChunkFacts).
    const ChunkFacts facts = chunk_facts(L);
    if (facts.direct_redis) {
      lua_pushvalue(L, kDirectEnvIndex);
      lua_setupvalue(L, -2, 1);
    } else if (facts.reads_globals_only) {
      lua::push_real_globals(L);
      lua_setupvalue(L, -2, 1);
    }
    CachedScript script;
    script.keeps_arrays = facts.keeps_arrays;
    script.direct_redis = facts.direct_redis;
    script.ref = luaL_ref(L, LUA_REGISTRYINDEX);
    script.flags = shebang.flags;
    script.shebang = shebang.present;
    script.bounded = bounded;
    script.hookless = bounded && facts.c_calls_only && redis_c_only;
    script.arith = std::move(arith);
    return &scripts.emplace(sha, script).first->second;
  }

  CachedScript* find(std::string_view sha) {
    auto it = scripts.find(sha);
    return it == scripts.end() ? nullptr : &it->second;
  }

  // Sets the global named at `name_index` to a table holding exactly argv[from, from + count)
  // as an array. The table is the one this script had on its last call
  // when the script left nothing else in it (no extra keys, no metatable):
  // indistinguishable from the fresh table Redis creates, since no script
  // can keep a reference from one call to the next (globals and libraries
  // are read-only), and elements already equal are not pushed again. The
  // lock scripts call with the same key, lease and owner over and over.
  // `name_index` is the stack slot of the global's name (kKeysNameIndex,
  // kArgvNameIndex); the globals table has the field already and no
  // __newindex, so a raw set is what lua_setfield would do.
  // `held` (a script whose chunk keeps its arrays, ChunkFacts::keeps_arrays):
  // what the table holds since its last fill, which no run can have
  // changed; only the elements that differ from it are set.
  void fill_array(int& ref, int name_index, const Argv& argv, size_t from, size_t count,
                  std::vector<std::string>* held, int env_index = kGlobalsIndex) {
    lua_pushvalue(L, name_index);
    if (held != nullptr && ref != LUA_NOREF) {
      lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
      const int t = lua_gettop(L);
      for (size_t i = 0; i < count; ++i) {
        const std::string& s = argv[from + i];
        if (i < held->size() && (*held)[i] == s) continue;
        lua_pushlstring(L, s.data(), s.size());
        lua_rawseti(L, t, static_cast<lua_Integer>(i + 1));
        if (i < held->size()) {
          (*held)[i] = s;
        } else {
          held->push_back(s);
        }
      }
      for (size_t i = count; i < held->size(); ++i) {
        lua_pushnil(L);
        lua_rawseti(L, t, static_cast<lua_Integer>(i + 1));
      }
      held->resize(count);
      lua_rawset(L, env_index);
      return;
    }
    if (held != nullptr) {
      const auto first = argv.begin() + static_cast<std::ptrdiff_t>(from);
      held->assign(first, first + static_cast<std::ptrdiff_t>(count));
    }
    bool fresh = ref == LUA_NOREF;
    if (!fresh) {
      lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
      int t = lua_gettop(L);
      if (lua_getmetatable(L, t)) {
        lua_pop(L, 2);
        fresh = true;
      } else {
        lua_Integer old_len = static_cast<lua_Integer>(lua_rawlen(L, t));
        for (size_t i = 0; i < count; ++i) {
          const std::string& s = argv[from + i];
          auto index = static_cast<lua_Integer>(i + 1);
          bool same = false;
          if (lua_rawgeti(L, t, index) == LUA_TSTRING) {
            size_t len = 0;
            const char* p = lua_tolstring(L, -1, &len);
            same = len == s.size() && std::memcmp(p, s.data(), len) == 0;
          }
          lua_pop(L, 1);
          if (!same) {
            lua_pushlstring(L, s.data(), s.size());
            lua_rawseti(L, t, index);
          }
        }
        for (lua_Integer i = static_cast<lua_Integer>(count) + 1; i <= old_len; ++i) {
          lua_pushnil(L);
          lua_rawseti(L, t, i);
        }
        // Anything after the last element (an index past a hole, a string
        // key) means the script reshaped the table: start over.
        if (count == 0) {
          lua_pushnil(L);
        } else {
          lua_pushinteger(L, static_cast<lua_Integer>(count));
        }
        if (lua_next(L, t) != 0) {
          lua_pop(L, 3);
          fresh = true;
        }
      }
    }
    if (fresh) {
      if (ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, ref);
      lua_createtable(L, static_cast<int>(count), 0);
      for (size_t i = 0; i < count; ++i) {
        const std::string& s = argv[from + i];
        lua_pushlstring(L, s.data(), s.size());
        lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
      }
      lua_pushvalue(L, -1);
      ref = luaL_ref(L, LUA_REGISTRYINDEX);
    }
    lua_rawset(L, env_index);
  }

  resp::Reply run(CommandContext& ctx, CachedScript& script, std::string_view sha, size_t numkeys,
                  bool read_only) {
    const Argv& argv = ctx.argv;
    lua_settop(L, kBaseTop);
    lua_checkstack(L, 8);
    const int env = script.direct_redis ? kDirectEnvIndex : kGlobalsIndex;
    fill_array(script.keys_ref, kKeysNameIndex, argv, 3, numkeys,
               script.keeps_arrays ? &script.keys_held : nullptr, env);
    fill_array(script.argv_ref, kArgvNameIndex, argv, 3 + numkeys, argv.size() - 3 - numkeys,
               script.keeps_arrays ? &script.argv_held : nullptr, env);
    lua_rawgeti(L, LUA_REGISTRYINDEX, script.ref);
    state.arith_sites = &script.arith;
    return call(ctx, 0, sha, read_only, script.bounded, script.hookless);
  }

  // Runs the function below its `nargs` arguments at the top of the stack
  // (above kBaseTop) for ctx's client under the limits; `name` goes into
  // error replies (" script: <name>, on ..."): the SHA1 of an EVAL, a
  // function's name for FCALL.
  // `bounded`: the function is a chunk bounded_chunk() accepted, whose count
  // hook may wait for its first Lua function call (script_hook); `hookless`:
  // it needs no hook at all (CachedScript::hookless).
  resp::Reply call(CommandContext& ctx, int nargs, std::string_view name, bool read_only,
                   bool bounded = false, bool hookless = false) {
    std::string_view sha = name;

    struct RunGuard {
      Impl& impl;
      ~RunGuard() {
        impl.running = false;
        impl.running_argv = nullptr;
        impl.state.session = nullptr;
        impl.state.read_only = false;
        impl.state.allow_oom = false;
        impl.state.arith_sites = nullptr;
        impl.heap.limit = SIZE_MAX;
        lua_sethook(impl.L, nullptr, 0, 0);
      }
    } guard{*this};
    running = true;
    running_argv = &ctx.argv;
    state.session = &ctx.session;
    state.read_only = read_only;
    state.resp = 2;  // each script starts speaking RESP2 (Redis's scriptPrepareForRun)
    state.run = lua::ScriptRun{};
    Server& server = *state.server;
    // As Redis, no hook at all when busy-reply-threshold is 0, unless the
    // owner must be able to stop the script (Server::set_stop_check).
    const bool timed = server.config().busy_reply_threshold_ms > 0 || server.stop_check();
    if (timed && server.options().script_time == ScriptTime::kClock) {
      state.run.start_us = server.clock().now_us();
    }
    if (hookless) {
      lua_sethook(L, nullptr, 0, 0);
    } else if (timed) {
      // Lua 5.4 traps every VM instruction while a count hook is set (5.1
      // only decremented a counter). A bounded chunk runs fewer than
      // kHookInstructions instructions of its own, so the hook could not
      // fire before it calls a Lua function: script_hook sets the count
      // hook at that call, and a run that calls none is never trapped.
      lua_sethook(L, script_hook, bounded ? LUA_MASKCALL : LUA_MASKCALL | LUA_MASKCOUNT,
                  bounded ? 0 : kHookInstructions);
    } else {
      lua_sethook(L, script_hook, LUA_MASKCALL, 0);
    }
    int64_t cap = server.options().lua_memory_limit_bytes;
    heap.refused = false;
    if (cap > 0) {
      // The cap is measured on live data: the garbage earlier scripts left
      // must not move it. A full collection runs when more than
      // kGarbageSlack bytes were allocated since the last one, so the
      // baseline is the live heap within that slack; inside the script
      // Lua's emergency collection before a refusal frees its garbage.
      if (heap.used < heap.live) heap.live = heap.used;
      if (heap.used - heap.live > kGarbageSlack) {
        lua_gc(L, LUA_GCCOLLECT, 0);
        heap.live = heap.used;
      }
      heap.limit = heap.live + static_cast<size_t>(cap);
    }
    // script_hook's arm_count_hook sees the chunk's call first when no count hook is set.
    state.run.entry_call_pending = (lua_gethookmask(L) & LUA_MASKCOUNT) == 0;
    int status = lua_pcall(L, nargs, 1, kHandlerIndex);
    heap.limit = SIZE_MAX;
    resp::Reply reply;
    if (status == LUA_OK) {
      reply = lua::to_reply(L, -1);
    } else if (cap > 0 && (status == LUA_ERRMEM || (status == LUA_ERRERR && heap.refused))) {
      reply = memory_error_reply(sha, cap);
    } else {
      reply = error_reply(sha);
    }
    lua_settop(L, kBaseTop);
    // Give back what the failed script left behind at once.
    if (heap.refused) {
      lua_gc(L, LUA_GCCOLLECT, 0);
      heap.live = heap.used;
    }
    return reply;
  }

  // A script that hit ServerOptions::lua_memory_limit_bytes. Redis has no
  // such cap, so no text to copy: the shape is Redis's for a failed script
  // (an ERR line, then " script: <sha>"); 5.4 gives no position for a
  // memory error, so there is no ", on @user_script:<line>." part.
  static resp::Reply memory_error_reply(std::string_view sha, int64_t cap) {
    std::string msg = "ERR Script exceeded the Lua memory limit of ";
    msg += std::to_string(cap);
    msg += " bytes script: ";
    msg.append(sha);
    return resp::Reply::error(std::move(msg));
  }

  // The reply for a failed script: the error table's err, then Redis 7.0's
  // " script: <sha>, on <source>:<line>." suffix.
  resp::Reply error_reply(std::string_view sha) {
    std::string msg;
    std::string place;
    if (lua_type(L, -1) == LUA_TTABLE) {
      lua_getfield(L, -1, "err");
      if (lua_type(L, -1) == LUA_TNUMBER) {
        msg = lua::number_to_string51(L, -1);
      } else if (lua_type(L, -1) == LUA_TSTRING) {
        msg = lua_tostring(L, -1);
      } else {
        msg = "ERR unknown error";  // error({}): Redis 7.0.15 itself crashes here
      }
      lua_getfield(L, -2, "source");
      lua_getfield(L, -3, "line");
      if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TNUMBER) {
        place = ", on ";
        place += lua_tostring(L, -2);
        place += ':';
        place += lua::number_to_string51(L, -1);
        place += '.';
      }
      lua_pop(L, 3);
    } else {
      // Errors raised past the handler: out of memory, error in error handling.
      const char* s = lua_tostring(L, -1);
      msg = "ERR ";
      msg += s != nullptr ? s : "unknown error";
    }
    msg += " script: ";
    msg.append(sha);
    msg += place;
    return resp::Reply::error(one_line(std::move(msg)));
  }

  lua_State* L = nullptr;
  LuaHeap heap;
  lua::EngineState state;
  std::unordered_map<std::string, CachedScript, ShaHash, std::equal_to<>> scripts;
  bool running = false;
  const Argv* running_argv = nullptr;  // the command that started the running script
  // The real redis table holds nothing that calls Lua when called, nor do
  // the strings' metamethods (open() checks): a chunk that calls only what
  // the table holds calls no Lua (CachedScript::hookless).
  bool redis_c_only = false;
};

// ---- Functions (functions.cc) ---------------------------------------------------

// A library FUNCTION LOAD created.
struct Library {
  std::string name;                                // as given in the shebang
  std::string code;                                // the whole payload, shebang included
  std::vector<lua::RegisteredFunction> functions;  // in registration order
  std::vector<lua::ArithSite51> arith;             // the code's arithmetic sites
};

struct ScriptEngine::Functions {
  explicit Functions(Server& server);
  // Opens the functions' Lua state with the sandbox and the load API.
  void open();
  // Compiles and runs a library's code (Redis's functionsCreateWithLibraryCtx
  // and luaEngineCreate, without the checks against other libraries). On
  // failure returns nullopt with `err` set (Redis's text, no "ERR ").
  std::optional<Library> create(Server& server, std::string_view payload, std::string& err);
  // The name of a function of `lib` that a linked library other than the
  // one keyed `except` already has, or empty.
  std::string collision(const Library& lib, const std::string& except = {}) const;
  void release(Library& lib);           // unrefs its callbacks
  void unlink(const std::string& key);  // its functions leave `functions`
  void link(const std::string& key);    // its functions enter `functions`
  void flush();

  Impl engine;
  std::map<std::string, Library> libraries;      // by lower-case name
  std::map<std::string, std::string> functions;  // lower-case name -> library key
};

}  // namespace redsim::sim
