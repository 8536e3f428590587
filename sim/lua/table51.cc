// The table library of Redis's Lua 5.1 on 5.4: the 5.1-only functions
// (getn, setn, maxn, foreach, foreachi), and insert/remove/concat with 5.1's
// rules (raw access, positions truncated rather than required to be
// integers, no bounds error for insert, numbers concatenated as 5.1 prints
// them). sort is 5.4's, which behaves the same for valid input.
#include <string>

#include "sim/lua/internal.h"

namespace redsim::sim::lua {
namespace {

lua_Integer check_int(lua_State* L, int arg) {
  return static_cast<lua_Integer>(cast_to_int64(static_cast<double>(luaL_checknumber(L, arg))));
}

lua_Integer raw_getn(lua_State* L, int idx) {
  luaL_checktype(L, idx, LUA_TTABLE);
  return static_cast<lua_Integer>(lua_rawlen(L, idx));
}

int table_getn(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_pushnumber(L, static_cast<lua_Number>(lua_rawlen(L, 1)));
  return 1;
}

int table_setn(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  return luaL_error(L, "'setn' is obsolete");
}

int table_maxn(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  double max = 0;
  lua_pushnil(L);
  while (lua_next(L, 1) != 0) {
    lua_pop(L, 1);
    if (lua_type(L, -1) == LUA_TNUMBER) {
      double v = static_cast<double>(lua_tonumber(L, -1));
      if (v > max) max = v;
    }
  }
  push_number51(L, max);
  return 1;
}

int table_foreachi(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  lua_Integer n = static_cast<lua_Integer>(lua_rawlen(L, 1));
  for (lua_Integer i = 1; i <= n; ++i) {
    lua_pushvalue(L, 2);
    lua_pushnumber(L, static_cast<lua_Number>(i));
    lua_rawgeti(L, 1, i);
    lua_call(L, 2, 1);
    if (!lua_isnil(L, -1)) return 1;
    lua_pop(L, 1);
  }
  return 0;
}

int table_foreach(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  lua_pushnil(L);
  while (lua_next(L, 1) != 0) {
    lua_pushvalue(L, 2);
    lua_pushvalue(L, -3);
    lua_pushvalue(L, -3);
    lua_call(L, 2, 1);
    if (!lua_isnil(L, -1)) return 1;
    lua_pop(L, 2);
  }
  return 0;
}

int table_insert(lua_State* L) {
  lua_Integer e = raw_getn(L, 1) + 1;  // first empty slot
  lua_Integer pos = e;
  switch (lua_gettop(L)) {
    case 2:
      break;
    case 3:
      pos = check_int(L, 2);
      if (pos > e) e = pos;
      for (lua_Integer i = e; i > pos; --i) {
        lua_rawgeti(L, 1, i - 1);
        lua_rawseti(L, 1, i);
      }
      break;
    default:
      return luaL_error(L, "wrong number of arguments to 'insert'");
  }
  lua_rawseti(L, 1, pos);
  return 0;
}

int table_remove(lua_State* L) {
  lua_Integer e = raw_getn(L, 1);
  lua_Integer pos = lua_isnoneornil(L, 2) ? e : check_int(L, 2);
  if (!(1 <= pos && pos <= e)) return 0;
  lua_rawgeti(L, 1, pos);
  for (; pos < e; ++pos) {
    lua_rawgeti(L, 1, pos + 1);
    lua_rawseti(L, 1, pos);
  }
  lua_pushnil(L);
  lua_rawseti(L, 1, e);
  return 1;
}

int table_concat(lua_State* L) {
  size_t sep_len = 0;
  const char* sep = luaL_optlstring(L, 2, "", &sep_len);
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_Integer i = lua_isnoneornil(L, 3) ? 1 : check_int(L, 3);
  lua_Integer last = lua_isnoneornil(L, 4) ? raw_getn(L, 1) : check_int(L, 4);
  std::string out;
  for (; i <= last; ++i) {
    lua_rawgeti(L, 1, i);
    int t = lua_type(L, -1);
    if (t == LUA_TNUMBER) {
      out += number_to_string51(L, -1);
    } else if (t == LUA_TSTRING) {
      size_t len = 0;
      const char* s = lua_tolstring(L, -1, &len);
      out.append(s, len);
    } else {
      // Redis's 5.1 names the type (checked against redis-server 7.0.15).
      return luaL_error(L, "invalid value (%s) at index %d in table for 'concat'",
                        luaL_typename(L, -1), static_cast<int>(i));
    }
    lua_pop(L, 1);
    if (i != last) out.append(sep, sep_len);
  }
  lua_pushlstring(L, out.data(), out.size());
  return 1;
}

}  // namespace

void install_table51(lua_State* L) {
  static const luaL_Reg kTable[] = {
      {"getn", table_getn},       {"setn", table_setn},         {"maxn", table_maxn},
      {"foreach", table_foreach}, {"foreachi", table_foreachi}, {"insert", table_insert},
      {"remove", table_remove},   {"concat", table_concat},     {nullptr, nullptr},
  };
  luaL_setfuncs(L, kTable, 0);
  for (const char* name : {"move", "pack", "unpack"}) {
    lua_pushnil(L);
    lua_setfield(L, -2, name);
  }
}

}  // namespace redsim::sim::lua
