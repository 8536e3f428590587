// The library side of the number model (internal.h): every number a script
// receives is a float, as every Lua 5.1 number is a double.
//
// Most library functions are ours and push floats themselves. The 5.4
// originals we keep (string.find, match, gmatch, gsub: 5.4's pattern
// matcher; next; collectgarbage) are wrapped "in frame": our C function
// calls the original's lua_CFunction directly, on its own stack frame, and
// turns the integers among the results into floats. No Lua call is added,
// so error messages keep their position and function name ("user_script:1:
// bad argument #1 to 'find'") and the C-stack depth of recursive gsub
// callbacks is 5.4's own. The string functions also read number arguments
// as 5.1 prints them (5.4 would read 3.0 as "3.0").
//
// String arithmetic ("10" * "10", ARGV[1] + 1): 5.4 does it in the string
// metatable's __add.. with integer arithmetic for integral strings
// ("4294967296" * "4294967296" wraps to 0); ours converts both operands to
// doubles as 5.1's luaV_tonumber does, and leaves operands that do not
// convert to the original, so its error texts stay.
#include <cstring>
#include <string>

#include "sim/lua/internal.h"

namespace redsim::sim::lua {
namespace {

lua_CFunction upvalue_function(lua_State* L, int n) {
  return lua_tocfunction(L, lua_upvalueindex(n));
}

// Upvalue 1: the original. All results as floats.
int float_results(lua_State* L) {
  int n = upvalue_function(L, 1)(L);
  floats_at_top(L, n);
  return n;
}

// next(t, k): 5.4's lua_next finds an array key only as an integer.
int next51(lua_State* L) {
  key_for_next(L, 2);
  return float_results(L);
}

// Number arguments 1..count as the strings 5.1 reads them as.
void number_args_as_strings(lua_State* L, int count) {
  int top = lua_gettop(L);
  for (int i = 1; i <= count && i <= top; ++i) {
    if (lua_type(L, i) == LUA_TNUMBER) {
      std::string s = number_to_string51(L, i);
      lua_pushlstring(L, s.data(), s.size());
      lua_replace(L, i);
    }
  }
}

// string.find / string.match (upvalue 1: the original).
int string_search51(lua_State* L) {
  number_args_as_strings(L, 2);
  return float_results(L);
}

// The iterator string.gmatch returns: the original's upvalues, then the
// original iterator function as the last one.
int gmatch_iterator51(lua_State* L) {
  int last = 1;
  while (lua_type(L, lua_upvalueindex(last + 1)) != LUA_TNONE) ++last;
  int n = upvalue_function(L, last)(L);
  floats_at_top(L, n);
  return n;
}

int string_gmatch51(lua_State* L) {
  number_args_as_strings(L, 2);
  upvalue_function(L, 1)(L);  // pushes the original iterator
  int it = lua_gettop(L);
  int n = 0;
  while (lua_getupvalue(L, it, n + 1) != nullptr) ++n;
  lua_pushcfunction(L, lua_tocfunction(L, it));
  lua_pushcclosure(L, gmatch_iterator51, n + 1);
  return 1;
}

// A gsub callback behind a pattern with position captures: its arguments
// as floats (upvalue 1: the script's function).
int gsub_callback51(lua_State* L) {
  floats_at_top(L, lua_gettop(L));
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

int string_gsub51(lua_State* L) {
  number_args_as_strings(L, 3);
  // Only a pattern with a position capture "()" hands the callback an
  // integer; other callbacks are called as they are (no added C level).
  if (lua_type(L, 3) == LUA_TFUNCTION && lua_type(L, 2) == LUA_TSTRING &&
      std::strstr(lua_tostring(L, 2), "()") != nullptr) {
    lua_pushvalue(L, 3);
    lua_pushcclosure(L, gsub_callback51, 1);
    lua_replace(L, 3);
  }
  return float_results(L);
}

// A string or number operand of string arithmetic as 5.1 converts it.
bool arith_operand(lua_State* L, int idx, lua_Number* out) {
  int t = lua_type(L, idx);
  if (t == LUA_TNUMBER) {
    *out = lua_tonumber(L, idx);
    return true;
  }
  if (t != LUA_TSTRING) return false;
  size_t len = 0;
  const char* s = lua_tolstring(L, idx, &len);
  if (lua_stringtonumber(L, s) != len + 1) return false;
  *out = lua_tonumber(L, -1);
  lua_pop(L, 1);
  return true;
}

// The string metatable's __add.. (upvalue 1: the original, 2: the LUA_OP*).
int string_arith51(lua_State* L) {
  auto op = static_cast<int>(lua_tointeger(L, lua_upvalueindex(2)));
  lua_Number a = 0;
  lua_Number b = 0;
  if (!arith_operand(L, 1, &a) || !arith_operand(L, 2, &b)) return upvalue_function(L, 1)(L);
  lua_pushnumber(L, a);
  if (op != LUA_OPUNM) lua_pushnumber(L, b);
  lua_arith(L, op);  // two floats: float arithmetic
  return 1;
}

// Replaces the C function in field `name` of the table at `t` with fn,
// which gets the original as its upvalue 1.
void wrap_field(lua_State* L, int t, const char* name, lua_CFunction fn) {
  lua_getfield(L, t, name);
  if (lua_tocfunction(L, -1) == nullptr) {
    lua_pop(L, 1);
    return;
  }
  lua_pushcclosure(L, fn, 1);
  lua_setfield(L, t, name);
}

}  // namespace

void key_for_next(lua_State* L, int idx) {
  if (lua_type(L, idx) != LUA_TNUMBER || lua_isinteger(L, idx)) return;
  lua_Integer k = 0;
  if (lua_numbertointeger(lua_tonumber(L, idx), &k) &&
      static_cast<lua_Number>(k) == lua_tonumber(L, idx)) {
    lua_pushinteger(L, k);
    lua_replace(L, idx);
  }
}

int self_call51(lua_State* L) {
  int n = lua_gettop(L);
  luaL_checkany(L, 1);
  lua_pushvalue(L, 2);
  lua_gettable(L, 1);  // obj[name], metamethods included
  if (lua_type(L, -1) != LUA_TFUNCTION && luaL_getmetafield(L, -1, "__call") == LUA_TNIL) {
    return luaL_error(L, "attempt to call method '%s' (a %s value)", lua_tostring(L, 2),
                      luaL_typename(L, -1));
  }
  lua_settop(L, n + 1);
  lua_replace(L, 2);  // obj, f, args
  lua_pushvalue(L, 1);
  lua_copy(L, 2, 1);
  lua_replace(L, 2);  // f, obj, args
  lua_call(L, n - 1, LUA_MULTRET);
  return lua_gettop(L);
}

void install_numbers51(lua_State* L) {
  int g = lua_gettop(L);
  wrap_field(L, g, "next", next51);
  wrap_field(L, g, "collectgarbage", float_results);

  lua_getfield(L, g, "string");
  int s = lua_gettop(L);
  wrap_field(L, s, "find", string_search51);
  wrap_field(L, s, "match", string_search51);
  wrap_field(L, s, "gmatch", string_gmatch51);
  wrap_field(L, s, "gsub", string_gsub51);

  lua_pushliteral(L, "");
  if (lua_getmetatable(L, -1)) {
    int mt = lua_gettop(L);
    static const struct {
      const char* name;
      int op;
    } kArith[] = {{"__add", LUA_OPADD}, {"__sub", LUA_OPSUB}, {"__mul", LUA_OPMUL},
                  {"__div", LUA_OPDIV}, {"__mod", LUA_OPMOD}, {"__pow", LUA_OPPOW},
                  {"__unm", LUA_OPUNM}};
    for (const auto& a : kArith) {
      lua_getfield(L, mt, a.name);
      if (lua_tocfunction(L, -1) == nullptr) {
        lua_pop(L, 1);
        continue;
      }
      lua_pushinteger(L, a.op);
      lua_pushcclosure(L, string_arith51, 2);
      lua_setfield(L, mt, a.name);
    }
  }
  lua_settop(L, g);
}

}  // namespace redsim::sim::lua
