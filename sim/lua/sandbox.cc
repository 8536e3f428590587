// The script sandbox of Redis 7.0 on Lua 5.4: the exact set of globals, a
// globals table that raises on unknown names and refuses every write, read-
// only library tables, and the error handler that turns any error into
// Redis's {err=..., source=..., line=...} table.
//
// Redis 5.1 marks tables read-only inside its patched VM. Lua 5.4 has no
// such flag, so each protected table is reached through an empty proxy
// whose metatable forwards reads (__index = the real table) and refuses
// writes (__newindex). rawset/rawget/next/pairs/getmetatable/setmetatable
// are replaced so that the proxies behave like the tables they stand for.
// Known difference: 5.4-only library entries are removed, but a proxy's
// real table is still reachable through "abc":method lookups only, which
// read it and never write it.
#include <cstring>
#include <string>

#include "sim/lua/internal.h"

namespace redsim::sim::lua {
namespace {

// Registry keys (their addresses) and the metatable marker of proxies.
char kReadonlyMarker;
char kGlobalsKey;
char kStringMetaViewKey;
char kGlobalsMetaViewKey;

constexpr const char* kReadonlyError = "Attempt to modify a readonly table";

int readonly_newindex(lua_State* L) { return luaL_error(L, "%s", kReadonlyError); }

int readonly_len(lua_State* L) {
  lua_getmetatable(L, 1);
  lua_getfield(L, -1, "__index");
  lua_pushnumber(L, static_cast<lua_Number>(lua_rawlen(L, -1)));
  return 1;
}

// Replaces the table at the top of the stack with a read-only proxy of it.
void make_readonly(lua_State* L) {
  int target = lua_gettop(L);
  lua_newtable(L);           // proxy
  lua_createtable(L, 0, 4);  // its metatable
  lua_pushvalue(L, target);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, readonly_newindex);
  lua_setfield(L, -2, "__newindex");
  lua_pushcfunction(L, readonly_len);
  lua_setfield(L, -2, "__len");
  lua_pushboolean(L, 1);
  lua_rawsetp(L, -2, &kReadonlyMarker);
  lua_setmetatable(L, -2);
  lua_replace(L, target);
}

// If the value at idx is a read-only proxy, pushes the real table and
// returns true; otherwise pushes nothing and returns false.
bool push_readonly_target(lua_State* L, int idx) {
  if (lua_type(L, idx) != LUA_TTABLE || !lua_getmetatable(L, idx)) return false;
  if (lua_rawgetp(L, -1, &kReadonlyMarker) != LUA_TBOOLEAN) {
    lua_pop(L, 2);
    return false;
  }
  lua_pop(L, 1);
  lua_getfield(L, -1, "__index");
  lua_remove(L, -2);
  return true;
}

[[noreturn]] void raise_readonly_without_position(lua_State* L) {
  // Redis's VM raises this from inside rawset/setmetatable, where no Lua
  // line is current, so the message carries no "user_script:N:" prefix.
  lua_pushstring(L, kReadonlyError);
  lua_error(L);
  __builtin_unreachable();
}

int sandbox_rawset(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  luaL_checkany(L, 3);
  if (push_readonly_target(L, 1)) raise_readonly_without_position(L);
  lua_settop(L, 3);
  lua_rawset(L, 1);
  return 1;
}

int sandbox_rawget(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  lua_settop(L, 2);
  if (push_readonly_target(L, 1)) lua_replace(L, 1);
  lua_rawget(L, 1);
  return 1;
}

int sandbox_next(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 2);
  if (push_readonly_target(L, 1)) lua_replace(L, 1);
  key_for_next(L, 2);
  if (lua_next(L, 1)) {
    if (lua_isinteger(L, -2)) {  // the number model (internal.h): keys too
      lua_pushnumber(L, static_cast<lua_Number>(lua_tointeger(L, -2)));
      lua_replace(L, -3);
    }
    return 2;
  }
  lua_pushnil(L);
  return 1;
}

int sandbox_pairs(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_pushvalue(L, lua_upvalueindex(1));  // the plain next
  if (!push_readonly_target(L, 1)) lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

int sandbox_getmetatable(lua_State* L) {
  luaL_checkany(L, 1);
  if (lua_type(L, 1) == LUA_TSTRING) {
    lua_rawgetp(L, LUA_REGISTRYINDEX, &kStringMetaViewKey);
    return 1;
  }
  if (push_readonly_target(L, 1)) {
    // Redis's library tables have no metatable; its _G has one.
    lua_rawgetp(L, LUA_REGISTRYINDEX, &kGlobalsKey);
    bool is_globals = lua_rawequal(L, -1, -2);
    if (is_globals) {
      lua_rawgetp(L, LUA_REGISTRYINDEX, &kGlobalsMetaViewKey);
    } else {
      lua_pushnil(L);
    }
    return 1;
  }
  if (!lua_getmetatable(L, 1)) {
    lua_pushnil(L);
    return 1;
  }
  luaL_getmetafield(L, 1, "__metatable");
  return 1;
}

int sandbox_setmetatable(lua_State* L) {
  int t = lua_type(L, 2);
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_argcheck(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table expected");
  if (push_readonly_target(L, 1)) raise_readonly_without_position(L);
  if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL) {
    return luaL_error(L, "cannot change a protected metatable");
  }
  lua_settop(L, 2);
  // Lua 5.1 runs no finalizer for a table; 5.4 would run a __gc at some
  // later collection, possibly inside another script. Hide __gc while the
  // metatable is attached so 5.4 does not register the table for it.
  bool has_gc = false;
  if (t == LUA_TTABLE) {
    lua_pushliteral(L, "__gc");
    has_gc = lua_rawget(L, 2) != LUA_TNIL;  // kept at index 3 when set
    if (!has_gc) lua_pop(L, 1);
  }
  if (has_gc) {
    lua_pushliteral(L, "__gc");
    lua_pushnil(L);
    lua_rawset(L, 2);
    lua_pushvalue(L, 2);
    lua_setmetatable(L, 1);
    lua_pushliteral(L, "__gc");
    lua_pushvalue(L, 3);
    lua_rawset(L, 2);  // restore the field, now inert
  } else {
    lua_setmetatable(L, 1);
  }
  lua_settop(L, 1);
  return 1;
}

int nonexistent_global(lua_State* L) {
  size_t len = 0;
  const char* key = lua_tolstring(L, 2, &len);
  if (key != nullptr && std::string_view(key, len) == kConcatName) {
    lua_pushcfunction(L, concat51);
    return 1;
  }
  if (lua_CFunction helper = key != nullptr ? helper51({key, len}) : nullptr) {
    lua_pushcfunction(L, helper);
    return 1;
  }
  return luaL_error(L, "Script attempted to access nonexistent global variable '%s'",
                    lua_tostring(L, 2));
}

}  // namespace

int error_handler(lua_State* L) {
  // Where the error happened: the erroring function, or its Lua caller when
  // it is a C function (error, redis.call, ...), as Redis's handler does.
  lua_Debug ar;
  bool have_place = false;
  if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "Sl", &ar)) {
    have_place = true;
    if (std::strcmp(ar.what, "C") == 0) {
      have_place = lua_getstack(L, 2, &ar) && lua_getinfo(L, "Sl", &ar);
    }
  }
  lua_settop(L, 1);
  int line = have_place ? ar.currentline : 0;
  // string_arith51's error at 5.1's line, not 5.4's.
  EngineState* state = state_slot(L);
  if (state != nullptr && state->arith_error_line != 0 && lua_type(L, 1) == LUA_TSTRING &&
      state->arith_error == lua_tostring(L, 1)) {
    line = state->arith_error_line;
    state->arith_error_line = 0;
    state->arith_error.clear();
  }
  if (lua_type(L, 1) != LUA_TTABLE) {
    std::string msg = "ERR ";
    if (lua_type(L, 1) == LUA_TSTRING) {
      msg += rewrite_message51(lua_tostring(L, 1));
    } else if (lua_type(L, 1) == LUA_TNUMBER) {
      msg += number_to_string51(L, 1);
    } else {
      size_t len = 0;
      const char* s = luaL_tolstring(L, 1, &len);
      msg.append(s, len);
      lua_pop(L, 1);
    }
    lua_createtable(L, 0, 3);
    lua_pushlstring(L, msg.data(), msg.size());
    lua_setfield(L, -2, "err");
    lua_replace(L, 1);
  } else if (push_readonly_target(L, 1)) {
    lua_pop(L, 1);  // error(string) or the like: a proxy cannot take fields
    return 1;
  }
  if (have_place) {
    // Raw writes: a user's error table may carry a raising __newindex.
    lua_pushliteral(L, "source");
    lua_pushstring(L, ar.source);
    lua_rawset(L, 1);
    lua_pushliteral(L, "line");
    lua_pushinteger(L, line);
    lua_rawset(L, 1);
  }
  return 1;
}

void push_real_globals(lua_State* L) { lua_rawgetp(L, LUA_REGISTRYINDEX, &kGlobalsKey); }

void install_sandbox(lua_State* L) {
  luaL_requiref(L, LUA_GNAME, luaopen_base, 1);
  luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 1);
  luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 1);
  luaL_requiref(L, LUA_MATHLIBNAME, luaopen_math, 1);
  luaL_requiref(L, LUA_COLIBNAME, luaopen_coroutine, 1);
  lua_pop(L, 5);

  lua_pushglobaltable(L);  // G: the real globals, hidden behind a proxy below
  int g = lua_gettop(L);
  open_bit(L);
  lua_setfield(L, g, "bit");
  open_cjson(L);
  lua_setfield(L, g, "cjson");
  open_cmsgpack(L);
  lua_setfield(L, g, "cmsgpack");
  open_struct(L);
  lua_setfield(L, g, "struct");
  open_redis(L);
  lua_setfield(L, g, "redis");
  install_compat51(L);

  lua_getfield(L, g, "next");
  lua_pushcclosure(L, sandbox_pairs, 1);
  lua_setfield(L, g, "pairs");
  static const luaL_Reg kSandbox[] = {
      {"rawset", sandbox_rawset},
      {"rawget", sandbox_rawget},
      {"next", sandbox_next},
      {"getmetatable", sandbox_getmetatable},
      {"setmetatable", sandbox_setmetatable},
      {"__redis__err__handler", error_handler},
      {nullptr, nullptr},
  };
  luaL_setfuncs(L, kSandbox, 0);
  lua_newtable(L);
  lua_setfield(L, g, "KEYS");
  lua_newtable(L);
  lua_setfield(L, g, "ARGV");

  // Library tables become read-only proxies.
  for (const char* lib :
       {"string", "table", "math", "coroutine", "bit", "cjson", "cmsgpack", "struct", "redis"}) {
    lua_getfield(L, g, lib);
    make_readonly(L);
    lua_setfield(L, g, lib);
  }
  // getmetatable("") shows {__index = string}, read-only, as Redis's does;
  // the VM keeps using the real string metatable.
  lua_createtable(L, 0, 1);
  lua_getfield(L, g, "string");
  lua_setfield(L, -2, "__index");
  make_readonly(L);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &kStringMetaViewKey);

  // Unknown globals raise; G itself hides behind a read-only proxy that is
  // both _G and the environment of every chunk loaded from now on.
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, nonexistent_global);
  lua_setfield(L, -2, "__index");
  lua_pushvalue(L, -1);
  make_readonly(L);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &kGlobalsMetaViewKey);
  lua_setmetatable(L, g);
  lua_pushvalue(L, g);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &kGlobalsKey);
  lua_pushvalue(L, g);
  make_readonly(L);
  lua_pushvalue(L, -1);
  lua_setfield(L, g, "_G");
  lua_rawseti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS);
  lua_settop(L, g - 1);

  // No require here, so the loaded-modules table has no use; emptying it
  // also keeps 5.4 from naming library functions called from C ("bad
  // argument #1 to 'string.rep'") where 5.1 says '?'.
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  for (const char* lib :
       {LUA_GNAME, LUA_TABLIBNAME, LUA_STRLIBNAME, LUA_MATHLIBNAME, LUA_COLIBNAME}) {
    lua_pushnil(L);
    lua_setfield(L, -2, lib);
  }
  lua_pop(L, 1);
}

}  // namespace redsim::sim::lua
