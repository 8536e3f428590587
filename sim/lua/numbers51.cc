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
// gsub's replacement values (a callback's result, a table's value) are
// printed by 5.4 too: a number among them goes through replacement51.
//
// String arithmetic ("10" * "10", ARGV[1] + 1): 5.4 does it in the string
// metatable's __add.. with integer arithmetic for integral strings
// ("4294967296" * "4294967296" wraps to 0); ours converts both operands to
// doubles as 5.1's luaV_tonumber does. When one does not convert, the other
// operand's metamethod runs (5.1's call_binTM), else the error is 5.1's
// luaG_aritherror: the first operand that does not convert, named as 5.1
// names it ("attempt to perform arithmetic on local 'x' (a string value)",
// measured on redis-server 7.0.15) from the arithmetic sites the source
// rewrite recorded for the running chunk (exprs51.cc), at the line 5.1
// reports (the right operand's last line; 5.4's is the operator's).
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

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

// Its arguments as floats (position captures are integers).
int floats51(lua_State* L) {
  floats_at_top(L, lua_gettop(L));
  return lua_gettop(L);
}

// Its first argument, a number printed as 5.1 prints it (gsub would print
// a float replacement value as "5.0").
int replacement51(lua_State* L) {
  lua_settop(L, 1);
  if (lua_type(L, 1) == LUA_TNUMBER) {
    std::string s = number_to_string51(L, 1);
    lua_pushlstring(L, s.data(), s.size());
  }
  return 1;
}

// __index of the proxy that stands for a gsub replacement table
// (upvalue 1: the script's table).
int replacement_index51(lua_State* L) {
  lua_settop(L, 2);
  lua_gettable(L, lua_upvalueindex(1));  // the proxy, the value
  lua_replace(L, 1);
  return replacement51(L);
}

char kGsubWrapperKey;

// A Lua function (not a C one, so a recursive gsub callback has 5.4's C
// depth, as now) that runs the callback on float arguments and prints a
// number it returns as 5.1 does. Built once per state.
constexpr const char* kGsubWrapper =
    "local f, floats, replacement = ... "
    "return function(...) return replacement(f(floats(...))) end";

void wrap_gsub_callback(lua_State* L, int idx) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &kGsubWrapperKey) != LUA_TFUNCTION) {
    lua_pop(L, 1);
    if (luaL_loadbufferx(L, kGsubWrapper, std::strlen(kGsubWrapper), "=gsub", "t") != LUA_OK) {
      lua_error(L);
    }
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &kGsubWrapperKey);
  }
  lua_pushvalue(L, idx);
  lua_pushcfunction(L, floats51);
  lua_pushcfunction(L, replacement51);
  lua_call(L, 3, 1);
  lua_replace(L, idx);
}

int string_gsub51(lua_State* L) {
  number_args_as_strings(L, 3);
  if (lua_type(L, 3) == LUA_TFUNCTION) {
    wrap_gsub_callback(L, 3);
  } else if (lua_type(L, 3) == LUA_TTABLE) {
    lua_createtable(L, 0, 0);
    lua_createtable(L, 0, 1);
    lua_pushvalue(L, 3);
    lua_pushcclosure(L, replacement_index51, 1);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
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

// The variable a site names ("local 'x'", "upvalue 'u'", "global 'g'")
// holds the value at `v` in the Lua function `ar` describes: 1 yes, 0 no,
// -1 cannot tell (a field, a temporary).
int names_value(lua_State* L, lua_Debug& ar, std::string_view name, int v) {
  size_t quote = name.find(" '");
  if (quote == std::string_view::npos || name.size() < quote + 3) return -1;
  std::string_view kind = name.substr(0, quote);
  std::string var(name.substr(quote + 2, name.size() - quote - 3));
  int found = 0;
  if (kind == "local") {
    for (int i = 1;; ++i) {
      const char* n = lua_getlocal(L, &ar, i);
      if (n == nullptr) break;
      if (var == n) found = lua_rawequal(L, v, -1) ? 1 : 0;  // the innermost wins
      lua_pop(L, 1);
    }
    return found;
  }
  if (kind == "upvalue") {
    lua_getinfo(L, "f", &ar);
    for (int i = 1;; ++i) {
      const char* n = lua_getupvalue(L, -1, i);
      if (n == nullptr) break;
      if (var == n) found = lua_rawequal(L, v, -1) ? 1 : 0;
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return found;
  }
  if (kind == "global") {
    push_real_globals(L);
    lua_pushlstring(L, var.data(), var.size());
    lua_rawget(L, -2);
    found = lua_rawequal(L, v, -1) ? 1 : 0;
    lua_pop(L, 2);
    return found;
  }
  return -1;
}

// 5.1's name (lgetobjname) of operand `bad` (1 left, 2 right) of the
// arithmetic `op` ('u': unary minus) the Lua function at level 1 was
// running when it called this metamethod, from its chunk's arithmetic
// sites (EngineState::arith_sites): those on the current line with that
// operator; when they name the operand differently, the first whose
// variable holds the operand's value. `line51` gets the line 5.1 reports.
std::string arith_operand_name(lua_State* L, char op, int bad, lua_Debug& ar, int* line51) {
  *line51 = ar.currentline;
  EngineState& state = state_of(L);
  const std::vector<ArithSite51>* sites = state.arith_sites;
  std::string_view source = ar.source != nullptr ? ar.source : "";
  if (source != "@user_script" && source != "@user_function") {
    sites = nullptr;  // code loadstring() compiled, if it still has its sites
    for (const auto& [name, loaded] : state.loaded_sites) {
      if (name == source) sites = &loaded;
    }
  }
  if (sites == nullptr || ar.currentline <= 0) return {};
  std::vector<const ArithSite51*> candidates;
  for (const ArithSite51& site : *sites) {
    if (site.line == ar.currentline && site.op == op) candidates.push_back(&site);
  }
  // A site whose failing side is a number literal or an arithmetic result
  // is not the one (unless none is left).
  std::vector<const ArithSite51*> possible;
  for (const ArithSite51* site : candidates) {
    if (!(bad == 1 ? site->left_numeric : site->right_numeric)) possible.push_back(site);
  }
  if (!possible.empty()) candidates = std::move(possible);
  auto name_of = [bad](const ArithSite51* site) -> const std::string& {
    return bad == 1 ? site->left : site->right;
  };
  const ArithSite51* best = candidates.empty() ? nullptr : candidates.front();
  bool agree = true;
  for (const ArithSite51* site : candidates) agree = agree && name_of(site) == name_of(best);
  if (!agree) {
    // A variable that holds it, else one that cannot be checked (a field,
    // a temporary), else the first.
    int best_rank = -1;
    for (const ArithSite51* site : candidates) {
      int holds = names_value(L, ar, name_of(site), bad);
      int rank = holds == 1 ? 2 : holds == -1 ? 1 : 0;
      if (rank > best_rank) {
        best = site;
        best_rank = rank;
      }
      if (rank == 2) break;
    }
  }
  if (best == nullptr) return {};
  *line51 = best->line51;
  return bad == 1 ? best->left : best->right;
}

// The string metatable's __add.. (upvalue 1: the original, 2: the LUA_OP*,
// 3: the event name).
int string_arith51(lua_State* L) {
  auto op = static_cast<int>(lua_tointeger(L, lua_upvalueindex(2)));
  lua_Number a = 0;
  lua_Number b = 0;
  bool left = arith_operand(L, 1, &a);
  if (left && arith_operand(L, 2, &b)) {
    lua_pushnumber(L, a);
    if (op != LUA_OPUNM) lua_pushnumber(L, b);
    lua_arith(L, op);  // two floats: float arithmetic
    return 1;
  }
  // 5.1's call_binTM: the other operand's metamethod (a string has none in
  // 5.1); 5.4's original calls it (trymt).
  const char* event = lua_tostring(L, lua_upvalueindex(3));
  for (int i = 1; i <= 2; ++i) {
    if (lua_type(L, i) != LUA_TSTRING && luaL_getmetafield(L, i, event) != LUA_TNIL) {
      lua_pop(L, 1);
      return upvalue_function(L, 1)(L);
    }
  }
  // luaG_aritherror: the first operand that is not convertible is named.
  int bad = left ? 2 : 1;
  char code = 0;
  switch (op) {
    case LUA_OPADD:
      code = '+';
      break;
    case LUA_OPSUB:
      code = '-';
      break;
    case LUA_OPMUL:
      code = '*';
      break;
    case LUA_OPDIV:
      code = '/';
      break;
    case LUA_OPPOW:
      code = '^';
      break;
    case LUA_OPUNM:
      code = 'u';
      break;
    default:
      break;
  }
  std::string msg;
  lua_Debug ar{};
  int line = 0;
  if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
    std::string name = arith_operand_name(L, code, bad, ar, &line);
    msg = std::string(ar.short_src) + ":" + std::to_string(line) + ": ";
    msg += "attempt to perform arithmetic on ";
    if (name.empty()) {
      msg += std::string("a ") + luaL_typename(L, bad) + " value";
    } else {
      msg += name + " (a " + luaL_typename(L, bad) + " value)";
    }
  } else {
    msg = std::string("attempt to perform arithmetic on a ") + luaL_typename(L, bad) + " value";
    ar.currentline = 0;
  }
  EngineState& state = state_of(L);
  state.arith_error_line = line != ar.currentline ? line : 0;
  state.arith_error = state.arith_error_line != 0 ? msg : std::string();
  lua_pushlstring(L, msg.data(), msg.size());
  return lua_error(L);
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

namespace {

// The name of operand n (1 or 2) in "left|right".
std::string operand_name51(std::string_view names, int n) {
  size_t bar = names.find('|');
  if (bar == std::string_view::npos) return {};
  return std::string(n == 1 ? names.substr(0, bar) : names.substr(bar + 1));
}

}  // namespace

int mod51(lua_State* L) {
  lua_Number a = 0;
  lua_Number b = 0;
  if (lua_type(L, 2) == LUA_TNUMBER && lua_type(L, 3) == LUA_TNUMBER) {
    a = lua_tonumber(L, 2);
    b = lua_tonumber(L, 3);
  } else if (!arith_operand(L, 2, &a) || !arith_operand(L, 3, &b)) {
    // A string's metatable is the string library's, not a __mod of the
    // script's.
    auto has_mod = [L](int i) {
      return lua_type(L, i) != LUA_TSTRING && luaL_getmetafield(L, i, "__mod") != LUA_TNIL;
    };
    if (has_mod(2) || has_mod(3)) {
      lua_settop(L, 3);
      lua_arith(L, LUA_OPMOD);
      return 1;
    }
    // luaG_aritherror: the first operand that is not a number is named.
    int bad = arith_operand(L, 2, &a) ? 3 : 2;
    size_t len = 0;
    const char* names = lua_tolstring(L, 1, &len);
    std::string name = operand_name51({names, len}, bad - 1);
    std::string what = std::string("a ") + luaL_typename(L, bad) + " value";
    if (!name.empty()) what = name + " (" + what + ")";
    return luaL_error(L, "attempt to perform arithmetic on %s", what.c_str());
  }
  lua_pushnumber(L, a - std::floor(a / b) * b);  // luai_nummod
  return 1;
}

int len51(lua_State* L) {
  lua_settop(L, 2);  // `#f()` of a call that returned nothing: nil
  switch (lua_type(L, 2)) {
    case LUA_TTABLE:
    case LUA_TSTRING:
      lua_pushnumber(L, static_cast<lua_Number>(lua_rawlen(L, 2)));
      return 1;
    default:
      break;
  }
  if (luaL_getmetafield(L, 2, "__len") != LUA_TNIL) {
    lua_pushvalue(L, 2);
    lua_call(L, 1, 1);
    return 1;
  }
  size_t len = 0;
  const char* name = lua_tolstring(L, 1, &len);
  std::string what = std::string("a ") + luaL_typename(L, 2) + " value";
  if (len > 0) what = std::string(name, len) + " (" + what + ")";
  return luaL_error(L, "attempt to get length of %s", what.c_str());
}

lua_CFunction helper51(std::string_view name) {
  if (name == kLenName) return len51;
  if (name == kSelfCallName) return self_call51;
  if (name == kModName) return mod51;
  return nullptr;
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
      lua_pushstring(L, a.name);
      lua_pushcclosure(L, string_arith51, 3);
      lua_setfield(L, mt, a.name);
    }
  }
  lua_settop(L, g);
}

}  // namespace redsim::sim::lua
