// cjson inside scripts: Debian's lua-cjson 2.1.0 (the version Redis 7.0
// embeds), with one adjustment for 5.4: decode() hands back integral JSON
// numbers as Lua integers, so `cjson.decode("[5]")[1] .. ""` is "5" as on
// Redis (5.4 would print "5.0"). Error messages keep cjson's text and gain
// the caller's position exactly as when cjson raises on its own.
#include <cmath>
#include <mutex>

#include "sim/lua/internal.h"

extern "C" int luaopen_cjson(lua_State* L);

namespace redsim::sim::lua {
namespace {

// Deeper structures than this keep their floats; cjson's own limit is 1000.
constexpr int kMaxNormalizeDepth = 64;

bool integral_double(lua_State* L, int idx, lua_Integer* out) {
  if (lua_type(L, idx) != LUA_TNUMBER || lua_isinteger(L, idx)) return false;
  double d = static_cast<double>(lua_tonumber(L, idx));
  if (d != std::floor(d) || d < -9007199254740992.0 || d > 9007199254740992.0) return false;
  if (d == 0 && std::signbit(d)) return false;
  *out = static_cast<lua_Integer>(d);
  return true;
}

void normalize(lua_State* L, int idx, int depth) {
  if (depth > kMaxNormalizeDepth || !lua_checkstack(L, 4)) return;
  idx = lua_absindex(L, idx);
  lua_pushnil(L);
  while (lua_next(L, idx) != 0) {
    lua_Integer v = 0;
    if (integral_double(L, -1, &v)) {
      lua_pushvalue(L, -2);
      lua_pushinteger(L, v);
      lua_rawset(L, idx);  // replacing an existing key's value keeps next() valid
    } else if (lua_type(L, -1) == LUA_TTABLE) {
      normalize(L, -1, depth + 1);
    }
    lua_pop(L, 1);
  }
}

int decode51(lua_State* L) {
  luaL_argcheck(L, lua_gettop(L) == 1, 1, "expected 1 argument");
  luaL_checklstring(L, 1, nullptr);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
    if (lua_type(L, -1) == LUA_TSTRING) {
      luaL_where(L, 1);
      lua_insert(L, -2);
      lua_concat(L, 2);
    }
    return lua_error(L);
  }
  lua_Integer v = 0;
  if (integral_double(L, -1, &v)) {
    lua_pop(L, 1);
    lua_pushinteger(L, v);
  } else if (lua_type(L, -1) == LUA_TTABLE) {
    normalize(L, -1, 0);
  }
  return 1;
}

}  // namespace

int open_cjson(lua_State* L) {
  {
    // lua-cjson 2.1.0's luaopen_cjson calls fpconv_init(), which writes a
    // file-static (the locale's decimal point): worlds opening their Lua
    // states on several threads (redsim check --jobs) take turns.
    static std::mutex open_mutex;
    std::lock_guard lock(open_mutex);
    luaopen_cjson(L);
  }
  lua_getfield(L, -1, "decode");
  lua_pushcclosure(L, decode51, 1);
  lua_setfield(L, -2, "decode");
  return 1;
}

}  // namespace redsim::sim::lua
