// Redis 7.0 functions: FUNCTION LOAD/LIST/DELETE/FLUSH/DUMP/RESTORE/STATS/
// KILL/HELP, FCALL and FCALL_RO (see script_engine.h), on a Lua state of
// their own with EVAL's sandbox and 5.1 rules. Behaviour and error texts are
// Redis 7.0.15's (src/functions.c, src/function_lua.c, src/script.c),
// checked against redis-server 7.0.15 (functions_test.cc and Redis's own
// unit/functions, tools/redis_test_suite.sh).
//
// Loading a library runs its code once with only `redis` visible, holding
// register_function, log, the LOG_* levels and REDIS_VERSION(_NUM); any
// other global raises "Script attempted to access nonexistent global
// variable 'x'" and writes raise "Attempt to modify a readonly table". The
// code's _ENV is a per-library empty table whose metatable's __index is
// switched to the sandbox globals once the load is over, so the callbacks
// see what EVAL scripts see (but no KEYS/ARGV: they get keys and args as
// arguments). The load is stopped after 500 ms of script time (Redis's
// LOAD_TIMEOUT_MS) with "FUNCTION LOAD timeout".
//
// FUNCTION DUMP's payload is redsim's own: per library the byte 0xF5 (RDB's
// RDB_OPCODE_FUNCTION2), its code's length as 4 bytes little-endian and the
// code; then the RDB version 10 as 2 bytes little-endian and a 64-bit
// FNV-1a of everything before it, little-endian. RESTORE checks version and
// checksum ("DUMP payload version or checksum are wrong") and reloads each
// library from its code. Redis's payloads (an RDB encoding) are not read.
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include "sim/glob.h"
#include "sim/internal.h"
#include "sim/lua/engine_impl.h"

namespace redsim::sim {
namespace {

constexpr std::string_view kNameRules =
    "Library names can only contain letters, numbers, or underscores(_) and must be at least one "
    "character long";
constexpr int64_t kLoadTimeoutMs = 500;
constexpr uint8_t kFunctionOpcode = 0xF5;
constexpr uint16_t kPayloadVersion = 10;
constexpr std::string_view kBusyFunction =
    "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";
constexpr std::string_view kBusyEval =
    "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";

// Registry keys of the load API's `redis` table.
char kLoadRedisKey;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool valid_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

uint64_t fnv1a(std::string_view data) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : data) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

// Redis's sdssplitargs for the shebang line: spaces separate, "..." and
// '...' quote (with \n-style escapes inside double quotes). False on an
// unbalanced quote.
bool split_args(std::string_view line, std::vector<std::string>& out) {
  size_t i = 0;
  while (true) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i >= line.size()) return true;
    std::string cur;
    bool inq = false, insq = false;
    for (;; ++i) {
      if (i >= line.size()) {
        if (inq || insq) return false;
        break;
      }
      char c = line[i];
      if (inq) {
        if (c == '\\' && i + 1 < line.size()) {
          char n = line[++i];
          cur += n == 'n'   ? '\n'
                 : n == 'r' ? '\r'
                 : n == 't' ? '\t'
                 : n == 'b' ? '\b'
                 : n == 'a' ? '\a'
                            : n;
        } else if (c == '"') {
          if (i + 1 < line.size() && !std::isspace(static_cast<unsigned char>(line[i + 1])))
            return false;
          inq = false;
          ++i;
          break;
        } else {
          cur += c;
        }
      } else if (insq) {
        if (c == '\\' && i + 1 < line.size() && line[i + 1] == '\'') {
          cur += '\'';
          ++i;
        } else if (c == '\'') {
          if (i + 1 < line.size() && !std::isspace(static_cast<unsigned char>(line[i + 1])))
            return false;
          insq = false;
          ++i;
          break;
        } else {
          cur += c;
        }
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        break;
      } else if (c == '"') {
        inq = true;
      } else if (c == '\'') {
        insq = true;
      } else {
        cur += c;
      }
    }
    out.push_back(std::move(cur));
  }
}

struct Metadata {
  std::string engine;
  std::string name;
  std::string code;  // from the shebang's '\n' on, so lines keep their numbers
};

// functionExtractLibMetaData: "#!<engine> name=<lib>" on the first line.
std::optional<Metadata> parse_metadata(std::string_view payload, std::string& err) {
  if (!payload.starts_with("#!")) {
    err = "Missing library metadata";
    return std::nullopt;
  }
  size_t eol = payload.find('\n');
  std::vector<std::string> parts;
  if (eol == std::string_view::npos || !split_args(payload.substr(0, eol), parts) ||
      parts.empty()) {
    err = "Invalid library metadata";
    return std::nullopt;
  }
  Metadata md;
  md.engine = parts[0].substr(2);
  bool named = false;
  for (size_t i = 1; i < parts.size(); ++i) {
    if (parts[i].size() >= 5 && lower(parts[i].substr(0, 5)) == "name=") {
      if (named) {
        err = "Invalid metadata value, name argument was given multiple times";
        return std::nullopt;
      }
      named = true;
      md.name = parts[i].substr(5);
      continue;
    }
    err = "Invalid metadata value given: " + parts[i];
    return std::nullopt;
  }
  if (!named) {
    err = "Library name was not given";
    return std::nullopt;
  }
  md.code.assign(payload.substr(eol));
  return md;
}

// ---- The load API -----------------------------------------------------------

[[noreturn]] void raise_err(lua_State* L, std::string_view msg) {
  lua::push_error_table(L, "ERR " + std::string(msg), false);
  lua_error(L);
  __builtin_unreachable();
}

int nonexistent(lua_State* L) {
  return luaL_error(L, "Script attempted to access nonexistent global variable '%s'",
                    lua_tostring(L, 2));
}
int readonly(lua_State* L) { return luaL_error(L, "Attempt to modify a readonly table"); }

bool read_flags(lua_State* L, int idx, uint32_t* flags) {
  static constexpr std::pair<std::string_view, uint32_t> kFlags[] = {
      {"no-writes", lua::kScriptFlagNoWrites},
      {"allow-oom", lua::kScriptFlagAllowOom},
      {"allow-stale", lua::kScriptFlagAllowStale},
      {"no-cluster", lua::kScriptFlagNoCluster},
      {"allow-cross-slot-keys", lua::kScriptFlagAllowCrossSlot},
  };
  idx = lua_absindex(L, idx);
  for (lua_Integer i = 1;; ++i) {
    int t = lua_rawgeti(L, idx, i);
    if (t == LUA_TNIL) {
      lua_pop(L, 1);
      break;
    }
    bool known = false;
    if (t == LUA_TSTRING) {
      std::string_view f = lua_tostring(L, -1);
      for (const auto& [name, bit] : kFlags) {
        if (f == name) {
          *flags |= bit;
          known = true;
        }
      }
    }
    lua_pop(L, 1);
    if (!known) return false;
  }
  return true;
}

// redis.register_function(name, callback) or redis.register_function{
// function_name=..., callback=..., description=..., flags={...}}
// (luaRegisterFunction in function_lua.c).
int register_function(lua_State* L) {
  lua::EngineState& st = lua::state_of(L);
  if (st.load == nullptr) {
    raise_err(L, "redis.register_function can only be called on FUNCTION LOAD command");
  }
  int argc = lua_gettop(L);
  if (argc < 1 || argc > 2) raise_err(L, "wrong number of arguments to redis.register_function");
  lua::RegisteredFunction f;
  bool named = false;
  bool has_callback = false;
  if (argc == 2) {
    if (!lua_isstring(L, 1)) {
      raise_err(L, "first argument to redis.register_function must be a string");
    }
    if (!lua_isfunction(L, 2)) {
      raise_err(L, "second argument to redis.register_function must be a function");
    }
    size_t len = 0;
    const char* s = lua_tolstring(L, 1, &len);
    f.name.assign(s, len);
    named = has_callback = true;
    lua_pushvalue(L, 2);
  } else {
    if (!lua_istable(L, 1)) {
      raise_err(L,
                "calling redis.register_function with a single argument is only applicable to Lua "
                "table (representing named arguments).");
    }
    lua_pushnil(L);
    while (lua_next(L, 1) != 0) {
      if (lua_type(L, -2) != LUA_TSTRING) {
        raise_err(L, "named argument key given to redis.register_function is not a string");
      }
      std::string key = lower(lua_tostring(L, -2));
      if (key == "function_name") {
        if (!lua_isstring(L, -1)) {
          raise_err(L, "function_name argument given to redis.register_function must be a string");
        }
        size_t len = 0;
        const char* s = lua_tolstring(L, -1, &len);
        f.name.assign(s, len);
        named = true;
      } else if (key == "description") {
        if (!lua_isstring(L, -1)) {
          raise_err(L, "description argument given to redis.register_function must be a string");
        }
        size_t len = 0;
        const char* s = lua_tolstring(L, -1, &len);
        f.description.assign(s, len);
        f.has_description = true;
      } else if (key == "callback") {
        if (!lua_isfunction(L, -1)) {
          raise_err(L, "callback argument given to redis.register_function must be a function");
        }
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, "__redsim_pending_callback");
        has_callback = true;
      } else if (key == "flags") {
        if (!lua_istable(L, -1)) {
          raise_err(L,
                    "flags argument to redis.register_function must be a table representing "
                    "function flags");
        }
        if (!read_flags(L, -1, &f.flags)) raise_err(L, "unknown flag given");
      } else {
        raise_err(L, "unknown argument given to redis.register_function");
      }
      lua_pop(L, 1);
    }
    if (!named) raise_err(L, "redis.register_function must get a function name argument");
    if (!has_callback) raise_err(L, "redis.register_function must get a callback argument");
    lua_getfield(L, LUA_REGISTRYINDEX, "__redsim_pending_callback");
    lua_pushnil(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "__redsim_pending_callback");
  }
  if (!valid_name(f.name)) raise_err(L, kNameRules);
  for (const lua::RegisteredFunction& other : st.load->functions) {
    if (lower(other.name) == lower(f.name)) raise_err(L, "Function already exists in the library");
  }
  f.ref = luaL_ref(L, LUA_REGISTRYINDEX);
  st.load->functions.push_back(std::move(f));
  return 0;
}

// __index of a library's _ENV during its load: `redis` (the load API), the
// concat function of rewritten `..` chains and the other helpers of the
// source rewrite (`%`, `#`, `:goto`; the rewritten chunk binds them to
// locals first thing, so a library using `%` failed to load without
// them); nothing else.
int load_index(lua_State* L) {
  size_t len = 0;
  const char* key = lua_tolstring(L, 2, &len);
  std::string_view k = key != nullptr ? std::string_view(key, len) : std::string_view();
  if (k == "redis") {
    lua_rawgetp(L, LUA_REGISTRYINDEX, &kLoadRedisKey);
    return 1;
  }
  if (k == lua::kConcatName) {
    lua_pushcfunction(L, lua::concat51);
    return 1;
  }
  if (lua_CFunction helper = lua::helper51(k)) {
    lua_pushcfunction(L, helper);
    return 1;
  }
  return nonexistent(L);
}

// Builds the load API's `redis` table (read-only; unknown fields raise as
// unknown globals do) into the registry.
void install_load_api(lua_State* L) {
  lua_createtable(L, 0, 8);  // the real table
  int real = lua_gettop(L);
  lua_pushcfunction(L, register_function);
  lua_setfield(L, real, "register_function");
  lua::push_real_globals(L);
  lua_getfield(L, -1, "redis");
  for (const char* name : {"log", "LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING",
                           "REDIS_VERSION", "REDIS_VERSION_NUM"}) {
    lua_getfield(L, -1, name);
    lua_setfield(L, real, name);
  }
  lua_pop(L, 2);
  lua_newtable(L);           // the proxy
  lua_createtable(L, 0, 2);  // its metatable
  lua_pushvalue(L, real);
  lua_pushcclosure(
      L,
      [](lua_State* S) {
        lua_pushvalue(S, 2);
        if (lua_rawget(S, lua_upvalueindex(1)) != LUA_TNIL) return 1;
        return nonexistent(S);
      },
      1);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, readonly);
  lua_setfield(L, -2, "__newindex");
  lua_setmetatable(L, -2);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &kLoadRedisKey);
  lua_settop(L, real - 1);
}

// The count hook of a load: Redis stops a load after LOAD_TIMEOUT_MS.
void load_hook(lua_State* L, lua_Debug*) {
  lua::EngineState& st = lua::state_of(L);
  st.run.instructions += ScriptEngine::kHookInstructions;
  if (elapsed_ms(st) > kLoadTimeoutMs) {
    lua_pushliteral(L, "FUNCTION LOAD timeout");
    lua_error(L);
  }
}

}  // namespace

// ---- The library store --------------------------------------------------------

ScriptEngine::Functions::Functions(Server& server) : engine(server) { open(); }

void ScriptEngine::Functions::open() {
  engine.open();
  install_load_api(engine.L);
}

void ScriptEngine::Functions::release(Library& lib) {
  for (lua::RegisteredFunction& f : lib.functions) luaL_unref(engine.L, LUA_REGISTRYINDEX, f.ref);
  lib.functions.clear();
}
void ScriptEngine::Functions::unlink(const std::string& key) {
  auto it = libraries.find(key);
  if (it == libraries.end()) return;
  for (const lua::RegisteredFunction& f : it->second.functions) functions.erase(lower(f.name));
}
void ScriptEngine::Functions::link(const std::string& key) {
  for (const lua::RegisteredFunction& f : libraries[key].functions) functions[lower(f.name)] = key;
}
void ScriptEngine::Functions::flush() {
  for (auto& [key, lib] : libraries) release(lib);
  libraries.clear();
  functions.clear();
}

std::optional<Library> ScriptEngine::Functions::create(Server& server, std::string_view payload,
                                                       std::string& err) {
  std::optional<Metadata> md = parse_metadata(payload, err);
  if (!md) return std::nullopt;
  if (!valid_name(md->name)) {
    err = kNameRules;
    return std::nullopt;
  }
  if (lower(md->engine) != "lua") {
    err = "Engine '" + md->engine + "' not found";
    return std::nullopt;
  }
  lua_State* L = engine.L;
  lua_settop(L, kBaseTop);
  std::string message;
  std::vector<lua::ArithSite51> arith;
  if (engine.load_code(md->code, "@user_function", message, nullptr, &arith) != LUA_OK) {
    err = "Error compiling function: " + message;
    return std::nullopt;
  }
  // The chunk's _ENV: empty, reads through load_index for now.
  lua_newtable(L);
  lua_createtable(L, 0, 2);
  lua_pushcfunction(L, load_index);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, readonly);
  lua_setfield(L, -2, "__newindex");
  lua_pushvalue(L, -1);
  int meta = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_setmetatable(L, -2);
  lua_setupvalue(L, -2, 1);

  lua::LibraryLoad load;
  lua::EngineState& st = engine.state;
  st.load = &load;
  st.arith_sites = &arith;
  st.run = lua::ScriptRun{};
  if (server.options().script_time == ScriptTime::kClock) st.run.start_us = server.clock().now_us();
  lua_sethook(L, load_hook, LUA_MASKCOUNT, ScriptEngine::kHookInstructions);
  int status = lua_pcall(L, 0, 0, 0);
  lua_sethook(L, nullptr, 0, 0);
  st.load = nullptr;
  st.arith_sites = nullptr;
  // From now on the callbacks see the sandbox's globals.
  lua_rawgeti(L, LUA_REGISTRYINDEX, meta);
  lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  luaL_unref(L, LUA_REGISTRYINDEX, meta);

  Library lib;
  lib.name = md->name;
  lib.code.assign(payload);
  lib.functions = std::move(load.functions);
  lib.arith = std::move(arith);
  if (status != LUA_OK) {
    std::string msg;
    if (lua_type(L, -1) == LUA_TTABLE) {
      lua_getfield(L, -1, "err");
      const char* s = lua_tostring(L, -1);
      msg = s != nullptr ? s : "";
      lua_pop(L, 1);
    } else {
      const char* s = lua_tostring(L, -1);
      msg = "ERR " + lua::rewrite_message51(s != nullptr ? s : "unknown error");
    }
    lua_settop(L, kBaseTop);
    release(lib);
    err = "Error registering functions: " + msg;
    return std::nullopt;
  }
  lua_settop(L, kBaseTop);
  if (lib.functions.empty()) {
    err = "No functions registered";
    return std::nullopt;
  }
  return lib;
}

std::string ScriptEngine::Functions::collision(const Library& lib,
                                               const std::string& except) const {
  for (const lua::RegisteredFunction& f : lib.functions) {
    auto it = functions.find(lower(f.name));
    if (it != functions.end() && it->second != except) return f.name;
  }
  return {};
}

namespace {

resp::Reply error(std::string text) { return resp::Reply::error(one_line("ERR " + text)); }

resp::Reply syntax_error(const Argv& argv) {
  return resp::Reply::error(one_line("ERR unknown subcommand or wrong number of arguments for '" +
                                     argv[1].substr(0, 128) + "'. Try FUNCTION HELP."));
}

resp::Reply flags_reply(uint32_t flags) {
  std::vector<resp::Reply> out;
  static constexpr std::pair<uint32_t, std::string_view> kNames[] = {
      {lua::kScriptFlagNoWrites, "no-writes"},
      {lua::kScriptFlagAllowOom, "allow-oom"},
      {lua::kScriptFlagAllowStale, "allow-stale"},
      {lua::kScriptFlagNoCluster, "no-cluster"},
      {lua::kScriptFlagAllowCrossSlot, "allow-cross-slot-keys"},
  };
  for (const auto& [bit, name] : kNames) {
    // Status replies, as functionListReplyFlags sends them.
    if (flags & bit) out.push_back(resp::Reply::status(std::string(name)));
  }
  return resp::Reply::set(std::move(out));
}

}  // namespace

ScriptEngine::Impl* ScriptEngine::active() const {
  if (impl_->running) return impl_.get();
  if (functions_ != nullptr && functions_->engine.running) return &functions_->engine;
  return nullptr;
}

bool ScriptEngine::function_running() const {
  return functions_ != nullptr && functions_->engine.running;
}

std::string_view ScriptEngine::busy_error() const {
  return function_running() ? kBusyFunction : kBusyEval;
}

size_t ScriptEngine::library_count() const {
  return functions_ != nullptr ? functions_->libraries.size() : 0;
}

ScriptEngine::Functions& ScriptEngine::functions(Server& server) {
  if (functions_ == nullptr) functions_ = std::make_unique<Functions>(server);
  return *functions_;
}

resp::Reply ScriptEngine::fcall(CommandContext& ctx, bool read_only) {
  const Argv& argv = ctx.argv;  // arity -3 checked by the dispatcher
  Functions& fns = functions(ctx.server);
  auto it = fns.functions.find(lower(argv[1]));
  if (it == fns.functions.end()) return error("Function not found");
  Library& lib = fns.libraries[it->second];
  const lua::RegisteredFunction* fn = nullptr;
  for (const lua::RegisteredFunction& f : lib.functions) {
    if (lower(f.name) == lower(argv[1])) fn = &f;
  }
  int64_t numkeys = 0;
  if (!parse_int64(argv[2], &numkeys)) return error("Bad number of keys provided");
  if (numkeys > static_cast<int64_t>(argv.size()) - 3) {
    return error("Number of keys can't be greater than number of args");
  }
  if (numkeys < 0) return error("Number of keys can't be negative");
  bool no_writes = (fn->flags & lua::kScriptFlagNoWrites) != 0;
  bool allow_oom = (fn->flags & lua::kScriptFlagAllowOom) != 0;
  // scriptPrepareForRun: functions are never in EVAL's compatibility mode.
  if (!no_writes && !read_only && ctx.server.lacks_good_replicas()) {
    return resp::Reply::error(std::string(Server::kNoReplicasError));
  }
  if (!allow_oom && !no_writes && ctx.server.script_oom()) {
    return resp::Reply::error("OOM command not allowed when used memory > 'maxmemory'.");
  }
  if (!no_writes && read_only) {
    return error("Can not execute a script with write flag using *_ro command.");
  }
  Impl& engine = fns.engine;
  lua_State* L = engine.L;
  lua_settop(L, kBaseTop);
  lua_checkstack(L, 8);
  lua_rawgeti(L, LUA_REGISTRYINDEX, fn->ref);
  auto push_array = [L](const Argv& a, size_t from, size_t count) {
    lua_createtable(L, static_cast<int>(count), 0);
    for (size_t i = 0; i < count; ++i) {
      lua_pushlstring(L, a[from + i].data(), a[from + i].size());
      lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
    }
  };
  auto keys = static_cast<size_t>(numkeys);
  push_array(argv, 3, keys);
  push_array(argv, 3 + keys, argv.size() - 3 - keys);
  engine.state.allow_oom = allow_oom;
  std::string name = fn->name;
  engine.state.arith_sites = &lib.arith;
  return engine.call(ctx, 2, name, read_only || no_writes);
}

resp::Reply ScriptEngine::function_command(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  const std::string& sub = argv[1];
  size_t argc = argv.size();
  Functions& fns = functions(ctx.server);
  Server& server = ctx.server;

  if (equals_ci(sub, "load")) {
    if (argc < 3) return errors::arity("function|load");
    bool replace = false;
    size_t pos = 2;
    while (pos < argc - 1) {
      const std::string& opt = argv[pos++];
      if (equals_ci(opt, "replace")) {
        replace = true;
        continue;
      }
      return error("Unknown option given: " + opt);
    }
    std::string err;
    std::optional<Library> lib = fns.create(server, argv[pos], err);
    if (!lib) return error(err);
    std::string key = lower(lib->name);
    bool exists = fns.libraries.contains(key);
    if (exists && !replace) {
      fns.release(*lib);
      return error("Library '" + lib->name + "' already exists");
    }
    if (std::string clash = fns.collision(*lib, exists ? key : std::string()); !clash.empty()) {
      fns.release(*lib);
      return error("Function " + clash + " already exists");
    }
    if (exists) {
      fns.unlink(key);
      fns.release(fns.libraries[key]);
    }
    std::string name = lib->name;
    fns.libraries[key] = std::move(*lib);
    fns.link(key);
    return resp::Reply::bulk(std::move(name));
  }
  if (equals_ci(sub, "list")) {
    bool with_code = false;
    std::optional<std::string> pattern;
    for (size_t i = 2; i < argc; ++i) {
      if (!with_code && equals_ci(argv[i], "withcode")) {
        with_code = true;
        continue;
      }
      if (!pattern && equals_ci(argv[i], "libraryname")) {
        if (i >= argc - 1) return error("library name argument was not given");
        pattern = argv[++i];
        continue;
      }
      return error("Unknown argument " + argv[i]);
    }
    std::vector<resp::Reply> out;
    for (const auto& [key, lib] : fns.libraries) {
      if (pattern && !glob_match(lower(*pattern), key)) continue;
      std::vector<resp::Reply> functions;
      for (const lua::RegisteredFunction& f : lib.functions) {
        functions.push_back(resp::Reply::map(
            {resp::Reply::bulk("name"), resp::Reply::bulk(f.name), resp::Reply::bulk("description"),
             f.has_description ? resp::Reply::bulk(f.description) : resp::Reply::nil(),
             resp::Reply::bulk("flags"), flags_reply(f.flags)}));
      }
      std::vector<resp::Reply> entry{
          resp::Reply::bulk("library_name"), resp::Reply::bulk(lib.name),
          resp::Reply::bulk("engine"),       resp::Reply::bulk("LUA"),
          resp::Reply::bulk("functions"),    resp::Reply::array(std::move(functions))};
      if (with_code) {
        entry.push_back(resp::Reply::bulk("library_code"));
        entry.push_back(resp::Reply::bulk(lib.code));
      }
      out.push_back(resp::Reply::map(std::move(entry)));
    }
    return resp::Reply::array(std::move(out));
  }
  if (equals_ci(sub, "delete")) {
    if (argc != 3) return errors::arity("function|delete");
    std::string key = lower(argv[2]);
    if (!fns.libraries.contains(key)) return error("Library not found");
    fns.unlink(key);
    fns.release(fns.libraries[key]);
    fns.libraries.erase(key);
    return resp::Reply::ok();
  }
  if (equals_ci(sub, "flush")) {
    if (argc > 3) return syntax_error(argv);
    if (argc == 3 && !equals_ci(argv[2], "sync") && !equals_ci(argv[2], "async")) {
      return error("FUNCTION FLUSH only supports SYNC|ASYNC option");
    }
    fns.flush();
    return resp::Reply::ok();
  }
  if (equals_ci(sub, "dump")) {
    if (argc != 2) return errors::arity("function|dump");
    std::string payload;
    for (const auto& [key, lib] : fns.libraries) {
      payload += static_cast<char>(kFunctionOpcode);
      auto n = static_cast<uint32_t>(lib.code.size());
      for (int i = 0; i < 4; ++i) payload += static_cast<char>((n >> (8 * i)) & 0xff);
      payload += lib.code;
    }
    payload += static_cast<char>(kPayloadVersion & 0xff);
    payload += static_cast<char>(kPayloadVersion >> 8);
    uint64_t sum = fnv1a(payload);
    for (int i = 0; i < 8; ++i) payload += static_cast<char>((sum >> (8 * i)) & 0xff);
    return resp::Reply::bulk(std::move(payload));
  }
  if (equals_ci(sub, "restore")) {
    if (argc > 4) return syntax_error(argv);
    enum { kAppend, kReplace, kFlush } policy = kAppend;
    if (argc == 4) {
      if (equals_ci(argv[3], "append")) {
        policy = kAppend;
      } else if (equals_ci(argv[3], "replace")) {
        policy = kReplace;
      } else if (equals_ci(argv[3], "flush")) {
        policy = kFlush;
      } else {
        return error(
            "Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
      }
    }
    std::string_view data = argv[2];
    bool valid = data.size() >= 10;
    if (valid) {
      std::string_view body = data.substr(0, data.size() - 8);
      uint64_t sum = 0;
      for (int i = 0; i < 8; ++i) {
        sum |= static_cast<uint64_t>(static_cast<unsigned char>(data[data.size() - 8 + i]))
               << (8 * i);
      }
      uint16_t version =
          static_cast<uint16_t>(static_cast<unsigned char>(data[data.size() - 10]) |
                                (static_cast<unsigned char>(data[data.size() - 9]) << 8));
      valid = version == kPayloadVersion && sum == fnv1a(body);
    }
    if (!valid) return error("DUMP payload version or checksum are wrong");
    // Load every library of the payload first; nothing changes on failure.
    std::vector<Library> loaded;
    auto drop = [&fns, &loaded]() {
      for (Library& l : loaded) fns.release(l);
    };
    size_t pos = 0;
    std::string err;
    while (data.size() - pos > 10) {
      if (static_cast<uint8_t>(data[pos]) != kFunctionOpcode) {
        err = "given type is not a function";
        break;
      }
      if (data.size() - pos < 15) {
        err = "failed loading the given functions payload";
        break;
      }
      uint32_t n = 0;
      for (int i = 0; i < 4; ++i)
        n |= static_cast<uint32_t>(static_cast<unsigned char>(data[pos + 1 + i])) << (8 * i);
      pos += 5;
      if (n > data.size() - 10 - pos) {
        err = "failed loading the given functions payload";
        break;
      }
      std::optional<Library> lib = fns.create(server, data.substr(pos, n), err);
      pos += n;
      if (!lib) break;
      for (const Library& other : loaded) {
        if (lower(other.name) == lower(lib->name))
          err = "Library '" + lib->name + "' already exists";
        for (const auto& f : lib->functions) {
          for (const auto& g : other.functions) {
            if (lower(f.name) == lower(g.name)) err = "Function " + f.name + " already exists";
          }
        }
      }
      loaded.push_back(std::move(*lib));
      if (!err.empty()) break;
    }
    if (!err.empty()) {
      drop();
      return error(err);
    }
    if (policy == kFlush) {
      fns.flush();
    } else {
      // libraryJoin: name clashes first, then function clashes.
      std::vector<std::string> replaced;
      for (const Library& lib : loaded) {
        std::string key = lower(lib.name);
        if (!fns.libraries.contains(key)) continue;
        if (policy != kReplace) {
          drop();
          return error("Library " + lib.name + " already exists");
        }
        replaced.push_back(key);
      }
      for (const Library& lib : loaded) {
        for (const lua::RegisteredFunction& f : lib.functions) {
          auto it = fns.functions.find(lower(f.name));
          if (it != fns.functions.end() &&
              std::find(replaced.begin(), replaced.end(), it->second) == replaced.end()) {
            drop();
            return error("Function " + f.name + " already exists");
          }
        }
      }
      for (const std::string& key : replaced) {
        fns.unlink(key);
        fns.release(fns.libraries[key]);
        fns.libraries.erase(key);
      }
    }
    for (Library& lib : loaded) {
      std::string key = lower(lib.name);
      fns.libraries[key] = std::move(lib);
      fns.link(key);
    }
    return resp::Reply::ok();
  }
  if (equals_ci(sub, "stats")) {
    if (argc != 2) return errors::arity("function|stats");
    if (impl_->running) return resp::Reply::error(std::string(kBusyEval));
    resp::Reply running = resp::Reply::nil();
    if (function_running() && fns.engine.running_argv != nullptr) {
      const Argv& cmd = *fns.engine.running_argv;
      std::vector<resp::Reply> words;
      for (const std::string& w : cmd) words.push_back(resp::Reply::bulk(w));
      std::string fname = cmd.size() > 1 ? cmd[1] : std::string();
      if (auto f = fns.functions.find(lower(fname)); f != fns.functions.end()) {
        for (const auto& rf : fns.libraries[f->second].functions) {
          if (lower(rf.name) == lower(fname)) fname = rf.name;
        }
      }
      running =
          resp::Reply::map({resp::Reply::bulk("name"), resp::Reply::bulk(fname),
                            resp::Reply::bulk("command"), resp::Reply::array(std::move(words)),
                            resp::Reply::bulk("duration_ms"), resp::Reply::integer(elapsed_ms())});
    }
    size_t function_count = 0;
    for (const auto& [key, lib] : fns.libraries) function_count += lib.functions.size();
    return resp::Reply::map(
        {resp::Reply::bulk("running_script"), std::move(running), resp::Reply::bulk("engines"),
         resp::Reply::map(
             {resp::Reply::bulk("LUA"),
              resp::Reply::map({resp::Reply::bulk("libraries_count"),
                                resp::Reply::integer(static_cast<int64_t>(fns.libraries.size())),
                                resp::Reply::bulk("functions_count"),
                                resp::Reply::integer(static_cast<int64_t>(function_count))})})});
  }
  if (equals_ci(sub, "kill")) {
    if (argc != 2) return errors::arity("function|kill");
    if (impl_->running) return resp::Reply::error(std::string(kBusyEval));
    return kill();
  }
  if (equals_ci(sub, "help")) {
    if (argc != 2) return errors::arity("function|help");
    return help_reply(
        "FUNCTION",
        {"LOAD [REPLACE] <FUNCTION CODE>",
         "    Create a new library with the given library name and code.",
         "DELETE <LIBRARY NAME>",
         "    Delete the given library.",
         "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
         "    Return general information on all the libraries:",
         "    * Library name",
         "    * The engine used to run the Library",
         "    * Library description",
         "    * Functions list",
         "    * Library code (if WITHCODE is given)",
         "    It also possible to get only function that matches a pattern using LIBRARYNAME "
         "argument.",
         "STATS",
         "    Return information about the current function running:",
         "    * Function name",
         "    * Command used to run the function",
         "    * Duration in MS that the function is running",
         "    If no function is running, return nil",
         "    In addition, returns a list of available engines.",
         "KILL",
         "    Kill the current running function.",
         "FLUSH [ASYNC|SYNC]",
         "    Delete all the libraries.",
         "    When called without the optional mode argument, the behavior is determined by the",
         "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
         "    * ASYNC: Asynchronously flush the libraries.",
         "    * SYNC: Synchronously flush the libraries.",
         "DUMP",
         "    Return a serialized payload representing the current libraries, can be restored "
         "using FUNCTION RESTORE command",
         "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
         "    Restore the libraries represented by the given payload, it is possible to give a "
         "restore policy to",
         "    control how to handle existing libraries (default APPEND):",
         "    * FLUSH: delete all existing libraries.",
         "    * APPEND: appends the restored libraries to the existing libraries. On collision, "
         "abort.",
         "    * REPLACE: appends the restored libraries to the existing libraries, On collision, "
         "replace the old",
         "      libraries with the new libraries (notice that even on this option there is a "
         "chance of failure",
         "      in case of functions name collision with another library)."});
  }
  return resp::Reply::error(
      one_line("ERR unknown subcommand '" + sub.substr(0, 128) + "'. Try FUNCTION HELP."));
}

// ---- Commands -----------------------------------------------------------------

namespace {

resp::Reply fcall_command(CommandContext& ctx) {
  return ServerAccess::scripts(ctx.server).fcall(ctx, false);
}
resp::Reply fcall_ro_command(CommandContext& ctx) {
  return ServerAccess::scripts(ctx.server).fcall(ctx, true);
}
resp::Reply function_command(CommandContext& ctx) {
  return ServerAccess::scripts(ctx.server).function_command(ctx);
}

}  // namespace

void register_function_commands(CommandTable& table) {
  table.add({"fcall", -3, kCmdNoScript, fcall_command});
  table.add({"fcall_ro", -3, kCmdNoScript | kCmdReadonly, fcall_ro_command});
  table.add({"function", -2, kCmdContainer | kCmdNoScript, function_command});
  // Redis 7.0.15's FUNCTION subcommands (COMMAND INFO).
  static constexpr SubcommandSpec kFunctionSubcommands[] = {
      {"delete", 3, kCmdWrite | kCmdNoScript},
      {"dump", 2, kCmdNoScript},
      {"flush", -2, kCmdWrite | kCmdNoScript},
      {"help", 2, 0},
      {"kill", 2, kCmdNoScript},
      {"list", -2, kCmdNoScript},
      {"load", -3, kCmdWrite | kCmdDenyOom | kCmdNoScript},
      {"restore", -3, kCmdWrite | kCmdDenyOom | kCmdNoScript},
      {"stats", 2, kCmdNoScript},
  };
  table.add_subcommands("function", kFunctionSubcommands);
}

}  // namespace redsim::sim
