// Lua 5.1's table order (ltable.c of 5.1.5), for cmsgpack's maps
// (cmsgpack.cc): Redis's cmsgpack packs a map in lua_next order, which in
// 5.1 is the array part (1..n) and then the node array from slot 0. Here
// the 5.1 table is rebuilt from the keys: integer keys go to the array part
// as 5.1's computesizes would put them after a rehash, the others are
// inserted into a node array of the next power of two with 5.1's main
// positions (string: luaS_hash without seed; number: the double's two
// 32-bit halves summed, modulo (size-1)|1; boolean: its value) and
// collision rule (the newcomer or the displaced node takes the last free
// slot). The keys are inserted in a fixed order (sorted): when two keys
// collide their 5.1 order can depend on the order the script inserted
// them, which is not known here. Tables with keys of other types (tables,
// functions) keep 5.4's order.
//
// Why a fresh table's order cannot be computed (measured 26 of 152 fresh
// maps with colliding keys in Redis's order, 2026-11-24): Table51 gives
// 5.1's exact order once it is fed the keys in the order the script
// inserted them (152 of 152 for maps cmsgpack.unpack built, whose order is
// recorded), because 5.1's node placement is a function of that order:
// the main position of each key, then, on a collision, the free pointer
// walking down from the end of the node array and the rule that moves the
// colliding node when it is not in its own main position, so a key
// inserted earlier keeps the main position a later one wanted, and each
// rehash re-inserts the old nodes from the last one down. But a script's
// table is a 5.4 table: `t[k] = v` and `{k = v}` are VM instructions that
// call nothing we can observe (__newindex fires only for tables with a
// metatable and only for absent keys), and 5.4's own traversal order
// comes from its seeded string hashes and its own placement, from which
// the insertion order cannot be recovered. Knowing it would need every
// table store of every script tracked (a source rewrite of all
// assignments and constructors into calls), which the hot path cannot
// afford; so colliding keys of a fresh map keep the sorted guess.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "sim/lua/internal.h"

namespace redsim::sim::lua {
namespace {

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

}  // namespace

// Registry key (its address) of the weak-keyed table cmsgpack.unpack
// records each decoded map's keys in, in their insertion order.
char kInsertionOrderKey = 0;

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

}  // namespace redsim::sim::lua
