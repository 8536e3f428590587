// Lua 5.1 behaviour that Redis scripts rely on, rebuilt on 5.4: the base
// functions whose semantics changed (tostring, error, pcall, load, unpack,
// ipairs ...), string.format with 5.1 number conversions, the 5.1 math and
// table names, and Redis's deterministic math.random (rand48).
//
// Each function is a C function called directly by the script, never a
// wrapper around the 5.4 original: that keeps 5.4's error positions
// ("user_script:1:") and argument names ("bad argument #1 to 'floor'").
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "sim/lua/internal.h"

namespace redsim::sim::lua {
namespace {

constexpr lua_Integer kMaxCStack = 8000;  // 5.1's LUAI_MAXCSTACK

// ---- base -----------------------------------------------------------------

int base_tostring(lua_State* L) {
  luaL_checkany(L, 1);
  if (lua_type(L, 1) == LUA_TNUMBER) {
    std::string s = number_to_string51(L, 1);
    lua_pushlstring(L, s.data(), s.size());
    return 1;
  }
  luaL_tolstring(L, 1, nullptr);
  return 1;
}

// 5.1: numbers are strings too, so error(12) gets a position like error("x").
int base_error(lua_State* L) {
  lua_Integer level = luaL_optinteger(L, 2, 1);
  lua_settop(L, 1);
  int t = lua_type(L, 1);
  if ((t == LUA_TSTRING || t == LUA_TNUMBER) && level > 0) {
    if (t == LUA_TNUMBER) {
      std::string s = number_to_string51(L, 1);
      lua_pushlstring(L, s.data(), s.size());
      lua_replace(L, 1);
    }
    luaL_where(L, static_cast<int>(level));
    lua_pushvalue(L, 1);
    lua_concat(L, 2);
  }
  return lua_error(L);
}

// Redis 7.0's pcall: errors raised as {err=...} tables (redis.call's) come
// back as their err string, as they did when Redis raised plain strings.
int base_pcall(lua_State* L) {
  int argc = lua_gettop(L);
  if (argc == 0) {
    // Redis calls its placeholder `true` here; keep its answer.
    lua_pushboolean(L, 0);
    lua_pushliteral(L, "attempt to call a boolean value");
    return 2;
  }
  int status = lua_pcall(L, argc - 1, LUA_MULTRET, 0);
  if (status != LUA_OK) {
    if (lua_type(L, -1) == LUA_TSTRING) {
      std::string msg = rewrite_message51(lua_tostring(L, -1));
      lua_pop(L, 1);
      lua_pushlstring(L, msg.data(), msg.size());
    } else if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "err");
      if (lua_isstring(L, -1)) {
        lua_replace(L, -2);
      } else {
        lua_pop(L, 1);
      }
    }
    lua_pushboolean(L, 0);
    lua_insert(L, -2);
    return 2;
  }
  lua_pushboolean(L, 1);
  lua_insert(L, 1);
  return lua_gettop(L);
}

int base_loadstring(lua_State* L) {
  size_t len = 0;
  const char* s = luaL_checklstring(L, 1, &len);
  const char* chunkname = luaL_optstring(L, 2, s);
  // The number model for loaded code too (literals as floats, `..` and
  // `#` as 5.1's); code with syntax 5.1 lacks is loaded as it is.
  Source51 adapted = adapt_source51({s, len});
  if (adapted.error.empty()) {
    s = adapted.code.data();
    len = adapted.code.size();
  }
  if (luaL_loadbufferx(L, s, len, chunkname, "t") == LUA_OK) {
    if (!adapted.arith.empty()) {
      note_shared_state(state_of(L));
      auto& loaded = state_of(L).loaded_sites;
      std::erase_if(loaded, [chunkname](const auto& e) { return e.first == chunkname; });
      if (loaded.size() >= EngineState::kLoadedSites) loaded.erase(loaded.begin());
      loaded.emplace_back(chunkname, std::move(adapted.arith));
    }
    return 1;
  }
  lua_pushnil(L);
  lua_insert(L, -2);
  return 2;
}

constexpr int kLoadReaderSlot = 3;

const char* load_reader(lua_State* L, void*, size_t* size) {
  luaL_checkstack(L, 2, "too many nested functions");
  lua_pushvalue(L, 1);
  lua_call(L, 0, 1);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    *size = 0;
    return nullptr;
  }
  if (!lua_isstring(L, -1)) luaL_error(L, "reader function must return a string");
  lua_replace(L, kLoadReaderSlot);  // keeps the piece alive while it is parsed
  return lua_tolstring(L, kLoadReaderSlot, size);
}

// 5.1's load(func [, chunkname]): a reader function only, text chunks only.
int base_load(lua_State* L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  const char* chunkname = luaL_optstring(L, 2, "=(load)");
  lua_settop(L, kLoadReaderSlot);
  if (lua_load(L, load_reader, nullptr, chunkname, "t") == LUA_OK) return 1;
  lua_pushnil(L);
  lua_insert(L, -2);
  return 2;
}

int base_unpack(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_Integer i = static_cast<lua_Integer>(luaL_optnumber(L, 2, 1));
  lua_Integer e = lua_isnoneornil(L, 3) ? static_cast<lua_Integer>(lua_rawlen(L, 1))
                                        : static_cast<lua_Integer>(luaL_checknumber(L, 3));
  if (i > e) return 0;
  lua_Integer n = e - i + 1;
  // 5.1's lua_checkstack refuses to let a C function's stack (its
  // arguments plus the results) pass LUAI_MAXCSTACK = 8000 slots: on
  // redis-server 7.0.15 unpack(t) gives at most 7,999 values and
  // unpack(t, 1, n) at most 7,997.
  if (n <= 0 || n > kMaxCStack - lua_gettop(L) || !lua_checkstack(L, static_cast<int>(n))) {
    return luaL_error(L, "too many results to unpack");
  }
  for (lua_Integer k = i; k <= e; ++k) lua_rawgeti(L, 1, k);
  return static_cast<int>(n);
}

int ipairs_aux(lua_State* L) {
  lua_Integer i = luaL_checkinteger(L, 2) + 1;
  lua_pushnumber(L, static_cast<lua_Number>(i));
  if (lua_geti(L, 1, i) == LUA_TNIL) return 0;
  return 2;
}

int base_ipairs(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_pushcfunction(L, ipairs_aux);
  lua_pushvalue(L, 1);
  lua_pushnumber(L, 0);
  return 3;
}

// 5.1 has only doubles: "5" reads as 5.0 (internal.h's number model).
void push_parsed_number(lua_State* L) { floats_at_top(L, 1); }

int base_tonumber(lua_State* L) {
  if (lua_isnoneornil(L, 2)) {
    luaL_checkany(L, 1);
    if (lua_type(L, 1) == LUA_TNUMBER) {
      lua_settop(L, 1);
      push_parsed_number(L);
      return 1;
    }
    size_t len = 0;
    const char* s = lua_tolstring(L, 1, &len);
    if (s != nullptr && lua_stringtonumber(L, s) == len + 1) {
      push_parsed_number(L);
      return 1;
    }
    lua_pushnil(L);
    return 1;
  }
  // 5.1: strtoul in the given base, surrounding spaces allowed.
  int base = static_cast<int>(luaL_checknumber(L, 2));
  const char* s = luaL_checkstring(L, 1);
  luaL_argcheck(L, 2 <= base && base <= 36, 2, "base out of range");
  char* end = nullptr;
  unsigned long n = std::strtoul(s, &end, base);
  if (end != s) {
    while (std::isspace(static_cast<unsigned char>(*end))) ++end;
    if (*end == '\0') {
      push_number51(L, static_cast<double>(n));
      return 1;
    }
  }
  lua_pushnil(L);
  return 1;
}

// 5.1's assert raises its message with a position, numbers included.
int base_assert(lua_State* L) {
  luaL_checkany(L, 1);
  if (lua_toboolean(L, 1)) return lua_gettop(L);
  std::string msg = "assertion failed!";
  if (lua_type(L, 2) == LUA_TNUMBER) {
    msg = number_to_string51(L, 2);
  } else if (!lua_isnoneornil(L, 2)) {
    msg = luaL_checkstring(L, 2);
  }
  return luaL_error(L, "%s", msg.c_str());
}

// 5.1 returns nil in the main thread (5.4: the thread and true).
int co_running(lua_State* L) {
  if (lua_pushthread(L)) {
    lua_pushnil(L);
  }
  return 1;
}

// 5.1: the index is truncated, not required to be an integer.
int base_select(lua_State* L) {
  int n = lua_gettop(L);
  if (lua_type(L, 1) == LUA_TSTRING && *lua_tostring(L, 1) == '#') {
    lua_pushnumber(L, n - 1);
    return 1;
  }
  int64_t i = cast_to_int64(static_cast<double>(luaL_checknumber(L, 1)));
  if (i < 0) {
    i = n + i;
  } else if (i > n) {
    i = n;
  }
  luaL_argcheck(L, 1 <= i, 1, "index out of range");
  return n - static_cast<int>(i);
}

// The message handler our xpcall installs (upvalue 1: the script's
// handler). Once SCRIPT KILL was accepted the script's handler is not run:
// the kill is raised from the count hook, and Lua calls a message handler
// before unwinding, so from inside that hook, where hooks are off; a
// looping handler could then never be stopped (Redis 7.0 hangs on
// xpcall(function() while true do end end, function(e) while true do end end)).
// A handler that is not a function fails as 5.1's does.
int xpcall_message_handler(lua_State* L) {
  if (state_of(L).run.killed) return 1;  // the kill error, unchanged
  if (lua_type(L, lua_upvalueindex(1)) != LUA_TFUNCTION) {
    lua_pushliteral(L, "error in error handling");
    return 1;
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

// 5.1's xpcall(f, err): f gets no arguments (5.4 passes the extra ones);
// err runs through xpcall_message_handler, so a kill is never handed to it.
int base_xpcall(lua_State* L) {
  luaL_checkany(L, 2);
  lua_settop(L, 2);
  lua_pushcclosure(L, xpcall_message_handler, 1);  // f, handler
  lua_insert(L, 1);                                // handler, f
  int status = lua_pcall(L, 0, LUA_MULTRET, 1);
  lua_pushboolean(L, status == LUA_OK);
  lua_replace(L, 1);
  return lua_gettop(L);
}

int base_gcinfo(lua_State* L) {
  lua_pushnumber(L, lua_gc(L, LUA_GCCOUNT, 0));
  return 1;
}

void set_functions(lua_State* L, const luaL_Reg* fns) {
  for (; fns->name != nullptr; ++fns) {
    lua_pushcfunction(L, fns->func);
    lua_setfield(L, -2, fns->name);
  }
}

void remove_fields(lua_State* L, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    lua_pushnil(L);
    lua_setfield(L, -2, name);
  }
}

}  // namespace

void install_compat51(lua_State* L) {
  // Globals table at the top of the stack.
  install_numbers51(L);
  static const luaL_Reg kBase[] = {
      {"tostring", base_tostring}, {"error", base_error},
      {"pcall", base_pcall},       {"loadstring", base_loadstring},
      {"load", base_load},         {"unpack", base_unpack},
      {"ipairs", base_ipairs},     {"gcinfo", base_gcinfo},
      {"tonumber", base_tonumber}, {"assert", base_assert},
      {"select", base_select},     {"xpcall", base_xpcall},
      {nullptr, nullptr},
  };
  set_functions(L, kBase);
  remove_fields(L, {"dofile", "loadfile", "print", "require", "warn", "rawlen", "package", "utf8",
                    "io", "os", "debug"});
  lua_pushliteral(L, "Lua 5.1");
  lua_setfield(L, -2, "_VERSION");

  lua_getfield(L, -1, "string");
  install_string51(L);
  lua_pop(L, 1);

  lua_getfield(L, -1, "table");
  install_table51(L);
  lua_pop(L, 1);

  lua_getfield(L, -1, "math");
  install_math51(L);
  lua_pop(L, 1);

  lua_getfield(L, -1, "coroutine");
  lua_pushcfunction(L, co_running);
  lua_setfield(L, -2, "running");
  remove_fields(L, {"close", "isyieldable"});
  lua_pop(L, 1);
}

}  // namespace redsim::sim::lua
