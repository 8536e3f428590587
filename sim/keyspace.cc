#include "sim/keyspace.h"

#include <algorithm>
#include <type_traits>
#include <variant>

#include "base/hash.h"
#include "sim/args.h"

namespace redsim::sim {

namespace {
// Below this many fields a linear scan beats hashing (and allocates nothing).
constexpr size_t kHashIndexThreshold = 32;
// A Db keeps a freed node for reuse only when its key's buffer is at most
// this long, and a deleted hash only when its field list has room for at
// most kSpareHashFields: what it holds on to stays small.
constexpr size_t kSpareKeyBytes = 64;
constexpr size_t kSpareHashFields = 8;

// Keeps `node` in `spare` when no node is kept there yet and its key is
// short; otherwise it is freed here, as an erase frees it.
template <typename Node>
void keep_spare(Node& spare, Node&& node) {
  if (!spare.empty() || node.empty()) return;
  if constexpr (requires { node.value().capacity(); }) {  // a set's
    if (node.value().capacity() > kSpareKeyBytes) return;
  } else if constexpr (requires { node.key().capacity(); }) {  // a map's, by string
    if (node.key().capacity() > kSpareKeyBytes) return;
  }
  spare = std::move(node);
}
}  // namespace

std::string_view type_name(ValueType type) {
  switch (type) {
    case ValueType::kString:
      return "string";
    case ValueType::kHash:
      return "hash";
    case ValueType::kList:
      return "list";
    case ValueType::kSet:
      return "set";
    case ValueType::kZset:
      return "zset";
    case ValueType::kStream:
      return "stream";
  }
  return "none";
}

std::string_view encoding_name(const Entry& e) {
  // Redis's OBJ_ENCODING_EMBSTR_SIZE_LIMIT.
  constexpr size_t kEmbstrMaxBytes = 44;
  switch (e.type()) {
    case ValueType::kString: {
      const std::string& s = *std::get_if<std::string>(&e.value);
      if (e.str_encoding == StringEncoding::kRaw) return "raw";
      int64_t ignored = 0;
      // tryObjectEncoding: up to 20 bytes that string2l accepts become an int.
      if (e.str_encoding == StringEncoding::kByContent && s.size() <= 20 &&
          parse_int64(s, &ignored)) {
        return "int";
      }
      return s.size() <= kEmbstrMaxBytes ? "embstr" : "raw";
    }
    case ValueType::kHash:
      return e.hash().listpack() ? "listpack" : "hashtable";
    case ValueType::kList:
      return "quicklist";
    case ValueType::kSet:
      return e.set().intset() ? "intset" : "hashtable";
    case ValueType::kZset:
      return e.zset().listpack() ? "listpack" : "skiplist";
    case ValueType::kStream:
      return "stream";
  }
  return "unknown";
}

// ---- Hash ------------------------------------------------------------------

size_t Hash::position(std::string_view field) const {
  if (!index_.empty()) {
    auto it = index_.find(field);
    return it == index_.end() ? entries_.size() : it->second;
  }
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].first == field) return i;
  }
  return entries_.size();
}

const std::string* Hash::find(std::string_view field) const {
  size_t i = position(field);
  return i == entries_.size() ? nullptr : &entries_[i].second;
}

std::string* Hash::find(std::string_view field) {
  size_t i = position(field);
  return i == entries_.size() ? nullptr : &entries_[i].second;
}

bool Hash::set(std::string_view field, std::string_view value, const EncodingLimits& limits) {
  note_length(field.size(), limits);
  note_length(value.size(), limits);
  size_t i = position(field);
  if (i != entries_.size()) {
    entries_[i].second.assign(value);
    if (entries_.size() > limits.hash_max_listpack_entries) listpack_ = false;
    return false;
  }
  entries_.emplace_back(std::string(field), std::string(value));
  if (entries_.size() > limits.hash_max_listpack_entries) listpack_ = false;
  if (!index_.empty()) {
    index_.emplace(std::string(field), i);
  } else if (entries_.size() > kHashIndexThreshold) {
    rebuild_index();
  }
  return true;
}

bool Hash::erase(std::string_view field) {
  size_t i = position(field);
  if (i == entries_.size()) return false;
  entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
  if (!index_.empty()) {
    if (entries_.size() > kHashIndexThreshold) {
      rebuild_index();
    } else {
      index_.clear();
    }
  }
  return true;
}

bool Hash::clear_for_reuse() {
  if (entries_.capacity() > kSpareHashFields || !index_.empty() || index_.bucket_count() > 1) {
    return false;
  }
  entries_.clear();
  listpack_ = true;
  return true;
}

void Hash::rebuild_index() {
  index_.clear();
  index_.reserve(entries_.size());
  for (size_t i = 0; i < entries_.size(); ++i) index_.emplace(entries_[i].first, i);
}

// ---- Set -------------------------------------------------------------------

size_t Set::lower_bound(int64_t value) const {
  return static_cast<size_t>(std::lower_bound(ints_.begin(), ints_.end(), value) - ints_.begin());
}

bool Set::contains(std::string_view member) const {
  if (intset_) {
    int64_t v = 0;
    if (!parse_int64(member, &v)) return false;
    size_t i = lower_bound(v);
    return i < ints_.size() && ints_[i] == v;
  }
  return index_.find(member) != index_.end();
}

bool Set::add(std::string_view member, const EncodingLimits& limits) {
  if (intset_) {
    int64_t v = 0;
    if (parse_int64(member, &v)) {
      size_t i = lower_bound(v);
      if (i < ints_.size() && ints_[i] == v) return false;
      ints_.insert(ints_.begin() + static_cast<std::ptrdiff_t>(i), v);
      members_.insert(members_.begin() + static_cast<std::ptrdiff_t>(i), std::string(member));
      if (members_.size() > limits.set_max_intset_entries) to_hashtable();
      return true;
    }
    to_hashtable();
  }
  auto [it, inserted] = index_.try_emplace(std::string(member), members_.size());
  if (!inserted) return false;
  members_.push_back(it->first);
  return true;
}

bool Set::erase(std::string_view member) {
  if (intset_) {
    int64_t v = 0;
    if (!parse_int64(member, &v)) return false;
    size_t i = lower_bound(v);
    if (i == ints_.size() || ints_[i] != v) return false;
    ints_.erase(ints_.begin() + static_cast<std::ptrdiff_t>(i));
    members_.erase(members_.begin() + static_cast<std::ptrdiff_t>(i));
    return true;
  }
  auto it = index_.find(member);
  if (it == index_.end()) return false;
  size_t i = it->second;
  index_.erase(it);
  if (i + 1 != members_.size()) {
    members_[i] = std::move(members_.back());
    index_.find(std::string_view(members_[i]))->second = i;
  }
  members_.pop_back();
  return true;
}

void Set::to_hashtable() {
  intset_ = false;
  ints_.clear();
  ints_.shrink_to_fit();
  index_.reserve(members_.size());
  for (size_t i = 0; i < members_.size(); ++i) index_.emplace(members_[i], i);
}

// ---- Zset ------------------------------------------------------------------

namespace {
bool item_less(const Zset::Item& a, double score, std::string_view member) {
  if (a.score != score) return a.score < score;
  return std::string_view(a.member) < member;
}
}  // namespace

const double* Zset::score(std::string_view member) const {
  auto it = scores_.find(member);
  return it == scores_.end() ? nullptr : &it->second;
}

size_t Zset::lower_bound(double score, std::string_view member) const {
  auto it = std::lower_bound(items_.begin(), items_.end(), 0,
                             [&](const Item& a, int) { return item_less(a, score, member); });
  return static_cast<size_t>(it - items_.begin());
}

size_t Zset::rank(std::string_view member) const {
  return lower_bound(scores_.find(member)->second, member);
}

bool Zset::set(std::string_view member, double score, const EncodingLimits& limits) {
  auto it = scores_.find(member);
  bool added = it == scores_.end();
  if (added && member.size() > limits.zset_max_listpack_value) listpack_ = false;
  if (!added) {
    if (it->second == score) return false;
    items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(lower_bound(it->second, member)));
    it->second = score;
  } else {
    scores_.emplace(std::string(member), score);
  }
  size_t at = lower_bound(score, member);
  items_.insert(items_.begin() + static_cast<std::ptrdiff_t>(at), Item{score, std::string(member)});
  if (items_.size() > limits.zset_max_listpack_entries) listpack_ = false;
  return added;
}

bool Zset::erase(std::string_view member) {
  auto it = scores_.find(member);
  if (it == scores_.end()) return false;
  items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(lower_bound(it->second, member)));
  scores_.erase(it);
  return true;
}

void Zset::erase_ranks(size_t from, size_t to) {
  for (size_t i = from; i < to; ++i)
    scores_.erase(scores_.find(std::string_view(items_[i].member)));
  items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(from),
               items_.begin() + static_cast<std::ptrdiff_t>(to));
}

uint64_t scan_hash(std::string_view name) {
  // FNV-1a then splitmix64's mixer: fixed across runs and platforms.
  const uint64_t h = base::mix64(base::fnv1a64(name));
  // 1..2^63-1: never the cursor 0, which means "start" and "done".
  return (h >> 1) | 1;
}

// ---- Db --------------------------------------------------------------------

Db::Map::iterator Db::find_or_insert(std::string_view key) {
  auto it = map_.find(key);
  if (it != map_.end()) return it;
  if (spare_key_.empty()) {
    it = map_.try_emplace(std::string(key)).first;
  } else {
    spare_key_.key().assign(key);
    it = map_.insert(std::move(spare_key_)).position;  // absent: always inserted
  }
  const OrderPos pos{scan_hash(it->first), &it->first};
  if (spare_order_.empty()) {
    order_.emplace(pos, &it->second);
  } else {
    spare_order_.key() = pos;
    spare_order_.mapped() = &it->second;
    order_.insert(std::move(spare_order_));  // a new key's position: always inserted
  }
  if (hooks_ != nullptr && hooks_->created != nullptr) hooks_->created(hooks_->owner, index_, key);
  return it;
}

Entry* Db::lookup(std::string_view key, int64_t now_ms, bool touch) {
  auto it = map_.find(key);
  if (it == map_.end()) return nullptr;
  if (it->second.expired_at(now_ms)) {
    erase(it, TouchKind::kExpired);
    return nullptr;
  }
  if (touch && access_ != nullptr) access_->touched(it->second);
  return &it->second;
}

void AccessClock::touched(Entry& e) {
  if (!lfu) {
    e.access_s = now_s();
    return;
  }
  int counter = lfu_decayed(e);
  if (counter < 255) {
    rng += 0x9E3779B97F4A7C15ULL;  // splitmix64
    uint64_t z = rng;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    double r = static_cast<double>(z >> 11) * 0x1.0p-53;
    double base = std::max(0, counter - 5);
    if (r < 1.0 / (base * static_cast<double>(lfu_log_factor) + 1)) ++counter;
  }
  e.lfu_counter = static_cast<uint8_t>(counter);
  e.access_s = now_s();
}

uint8_t AccessClock::lfu_decayed(const Entry& e) const {
  int64_t minutes = std::max<int64_t>(0, int64_t{now_s()} / 60 - int64_t{e.access_s} / 60);
  int64_t periods = lfu_decay_time_min > 0 ? minutes / lfu_decay_time_min : 0;
  return periods >= e.lfu_counter ? 0 : static_cast<uint8_t>(e.lfu_counter - periods);
}

Entry* Db::peek(std::string_view key) {
  auto it = map_.find(key);
  return it == map_.end() ? nullptr : &it->second;
}

Entry& Db::add(std::string_view key, Value value) {
  auto it = find_or_insert(key);
  it->second.value = std::move(value);
  if (access_ != nullptr) access_->created(it->second);
  if (!blocking_.empty()) signal_ready(key);
  return it->second;
}

Entry& Db::set_string(std::string_view key, std::string value, bool keep_ttl) {
  auto it = map_.find(key);
  if (it == map_.end()) {
    it = find_or_insert(key);
  } else if (!keep_ttl && it->second.has_expire()) {
    set_expire(key, it->second, Entry::kNoExpire);
  }
  if (!blocking_.empty()) signal_ready(key);  // the type may change
  Entry& e = it->second;
  e.str_encoding = StringEncoding::kByContent;
  if (access_ != nullptr) access_->created(e);  // a new object, as SET makes
  if (e.is_string()) {
    e.str() = std::move(value);
  } else {
    e.value = std::move(value);
  }
  touch(key);
  return e;
}

Hash& Db::add_hash(std::string_view key) {
  if (!spare_hash_) return add(key, Hash()).hash();
  Value value(std::move(*spare_hash_));
  spare_hash_.reset();
  return add(key, std::move(value)).hash();
}

bool Db::remove(std::string_view key) {
  auto it = map_.find(key);
  if (it == map_.end()) return false;
  erase(it, TouchKind::kWrite);
  if (!blocking_.empty()) signal_ready(key);  // signalDeletedKeyAsReady
  return true;
}

bool Db::remove_live(std::string_view key, int64_t now_ms) {
  auto it = map_.find(key);
  if (it == map_.end()) return false;
  if (it->second.expired_at(now_ms)) {
    erase(it, TouchKind::kExpired);
    return false;
  }
  if (access_ != nullptr) access_->touched(it->second);
  erase(it, TouchKind::kWrite);
  if (!blocking_.empty()) signal_ready(key);  // signalDeletedKeyAsReady
  return true;
}

Entry& Db::put(std::string_view key, Entry entry) {
  auto it = find_or_insert(key);
  Entry& e = it->second;
  int64_t deadline = entry.expire_ms;
  e.value = std::move(entry.value);
  e.str_encoding = entry.str_encoding;
  // A moved value keeps its access record (RENAME, MOVE); a new one (never
  // stamped) is accessed now.
  e.lfu_counter = entry.lfu_counter;
  e.access_s = entry.access_s;
  if (access_ != nullptr && e.access_s == 0) access_->created(e);
  set_expire(key, e, deadline);
  if (!blocking_.empty()) signal_ready(key);
  return e;
}

void Db::add_blocking(std::string_view key) {
  auto it = blocking_.find(key);
  if (it == blocking_.end()) it = blocking_.emplace(std::string(key), 0).first;
  ++it->second;
}

void Db::remove_blocking(std::string_view key) {
  auto it = blocking_.find(key);
  if (it != blocking_.end() && --it->second <= 0) blocking_.erase(it);
}

void Db::signal_ready(std::string_view key) {
  if (ready_ == nullptr || !blocking_.contains(key)) return;
  std::pair<int, std::string> ref(index_, std::string(key));
  if (ready_->queued.insert(ref).second) ready_->keys.push_back(std::move(ref));
}

const std::string* Db::key_at(size_t r) const {
  if (order_.empty()) return nullptr;
  auto it = order_.begin();
  std::advance(it, static_cast<std::ptrdiff_t>(r % order_.size()));
  return it->first.second;
}

uint64_t Db::scan(uint64_t cursor, int64_t count, std::vector<std::string>* out) const {
  // The first key at or after the cursor: the smallest name of that hash.
  static const std::string kSmallest;
  auto it = order_.lower_bound(OrderPos{cursor, &kSmallest});
  int64_t taken = 0;
  uint64_t last_hash = 0;
  for (; it != order_.end(); ++it) {
    ++scan_keys_visited_;
    if (taken >= count && it->first.first != last_hash) return it->first.first;
    out->push_back(*it->first.second);
    last_hash = it->first.first;
    ++taken;
  }
  return 0;
}

void Db::set_expire(std::string_view key, Entry& e, int64_t deadline_ms) {
  if (deadline_ms == Entry::kNoExpire) {
    if (e.has_expire()) {
      auto it = volatile_.find(key);
      if (it != volatile_.end()) erase_volatile(it);
    }
  } else if (!e.has_expire()) {
    add_volatile(key);
  }
  e.expire_ms = deadline_ms;
}

void Db::add_volatile(std::string_view key) {
  if (spare_volatile_.empty()) {
    volatile_.emplace(key);
    return;
  }
  spare_volatile_.value().assign(key);
  auto inserted = volatile_.insert(std::move(spare_volatile_));
  if (!inserted.inserted) spare_volatile_ = std::move(inserted.node);  // already indexed
}

void Db::erase_volatile(Volatile::iterator it) {
  keep_spare(spare_volatile_, volatile_.extract(it));
}

void Db::recycle(Map::node_type node) {
  Entry& e = node.mapped();
  if (auto* hash = std::get_if<Boxed<Hash>>(&e.value); hash != nullptr && *hash && !spare_hash_) {
    if ((*hash)->clear_for_reuse()) spare_hash_.emplace(std::move(*hash));
  }
  if (!spare_key_.empty()) return;  // the node is freed here, as erase frees it
  // Moved out, so the value's memory goes now: assigning Entry{} would keep
  // a long string's buffer (libstdc++ copies a short string into it).
  Entry freed = std::move(e);
  e = Entry{};
  keep_spare(spare_key_, std::move(node));
}

void Db::erase(Map::iterator it, TouchKind kind) {
  if (kind == TouchKind::kWrite && hooks_ != nullptr) ++hooks_->writes;  // see KeyHooks::writes
  if (hooks_ != nullptr && hooks_->record_changes) hooks_->changed.emplace_back(index_, it->first);
  if (it->second.has_expire()) {
    auto v = volatile_.find(std::string_view(it->first));
    if (v != volatile_.end()) erase_volatile(v);
  }
  keep_spare(spare_order_, order_.extract(OrderPos{scan_hash(it->first), &it->first}));
  const bool expired_hook =
      hooks_ != nullptr && kind == TouchKind::kExpired && hooks_->expired != nullptr;
  const bool tracking_hook = hooks_ != nullptr && hooks_->tracking && !expired_hook;
  if (watchers_.empty() && !expired_hook && !tracking_hook) {
    recycle(map_.extract(it));
    return;
  }
  // Watchers look at the keyspace after the deletion, as Redis signals after
  // dbDelete; the key's name outlives the erase by moving it out of the
  // map's node (no copy: every expiry passes here, as the server always
  // installs the expired hook, listened to or not).
  Map::node_type node = map_.extract(it);
  const std::string key = std::move(node.key());
  recycle(std::move(node));  // the entry goes before anyone is told, as with erase
  if (!watchers_.empty()) notify(key, kind);
  if (expired_hook) {
    hooks_->expired(hooks_->owner, index_, key);
  } else if (tracking_hook) {
    hooks_->modified(hooks_->owner, index_, key);
  }
}

// Drops every key and gives back the indexes' memory too: clear() would
// keep the hash table's bucket array (8 bytes a key at its largest).
void Db::release_all() {
  order_ = {};
  Map().swap(map_);
  volatile_ = {};
  release_spares();
}

void Db::release_spares() {
  spare_key_ = {};
  spare_order_ = {};
  spare_volatile_ = {};
  spare_hash_.reset();
}

void Db::clear(int64_t now_ms) {
  for (const auto& [key, clients] : blocking_) {
    if (map_.contains(key)) signal_ready(key);
  }
  if (!watchers_.empty()) {
    // Collect first: a watcher's reaction must not see a half-cleared db.
    // A key already past its deadline is not a logical change when flushed
    // (redis-server 7.0.15 leaves such a WATCH intact): it counts as expired.
    std::vector<std::pair<std::string, TouchKind>> present;
    for (const auto& [key, sessions] : watchers_) {
      (void)sessions;
      auto it = map_.find(key);
      if (it == map_.end()) continue;
      present.emplace_back(key,
                           it->second.expired_at(now_ms) ? TouchKind::kExpired : TouchKind::kFlush);
    }
    release_all();
    std::sort(present.begin(), present.end());
    for (const auto& [key, kind] : present) notify(key, kind);
  } else {
    release_all();
  }
  has_cursor_ = false;
  cursor_.clear();
}

size_t Db::active_expire(int64_t now_ms, int max_keys) {
  struct Release {
    Db& db;
    ~Release() { db.release_spares(); }
  } release{*this};
  if (volatile_.empty() || max_keys <= 0) return 0;
  size_t budget = std::min(volatile_.size(), static_cast<size_t>(max_keys));
  auto it = has_cursor_ ? volatile_.upper_bound(cursor_) : volatile_.begin();
  size_t deleted = 0;
  for (size_t n = 0; n < budget && !volatile_.empty(); ++n) {
    if (it == volatile_.end()) it = volatile_.begin();
    cursor_ = *it;
    has_cursor_ = true;
    ++it;  // advance first: the examined key may be erased below
    auto entry = map_.find(std::string_view(cursor_));
    if (entry != map_.end() && entry->second.expired_at(now_ms)) {
      erase(entry, TouchKind::kExpired);
      ++deleted;
    }
  }
  return deleted;
}

void Db::add_watcher(std::string_view key, Session* session) {
  auto it = watchers_.find(key);
  if (it == watchers_.end()) it = watchers_.try_emplace(std::string(key)).first;
  it->second.push_back(session);
}

void Db::remove_watcher(std::string_view key, Session* session) {
  auto it = watchers_.find(key);
  if (it == watchers_.end()) return;
  auto& sessions = it->second;
  sessions.erase(std::remove(sessions.begin(), sessions.end(), session), sessions.end());
  if (sessions.empty()) watchers_.erase(it);
}

std::string Db::inconsistency() const {
  if (order_.size() != map_.size()) return "the key order and the map differ in size";
  size_t with_deadline = 0;
  for (const auto& [pos, entry] : order_) {
    auto it = map_.find(*pos.second);
    if (it == map_.end() || &it->first != pos.second || &it->second != entry) {
      return "the key order points at no stored key: " + *pos.second;
    }
    if (pos.first != scan_hash(*pos.second)) return "a key is out of order: " + *pos.second;
    if (entry->has_expire()) {
      ++with_deadline;
      if (!volatile_.contains(*pos.second)) return "a deadline is not indexed: " + *pos.second;
    }
    bool empty = std::visit(
        [](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          // A stream may be empty (XDEL, XTRIM, XGROUP CREATE MKSTREAM).
          if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, Boxed<Stream>>) {
            return false;
          } else {
            return v->size() == 0;
          }
        },
        entry->value);
    if (empty) return "an empty collection is stored: " + *pos.second;
  }
  if (with_deadline != volatile_.size()) return "the deadline index holds keys without one";
  for (const auto& [key, sessions] : watchers_) {
    if (sessions.empty()) return "an empty watcher list: " + key;
  }
  return "";
}

void Db::swap_contents(Db& other) {
  std::swap(map_, other.map_);
  std::swap(order_, other.order_);
  std::swap(volatile_, other.volatile_);
  std::swap(cursor_, other.cursor_);
  std::swap(has_cursor_, other.has_cursor_);
}

void Db::touch_watched_present(const Db& other) {
  std::vector<std::string> present;
  for (const auto& [key, sessions] : watchers_) {
    (void)sessions;
    if (map_.contains(key) || other.map_.contains(key)) present.push_back(key);
  }
  std::sort(present.begin(), present.end());
  for (const std::string& key : present) notify(key, TouchKind::kWrite);
}

void Db::notify(std::string_view key, TouchKind kind) {
  auto it = watchers_.find(key);
  if (it == watchers_.end() || on_touch_ == nullptr) return;
  // A copy: the callback may unwatch (and so edit this list).
  std::vector<Session*> sessions = it->second;
  for (Session* s : sessions) on_touch_(*s, index_, key, kind);
}

// ---- Keyspace --------------------------------------------------------------

Keyspace::Keyspace(int databases, WatchTouchFn on_touch) {
  dbs_.reserve(static_cast<size_t>(databases));
  for (int i = 0; i < databases; ++i) {
    dbs_.emplace_back(i, on_touch, ready_.get(), hooks_.get(), access_.get());
  }
}

std::vector<std::pair<int, std::string>> Keyspace::take_ready_keys() {
  ready_->queued.clear();
  return std::exchange(ready_->keys, {});
}

void Keyspace::clear(int64_t now_ms) {
  for (Db& db : dbs_) db.clear(now_ms);
}

void Keyspace::swap(int a, int b) {
  if (a == b) return;
  Db& x = db(a);
  Db& y = db(b);
  x.swap_contents(y);
  x.touch_watched_present(y);
  y.touch_watched_present(x);
}

size_t Keyspace::active_expire(int64_t now_ms, int max_keys_per_db) {
  size_t deleted = 0;
  for (Db& db : dbs_) {
    if (!db.nothing_to_expire()) deleted += db.active_expire(now_ms, max_keys_per_db);
  }
  return deleted;
}

}  // namespace redsim::sim
