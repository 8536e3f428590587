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
// Map entries come in Lua 5.1's table order (order51 below; where keys
// collide it is a best guess, see there). Decoded numbers are floats (the
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

// ---- Lua 5.1's table order (ltable.c of 5.1.5) -----------------------------
//
// Redis's cmsgpack packs a map in lua_next order, which in 5.1 is the array
// part (1..n) and then the node array from slot 0. Here the 5.1 table is
// rebuilt from the keys: integer keys go to the array part as 5.1's
// computesizes would put them after a rehash, the others are inserted into
// a node array of the next power of two with 5.1's main positions (string:
// luaS_hash without seed; number: the double's two 32-bit halves summed,
// modulo (size-1)|1; boolean: its value) and collision rule (the newcomer
// or the displaced node takes the last free slot). The keys are inserted in
// a fixed order (sorted): when two keys collide their 5.1 order can depend
// on the order the script inserted them, which is not known here. Tables with
// keys of other types (tables, functions) keep 5.4's order.

struct Key51 {
  int index;      // position among the keys as 5.4's lua_next gave them
  uint32_t hash;  // string or boolean hash, or the summed halves of a number
  int kind;       // 0 string, 1 number, 2 boolean
  bool zero = false;
  double number = 0;
  std::string text;  // a string key's bytes (for the insertion order)
};

uint32_t string_hash51(const char* s, size_t len) {
  auto h = static_cast<uint32_t>(len);
  size_t step = (len >> 5) + 1;
  for (size_t l1 = len; l1 >= step; l1 -= step) {
    h = h ^ ((h << 5) + (h >> 2) + static_cast<unsigned char>(s[l1 - 1]));
  }
  return h;
}

size_t main_position51(const Key51& k, size_t size) {
  switch (k.kind) {
    case 0:
    case 2:
      return k.hash & (size - 1);
    default:
      if (k.zero) return 0;
      return k.hash % ((size - 1) | 1);
  }
}

// The order (indices into keys) 5.1's lua_next would give, or empty when a
// key has no 5.1 hash we can compute.
std::vector<int> order51(lua_State* L, int keys_table, int count) {
  std::vector<Key51> keys;
  std::vector<std::pair<uint64_t, int>> array_keys;  // (integer key, index)
  for (int i = 1; i <= count; ++i) {
    lua_rawgeti(L, keys_table, i);
    Key51 k{i - 1, 0, 0, false, 0, {}};
    switch (lua_type(L, -1)) {
      case LUA_TSTRING: {
        size_t len = 0;
        const char* s = lua_tolstring(L, -1, &len);
        k.hash = string_hash51(s, len);
        k.text.assign(s, len);
        break;
      }
      case LUA_TBOOLEAN:
        k.kind = 2;
        k.hash = lua_toboolean(L, -1) ? 1 : 0;
        break;
      case LUA_TNUMBER: {
        k.kind = 1;
        k.number = static_cast<double>(lua_tonumber(L, -1));
        k.zero = k.number == 0;
        uint32_t halves[2];
        std::memcpy(halves, &k.number, sizeof halves);
        k.hash = halves[0] + halves[1];
        break;
      }
      default:
        lua_pop(L, 1);
        return {};
    }
    lua_pop(L, 1);
    keys.push_back(k);
  }
  // computesizes: the array part is the largest 2^i more than half full.
  int nums[64] = {};
  int total_int = 0;
  for (const Key51& k : keys) {
    if (k.kind != 1 || k.number < 1 || k.number > 67108864.0 || k.number != std::floor(k.number)) {
      continue;
    }
    auto v = static_cast<uint64_t>(k.number);
    int lg = 0;
    while ((uint64_t{1} << lg) < v) ++lg;
    ++nums[lg];
    ++total_int;
  }
  uint64_t array_size = 0;
  int a = 0;
  for (int i = 0; i < 64 && (uint64_t{1} << i) / 2 < static_cast<uint64_t>(total_int); ++i) {
    if (nums[i] > 0) {
      a += nums[i];
      if (a > static_cast<int>((uint64_t{1} << i) / 2)) array_size = uint64_t{1} << i;
    }
    if (a == total_int) break;
  }
  std::vector<const Key51*> hashed;
  for (const Key51& k : keys) {
    if (k.kind == 1 && k.number >= 1 && k.number <= static_cast<double>(array_size) &&
        k.number == std::floor(k.number)) {
      array_keys.emplace_back(static_cast<uint64_t>(k.number), k.index);
    } else {
      hashed.push_back(&k);
    }
  }
  std::sort(array_keys.begin(), array_keys.end());
  // 5.4's traversal order depends on its per-state hash seed: a fixed
  // insertion order (numbers, then booleans, then strings, each ascending)
  // keeps the result the same from run to run.
  std::sort(hashed.begin(), hashed.end(), [](const Key51* a, const Key51* b) {
    static constexpr int kRank[] = {2, 0, 1};  // by kind: string, number, boolean
    if (a->kind != b->kind) return kRank[a->kind] < kRank[b->kind];
    if (a->kind == 0) return a->text < b->text;
    if (a->kind == 1) return a->number < b->number;
    return a->hash < b->hash;
  });
  std::vector<int> order;
  for (const auto& [key, index] : array_keys) order.push_back(index);
  if (hashed.empty()) return order;
  size_t size = 1;
  while (size < hashed.size()) size <<= 1;
  std::vector<const Key51*> slot(size, nullptr);
  std::vector<int> next(size, -1);
  size_t lastfree = size;
  for (const Key51* k : hashed) {
    size_t mp = main_position51(*k, size);
    if (slot[mp] != nullptr) {
      size_t n = lastfree;
      while (n > 0 && slot[n - 1] != nullptr) --n;
      if (n == 0) return {};  // cannot happen: the array has room for every key
      --n;
      lastfree = n;
      size_t othern = main_position51(*slot[mp], size);
      if (othern != mp) {
        // The colliding node is out of its main position: it moves.
        while (next[othern] != static_cast<int>(mp)) othern = static_cast<size_t>(next[othern]);
        next[othern] = static_cast<int>(n);
        slot[n] = slot[mp];
        next[n] = next[mp];
        next[mp] = -1;
        slot[mp] = nullptr;
      } else {
        next[n] = next[mp];
        next[mp] = static_cast<int>(n);
        mp = n;
      }
    }
    slot[mp] = k;
  }
  for (const Key51* k : slot) {
    if (k != nullptr) order.push_back(k->index);
  }
  return order;
}

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
  std::vector<int> order = order51(L, keys, pairs);
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

void decode_map(lua_State* L, Cursor& c, uint64_t n) {
  lua_newtable(L);
  for (uint64_t i = 0; i < n; ++i) {
    decode_value(L, c);
    if (c.err != DecodeError::kNone) return;
    decode_value(L, c);
    if (c.err != DecodeError::kNone) return;
    lua_settable(L, -3);
  }
}

void decode_string(lua_State* L, Cursor& c, size_t header, size_t len) {
  if (!c.need(header + len)) return;
  lua_pushlstring(L, reinterpret_cast<const char*>(c.p + header), len);
  c.consume(header + len);
}

void decode_value(lua_State* L, Cursor& c) {
  if (!c.need(1)) return;
  if (lua_gettop(L) + 1 > kMaxCStack) {
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
