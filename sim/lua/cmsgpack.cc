// The `cmsgpack` table Redis 7.0 ships (lua-cmsgpack 0.4.0, Redis's
// deps/lua/src/lua_cmsgpack.c), rebuilt from its documented behaviour and
// checked byte for byte against redis-server 7.0.15 (lua51_real_test.cc):
//
// pack(v1, v2, ...): the encodings of each argument, concatenated.
//   nil -> c0; false/true -> c2/c3; functions, userdata, threads -> c0.
//   A number whose double equals its int64 cast is an integer in the
//   smallest form: 0..127 fixint, cc/cd/ce/cf for uint8..uint64, -32..-1
//   fixint, d0/d1/d2/d3 for int8..int64. Any other number is ca + float32
//   when the float holds it exactly (0.5, inf, 2^63), else cb + float64
//   (NaN included). All big-endian.
//   A string: a0|len up to 31 bytes, then d9 (str8), da (str16), db (str32).
//   A table is an array when its keys are exactly 1..n (n = count of keys,
//   every key a positive number that fits an int): 90|n up to 15, dc, dd;
//   else a map in lua_next order: 80|n up to 15, de, df. The empty table
//   is an empty array. A table 16 levels down is packed as nil (c0), which
//   also ends cycles.
// unpack(s): every value in s, in order (no values for "").
// unpack_one(s [, offset]) / unpack_limit(s, limit [, offset]): the next
//   offset (-1 once s is consumed), then one / up to `limit` values.
// Errors: "Missing bytes in input.", "Bad data format in input." (bin, ext
// and c1 are not decoded), "Start offset %d greater than input length %d.",
// "Invalid request to unpack with offset of %d and limit of %d." (the
// length printed as the limit, as Redis does), pack() without arguments
// "bad argument #0 to 'pack' (MessagePack pack needs input.)".
//
// Map entries come in Lua 5.1's table order (order51 in order51.cc; where keys
// collide it is a best guess, see there). A map that unpack built is packed
// in the order 5.1 gives its keys inserted in their unpack order (keys
// added since after them): recorded_order51. Decoded numbers are floats (the
// number model, internal.h).
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "sim/lua/internal.h"

namespace redsim::sim::lua {
namespace {

constexpr int kMaxNesting = 16;
constexpr int kMaxCStack = 8000;  // 5.1's LUAI_MAXCSTACK, which luaL_checkstack enforces
constexpr double kTwo63 = 9223372036854775808.0;

void put_be(std::string& out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

void encode_int(std::string& out, int64_t n) {
  if (n >= 0) {
    if (n <= 127) {
      out += static_cast<char>(n);
    } else if (n <= 0xff) {
      out += '\xcc';
      put_be(out, static_cast<uint64_t>(n), 1);
    } else if (n <= 0xffff) {
      out += '\xcd';
      put_be(out, static_cast<uint64_t>(n), 2);
    } else if (n <= 0xffffffffLL) {
      out += '\xce';
      put_be(out, static_cast<uint64_t>(n), 4);
    } else {
      out += '\xcf';
      put_be(out, static_cast<uint64_t>(n), 8);
    }
    return;
  }
  if (n >= -32) {
    out += static_cast<char>(static_cast<int8_t>(n));
  } else if (n >= -128) {
    out += '\xd0';
    put_be(out, static_cast<uint64_t>(n), 1);
  } else if (n >= -32768) {
    out += '\xd1';
    put_be(out, static_cast<uint64_t>(n), 2);
  } else if (n >= -2147483648LL) {
    out += '\xd2';
    put_be(out, static_cast<uint64_t>(n), 4);
  } else {
    out += '\xd3';
    put_be(out, static_cast<uint64_t>(n), 8);
  }
}

void encode_double(std::string& out, double d) {
  auto f = static_cast<float>(d);
  if (static_cast<double>(f) == d) {
    uint32_t bits = 0;
    std::memcpy(&bits, &f, sizeof bits);
    out += '\xca';
    put_be(out, bits, 4);
  } else {
    uint64_t bits = 0;
    std::memcpy(&bits, &d, sizeof bits);
    out += '\xcb';
    put_be(out, bits, 8);
  }
}

void encode_number(std::string& out, lua_State* L, int idx) {
  double d = lua_isinteger(L, idx) ? static_cast<double>(lua_tointeger(L, idx))
                                   : static_cast<double>(lua_tonumber(L, idx));
  if (!std::isinf(d) && d >= -kTwo63 && d < kTwo63 &&
      static_cast<double>(static_cast<int64_t>(d)) == d) {
    encode_int(out, static_cast<int64_t>(d));
  } else {
    encode_double(out, d);
  }
}

void encode_string(std::string& out, lua_State* L, int idx) {
  size_t len = 0;
  const char* s = lua_tolstring(L, idx, &len);
  if (len < 32) {
    out += static_cast<char>(0xa0 | len);
  } else if (len <= 0xff) {
    out += '\xd9';
    put_be(out, len, 1);
  } else if (len <= 0xffff) {
    out += '\xda';
    put_be(out, len, 2);
  } else {
    out += '\xdb';
    put_be(out, len, 4);
  }
  out.append(s, len);
}

void encode_header(std::string& out, size_t n, uint8_t fix, uint8_t c16, uint8_t c32) {
  if (n <= 15) {
    out += static_cast<char>(fix | n);
  } else if (n <= 0xffff) {
    out += static_cast<char>(c16);
    put_be(out, n, 2);
  } else {
    out += static_cast<char>(c32);
    put_be(out, n, 4);
  }
}

// The table at the top: true when its keys are exactly 1..count.
bool is_array(lua_State* L, size_t* count) {
  size_t n = 0;
  double max = 0;
  lua_pushnil(L);
  while (lua_next(L, -2) != 0) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TNUMBER) {
      lua_pop(L, 1);
      return false;
    }
    double k = static_cast<double>(lua_tonumber(L, -1));
    if (!(k > 0) || k > INT_MAX || std::floor(k) != k) {
      lua_pop(L, 1);
      return false;
    }
    if (k > max) max = k;
    ++n;
  }
  *count = n;
  return max == static_cast<double>(n);
}

void encode_value(std::string& out, lua_State* L, int level);

// The table at the top of the stack (left there).
void encode_table(std::string& out, lua_State* L, int level) {
  luaL_checkstack(L, 3, "cmsgpack: table too deep");
  size_t n = 0;
  if (is_array(L, &n)) {
    encode_header(out, n, 0x90, 0xdc, 0xdd);
    for (size_t i = 1; i <= n; ++i) {
      lua_geti(L, -1, static_cast<lua_Integer>(i));
      encode_value(out, L, level + 1);
      lua_pop(L, 1);
    }
    return;
  }
  // The keys and values in 5.4's order, then packed in 5.1's.
  int table = lua_gettop(L);
  luaL_checkstack(L, 6, "cmsgpack: table too deep");
  lua_newtable(L);
  int keys = lua_gettop(L);
  lua_newtable(L);
  int values = lua_gettop(L);
  int pairs = 0;
  lua_pushnil(L);
  while (lua_next(L, table) != 0) {
    ++pairs;
    lua_rawseti(L, values, pairs);
    lua_pushvalue(L, -1);
    lua_rawseti(L, keys, pairs);
  }
  encode_header(out, static_cast<size_t>(pairs), 0x80, 0xde, 0xdf);
  std::vector<int> order = recorded_order51(L, table, keys, pairs);
  if (order.size() != static_cast<size_t>(pairs)) order = order51(L, keys, pairs);
  if (order.size() != static_cast<size_t>(pairs)) {
    order.clear();
    for (int i = 0; i < pairs; ++i) order.push_back(i);
  }
  for (int i : order) {
    lua_rawgeti(L, keys, i + 1);
    encode_value(out, L, level + 1);  // the key
    lua_pop(L, 1);
    lua_rawgeti(L, values, i + 1);
    encode_value(out, L, level + 1);  // the value
    lua_pop(L, 1);
  }
  lua_settop(L, table);
}

// The value at the top of the stack (left there).
void encode_value(std::string& out, lua_State* L, int level) {
  switch (lua_type(L, -1)) {
    case LUA_TSTRING:
      encode_string(out, L, -1);
      return;
    case LUA_TBOOLEAN:
      out += lua_toboolean(L, -1) ? '\xc3' : '\xc2';
      return;
    case LUA_TNUMBER:
      encode_number(out, L, -1);
      return;
    case LUA_TTABLE:
      if (level < kMaxNesting) {
        encode_table(out, L, level);
        return;
      }
      break;
    default:
      break;
  }
  out += '\xc0';
}

int mp_pack(lua_State* L) {
  int n = lua_gettop(L);
  if (n == 0) return luaL_argerror(L, 0, "MessagePack pack needs input.");
  std::string out;
  for (int i = 1; i <= n; ++i) {
    lua_pushvalue(L, i);
    encode_value(out, L, 0);
    lua_pop(L, 1);
  }
  lua_pushlstring(L, out.data(), out.size());
  return 1;
}

// ---- unpack -----------------------------------------------------------------

enum class DecodeError { kNone, kEof, kBadFormat };

struct Cursor {
  const unsigned char* p;
  size_t left;
  DecodeError err = DecodeError::kNone;
  int order_slots = 0;  // stack slots taken by decode_map's key records

  bool need(size_t n) {
    if (left < n) {
      err = DecodeError::kEof;
      return false;
    }
    return true;
  }
  uint64_t be(size_t at, int bytes) const {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | p[at + static_cast<size_t>(i)];
    return v;
  }
  void consume(size_t n) {
    p += n;
    left -= n;
  }
};

// A decoded number as 5.1 holds it: a double.
void push_decoded(lua_State* L, double d) { lua_pushnumber(L, d); }

void decode_value(lua_State* L, Cursor& c);

void decode_array(lua_State* L, Cursor& c, uint64_t n) {
  lua_newtable(L);
  for (uint64_t i = 1; i <= n; ++i) {
    decode_value(L, c);
    if (c.err != DecodeError::kNone) return;
    lua_rawseti(L, -2, static_cast<lua_Integer>(i));
  }
}

// Records the keys of the map in their insertion order (see
// recorded_order51) unless a value is nil: 5.1 then keeps a dead key in a
// node, which the record does not model.
void decode_map(lua_State* L, Cursor& c, uint64_t n) {
  lua_newtable(L);
  lua_newtable(L);  // the keys in insertion order
  ++c.order_slots;
  bool nil_value = false;
  for (uint64_t i = 0; i < n; ++i) {
    decode_value(L, c);
    if (c.err != DecodeError::kNone) return;
    decode_value(L, c);
    if (c.err != DecodeError::kNone) return;
    nil_value = nil_value || lua_isnil(L, -1);
    lua_pushvalue(L, -2);
    lua_rawseti(L, -4, static_cast<lua_Integer>(i + 1));
    lua_settable(L, -4);
  }
  --c.order_slots;
  if (!nil_value && n > 0) {
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &kInsertionOrderKey) != LUA_TTABLE) {
      lua_pop(L, 1);
      lua_newtable(L);
      lua_createtable(L, 0, 1);
      lua_pushliteral(L, "k");
      lua_setfield(L, -2, "__mode");
      lua_setmetatable(L, -2);
      lua_pushvalue(L, -1);
      lua_rawsetp(L, LUA_REGISTRYINDEX, &kInsertionOrderKey);
    }
    lua_pushvalue(L, -3);  // the map
    lua_pushvalue(L, -3);  // its keys
    lua_rawset(L, -3);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

void decode_string(lua_State* L, Cursor& c, size_t header, size_t len) {
  if (!c.need(header + len)) return;
  lua_pushlstring(L, reinterpret_cast<const char*>(c.p + header), len);
  c.consume(header + len);
}

void decode_value(lua_State* L, Cursor& c) {
  if (!c.need(1)) return;
  if (lua_gettop(L) - c.order_slots + 1 > kMaxCStack) {
    luaL_error(L,
               "stack overflow (too many return values at once; use unpack_one or "
               "unpack_limit instead.)");
  }
  lua_checkstack(L, 2);
  unsigned char b = c.p[0];
  auto fixed = [&](size_t bytes, auto&& push) {
    if (!c.need(1 + bytes)) return;
    push(c.be(1, static_cast<int>(bytes)));
    c.consume(1 + bytes);
  };
  switch (b) {
    case 0xcc:
    case 0xcd:
    case 0xce:
    case 0xcf: {
      size_t bytes = size_t{1} << (b - 0xcc);
      fixed(bytes, [&](uint64_t v) { push_decoded(L, static_cast<double>(v)); });
      return;
    }
    case 0xd0:
      fixed(1, [&](uint64_t v) { push_decoded(L, static_cast<int8_t>(v)); });
      return;
    case 0xd1:
      fixed(2, [&](uint64_t v) { push_decoded(L, static_cast<int16_t>(v)); });
      return;
    case 0xd2:
      fixed(4, [&](uint64_t v) { push_decoded(L, static_cast<int32_t>(v)); });
      return;
    case 0xd3:
      fixed(8, [&](uint64_t v) { push_decoded(L, static_cast<double>(static_cast<int64_t>(v))); });
      return;
    case 0xc0:
      lua_pushnil(L);
      c.consume(1);
      return;
    case 0xc2:
    case 0xc3:
      lua_pushboolean(L, b == 0xc3);
      c.consume(1);
      return;
    case 0xca:
      fixed(4, [&](uint64_t v) {
        auto bits = static_cast<uint32_t>(v);
        float f = 0;
        std::memcpy(&f, &bits, sizeof f);
        push_decoded(L, f);
      });
      return;
    case 0xcb:
      fixed(8, [&](uint64_t v) {
        double d = 0;
        std::memcpy(&d, &v, sizeof d);
        push_decoded(L, d);
      });
      return;
    case 0xd9:
      if (c.need(2)) decode_string(L, c, 2, c.be(1, 1));
      return;
    case 0xda:
      if (c.need(3)) decode_string(L, c, 3, c.be(1, 2));
      return;
    case 0xdb:
      if (c.need(5)) decode_string(L, c, 5, c.be(1, 4));
      return;
    case 0xdc:
    case 0xde:
      if (!c.need(3)) return;
      {
        uint64_t n = c.be(1, 2);
        c.consume(3);
        b == 0xdc ? decode_array(L, c, n) : decode_map(L, c, n);
      }
      return;
    case 0xdd:
    case 0xdf:
      if (!c.need(5)) return;
      {
        uint64_t n = c.be(1, 4);
        c.consume(5);
        b == 0xdd ? decode_array(L, c, n) : decode_map(L, c, n);
      }
      return;
    default:
      break;
  }
  if ((b & 0x80) == 0) {
    push_decoded(L, b);
    c.consume(1);
  } else if ((b & 0xe0) == 0xe0) {
    push_decoded(L, static_cast<int8_t>(b));
    c.consume(1);
  } else if ((b & 0xe0) == 0xa0) {
    decode_string(L, c, 1, b & 0x1f);
  } else if ((b & 0xf0) == 0x90) {
    c.consume(1);
    decode_array(L, c, b & 0x0f);
  } else if ((b & 0xf0) == 0x80) {
    c.consume(1);
    decode_map(L, c, b & 0x0f);
  } else {
    c.err = DecodeError::kBadFormat;
  }
}

// Redis's mp_unpack_full: string at index 1; limit 0 and offset 0 decode all.
int unpack_full(lua_State* L, int64_t limit, int64_t offset) {
  size_t len = 0;
  const char* s = luaL_checklstring(L, 1, &len);
  bool all = limit == 0 && offset == 0;
  if (offset < 0 || limit < 0) {
    return luaL_error(L, "Invalid request to unpack with offset of %d and limit of %d.",
                      static_cast<int>(offset), static_cast<int>(len));
  }
  if (static_cast<uint64_t>(offset) > len) {
    return luaL_error(L, "Start offset %d greater than input length %d.", static_cast<int>(offset),
                      static_cast<int>(len));
  }
  if (all) limit = INT_MAX;
  Cursor c{reinterpret_cast<const unsigned char*>(s) + offset, len - static_cast<size_t>(offset)};
  int count = 0;
  for (; c.left > 0 && count < limit; ++count) {
    decode_value(L, c);
    if (c.err == DecodeError::kEof) return luaL_error(L, "Missing bytes in input.");
    if (c.err == DecodeError::kBadFormat) return luaL_error(L, "Bad data format in input.");
  }
  if (!all) {
    lua_pushnumber(L, c.left == 0 ? -1.0 : static_cast<lua_Number>(len - c.left));
    lua_insert(L, 2);
    ++count;
  }
  return count;
}

int64_t int_arg(lua_State* L, int arg) {
  return cast_to_int64(static_cast<double>(luaL_checknumber(L, arg)));
}

int mp_unpack(lua_State* L) { return unpack_full(L, 0, 0); }

int mp_unpack_one(lua_State* L) {
  int64_t offset = lua_isnoneornil(L, 2) ? 0 : int_arg(L, 2);
  lua_settop(L, 1);
  return unpack_full(L, 1, offset);
}

int mp_unpack_limit(lua_State* L) {
  int64_t limit = int_arg(L, 2);
  int64_t offset = lua_isnoneornil(L, 3) ? 0 : int_arg(L, 3);
  lua_settop(L, 1);
  return unpack_full(L, limit, offset);
}

}  // namespace

int open_cmsgpack(lua_State* L) {
  static const luaL_Reg kFns[] = {
      {"pack", mp_pack},
      {"unpack", mp_unpack},
      {"unpack_one", mp_unpack_one},
      {"unpack_limit", mp_unpack_limit},
      {nullptr, nullptr},
  };
  luaL_newlib(L, kFns);
  lua_pushliteral(L, "cmsgpack");
  lua_setfield(L, -2, "_NAME");
  lua_pushliteral(L, "lua-cmsgpack 0.4.0");
  lua_setfield(L, -2, "_VERSION");
  lua_pushliteral(L, "Copyright (C) 2012, Salvatore Sanfilippo");
  lua_setfield(L, -2, "_COPYRIGHT");
  lua_pushliteral(L, "MessagePack C implementation for Lua");
  lua_setfield(L, -2, "_DESCRIPTION");
  return 1;
}

}  // namespace redsim::sim::lua
