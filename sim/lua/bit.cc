// The `bit` library Redis ships (LuaBitOp 1.0 semantics): every operand is
// normalised to a signed 32-bit integer the way LuaBitOp does it (the double
// is rounded to nearest and taken modulo 2^32), and every result is a
// signed 32-bit number. Source: http://bitop.luajit.org/api.html.
#include <cstring>

#include "sim/lua/internal.h"

namespace redsim::sim::lua {
namespace {

uint32_t to_bits(lua_State* L, int arg) {
  double d = static_cast<double>(luaL_checknumber(L, arg));
  // LuaBitOp's normalisation: adding 2^52 + 2^51 leaves the integer part,
  // rounded to nearest, in the low 32 bits of the mantissa.
  double biased = d + 6755399441055744.0;
  uint64_t raw = 0;
  std::memcpy(&raw, &biased, sizeof raw);
  return static_cast<uint32_t>(raw);
}

int push_bits(lua_State* L, uint32_t bits) {
  lua_pushnumber(L, static_cast<int32_t>(bits));
  return 1;
}

int bit_tobit(lua_State* L) { return push_bits(L, to_bits(L, 1)); }
int bit_bnot(lua_State* L) { return push_bits(L, ~to_bits(L, 1)); }

int bit_band(lua_State* L) {
  uint32_t b = to_bits(L, 1);
  for (int i = lua_gettop(L); i > 1; --i) b &= to_bits(L, i);
  return push_bits(L, b);
}
int bit_bor(lua_State* L) {
  uint32_t b = to_bits(L, 1);
  for (int i = lua_gettop(L); i > 1; --i) b |= to_bits(L, i);
  return push_bits(L, b);
}
int bit_bxor(lua_State* L) {
  uint32_t b = to_bits(L, 1);
  for (int i = lua_gettop(L); i > 1; --i) b ^= to_bits(L, i);
  return push_bits(L, b);
}

int bit_lshift(lua_State* L) {
  uint32_t b = to_bits(L, 1);
  uint32_t n = to_bits(L, 2) & 31;
  return push_bits(L, b << n);
}
int bit_rshift(lua_State* L) {
  uint32_t b = to_bits(L, 1);
  uint32_t n = to_bits(L, 2) & 31;
  return push_bits(L, b >> n);
}
int bit_arshift(lua_State* L) {
  uint32_t b = to_bits(L, 1);
  uint32_t n = to_bits(L, 2) & 31;
  return push_bits(L, static_cast<uint32_t>(static_cast<int32_t>(b) >> n));
}
int bit_rol(lua_State* L) {
  uint32_t b = to_bits(L, 1);
  uint32_t n = to_bits(L, 2) & 31;
  return push_bits(L, n == 0 ? b : (b << n) | (b >> (32 - n)));
}
int bit_ror(lua_State* L) {
  uint32_t b = to_bits(L, 1);
  uint32_t n = to_bits(L, 2) & 31;
  return push_bits(L, n == 0 ? b : (b >> n) | (b << (32 - n)));
}
int bit_bswap(lua_State* L) {
  uint32_t b = to_bits(L, 1);
  b = (b >> 24) | ((b >> 8) & 0xff00) | ((b & 0xff00) << 8) | (b << 24);
  return push_bits(L, b);
}

int bit_tohex(lua_State* L) {
  uint32_t b = to_bits(L, 1);
  int32_t n = lua_isnone(L, 2) ? 8 : static_cast<int32_t>(to_bits(L, 2));
  const char* digits = "0123456789abcdef";
  if (n < 0) {
    n = n == INT32_MIN ? 8 : -n;
    digits = "0123456789ABCDEF";
  }
  if (n > 8) n = 8;
  char buf[8];
  for (int i = n; --i >= 0;) {
    buf[i] = digits[b & 15];
    b >>= 4;
  }
  lua_pushlstring(L, buf, static_cast<size_t>(n));
  return 1;
}

const luaL_Reg kBitFunctions[] = {
    {"tobit", bit_tobit}, {"bnot", bit_bnot},     {"band", bit_band},     {"bor", bit_bor},
    {"bxor", bit_bxor},   {"lshift", bit_lshift}, {"rshift", bit_rshift}, {"arshift", bit_arshift},
    {"rol", bit_rol},     {"ror", bit_ror},       {"bswap", bit_bswap},   {"tohex", bit_tohex},
    {nullptr, nullptr},
};

}  // namespace

int open_bit(lua_State* L) {
  luaL_newlib(L, kBitFunctions);
  return 1;
}

}  // namespace redsim::sim::lua
