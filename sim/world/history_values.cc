#include "sim/world/history_values.h"

#include <cstring>
#include <utility>

#include "base/hash.h"

namespace redsim::world {

namespace history_detail {

const std::string& empty_text() {
  static const std::string empty;
  return empty;
}

const std::vector<std::string>& empty_argv() {
  static const std::vector<std::string> empty;
  return empty;
}

const resp::Reply& nil_reply() {
  static const resp::Reply nil;
  return nil;
}

}  // namespace history_detail

namespace {

using history_detail::Node;

uint64_t load8(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

uint64_t load4(const char* p) {
  uint32_t w;
  std::memcpy(&w, p, 4);
  return w;
}

// A string's hash from its length and at most three 8-byte words (the
// first, the middle and the last): constant time whatever its length. The
// tables only need equal values to hash equal (a collision costs a
// comparison); nothing recorded or printed depends on these hashes.
uint64_t hash_str(std::string_view s, uint64_t h) {
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ULL;
  const size_t n = s.size();
  const char* p = s.data();
  uint64_t a = 0, b = 0;
  if (n >= 8) {
    a = load8(p) ^ (load8(p + n - 8) * kMul);
    if (n > 16) b = load8(p + n / 2 - 4);
  } else if (n >= 4) {
    a = load4(p) | (load4(p + n - 4) << 32);
  } else if (n > 0) {
    a = static_cast<uint64_t>(static_cast<uint8_t>(p[0])) |
        static_cast<uint64_t>(static_cast<uint8_t>(p[n / 2])) << 8 |
        static_cast<uint64_t>(static_cast<uint8_t>(p[n - 1])) << 16;
  }
  h = (h ^ a ^ (static_cast<uint64_t>(n) << 56)) * kMul;
  h = (h ^ (h >> 29) ^ b) * kMul;
  return h ^ (h >> 32);
}

uint64_t hash_text(std::string_view s) { return base::mix64(hash_str(s, 1)); }

uint64_t hash_argv(const std::vector<std::string>& v) {
  uint64_t h = v.size();
  for (const std::string& a : v) h = hash_str(a, h);
  return base::mix64(h);
}

// Scalars only: an aggregate (or a RESP3 double, ...) is not interned.
bool internable(const resp::Reply& r) {
  return r.is_status() || r.is_error() || r.is_integer() || r.is_bulk();
}

uint64_t hash_reply(const resp::Reply& r) {
  const uint64_t h =
      static_cast<uint64_t>(r.kind()) * 0x100000001B3ULL ^ static_cast<uint64_t>(r.integer());
  return base::mix64(hash_str(r.str(), h));
}

}  // namespace

template <class T, class Eq>
Node<T>* HistoryInterner::find(const Table<T>& table, uint64_t hash, Eq&& eq) {
  if (table.slots.empty()) return nullptr;
  const size_t mask = table.slots.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    Node<T>* n = table.slots[i];
    if (n == nullptr) return nullptr;
    if (n->hash == hash && eq(n->value)) return n;
  }
}

template <class T>
void HistoryInterner::insert(Table<T>& table, Node<T>* node, uint64_t hash) {
  if ((table.used + 1) * 2 > table.slots.size()) {
    std::vector<Node<T>*> old = std::move(table.slots);
    table.slots.assign(old.empty() ? 64 : old.size() * 2, nullptr);
    const size_t mask = table.slots.size() - 1;
    for (Node<T>* n : old) {
      if (n == nullptr) continue;
      size_t i = n->hash & mask;
      while (table.slots[i] != nullptr) i = (i + 1) & mask;
      table.slots[i] = n;
    }
  }
  node->hash = hash;
  node->interned = true;
  node->refs.fetch_add(1, std::memory_order_relaxed);  // the table's
  const size_t mask = table.slots.size() - 1;
  size_t i = hash & mask;
  while (table.slots[i] != nullptr) i = (i + 1) & mask;
  table.slots[i] = node;
  ++table.used;
}

template <class T>
void HistoryInterner::release(Table<T>& table) {
  for (Node<T>* n : table.slots) {
    if (n != nullptr) history_detail::Ref<T> drop(n);
  }
  table.slots.clear();
  table.used = 0;
}

HistoryInterner::~HistoryInterner() {
  release(texts_);
  release(argvs_);
  release(replies_);
}

HistoryText HistoryInterner::text(std::string_view s) {
  HistoryText t;
  if (s.empty()) return t;
  const uint64_t hash = hash_text(s);
  Node<std::string>* n = find(texts_, hash, [&](const std::string& v) { return v == s; });
  if (n != nullptr) {
    n->refs.fetch_add(1, std::memory_order_relaxed);
    t.ref_ = history_detail::Ref<std::string>(n);
    return t;
  }
  t.set(std::string(s));
  insert(texts_, t.ref_.get(), hash);
  return t;
}

template <class V>
HistoryArgv HistoryInterner::intern_argv(V&& v) {
  HistoryArgv a;
  if (v.empty()) return a;
  const uint64_t hash = hash_argv(v);
  Node<std::vector<std::string>>* n =
      find(argvs_, hash, [&](const std::vector<std::string>& x) { return x == v; });
  if (n != nullptr) {
    n->refs.fetch_add(1, std::memory_order_relaxed);
    a.ref_ = history_detail::Ref<std::vector<std::string>>(n);
    return a;
  }
  a.set(std::forward<V>(v));
  insert(argvs_, a.ref_.get(), hash);
  return a;
}

HistoryArgv HistoryInterner::argv(std::vector<std::string>&& v) {
  return intern_argv(std::move(v));
}

HistoryArgv HistoryInterner::argv(const std::vector<std::string>& v) { return intern_argv(v); }

HistoryReply HistoryInterner::reply(const resp::Reply& r) {
  HistoryReply out;
  if (!internable(r)) {
    out.set(r);
    return out;
  }
  const uint64_t hash = hash_reply(r);
  Node<resp::Reply>* n = find(replies_, hash, [&](const resp::Reply& x) { return x == r; });
  if (n != nullptr) {
    n->refs.fetch_add(1, std::memory_order_relaxed);
    out.ref_ = history_detail::Ref<resp::Reply>(n);
    return out;
  }
  out.set(r);
  insert(replies_, out.ref_.get(), hash);
  return out;
}

// A field's own node goes into the table only while it is the field's alone
// (a node shared with another history's events may be read on another
// thread: its hash and mark are not written then).
void HistoryInterner::intern(HistoryText& t) {
  Node<std::string>* own = t.ref_.get();
  if (own == nullptr || own->interned || own->refs.load(std::memory_order_acquire) != 1) return;
  const uint64_t hash = hash_text(own->value);
  Node<std::string>* n = find(texts_, hash, [&](const std::string& v) { return v == own->value; });
  if (n == nullptr) {
    insert(texts_, own, hash);
    return;
  }
  n->refs.fetch_add(1, std::memory_order_relaxed);
  t.ref_ = history_detail::Ref<std::string>(n);
}

void HistoryInterner::intern(HistoryArgv& a) {
  Node<std::vector<std::string>>* own = a.ref_.get();
  if (own == nullptr || own->interned || own->refs.load(std::memory_order_acquire) != 1) return;
  const uint64_t hash = hash_argv(own->value);
  Node<std::vector<std::string>>* n =
      find(argvs_, hash, [&](const std::vector<std::string>& x) { return x == own->value; });
  if (n == nullptr) {
    insert(argvs_, own, hash);
    return;
  }
  n->refs.fetch_add(1, std::memory_order_relaxed);
  a.ref_ = history_detail::Ref<std::vector<std::string>>(n);
}

void HistoryInterner::intern(HistoryReply& r) {
  Node<resp::Reply>* own = r.ref_.get();
  if (own == nullptr || own->interned || own->refs.load(std::memory_order_acquire) != 1 ||
      !internable(own->value)) {
    return;
  }
  const uint64_t hash = hash_reply(own->value);
  Node<resp::Reply>* n =
      find(replies_, hash, [&](const resp::Reply& x) { return x == own->value; });
  if (n == nullptr) {
    insert(replies_, own, hash);
    return;
  }
  n->refs.fetch_add(1, std::memory_order_relaxed);
  r.ref_ = history_detail::Ref<resp::Reply>(n);
}

}  // namespace redsim::world
