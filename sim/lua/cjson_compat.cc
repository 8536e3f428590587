// cjson inside scripts: Debian's lua-cjson 2.1.0 (the version Redis 7.0
// embeds). decode() gives every number as a float (cjson pushes them with
// lua_pushnumber), which is the number model (internal.h). decode runs
// under a wrapper so its error messages keep cjson's text and gain the
// caller's position exactly as when cjson raises on its own.
#include <mutex>

#include "sim/lua/internal.h"

extern "C" int luaopen_cjson(lua_State* L);

namespace redsim::sim::lua {
namespace {

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
