// EVAL / EVALSHA / SCRIPT on one sandboxed Lua 5.4 state (see
// script_engine.h). The hot path, EVALSHA of a cached script, does no
// formatting and no compilation: a hash lookup, two fresh tables for KEYS
// and ARGV, the protected call, and the reply built straight off the stack.
#include "sim/lua/script_engine.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "sim/args.h"
#include "sim/lua/internal.h"
#include "sim/server.h"

namespace redsim::sim {
namespace {

constexpr std::string_view kNoScript = "NOSCRIPT No matching script. Please use EVAL.";
// Fixed slots at the bottom of the state's stack.
constexpr int kHandlerIndex = 1;  // the error handler
constexpr int kGlobalsIndex = 2;  // the real globals table (KEYS, ARGV are set here)
constexpr int kBaseTop = kGlobalsIndex;

char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

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
};

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

// The line of a compile error "user_script:<line>: ..." (0 if none).
int error_line(const char* msg) {
  constexpr std::string_view kPrefix = "user_script:";
  std::string_view m = msg != nullptr ? msg : "";
  if (m.substr(0, kPrefix.size()) != kPrefix) return 0;
  int line = 0;
  for (size_t i = kPrefix.size(); i < m.size() && m[i] >= '0' && m[i] <= '9'; ++i) {
    line = line * 10 + (m[i] - '0');
  }
  return line;
}

std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  return text;
}

// ---- Time limit: the instruction-count hook --------------------------------

constexpr std::string_view kKilled = "ERR Script killed by user with SCRIPT KILL...";

// The running script's run time in ms, as ServerOptions::script_time says.
int64_t elapsed_ms(const lua::EngineState& st) {
  const ServerOptions& options = st.server->options();
  if (options.script_time == ScriptTime::kClock) {
    return (st.server->clock().now_us() - st.run.start_us) / 1000;
  }
  return st.run.instructions / std::max<int64_t>(1, options.lua_instructions_per_ms);
}

void killed_hook(lua_State* L, lua_Debug*);

// Fails the script with Redis's SCRIPT KILL error. Like Redis (which
// switches to a line hook), every later instruction raises again, so a
// pcall in the script cannot swallow the kill.
[[noreturn]] void raise_killed(lua_State* L) {
  lua_sethook(L, killed_hook, LUA_MASKCOUNT, 1);
  lua::push_error_table(L, kKilled, false);
  lua_error(L);
  __builtin_unreachable();  // lua_error throws in the C++ build
}

void killed_hook(lua_State* L, lua_Debug*) { raise_killed(L); }

// Redis's luaMaskCountHook + scriptInterrupt: charges the instructions,
// marks the script busy once it has run busy-reply-threshold ms, then lets
// the owner serve other clients (Server::set_busy_script_handler) on every
// call while busy, and fails the script once SCRIPT KILL was accepted.
void count_hook(lua_State* L, lua_Debug*) {
  lua::EngineState& st = lua::state_of(L);
  lua::ScriptRun& run = st.run;
  if (run.killed) raise_killed(L);
  run.instructions += ScriptEngine::kHookInstructions;
  // The owner stopping (a signal to redsim server) ends any script.
  if (const Server::StopCheck& stop = st.server->stop_check(); stop && stop()) {
    run.killed = true;
    raise_killed(L);
  }
  if (!run.busy) {
    int64_t threshold_ms = st.server->config().busy_reply_threshold_ms;
    if (threshold_ms <= 0 || elapsed_ms(st) < threshold_ms) return;
    run.busy = true;
  }
  if (const Server::BusyScriptHandler& handler = st.server->busy_script_handler()) {
    std::string failure;
    try {
      handler(*st.session);
    } catch (const std::exception& e) {
      // Must not unwind through the Lua VM as a foreign exception.
      failure = std::string("ERR internal error: ") + e.what();
    }
    if (!failure.empty()) lua::raise_error_table(L, failure);
  }
  if (run.killed) raise_killed(L);
}

// ---- Call depth: 5.1's LUAI_MAXCALLS ------------------------------------------

// Redis's Lua 5.1 keeps its call frames in an array that doubles as it
// fills (8, 16, ... 16,384) and raises "stack overflow" (at the caller's
// line) when the doubling would pass LUAI_MAXCALLS = 20,000; after that
// first overflow the array stays at 32,768 (its GC never shrinks an array
// that overflowed) and the limit is the 20,000 frames themselves. Measured
// on redis-server 7.0.15 with `local function f() d=d+1 f() end pcall(f)`:
// d = 16,381 on a fresh Lua state, 19,997 after an overflow (the C base
// frame, the chunk and pcall hold the others). 5.4 would go on to about
// 200,000. The call hook counts the frames lua_getstack sees (all but the
// base frame). lua_getstack walks the frames, so a shallow stack is
// checked only every kDepthStride calls (each call adds one frame at most).
constexpr int kMaxFramesFresh = 16'383;
constexpr int kMaxFramesGrown = 19'999;
constexpr int kDepthStride = 64;

void check_depth(lua_State* L) {
  lua::EngineState& st = lua::state_of(L);
  lua::ScriptRun& run = st.run;
  if (run.depth_skip > 0) {
    --run.depth_skip;
    return;
  }
  lua_Debug ar;
  int max_frames = st.frames_grown ? kMaxFramesGrown : kMaxFramesFresh;
  if (lua_getstack(L, max_frames, &ar) != 0) {
    st.frames_grown = true;
    run.depth_skip = 0;
    luaL_where(L, 1);  // in a hook level 1 is the caller: 5.1 reports its line
    lua_pushliteral(L, "stack overflow");
    lua_concat(L, 2);
    lua_error(L);
  }
  if (lua_getstack(L, max_frames - kDepthStride, &ar) == 0) run.depth_skip = kDepthStride - 1;
}

// The hook of a running script: call events check the depth, count events
// charge the time (count_hook).
void script_hook(lua_State* L, lua_Debug* ar) {
  if (ar->event == LUA_HOOKCALL) {
    check_depth(L);
  } else if (ar->event == LUA_HOOKCOUNT) {
    count_hook(L, ar);
  }
}

// ---- Memory cap: the state's allocator ---------------------------------------

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

}  // namespace

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
  }

  void close() {
    scripts.clear();
    if (L != nullptr) lua_close(L);
    L = nullptr;
  }

  // Compiles `body` (whose SHA1 is `sha`) into the cache. Returns the cached
  // entry, or nullptr with `error` set to the reply text.
  CachedScript* compile(std::string_view body, const std::string& sha, std::string& error) {
    lua::Shebang shebang = lua::parse_shebang(body);
    if (!shebang.error.empty()) {
      error = shebang.error;
      return nullptr;
    }
    std::string_view code = body.substr(shebang.code_offset);
    int status;
    if (!code.empty() && code[0] == LUA_SIGNATURE[0]) {
      // Redis's 5.1 parses a precompiled chunk as text and fails on its
      // first byte; 5.4's "attempt to load a binary chunk" would differ.
      lua_pushliteral(L, "user_script:1: unexpected symbol near 'char(27)'");
      status = LUA_ERRSYNTAX;
    } else {
      lua::Source51 source = lua::adapt_source51(code);
      status = luaL_loadbufferx(L, source.code.data(), source.code.size(), "@user_script", "t");
      if (status != LUA_OK) {
        // The message from the script's own tokens, not the rewritten ones.
        lua_pop(L, 1);
        source = lua::adapt_source51(code, /*number_model=*/false);
        status = luaL_loadbufferx(L, source.code.data(), source.code.size(), "@user_script", "t");
      }
      // 5.3+ syntax is an error for Redis's 5.1 whether or not 5.4 accepted
      // it; a parse error 5.4 found on an earlier line comes first.
      if (!source.error.empty() &&
          (status == LUA_OK || error_line(lua_tostring(L, -1)) >= source.error_line)) {
        lua_pop(L, 1);
        lua_pushlstring(L, source.error.data(), source.error.size());
        status = LUA_ERRSYNTAX;
      }
    }
    if (status != LUA_OK) {
      const char* msg = lua_tostring(L, -1);
      error = "ERR Error compiling script (new function): ";
      error += lua::compile_message51(msg != nullptr ? msg : "unknown error");
      error = one_line(std::move(error));
      lua_pop(L, 1);
      return nullptr;
    }
    CachedScript script;
    script.ref = luaL_ref(L, LUA_REGISTRYINDEX);
    script.flags = shebang.flags;
    script.shebang = shebang.present;
    return &scripts.emplace(sha, script).first->second;
  }

  CachedScript* find(std::string_view sha) {
    auto it = scripts.find(sha);
    return it == scripts.end() ? nullptr : &it->second;
  }

  // Sets global `name` to a table holding exactly argv[from, from + count)
  // as an array. The table is the one this script had on its last call
  // when the script left nothing else in it (no extra keys, no metatable):
  // indistinguishable from the fresh table Redis creates, since no script
  // can keep a reference from one call to the next (globals and libraries
  // are read-only), and elements already equal are not pushed again. The
  // lock scripts call with the same key, lease and owner over and over.
  void fill_array(int& ref, const char* name, const Argv& argv, size_t from, size_t count) {
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
    lua_setfield(L, kGlobalsIndex, name);
  }

  resp::Reply run(CommandContext& ctx, CachedScript& script, std::string_view sha, size_t numkeys,
                  bool read_only) {
    const Argv& argv = ctx.argv;
    lua_settop(L, kBaseTop);
    lua_checkstack(L, 8);
    fill_array(script.keys_ref, "KEYS", argv, 3, numkeys);
    fill_array(script.argv_ref, "ARGV", argv, 3 + numkeys, argv.size() - 3 - numkeys);
    lua_rawgeti(L, LUA_REGISTRYINDEX, script.ref);

    struct RunGuard {
      Impl& impl;
      ~RunGuard() {
        impl.running = false;
        impl.state.session = nullptr;
        impl.state.read_only = false;
        impl.state.allow_oom = false;
        impl.heap.limit = SIZE_MAX;
        lua_sethook(impl.L, nullptr, 0, 0);
      }
    } guard{*this};
    running = true;
    state.session = &ctx.session;
    state.read_only = read_only;
    state.run = lua::ScriptRun{};
    Server& server = *state.server;
    // As Redis, no hook at all when busy-reply-threshold is 0, unless the
    // owner must be able to stop the script (Server::set_stop_check).
    if (server.config().busy_reply_threshold_ms > 0 || server.stop_check()) {
      if (server.options().script_time == ScriptTime::kClock) {
        state.run.start_us = server.clock().now_us();
      }
      lua_sethook(L, script_hook, LUA_MASKCALL | LUA_MASKCOUNT, kHookInstructions);
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
    int status = lua_pcall(L, 0, 1, kHandlerIndex);
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
};

ScriptEngine::ScriptEngine(Server& server) : impl_(std::make_unique<Impl>(server)) {
  impl_->open();
}

ScriptEngine::~ScriptEngine() = default;

bool ScriptEngine::running() const { return impl_->running; }

bool ScriptEngine::busy() const { return impl_->running && impl_->state.run.busy; }

bool ScriptEngine::wrote() const { return impl_->running && impl_->state.run.wrote; }

bool ScriptEngine::allows_oom() const { return impl_->running && impl_->state.allow_oom; }

int64_t ScriptEngine::elapsed_ms() const {
  return impl_->running ? ::redsim::sim::elapsed_ms(impl_->state) : 0;
}

void ScriptEngine::note_write() {
  if (impl_->running) impl_->state.run.wrote = true;
}

resp::Reply ScriptEngine::kill(bool force) {
  Impl& impl = *impl_;
  if (!impl.running) return resp::Reply::error("NOTBUSY No scripts in execution right now.");
  if (impl.state.run.wrote && !force) {
    return resp::Reply::error(
        "UNKILLABLE Sorry the script already executed write commands against the dataset. You "
        "can either wait the script termination or kill the server in a hard way using the "
        "SHUTDOWN NOSAVE command.");
  }
  impl.state.run.killed = true;
  return resp::Reply::ok();
}

size_t ScriptEngine::script_count() const { return impl_->scripts.size(); }

const std::deque<std::string>& ScriptEngine::log() const { return impl_->state.log; }

resp::Reply ScriptEngine::eval(CommandContext& ctx, bool by_sha, bool read_only) {
  const Argv& argv = ctx.argv;  // the dispatcher checked EVAL's arity (-3)
  Impl& impl = *impl_;
  std::string_view body = argv[1];
  char sha_buf[40];
  if (by_sha) {
    if (body.size() != sizeof sha_buf) return resp::Reply::error(std::string(kNoScript));
  }
  int64_t numkeys = 0;
  if (!parse_int64(argv[2], &numkeys)) {
    return resp::Reply::error("ERR value is not an integer or out of range");
  }
  if (numkeys > static_cast<int64_t>(argv.size()) - 3) {
    return resp::Reply::error("ERR Number of keys can't be greater than number of args");
  }
  if (numkeys < 0) return resp::Reply::error("ERR Number of keys can't be negative");

  CachedScript* script = nullptr;
  std::string computed_sha;
  std::string_view sha;
  if (by_sha) {
    for (size_t i = 0; i < sizeof sha_buf; ++i) {
      sha_buf[i] = ascii_lower(body[i]);
    }
    sha = std::string_view(sha_buf, sizeof sha_buf);
    script = impl.find(sha);
    if (script == nullptr) return resp::Reply::error(std::string(kNoScript));
  } else {
    computed_sha = lua::sha1_hex(body);
    sha = computed_sha;
    script = impl.find(sha);
    if (script == nullptr) {
      std::string error;
      script = impl.compile(body, computed_sha, error);
      if (script == nullptr) return resp::Reply::error(std::move(error));
    }
  }
  bool no_writes = (script->flags & lua::kScriptFlagNoWrites) != 0;
  bool allow_oom = (script->flags & lua::kScriptFlagAllowOom) != 0;
  if (read_only && script->shebang && !no_writes) {
    return resp::Reply::error("ERR Can not execute a script with write flag using *_ro command.");
  }
  // Redis makes such an EVAL a denyoom command (scriptFlagsToCmdFlags):
  // the dispatcher found memory over maxmemory as it started.
  if (script->shebang && !no_writes && !allow_oom && ctx.server.script_oom()) {
    return resp::Reply::error("OOM command not allowed when used memory > 'maxmemory'.");
  }
  impl.state.allow_oom = allow_oom;
  return impl.run(ctx, *script, sha, static_cast<size_t>(numkeys), read_only || no_writes);
}

namespace {

resp::Reply subcommand_arity_error(std::string_view sub) {
  return errors::arity("script|" + to_lower(sub));
}

}  // namespace

resp::Reply ScriptEngine::script_command(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  if (argv.size() < 2)
    return resp::Reply::error("ERR wrong number of arguments for 'script' command");
  const std::string& sub = argv[1];
  size_t argc = argv.size();
  Impl& impl = *impl_;

  if (equals_ci(sub, "load")) {
    if (argc != 3) return subcommand_arity_error(sub);
    std::string sha = lua::sha1_hex(argv[2]);
    if (impl.find(sha) == nullptr) {
      std::string error;
      if (impl.compile(argv[2], sha, error) == nullptr) return resp::Reply::error(std::move(error));
    }
    return resp::Reply::bulk(std::move(sha));
  }
  if (equals_ci(sub, "exists")) {
    if (argc < 3) return subcommand_arity_error(sub);
    std::vector<resp::Reply> found;
    found.reserve(argc - 2);
    for (size_t i = 2; i < argc; ++i) {
      found.push_back(resp::Reply::integer(impl.find(to_lower(argv[i])) != nullptr ? 1 : 0));
    }
    return resp::Reply::array(std::move(found));
  }
  if (equals_ci(sub, "flush")) {
    if (argc > 3 || (argc == 3 && !equals_ci(argv[2], "sync") && !equals_ci(argv[2], "async"))) {
      return resp::Reply::error("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
    }
    // Redis 7.0 drops the whole Lua state with the cache; so do we.
    impl.close();
    impl.open();
    return resp::Reply::ok();
  }
  if (equals_ci(sub, "kill")) {
    if (argc != 2) return subcommand_arity_error(sub);
    return kill();
  }
  if (equals_ci(sub, "debug")) {
    if (argc != 3) return subcommand_arity_error(sub);
    if (equals_ci(argv[2], "no")) return resp::Reply::ok();
    if (equals_ci(argv[2], "yes") || equals_ci(argv[2], "sync")) {
      return resp::Reply::error("ERR SCRIPT DEBUG is not supported by redsim");
    }
    return resp::Reply::error("ERR Use SCRIPT DEBUG YES/SYNC/NO");
  }
  if (equals_ci(sub, "help")) {
    if (argc != 2) return subcommand_arity_error(sub);
    return help_reply(
        "SCRIPT",
        {"DEBUG (YES|SYNC|NO)", "    Set the debug mode for subsequent scripts executed.",
         "EXISTS <sha1> [<sha1> ...]",
         "    Return information about the existence of the scripts in the script cache.",
         "FLUSH [ASYNC|SYNC]", "    Flush the Lua scripts cache. Very dangerous on replicas.",
         "    When called without the optional mode argument, the behavior is determined by the",
         "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
         "    * ASYNC: Asynchronously flush the scripts cache.",
         "    * SYNC: Synchronously flush the scripts cache.", "KILL",
         "    Kill the currently executing Lua script.", "LOAD <script>",
         "    Load a script into the scripts cache without executing it."});
  }
  // Redis prints at most 128 bytes of the name ("%.128s").
  return resp::Reply::error(
      one_line("ERR unknown subcommand '" + sub.substr(0, 128) + "'. Try SCRIPT HELP."));
}

}  // namespace redsim::sim
