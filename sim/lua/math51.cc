// The math library of Redis's Lua 5.1 on 5.4: every function takes and
// returns plain numbers (no "number has no integer representation"), the
// 5.1 names (mod, pow, log10, atan2, cosh, sinh, tanh, frexp, ldexp) exist,
// 5.4's (tointeger, type, ult, maxinteger, mininteger) do not, and random
// is Redis's rand48 so every server draws the same sequence from a seed.
#include <cmath>
#include <cstdint>

#include "sim/lua/internal.h"

namespace redsim::sim::lua {
namespace {

// ---- math (5.1) -----------------------------------------------------------

double num(lua_State* L, int arg) { return static_cast<double>(luaL_checknumber(L, arg)); }
int ret(lua_State* L, double v) {
  push_number51(L, v);
  return 1;
}

int math_abs(lua_State* L) { return ret(L, std::fabs(num(L, 1))); }
int math_acos(lua_State* L) { return ret(L, std::acos(num(L, 1))); }
int math_asin(lua_State* L) { return ret(L, std::asin(num(L, 1))); }
int math_atan(lua_State* L) { return ret(L, std::atan(num(L, 1))); }
int math_atan2(lua_State* L) { return ret(L, std::atan2(num(L, 1), num(L, 2))); }
int math_ceil(lua_State* L) { return ret(L, std::ceil(num(L, 1))); }
int math_cos(lua_State* L) { return ret(L, std::cos(num(L, 1))); }
int math_cosh(lua_State* L) { return ret(L, std::cosh(num(L, 1))); }
int math_deg(lua_State* L) { return ret(L, num(L, 1) * (180.0 / M_PI)); }
int math_exp(lua_State* L) { return ret(L, std::exp(num(L, 1))); }
int math_floor(lua_State* L) { return ret(L, std::floor(num(L, 1))); }
int math_fmod(lua_State* L) { return ret(L, std::fmod(num(L, 1), num(L, 2))); }
int math_log(lua_State* L) { return ret(L, std::log(num(L, 1))); }
int math_log10(lua_State* L) { return ret(L, std::log10(num(L, 1))); }
int math_pow(lua_State* L) { return ret(L, std::pow(num(L, 1), num(L, 2))); }
int math_rad(lua_State* L) { return ret(L, num(L, 1) * (M_PI / 180.0)); }
int math_sin(lua_State* L) { return ret(L, std::sin(num(L, 1))); }
int math_sinh(lua_State* L) { return ret(L, std::sinh(num(L, 1))); }
int math_sqrt(lua_State* L) { return ret(L, std::sqrt(num(L, 1))); }
int math_tan(lua_State* L) { return ret(L, std::tan(num(L, 1))); }
int math_tanh(lua_State* L) { return ret(L, std::tanh(num(L, 1))); }

int math_frexp(lua_State* L) {
  int e = 0;
  push_number51(L, std::frexp(num(L, 1), &e));
  lua_pushnumber(L, e);
  return 2;
}
int math_ldexp(lua_State* L) {
  return ret(L, std::ldexp(num(L, 1), static_cast<int>(cast_to_int64(num(L, 2)))));
}
int math_modf(lua_State* L) {
  double ip = 0;
  double fp = std::modf(num(L, 1), &ip);
  push_number51(L, ip);
  push_number51(L, fp);
  return 2;
}
int math_min(lua_State* L) {
  int n = lua_gettop(L);
  double m = num(L, 1);
  for (int i = 2; i <= n; ++i) {
    double d = num(L, i);
    if (d < m) m = d;
  }
  return ret(L, m);
}
int math_max(lua_State* L) {
  int n = lua_gettop(L);
  double m = num(L, 1);
  for (int i = 2; i <= n; ++i) {
    double d = num(L, i);
    if (d > m) m = d;
  }
  return ret(L, m);
}

// Redis replaces 5.1's rand() with its own rand48 so scripts draw the same
// sequence everywhere: r = (lrand48() % INT32_MAX) / INT32_MAX.
constexpr uint64_t kRand48Mask = (uint64_t{1} << 48) - 1;
constexpr int32_t kRand48Max = INT32_MAX;

int32_t lrand48_next(uint64_t& x) {
  x = (0x5DEECE66DULL * x + 0xB) & kRand48Mask;
  return static_cast<int32_t>(x >> 17);
}

int math_random(lua_State* L) {
  EngineState& st = state_of(L);
  note_shared_state(st);
  double r = static_cast<double>(lrand48_next(st.rand48) % kRand48Max) / kRand48Max;
  switch (lua_gettop(L)) {
    case 0:
      lua_pushnumber(L, r);
      return 1;
    case 1: {
      int u = static_cast<int>(cast_to_int64(num(L, 1)));
      luaL_argcheck(L, 1 <= u, 1, "interval is empty");
      return ret(L, std::floor(r * u) + 1);
    }
    case 2: {
      int l = static_cast<int>(cast_to_int64(num(L, 1)));
      int u = static_cast<int>(cast_to_int64(num(L, 2)));
      luaL_argcheck(L, l <= u, 2, "interval is empty");
      return ret(L, std::floor(r * (static_cast<double>(u) - l + 1)) + l);
    }
    default:
      return luaL_error(L, "wrong number of arguments");
  }
}

int math_randomseed(lua_State* L) {
  note_shared_state(state_of(L));
  seed_rand48(state_of(L), static_cast<int32_t>(cast_to_int64(num(L, 1))));
  return 0;
}

}  // namespace

void seed_rand48(EngineState& state, int32_t seed) {
  state.rand48 =
      ((static_cast<uint64_t>(static_cast<uint32_t>(seed)) << 16) | 0x330E) & kRand48Mask;
}

void install_math51(lua_State* L) {
  static const luaL_Reg kMath[] = {
      {"abs", math_abs},   {"acos", math_acos},     {"asin", math_asin},
      {"atan", math_atan}, {"atan2", math_atan2},   {"ceil", math_ceil},
      {"cos", math_cos},   {"cosh", math_cosh},     {"deg", math_deg},
      {"exp", math_exp},   {"floor", math_floor},   {"fmod", math_fmod},
      {"mod", math_fmod},  {"frexp", math_frexp},   {"ldexp", math_ldexp},
      {"log", math_log},   {"log10", math_log10},   {"max", math_max},
      {"min", math_min},   {"modf", math_modf},     {"pow", math_pow},
      {"rad", math_rad},   {"random", math_random}, {"randomseed", math_randomseed},
      {"sin", math_sin},   {"sinh", math_sinh},     {"sqrt", math_sqrt},
      {"tan", math_tan},   {"tanh", math_tanh},     {nullptr, nullptr},
  };
  luaL_setfuncs(L, kMath, 0);
  for (const char* name : {"tointeger", "type", "ult", "maxinteger", "mininteger"}) {
    lua_pushnil(L);
    lua_setfield(L, -2, name);
  }
}

}  // namespace redsim::sim::lua
