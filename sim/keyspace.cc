#include "sim/keyspace.h"

#include <algorithm>

namespace redsim::sim {

namespace {
// Below this many fields a linear scan beats hashing (and allocates nothing).
constexpr size_t kHashIndexThreshold = 32;
}  // namespace

std::string_view type_name(ValueType type) {
  switch (type) {
    case ValueType::kString:
      return "string";
    case ValueType::kHash:
      return "hash";
  }
  return "none";
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

bool Hash::set(std::string_view field, std::string_view value) {
  size_t i = position(field);
  if (i != entries_.size()) {
    entries_[i].second.assign(value);
    return false;
  }
  entries_.emplace_back(std::string(field), std::string(value));
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

void Hash::rebuild_index() {
  index_.clear();
  index_.reserve(entries_.size());
  for (size_t i = 0; i < entries_.size(); ++i) index_.emplace(entries_[i].first, i);
}

// ---- Db --------------------------------------------------------------------

Entry* Db::lookup(std::string_view key, int64_t now_ms) {
  auto it = map_.find(key);
  if (it == map_.end()) return nullptr;
  if (it->second.expired_at(now_ms)) {
    erase(it, TouchKind::kExpired);
    return nullptr;
  }
  return &it->second;
}

Entry* Db::peek(std::string_view key) {
  auto it = map_.find(key);
  return it == map_.end() ? nullptr : &it->second;
}

Entry& Db::add(std::string_view key, Value value) {
  auto [it, inserted] = map_.try_emplace(std::string(key));
  (void)inserted;
  it->second.value = std::move(value);
  return it->second;
}

Entry& Db::set_string(std::string_view key, std::string value, bool keep_ttl) {
  auto it = map_.find(key);
  if (it == map_.end()) {
    it = map_.try_emplace(std::string(key)).first;
  } else if (!keep_ttl && it->second.has_expire()) {
    set_expire(key, it->second, Entry::kNoExpire);
  }
  Entry& e = it->second;
  if (e.is_string()) {
    e.str() = std::move(value);
  } else {
    e.value = std::move(value);
  }
  touch(key);
  return e;
}

bool Db::remove(std::string_view key) {
  auto it = map_.find(key);
  if (it == map_.end()) return false;
  erase(it, TouchKind::kWrite);
  return true;
}

void Db::set_expire(std::string_view key, Entry& e, int64_t deadline_ms) {
  if (deadline_ms == Entry::kNoExpire) {
    if (e.has_expire()) {
      auto it = volatile_.find(key);
      if (it != volatile_.end()) volatile_.erase(it);
    }
  } else if (!e.has_expire()) {
    volatile_.emplace(key);
  }
  e.expire_ms = deadline_ms;
}

void Db::erase(Map::iterator it, TouchKind kind) {
  if (it->second.has_expire()) {
    auto v = volatile_.find(std::string_view(it->first));
    if (v != volatile_.end()) volatile_.erase(v);
  }
  if (watchers_.empty()) {
    map_.erase(it);
    return;
  }
  // Watchers look at the keyspace after the deletion, as Redis signals after
  // dbDelete; keep the key's name alive past the erase.
  std::string key = it->first;
  map_.erase(it);
  notify(key, kind);
}

void Db::clear(int64_t now_ms) {
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
    map_.clear();
    volatile_.clear();
    std::sort(present.begin(), present.end());
    for (const auto& [key, kind] : present) notify(key, kind);
  } else {
    map_.clear();
    volatile_.clear();
  }
  has_cursor_ = false;
  cursor_.clear();
}

size_t Db::active_expire(int64_t now_ms, int max_keys) {
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
  for (int i = 0; i < databases; ++i) dbs_.emplace_back(i, on_touch);
}

void Keyspace::clear(int64_t now_ms) {
  for (Db& db : dbs_) db.clear(now_ms);
}

size_t Keyspace::active_expire(int64_t now_ms, int max_keys_per_db) {
  size_t deleted = 0;
  for (Db& db : dbs_) deleted += db.active_expire(now_ms, max_keys_per_db);
  return deleted;
}

}  // namespace redsim::sim
