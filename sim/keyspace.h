// Keyspace: the databases of one fake Redis server (SELECT 0..N-1), each a
// map from key to Entry (a typed value and an optional deadline), with
// Redis's expiry rules on the server's clock and the WATCH bookkeeping that
// makes EXEC fail when a watched key is written.
//
//   Keyspace ks(16);
//   Db& db = ks.db(0);
//   db.set_string("k", "v", /*keep_ttl=*/false);
//   db.set_expire("k", *db.lookup("k", now_ms), now_ms + 100);
//   db.lookup("k", now_ms + 100);   // still there: expired only when now > deadline
//   db.lookup("k", now_ms + 101);   // nullptr, and the key is deleted (lazy expiry)
//
// Sources: Redis 7.0 src/db.c and src/expire.c behaviour (facts only):
// keyIsExpired is `now > when`; every lookup expires lazily; the active cycle
// samples keys with a TTL. Writes "touch" watched keys (signalModifiedKey).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "sim/stream.h"

namespace redsim::sim {

class Session;

// Type of a value, in the order of Value's alternatives.
enum class ValueType : uint8_t {
  kString = 0,
  kHash = 1,
  kList = 2,
  kSet = 3,
  kZset = 4,
  kStream = 5,
};

// The TYPE command's name of a type: "string", "hash", "list", "set", "zset", "stream".
std::string_view type_name(ValueType type);

// Redis 7.0's default conversion thresholds (redis.conf), which decide the
// encoding OBJECT ENCODING reports and the order small collections keep.
inline constexpr size_t kHashMaxListpackEntries = 128;  // hash-max-listpack-entries
inline constexpr size_t kHashMaxListpackValue = 64;     // hash-max-listpack-value (bytes)
inline constexpr size_t kSetMaxIntsetEntries = 512;     // set-max-intset-entries
inline constexpr size_t kZsetMaxListpackEntries = 128;  // zset-max-listpack-entries
inline constexpr size_t kZsetMaxListpackValue = 64;     // zset-max-listpack-value (bytes)

// The conversion thresholds in force: CONFIG SET changes them (Redis 7.0's
// names and their ziplist aliases). A collection converts from its compact
// encoding when a write takes it past one of them, and never converts back
// (t_hash.c hashTypeTryConversion/hashTypeSet, t_set.c setTypeAdd, t_zset.c
// zaddGenericCommand/zsetAdd). Lowering a threshold converts nothing until
// the next write.
struct EncodingLimits {
  size_t hash_max_listpack_entries = kHashMaxListpackEntries;
  size_t hash_max_listpack_value = kHashMaxListpackValue;  // bytes
  size_t set_max_intset_entries = kSetMaxIntsetEntries;
  size_t zset_max_listpack_entries = kZsetMaxListpackEntries;
  size_t zset_max_listpack_value = kZsetMaxListpackValue;  // bytes
};
inline constexpr EncodingLimits kDefaultEncodingLimits{};

// Heterogeneous hashing so lookups by string_view do not allocate.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// A Redis hash that keeps insertion order, as Redis's listpack encoding does
// for small hashes: HSET of a new field appends, HSET of an existing field
// replaces its value in place, HDEL keeps the order of the rest. (Redis
// converts hashes beyond 128 fields or 64-byte values to a hashtable whose
// order is arbitrary; this one keeps insertion order at any size, and only
// remembers the conversion for OBJECT ENCODING and HSCAN's paging.)
class Hash {
 public:
  using Field = std::pair<std::string, std::string>;  // (field, value)

  // Still what Redis would keep as a listpack (never true again once false).
  bool listpack() const { return listpack_; }
  // hashTypeTryConversion: a field or value longer than 64 bytes about to be
  // written converts the hash, even when the write then does not happen.
  void note_length(size_t bytes, const EncodingLimits& limits = kDefaultEncodingLimits) {
    if (bytes > limits.hash_max_listpack_value) listpack_ = false;
  }

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  // The value of `field`, or nullptr.
  const std::string* find(std::string_view field) const;
  std::string* find(std::string_view field);
  // Sets `field` to `value`; true when the field is new. Converts to a
  // hashtable when the hash then has more than the limit's entries.
  bool set(std::string_view field, std::string_view value,
           const EncodingLimits& limits = kDefaultEncodingLimits);
  // Removes `field`; true when it was there.
  bool erase(std::string_view field);
  // All fields in order.
  const std::vector<Field>& entries() const { return entries_; }
  // Empties a small hash into a new one (a listpack) that keeps its field
  // list's memory, for the next hash a Db creates; false, and nothing done,
  // when it holds more memory than a small hash (an index, > 8 fields' room).
  bool clear_for_reuse();

 private:
  size_t position(std::string_view field) const;  // entries_.size() when absent
  void rebuild_index();

  std::vector<Field> entries_;
  // field -> position in entries_, kept only once a linear scan gets long.
  std::unordered_map<std::string, size_t, StringHash, std::equal_to<>> index_;
  bool listpack_ = true;
};

// A Redis list (7.0 always reports "quicklist"): front is the head (LPUSH side).
using List = std::deque<std::string>;

// A Redis set. While every member is a canonical int64 (Redis's string2ll)
// and there are at most 512 of them it is an "intset": members() is in
// ascending numeric order, as Redis's intset replies. After the first other
// member or the 513th it is a "hashtable" for good: members() is in an
// unspecified but deterministic order (Redis's is the hash table's).
class Set {
 public:
  size_t size() const { return members_.size(); }
  bool empty() const { return members_.empty(); }
  bool intset() const { return intset_; }
  bool contains(std::string_view member) const;
  // Adds `member`; true when it is new. Converts to a hashtable on a
  // non-integer member or past limits.set_max_intset_entries members.
  bool add(std::string_view member, const EncodingLimits& limits = kDefaultEncodingLimits);
  // Removes `member`; true when it was there.
  bool erase(std::string_view member);
  // Members in the order SMEMBERS replies; at(i) is members()[i].
  const std::vector<std::string>& members() const { return members_; }
  const std::string& at(size_t i) const { return members_[i]; }

 private:
  void to_hashtable();
  // Intset mode: position of `value` in members_ (sorted numerically).
  size_t lower_bound(int64_t value) const;

  std::vector<std::string> members_;
  std::vector<int64_t> ints_;  // intset mode: the parsed members_, same order
  // Hashtable mode: member -> position in members_ (erase swaps in the last).
  std::unordered_map<std::string, size_t, StringHash, std::equal_to<>> index_;
  bool intset_ = true;
};

// A Redis sorted set: members ordered by (score, member bytes), as both of
// Redis's encodings order them. "listpack" while at most 128 members, each
// at most 64 bytes; "skiplist" for good after that.
class Zset {
 public:
  struct Item {
    double score;
    std::string member;
  };

  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  bool listpack() const { return listpack_; }
  // ZADD's choice for a new key whose first member is `bytes` long (a
  // skiplist from the start when it is too long or the entry limit is 0).
  void note_length(size_t bytes, const EncodingLimits& limits = kDefaultEncodingLimits) {
    if (bytes > limits.zset_max_listpack_value || limits.zset_max_listpack_entries == 0) {
      listpack_ = false;
    }
  }
  // The score of `member`, or nullptr.
  const double* score(std::string_view member) const;
  // Converts to a skiplist for good (SORT does, whatever the size).
  void convert_to_skiplist() { listpack_ = false; }
  // Inserts `member` or moves it to `score`; true when it is new.
  bool set(std::string_view member, double score,
           const EncodingLimits& limits = kDefaultEncodingLimits);
  // Removes `member`; true when it was there.
  bool erase(std::string_view member);
  // Removes items [from, to) by rank.
  void erase_ranks(size_t from, size_t to);
  // 0-based rank of a present `member` in ascending order.
  size_t rank(std::string_view member) const;
  // The first rank whose item is not below (score, member) / above score.
  size_t lower_bound(double score, std::string_view member) const;
  const std::vector<Item>& items() const { return items_; }
  const Item& at(size_t rank) const { return items_[rank]; }

 private:
  std::vector<Item> items_;  // ascending
  std::unordered_map<std::string, double, StringHash, std::equal_to<>> scores_;
  bool listpack_ = true;
};

// The SCAN family's order over names (keys, hash fields, set members): the
// fake orders names by this fixed 63-bit hash (FNV-1a, then splitmix64's
// mixer; ties by name) and a cursor is the hash to resume from, so a name
// present for the whole scan is returned at least once whatever is added or
// removed in between. Never 0: the cursor 0 starts and ends a scan. The same
// on every platform and standard library.
uint64_t scan_hash(std::string_view name);

// A collection held behind a pointer inside a Value: a key holding a
// string (the common case) then costs the string and a tag rather than the
// largest collection's size (a Set is 112 bytes). Built implicitly from the
// collection; copies are deep. A moved-from Boxed holds nothing and may
// only be assigned, destroyed or tested (operator bool).
template <typename T>
class Boxed {
 public:
  Boxed(T value) : p_(std::make_unique<T>(std::move(value))) {}  // NOLINT: implicit by design
  Boxed(const Boxed& other) : p_(std::make_unique<T>(*other.p_)) {}
  Boxed& operator=(const Boxed& other) {
    p_ = std::make_unique<T>(*other.p_);
    return *this;
  }
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(Boxed&&) noexcept = default;
  // False only when moved from (RENAME moves a value out before it deletes the key).
  explicit operator bool() const { return p_ != nullptr; }
  T& operator*() { return *p_; }
  const T& operator*() const { return *p_; }
  T* operator->() { return p_.get(); }
  const T* operator->() const { return p_.get(); }

 private:
  std::unique_ptr<T> p_;
};

// A key's value; the alternatives in ValueType's order. Strings are held
// inline, collections boxed (see Boxed): use Entry's accessors.
using Value =
    std::variant<std::string, Boxed<Hash>, Boxed<List>, Boxed<Set>, Boxed<Zset>, Boxed<Stream>>;

// How a string value was last written, for OBJECT ENCODING: Redis runs
// tryObjectEncoding (int / embstr / raw by content) on SET-family values,
// writes APPEND / SETRANGE / SETBIT results as "raw", and INCRBYFLOAT's as
// a fresh string ("embstr" up to 44 bytes, never "int").
enum class StringEncoding : uint8_t { kByContent = 0, kRaw = 1, kNotInt = 2 };

struct Entry {
  static constexpr int64_t kNoExpire = -1;

  Value value;
  int64_t expire_ms = kNoExpire;  // absolute deadline in ms on the server's clock
  StringEncoding str_encoding = StringEncoding::kByContent;  // strings only
  // Redis's robj lru field (see AccessClock): the LFU counter, and the
  // server-clock second of the last access (LRU) or last decrement (LFU).
  uint8_t lfu_counter = 5;
  uint32_t access_s = 0;

  ValueType type() const { return static_cast<ValueType>(value.index()); }
  bool is_string() const { return value.index() == 0; }
  bool is_hash() const { return value.index() == 1; }
  bool is_list() const { return value.index() == 2; }
  bool is_set() const { return value.index() == 3; }
  bool is_zset() const { return value.index() == 4; }
  bool is_stream() const { return value.index() == 5; }
  std::string& str() { return *std::get_if<std::string>(&value); }
  Hash& hash() { return **std::get_if<Boxed<Hash>>(&value); }
  List& list() { return **std::get_if<Boxed<List>>(&value); }
  Set& set() { return **std::get_if<Boxed<Set>>(&value); }
  Zset& zset() { return **std::get_if<Boxed<Zset>>(&value); }
  Stream& stream() { return **std::get_if<Boxed<Stream>>(&value); }
  const std::string& str() const { return *std::get_if<std::string>(&value); }
  const Hash& hash() const { return **std::get_if<Boxed<Hash>>(&value); }
  const List& list() const { return **std::get_if<Boxed<List>>(&value); }
  const Set& set() const { return **std::get_if<Boxed<Set>>(&value); }
  const Zset& zset() const { return **std::get_if<Boxed<Zset>>(&value); }
  const Stream& stream() const { return **std::get_if<Boxed<Stream>>(&value); }
  bool has_expire() const { return expire_ms != kNoExpire; }
  // Redis's keyIsExpired: strictly after the deadline.
  bool expired_at(int64_t now_ms) const { return expire_ms != kNoExpire && now_ms > expire_ms; }
};

// OBJECT ENCODING's answer for `e`, as Redis 7.0 with default thresholds:
// strings "int" / "embstr" / "raw", hashes "listpack" / "hashtable", lists
// "quicklist", sets "intset" / "hashtable", sorted sets "listpack" / "skiplist",
// streams "stream".
std::string_view encoding_name(const Entry& e);

// Key access bookkeeping for OBJECT IDLETIME and OBJECT FREQ, as Redis 7.0
// keeps it in each object's 24-bit lru field (evict.c, object.c): under an
// LRU (or no eviction) policy, the second of the last access on the server
// clock (Redis's LRU clock has 1 s resolution); under an LFU policy
// (maxmemory-policy *-lfu), a logarithmic counter that starts at 5, grows by
// one with probability 1 / ((counter - 5) * lfu-log-factor + 1) on each
// access and decays by one per lfu-decay-time minutes without access. A
// command's lookup counts as an access, except those Redis makes with
// LOOKUP_NOTOUCH (TYPE, TTL and its family, EXISTS, OBJECT). The draws come
// from this clock's own fixed-seed generator, so runs stay deterministic.
struct AccessClock {
  int64_t now_ms = 0;  // the running command's time (Server::call sets it)
  bool lfu = false;    // maxmemory-policy is allkeys-lfu or volatile-lfu
  int64_t lfu_log_factor = 10;
  int64_t lfu_decay_time_min = 1;
  uint64_t rng = 0x1F0DA7A5EED5E12ULL;

  uint32_t now_s() const { return static_cast<uint32_t>(now_ms / 1000); }
  // A new value: accessed now, counter at LFU_INIT_VAL.
  void created(Entry& e) const {
    e.access_s = now_s();
    e.lfu_counter = 5;
  }
  // An access (Redis's updateLFU, or lru = LRU_CLOCK()).
  void touched(Entry& e);
  // LFUDecrAndReturn: the counter with the decay due by now applied.
  uint8_t lfu_decayed(const Entry& e) const;
  // OBJECT IDLETIME: whole seconds since the last access.
  int64_t idle_s(const Entry& e) const { return int64_t{now_s()} - int64_t{e.access_s}; }
};

// Why a watched key is signalled; decides what it means for a WATCH.
enum class TouchKind : uint8_t {
  kWrite,    // a command modified or deleted the key
  kExpired,  // the key was deleted because its deadline passed (lazy or active)
  kFlush,    // FLUSHDB / FLUSHALL removed the (live) key
};

// Called for every session watching a touched key. Installed by the Server.
using WatchTouchFn = void (*)(Session& session, int db, std::string_view key, TouchKind kind);

// What the server hears of key changes besides WATCH: client-side caching
// (sim/tracking.h) and the "expired" keyspace event. Installed by the
// Server, shared by its dbs; a Db without hooks (tests) calls nothing.
struct KeyHooks {
  void* owner = nullptr;
  // Redis's trackingInvalidateKey from signalModifiedKey: called for every
  // touch() and every deletion, only while `tracking` is set (the server
  // sets it once a client turned tracking on), so writes cost nothing more
  // before.
  bool tracking = false;
  void (*modified)(void* owner, int db, std::string_view key) = nullptr;
  // deleteExpiredKeyAndPropagate: `key` was deleted because its deadline
  // passed (lazy or active expiry), after the deletion and the WATCH
  // signal. Called for every such deletion when set (it publishes the
  // "expired" event when notify-keyspace-events asks, and invalidates).
  void (*expired)(void* owner, int db, std::string_view key) = nullptr;
  // dbAdd's "new" event: `key` was just created (before its value is
  // stored). Called for every key created when set.
  void (*created)(void* owner, int db, std::string_view key) = nullptr;
  // Keys modified or deleted by a write (every touch() and kWrite
  // deletion) since the server last took the count: the default of Redis's
  // server.dirty for a command that does not count its changes itself.
  uint64_t writes = 0;
  // Replication (redsim server as a master, sim/replication.h): while set,
  // every touch() and every deletion (expiry included) appends (db, key)
  // to `changed`, which the server turns into the replication stream.
  bool record_changes = false;
  std::vector<std::pair<int, std::string>> changed;
};

// Keys a write made ready for the clients blocked on them (Redis's
// server.ready_keys): (db, key) in the order they were signalled, each once
// until taken. Filled by Db, emptied by the server (sim/blocking.h).
struct ReadyKeys {
  std::vector<std::pair<int, std::string>> keys;
  std::set<std::pair<int, std::string>> queued;
};

class Db {
 public:
  Db(int index, WatchTouchFn on_touch, ReadyKeys* ready = nullptr, KeyHooks* hooks = nullptr,
     AccessClock* access = nullptr)
      : index_(index), on_touch_(on_touch), ready_(ready), hooks_(hooks), access_(access) {}
  // Movable (the map's nodes, which the key order points into, move along),
  // not copyable.
  Db(Db&&) = default;
  Db& operator=(Db&&) = default;
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  int index() const { return index_; }
  // Keys stored, including expired ones not yet deleted (as DBSIZE counts).
  size_t size() const { return map_.size(); }

  // Every command's lookup: the live entry, or nullptr when the key is
  // absent or expired at `now_ms` (an expired key is deleted first). An
  // access for OBJECT IDLETIME/FREQ unless !touch (Redis's LOOKUP_NOTOUCH).
  Entry* lookup(std::string_view key, int64_t now_ms, bool touch = true);
  // The stored entry whether or not it is expired, no side effects.
  Entry* peek(std::string_view key);

  // Creates `key` (which must be absent) with `value` and no deadline.
  // Does not touch watchers: the caller calls touch() once it is done.
  Entry& add(std::string_view key, Value value);
  // add(key, Hash()), in the memory of the last small hash deleted here
  // when there is one (a lock's hash is created and deleted every cycle).
  Hash& add_hash(std::string_view key);
  // SET semantics: creates or overwrites a string; the deadline is dropped
  // unless keep_ttl. Touches the key.
  Entry& set_string(std::string_view key, std::string value, bool keep_ttl);
  // Deletes `key` if stored (expired or not); true when it was. Touches it.
  bool remove(std::string_view key);
  // DEL's lookup(key, now_ms) then remove(key) with one search of the map:
  // an expired key is deleted as lookup() deletes it (false), a live one is
  // accessed and deleted as remove() deletes it (true); false when absent.
  bool remove_live(std::string_view key, int64_t now_ms);
  // Stores `entry` (value, deadline, encoding, access record) at `key`, replacing whatever
  // is stored there. Does not touch: the caller does (RENAME, COPY, MOVE).
  Entry& put(std::string_view key, Entry entry);
  // A uniformly drawn stored key (expired or not) given a draw `r` in
  // [0, size()): the (r % size())-th key in key order (below); nullptr when
  // the db is empty. For RANDOMKEY. O(r).
  const std::string* key_at(size_t r) const;

  // One SCAN page over the stored keys (expired or not) in key order:
  // appends to `out` the keys whose scan_hash is at or after `cursor`, at
  // least `count` of them (fewer at the end; a page never splits keys of
  // equal hash), and returns the cursor to continue from (0 at the end).
  // Costs O(log size() + the keys returned), not a pass over the db.
  uint64_t scan(uint64_t cursor, int64_t count, std::vector<std::string>* out) const;
  // Keys scan() has stepped over since the db was made (a cost counter for tests).
  uint64_t scan_keys_visited() const { return scan_keys_visited_; }
  // Sets or clears (deadline_ms == Entry::kNoExpire) the deadline of the
  // stored entry `e` of `key`. Does not touch: commands call touch().
  void set_expire(std::string_view key, Entry& e, int64_t deadline_ms);
  // Redis's signalModifiedKey: every session watching `key` is told, and
  // client-side caching (KeyHooks::modified).
  void touch(std::string_view key) {
    if (hooks_ != nullptr) {
      ++hooks_->writes;
      if (hooks_->record_changes) hooks_->changed.emplace_back(index_, std::string(key));
    }
    if (!watchers_.empty()) notify(key, TouchKind::kWrite);
    if (hooks_ != nullptr && hooks_->tracking) hooks_->modified(hooks_->owner, index_, key);
  }
  // FLUSHDB at `now_ms`: removes everything; watchers of stored keys are
  // told (kFlush for a live key, kExpired for one past its deadline).
  void clear(int64_t now_ms);

  // One pass of the active expiry cycle at `now_ms`: examines up to
  // `max_keys` keys with a deadline, in key order starting after the key the
  // previous pass stopped at (wrapping around), and deletes the expired ones.
  // Returns the number deleted. Then frees the nodes kept for reuse (see
  // spare_key_).
  size_t active_expire(int64_t now_ms, int max_keys);

  // Number of keys with a deadline.
  size_t volatile_count() const { return volatile_.size(); }
  // Nothing for active_expire to do: no key with a deadline, no node kept
  // for reuse (Keyspace::active_expire skips such a db).
  bool nothing_to_expire() const {
    return volatile_.empty() && spare_key_.empty() && spare_order_.empty() &&
           spare_volatile_.empty() && !spare_hash_;
  }
  // Buckets of the key table (memory kept even when empty; FLUSHDB gives
  // them back). For tests.
  size_t bucket_count() const { return map_.bucket_count(); }
  // Every stored key (expired or not) with its entry, in key order: by
  // (scan_hash(key), key), the order of SCAN, KEYS and RANDOMKEY. It depends
  // only on the set of keys, never on hash-table iteration, so it is the
  // same on every standard library. `fn` must not add or remove keys.
  template <typename Fn>
  void for_each(Fn&& fn) const {
    for (const auto& [pos, entry] : order_) fn(*pos.second, *entry);
  }

  // Why this db's indexes disagree, or "" when they agree: the key order
  // holds exactly the stored keys, the deadline index exactly the keys with
  // a deadline, no stored hash, list, set or sorted set is empty (Redis
  // deletes a key whose collection empties), and no key has an empty list
  // of watchers. O(size); for tests and the fuzz targets, between commands.
  std::string inconsistency() const;

  // Exchanges the stored keys with `other` (not the index, not the
  // watchers); see Keyspace::swap.
  void swap_contents(Db& other);
  // Tells every session watching a key stored here or in `other`.
  void touch_watched_present(const Db& other);
  // Blocked clients (sim/blocking.h): the keys of this db clients are
  // blocked on, counted per client. Redis's signalKeyAsReady and
  // signalDeletedKeyAsReady: add(), put(), set_string(), remove() and
  // clear() at such a key, and signal_ready() (XADD to an existing stream,
  // XGROUP DESTROY), queue the key once on the keyspace's ReadyKeys; after
  // the command the server serves the clients whose key is now of the type
  // they wait for (a consumer group's client whose stream is gone gets an
  // error).
  void add_blocking(std::string_view key);
  void remove_blocking(std::string_view key);
  bool blocking(std::string_view key) const { return blocking_.contains(key); }
  void signal_ready(std::string_view key);

  // WATCH bookkeeping: which sessions watch which keys of this db.
  void add_watcher(std::string_view key, Session* session);
  void remove_watcher(std::string_view key, Session* session);
  bool watched() const { return !watchers_.empty(); }

 private:
  using Map = std::unordered_map<std::string, Entry, StringHash, std::equal_to<>>;
  // Key order: (scan_hash, key). Points into map_'s nodes, which stay put.
  using OrderPos = std::pair<uint64_t, const std::string*>;
  struct OrderLess {
    bool operator()(const OrderPos& a, const OrderPos& b) const {
      return a.first != b.first ? a.first < b.first : *a.second < *b.second;
    }
  };
  using Order = std::map<OrderPos, Entry*, OrderLess>;
  using Volatile = std::set<std::string, std::less<>>;
  // Finds `key` or creates it (empty entry) in map_ and order_.
  Map::iterator find_or_insert(std::string_view key);
  void erase(Map::iterator it, TouchKind kind);
  // Keeps a deleted key's map node (its entry reset) and a small hash it
  // held for the next key created, else frees them as erase would.
  void recycle(Map::node_type node);
  void release_spares();
  void add_volatile(std::string_view key);
  void erase_volatile(Volatile::iterator it);
  void release_all();
  void notify(std::string_view key, TouchKind kind);

  int index_;
  WatchTouchFn on_touch_;
  Map map_;
  Order order_;  // every key of map_, in key order
  mutable uint64_t scan_keys_visited_ = 0;
  // Keys with a deadline, ordered, for the deterministic active cycle.
  Volatile volatile_;
  // One freed node of each index and the last small hash deleted, reused
  // by the next key created: a key created and deleted again and again (a
  // lock's) then allocates nothing. The indexes are the same as with fresh
  // nodes (an inserted node goes where emplace puts it); only where the
  // memory comes from differs. A kept node holds no value (its entry is
  // reset, the value's memory freed), and is kept until the next active
  // expiry cycle (100 ms at Redis's hz 10) or FLUSHDB at most.
  Map::node_type spare_key_;
  Order::node_type spare_order_;
  Volatile::node_type spare_volatile_;
  std::optional<Boxed<Hash>> spare_hash_;
  std::string cursor_;  // last key the active cycle examined
  bool has_cursor_ = false;
  std::unordered_map<std::string, std::vector<Session*>, StringHash, std::equal_to<>> watchers_;
  ReadyKeys* ready_;
  KeyHooks* hooks_;
  AccessClock* access_;  // the keyspace's; nullptr: accesses not recorded
  std::map<std::string, int, std::less<>> blocking_;  // key -> blocked clients
};

class Keyspace {
 public:
  Keyspace(int databases, WatchTouchFn on_touch);

  int databases() const { return static_cast<int>(dbs_.size()); }
  // The encoding thresholds of this server (CONFIG SET changes them).
  EncodingLimits& limits() { return limits_; }
  const EncodingLimits& limits() const { return limits_; }
  // `index` must be in [0, databases()).
  Db& db(int index) { return dbs_[static_cast<size_t>(index)]; }
  // FLUSHALL at `now_ms`.
  void clear(int64_t now_ms);
  // SWAPDB a b: the two dbs exchange their keys (with deadlines); each
  // keeps its index and its WATCHers, and a session watching a key present
  // in either db is told (Redis 7.0 db.c dbSwapDatabases and
  // touchAllWatchedKeysInDb). Both indices must be in range.
  void swap(int a, int b);
  // One active expiry cycle over every db; returns the number of keys deleted.
  size_t active_expire(int64_t now_ms, int max_keys_per_db);
  // The keys signalled ready since the last call, in signal order.
  bool has_ready_keys() const { return !ready_->keys.empty(); }
  std::vector<std::pair<int, std::string>> take_ready_keys();
  // The hooks every db of this keyspace calls (see KeyHooks).
  KeyHooks& hooks() { return *hooks_; }
  // The clock and policy of key accesses (OBJECT IDLETIME/FREQ).
  AccessClock& access() { return *access_; }

 private:
  std::unique_ptr<ReadyKeys> ready_ = std::make_unique<ReadyKeys>();
  std::unique_ptr<KeyHooks> hooks_ = std::make_unique<KeyHooks>();
  std::unique_ptr<AccessClock> access_ = std::make_unique<AccessClock>();
  std::vector<Db> dbs_;
  EncodingLimits limits_;
};

}  // namespace redsim::sim
