// 5.1's `..` for the chains adapt_source51 rewrites (see internal.h). 5.1's
// luaV_concat works from the right: runs of strings and numbers are joined
// (numbers printed as lua_number2str does, "%.14g"); a pair with another
// value calls the left, else the right operand's __concat; with none it
// raises luaG_concaterror's text, which names the left operand unless that
// one is a string or number (lvm.c, ldebug.c of Lua 5.1.5).
#include <string>
#include <string_view>

#include "sim/lua/internal.h"

namespace redsim::sim::lua {
namespace {

bool string_or_number(lua_State* L, int idx) {
  int t = lua_type(L, idx);
  return t == LUA_TSTRING || t == LUA_TNUMBER;
}

void append51(std::string& out, lua_State* L, int idx) {
  if (lua_type(L, idx) == LUA_TNUMBER) {
    out += number_to_string51(L, idx);
  } else {
    size_t len = 0;
    const char* s = lua_tolstring(L, idx, &len);
    out.append(s, len);
  }
}

// The name of operand `n` (1-based) in the '|'-separated list.
std::string_view operand_name(std::string_view names, int n) {
  for (int i = 1; i < n; ++i) {
    size_t bar = names.find('|');
    if (bar == std::string_view::npos) return {};
    names.remove_prefix(bar + 1);
  }
  return names.substr(0, names.find('|'));
}

[[noreturn]] void concat_error(lua_State* L, int idx, std::string_view name) {
  std::string msg = "attempt to concatenate ";
  std::string type = luaL_typename(L, idx);
  if (name.empty()) {
    msg += "a " + type + " value";
  } else {
    msg.append(name);
    msg += " (a " + type + " value)";
  }
  luaL_where(L, 1);
  lua_pushlstring(L, msg.data(), msg.size());
  lua_concat(L, 2);
  lua_error(L);
  __builtin_unreachable();  // lua_error throws in the C++ build
}

}  // namespace

int concat51(lua_State* L) {
  int top = lua_gettop(L);
  bool plain = true;
  for (int i = 2; i <= top && plain; ++i) plain = string_or_number(L, i);
  if (plain) {
    std::string out;
    for (int i = 2; i <= top; ++i) append51(out, L, i);
    lua_pushlstring(L, out.data(), out.size());
    return 1;
  }
  std::string_view names;
  if (lua_type(L, 1) == LUA_TSTRING) names = lua_tostring(L, 1);
  luaL_checkstack(L, 4, "too many operands");
  lua_pushvalue(L, top);      // the accumulated right part
  int acc_operand = top - 1;  // its operand number while it is one operand, else 0
  for (int i = top - 1; i >= 2; --i) {
    int acc = lua_gettop(L);
    if (string_or_number(L, i) && string_or_number(L, acc)) {
      std::string out;
      append51(out, L, i);
      append51(out, L, acc);
      lua_pop(L, 1);
      lua_pushlstring(L, out.data(), out.size());
    } else {
      if (luaL_getmetafield(L, i, "__concat") == LUA_TNIL &&
          luaL_getmetafield(L, acc, "__concat") == LUA_TNIL) {
        if (!string_or_number(L, i)) concat_error(L, i, operand_name(names, i - 1));
        concat_error(L, acc, acc_operand > 0 ? operand_name(names, acc_operand) : "");
      }
      lua_pushvalue(L, i);
      lua_pushvalue(L, acc);
      lua_call(L, 2, 1);
      lua_remove(L, acc);
    }
    acc_operand = 0;
  }
  return 1;
}

}  // namespace redsim::sim::lua
