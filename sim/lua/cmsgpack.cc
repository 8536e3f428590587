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

// The key at the top of the stack as a Key51; false for a key of another
// type (table, function ...).
bool make_key51(lua_State* L, int index, Key51* k) {
  *k = Key51{index, 0, 0, false, 0, {}};
  switch (lua_type(L, -1)) {
    case LUA_TSTRING: {
      size_t len = 0;
      const char* s = lua_tolstring(L, -1, &len);
      k->hash = string_hash51(s, len);
      k->text.assign(s, len);
      return true;
    }
    case LUA_TBOOLEAN:
      k->kind = 2;
      k->hash = lua_toboolean(L, -1) ? 1 : 0;
      return true;
    case LUA_TNUMBER: {
      k->kind = 1;
      k->number = static_cast<double>(lua_tonumber(L, -1));
      k->zero = k->number == 0;
      uint32_t halves[2];
      std::memcpy(halves, &k->number, sizeof halves);
      k->hash = halves[0] + halves[1];
      return true;
    }
    default:
      return false;
  }
}

bool same_key51(const Key51& a, const Key51& b) {
  if (a.kind != b.kind) return false;
  if (a.kind == 0) return a.text == b.text;
  if (a.kind == 1) return a.number == b.number;
  return a.hash == b.hash;
}

// A Lua 5.1 table (ltable.c of 5.1.5) that keys are inserted into one by
// one, starting empty, with non-nil values: luaH_set, newkey with its
// collision rule, and rehash (computesizes, resize re-inserting the old
// nodes from the last one down). What a table built by `t[k] = v`
// statements, or by cmsgpack.unpack, looks like in Redis's Lua.
class Table51 {
 public:
  explicit Table51(const std::vector<Key51>& keys) : keys_(keys) { set_nodes(0); }

  void insert(int k) {
    if (size_t a = array_slot(k); a > 0) {
      array_[a - 1] = k;
      return;
    }
    if (find(k)) return;
    if (size_ == 0) {
      rehash(k);
      insert(k);
      return;
    }
    size_t mp = main_position51(keys_[static_cast<size_t>(k)], size_);
    if (node_[mp] >= 0) {
      size_t n = size_;
      if (!free_position(&n)) {
        rehash(k);
        insert(k);
        return;
      }
      size_t othern = main_position51(keys_[static_cast<size_t>(node_[mp])], size_);
      if (othern != mp) {
        while (next_[othern] != static_cast<int>(mp)) othern = static_cast<size_t>(next_[othern]);
        next_[othern] = static_cast<int>(n);
        node_[n] = node_[mp];
        next_[n] = next_[mp];
        next_[mp] = -1;
        node_[mp] = -1;
      } else {
        next_[n] = next_[mp];
        next_[mp] = static_cast<int>(n);
        mp = n;
      }
    }
    node_[mp] = k;
  }

  // lua_next's order: the array part, then the nodes from slot 0.
  std::vector<int> order() const {
    std::vector<int> out;
    for (int k : array_) {
      if (k >= 0) out.push_back(keys_[static_cast<size_t>(k)].index);
    }
    for (size_t i = 0; i < size_; ++i) {
      if (node_[i] >= 0) out.push_back(keys_[static_cast<size_t>(node_[i])].index);
    }
    return out;
  }

 private:
  static constexpr int kMaxBits = 26;  // 5.1's MAXBITS: array part of at most 2^26

  static int ceil_log2(uint64_t v) {
    int lg = 0;
    while ((uint64_t{1} << lg) < v) ++lg;
    return lg;
  }
  // The integer value of a key that could live in an array part, else 0.
  uint64_t array_key(int k) const {
    const Key51& key = keys_[static_cast<size_t>(k)];
    if (key.kind != 1 || key.number < 1 || key.number > static_cast<double>(1 << kMaxBits) ||
        key.number != std::floor(key.number)) {
      return 0;
    }
    return static_cast<uint64_t>(key.number);
  }
  size_t array_slot(int k) const {
    uint64_t v = array_key(k);
    return v > 0 && v <= array_.size() ? static_cast<size_t>(v) : 0;
  }
  bool find(int k) const {
    if (size_ == 0) return false;
    const Key51& key = keys_[static_cast<size_t>(k)];
    for (int n = static_cast<int>(main_position51(key, size_)); n >= 0;
         n = next_[static_cast<size_t>(n)]) {
      int at = node_[static_cast<size_t>(n)];
      if (at >= 0 && same_key51(keys_[static_cast<size_t>(at)], key)) return true;
    }
    return false;
  }
  bool free_position(size_t* n) {
    while (lastfree_ > 0) {
      --lastfree_;
      if (node_[lastfree_] < 0) {
        *n = lastfree_;
        return true;
      }
    }
    return false;
  }
  void set_nodes(size_t count) {
    size_ = count == 0 ? 0 : size_t{1} << ceil_log2(count);
    node_.assign(std::max<size_t>(size_, 1), -1);
    next_.assign(node_.size(), -1);
    lastfree_ = size_;
  }
  void rehash(int extra) {
    int nums[kMaxBits + 2] = {};
    uint64_t nasize = 0;
    uint64_t total = 0;
    auto count_int = [&](int k) {
      uint64_t v = array_key(k);
      if (v == 0) return;
      ++nums[ceil_log2(v)];
      ++nasize;
    };
    for (int k : array_) {
      if (k >= 0) {
        count_int(k);
        ++total;
      }
    }
    for (size_t i = 0; i < size_; ++i) {
      if (node_[i] >= 0) {
        count_int(node_[i]);
        ++total;
      }
    }
    count_int(extra);
    ++total;
    // computesizes
    uint64_t a = 0;
    uint64_t na = 0;
    uint64_t n = 0;
    for (int i = 0; i <= kMaxBits && (uint64_t{1} << i) / 2 < nasize; ++i) {
      if (nums[i] > 0) {
        a += static_cast<uint64_t>(nums[i]);
        if (a > (uint64_t{1} << i) / 2) {
          n = uint64_t{1} << i;
          na = a;
        }
      }
      if (a == nasize) break;
    }
    std::vector<int> old_array = array_;
    std::vector<int> old_nodes(node_.begin(), node_.begin() + static_cast<long>(size_));
    if (n > old_array.size()) array_.resize(static_cast<size_t>(n), -1);
    set_nodes(static_cast<size_t>(total - na));
    if (n < old_array.size()) {
      array_.resize(static_cast<size_t>(n));
      for (size_t i = static_cast<size_t>(n); i < old_array.size(); ++i) {
        if (old_array[i] >= 0) insert(old_array[i]);
      }
    }
    for (size_t i = old_nodes.size(); i-- > 0;) {
      if (old_nodes[i] >= 0) insert(old_nodes[i]);
    }
  }

  const std::vector<Key51>& keys_;
  std::vector<int> array_;  // key per array slot, -1 for none
  std::vector<int> node_;   // key per node, -1 for none (one dummy node when size_ is 0)
  std::vector<int> next_;   // collision chain
  size_t size_ = 0;
  size_t lastfree_ = 0;
};

// Registry key (its address) of the weak-keyed table cmsgpack.unpack
// records each decoded map's keys in, in their insertion order.
char kInsertionOrderKey;

// The 5.1 order of a map cmsgpack.unpack built, whose insertion order is
// known: its recorded keys, then keys added since (in the sorted order of
// the guess below). Empty when the table was not decoded, lost a key, or
// has a key of another type.
std::vector<int> recorded_order51(lua_State* L, int table, int keys_table, int count) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &kInsertionOrderKey) != LUA_TTABLE) {
    lua_pop(L, 1);
    return {};
  }
  lua_pushvalue(L, table);
  if (lua_rawget(L, -2) != LUA_TTABLE) {
    lua_pop(L, 2);
    return {};
  }
  int recorded = lua_gettop(L);
  auto n = static_cast<int>(lua_rawlen(L, recorded));
  std::vector<Key51> keys;
  keys.reserve(static_cast<size_t>(count));
  bool ok = n <= count;
  for (int i = 1; ok && i <= n; ++i) {
    lua_rawgeti(L, recorded, i);
    lua_pushvalue(L, -1);
    ok = lua_rawget(L, table) != LUA_TNIL;  // still there
    lua_pop(L, 1);
    Key51 k;
    ok = ok && make_key51(L, -1, &k);
    lua_pop(L, 1);
    keys.push_back(std::move(k));
  }
  lua_pop(L, 2);
  if (!ok) return {};
  // The 5.4 index of each recorded key, and the keys added since.
  std::vector<Key51> added;
  std::vector<bool> seen(keys.size(), false);
  for (int i = 1; i <= count; ++i) {
    lua_rawgeti(L, keys_table, i);
    Key51 k;
    bool known = make_key51(L, i - 1, &k);
    lua_pop(L, 1);
    if (!known) return {};
    bool found = false;
    for (size_t r = 0; r < keys.size() && !found; ++r) {
      if (!seen[r] && same_key51(keys[r], k)) {
        keys[r].index = i - 1;
        seen[r] = found = true;
      }
    }
    if (!found) added.push_back(std::move(k));
  }
  for (bool b : seen) {
    if (!b) return {};  // a key recorded twice
  }
  std::sort(added.begin(), added.end(), [](const Key51& a, const Key51& b) {
    if (a.kind != b.kind) return a.kind == 1 || (a.kind == 2 && b.kind == 0);
    if (a.kind == 0) return a.text < b.text;
    if (a.kind == 1) return a.number < b.number;
    return a.hash < b.hash;
  });
  for (Key51& k : added) keys.push_back(std::move(k));
  Table51 t(keys);
  for (size_t i = 0; i < keys.size(); ++i) t.insert(static_cast<int>(i));
  return t.order();
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
