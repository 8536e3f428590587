// The compact field types of a HistoryEvent (history.h): a text, an argv and
// a reply, each one pointer to an immutable, reference-counted value that
// several events may share. A long run records the same few values over and
// over (a lock's EVALSHA argv, its trace lines, the nil and integer replies);
// the History interns them (History::intern_*), so a cycle of a lock adds a
// few 80-byte events and no new strings, where a 240-byte event used to own
// its copies.
//
// They read like the types they stand for (a const std::string, a const
// std::vector<std::string>, a const resp::Reply), convert to a const
// reference of them, and are assigned from them:
//
//   e.text = "scheduled";                  // or a std::string, a string_view
//   if (e.argv[0] == "DEL" && e.reply.is_integer() && e.reply.integer() == 1) ...
//   const std::vector<std::string>& argv = e.argv;
//   std::string line = "by " + e.text;
//
// An empty text, an empty argv and a nil reply hold no value at all. A value
// never changes once made: the few mutators (+=, push_back, clear) give the
// field a value of its own. Reference counts are atomic: histories are
// copied, moved and dropped on several threads (`redsim check --jobs`).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/resp/reply.h"

namespace redsim::world {

namespace history_detail {

// One shared value; `hash` is set (and `interned` true) once a History's
// table holds it.
template <class T>
struct Node {
  template <class... A>
  explicit Node(A&&... a) : value(std::forward<A>(a)...) {}
  std::atomic<uint32_t> refs{1};
  bool interned = false;
  uint64_t hash = 0;
  T value;
};

// An owning pointer to a Node: copies share it, the last one deletes it.
template <class T>
class Ref {
 public:
  Ref() = default;
  explicit Ref(Node<T>* n) noexcept : n_(n) {}  // adopts one reference
  Ref(const Ref& o) noexcept : n_(o.n_) {
    if (n_ != nullptr) n_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  Ref(Ref&& o) noexcept : n_(std::exchange(o.n_, nullptr)) {}
  Ref& operator=(const Ref& o) noexcept {
    Ref(o).swap(*this);
    return *this;
  }
  Ref& operator=(Ref&& o) noexcept {
    Ref(std::move(o)).swap(*this);
    return *this;
  }
  ~Ref() { reset(); }
  void reset() noexcept {
    if (n_ == nullptr) return;
    // The only reference: nobody else can take one, no atomic write needed.
    if (n_->refs.load(std::memory_order_acquire) == 1 ||
        n_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      delete n_;
    }
    n_ = nullptr;
  }
  void swap(Ref& o) noexcept { std::swap(n_, o.n_); }
  Node<T>* get() const { return n_; }

 private:
  Node<T>* n_ = nullptr;
};

const std::string& empty_text();
const std::vector<std::string>& empty_argv();
const resp::Reply& nil_reply();

}  // namespace history_detail

// A string of an event (names, reasons, channels, resources, client ids).
class HistoryText {
 public:
  using size_type = std::string::size_type;
  static constexpr size_type npos = std::string::npos;

  HistoryText() = default;
  // Explicit, so `cond ? a_string : e.text` still has one type.
  explicit HistoryText(std::string s) { set(std::move(s)); }
  explicit HistoryText(std::string_view s) { set(std::string(s)); }
  HistoryText(const char* s) { set(std::string(s)); }
  HistoryText& operator=(std::string s) {
    set(std::move(s));
    return *this;
  }
  HistoryText& operator=(std::string_view s) {
    set(std::string(s));
    return *this;
  }
  HistoryText& operator=(const char* s) {
    set(std::string(s));
    return *this;
  }

  const std::string& str() const {
    return ref_.get() != nullptr ? ref_.get()->value : history_detail::empty_text();
  }
  operator const std::string&() const { return str(); }
  operator std::string_view() const { return str(); }

  bool empty() const { return ref_.get() == nullptr; }
  size_type size() const { return str().size(); }
  size_type length() const { return str().size(); }
  const char* data() const { return str().data(); }
  const char* c_str() const { return str().c_str(); }
  std::string::const_iterator begin() const { return str().begin(); }
  std::string::const_iterator end() const { return str().end(); }
  char operator[](size_type i) const { return str()[i]; }
  char front() const { return str().front(); }
  char back() const { return str().back(); }
  template <class... A>
  size_type find(A&&... a) const {
    return str().find(std::forward<A>(a)...);
  }
  template <class... A>
  size_type rfind(A&&... a) const {
    return str().rfind(std::forward<A>(a)...);
  }
  template <class A>
  bool starts_with(A&& a) const {
    return str().starts_with(std::forward<A>(a));
  }
  template <class A>
  bool ends_with(A&& a) const {
    return str().ends_with(std::forward<A>(a));
  }
  template <class A>
  bool contains(A&& a) const {
    return std::string_view(str()).find(std::forward<A>(a)) != npos;
  }
  std::string substr(size_type pos = 0, size_type n = npos) const { return str().substr(pos, n); }
  int compare(std::string_view s) const { return std::string_view(str()).compare(s); }

  HistoryText& operator+=(std::string_view s) {
    std::string joined = str();
    joined += s;
    set(std::move(joined));
    return *this;
  }
  void clear() { ref_.reset(); }

  friend bool operator==(const HistoryText& a, const HistoryText& b) {
    return a.ref_.get() == b.ref_.get() || a.str() == b.str();
  }
  friend bool operator==(const HistoryText& a, const std::string& b) { return a.str() == b; }
  friend bool operator==(const HistoryText& a, std::string_view b) { return a.str() == b; }
  friend bool operator==(const HistoryText& a, const char* b) { return a.str() == b; }
  friend auto operator<=>(const HistoryText& a, std::string_view b) {
    return std::string_view(a.str()) <=> b;
  }
  // One exact overload per kind of operand, so none is ambiguous.
  friend std::string operator+(const HistoryText& a, const HistoryText& b) {
    return a.str() + b.str();
  }
  friend std::string operator+(const HistoryText& a, const std::string& b) { return a.str() + b; }
  friend std::string operator+(const HistoryText& a, std::string_view b) {
    std::string s = a.str();
    s += b;
    return s;
  }
  friend std::string operator+(const HistoryText& a, const char* b) { return a.str() + b; }
  friend std::string operator+(const HistoryText& a, char b) { return a.str() + b; }
  friend std::string operator+(const std::string& a, const HistoryText& b) { return a + b.str(); }
  friend std::string operator+(std::string&& a, const HistoryText& b) {
    return std::move(a) + b.str();
  }
  friend std::string operator+(std::string_view a, const HistoryText& b) {
    std::string s(a);
    s += b.str();
    return s;
  }
  friend std::string operator+(const char* a, const HistoryText& b) { return a + b.str(); }
  friend std::ostream& operator<<(std::ostream& os, const HistoryText& t) { return os << t.str(); }

 private:
  friend class HistoryInterner;
  void set(std::string s) {
    if (s.empty()) {
      ref_.reset();
    } else {
      ref_ = history_detail::Ref<std::string>(new history_detail::Node<std::string>(std::move(s)));
    }
  }
  history_detail::Ref<std::string> ref_;
};

// A command's arguments as sent (or a key's owner marks).
class HistoryArgv {
 public:
  using value_type = std::string;
  using size_type = size_t;
  using const_iterator = std::vector<std::string>::const_iterator;
  using iterator = const_iterator;
  using const_reference = const std::string&;
  using reference = const std::string&;

  HistoryArgv() = default;
  explicit HistoryArgv(std::vector<std::string> v) { set(std::move(v)); }
  HistoryArgv(std::initializer_list<std::string> v) { set(std::vector<std::string>(v)); }
  HistoryArgv& operator=(std::vector<std::string> v) {
    set(std::move(v));
    return *this;
  }
  HistoryArgv& operator=(std::initializer_list<std::string> v) {
    set(std::vector<std::string>(v));
    return *this;
  }

  const std::vector<std::string>& vec() const {
    return ref_.get() != nullptr ? ref_.get()->value : history_detail::empty_argv();
  }
  operator const std::vector<std::string>&() const { return vec(); }

  bool empty() const { return ref_.get() == nullptr; }
  size_t size() const { return vec().size(); }
  const std::string& operator[](size_t i) const { return vec()[i]; }
  const std::string& at(size_t i) const { return vec().at(i); }
  const std::string& front() const { return vec().front(); }
  const std::string& back() const { return vec().back(); }
  const_iterator begin() const { return vec().begin(); }
  const_iterator end() const { return vec().end(); }
  const_iterator cbegin() const { return vec().begin(); }
  const_iterator cend() const { return vec().end(); }

  void clear() { ref_.reset(); }
  void push_back(std::string s) {
    std::vector<std::string> v = vec();
    v.push_back(std::move(s));
    set(std::move(v));
  }

  friend bool operator==(const HistoryArgv& a, const HistoryArgv& b) {
    return a.ref_.get() == b.ref_.get() || a.vec() == b.vec();
  }
  friend bool operator==(const HistoryArgv& a, const std::vector<std::string>& b) {
    return a.vec() == b;
  }

 private:
  friend class HistoryInterner;
  void set(std::vector<std::string> v) {
    if (v.empty()) {
      ref_.reset();
    } else {
      ref_ = history_detail::Ref<std::vector<std::string>>(
          new history_detail::Node<std::vector<std::string>>(std::move(v)));
    }
  }
  history_detail::Ref<std::vector<std::string>> ref_;
};

// A reply of an event: the const interface of resp::Reply.
class HistoryReply {
 public:
  using Kind = resp::Kind;

  HistoryReply() = default;
  explicit HistoryReply(resp::Reply r) { set(std::move(r)); }
  HistoryReply& operator=(resp::Reply r) {
    set(std::move(r));
    return *this;
  }

  const resp::Reply& get() const {
    return ref_.get() != nullptr ? ref_.get()->value : history_detail::nil_reply();
  }
  operator const resp::Reply&() const { return get(); }

  Kind kind() const { return get().kind(); }
  bool is_status() const { return get().is_status(); }
  bool is_error() const { return get().is_error(); }
  bool is_integer() const { return get().is_integer(); }
  bool is_bulk() const { return get().is_bulk(); }
  bool is_nil() const { return get().is_nil(); }
  bool is_nil_array() const { return get().is_nil_array(); }
  bool is_array() const { return get().is_array(); }
  bool is_map() const { return get().is_map(); }
  bool is_set() const { return get().is_set(); }
  bool is_push() const { return get().is_push(); }
  bool is_double() const { return get().is_double(); }
  bool is_boolean() const { return get().is_boolean(); }
  bool is_aggregate() const { return get().is_aggregate(); }
  bool has_resp3() const { return get().has_resp3(); }
  const std::string& str() const { return get().str(); }
  std::string_view verbatim_text() const { return get().verbatim_text(); }
  int64_t integer() const { return get().integer(); }
  const std::vector<resp::Reply>& elements() const { return get().elements(); }
  std::string_view error_code() const { return get().error_code(); }
  std::string debug_string() const { return get().debug_string(); }

  friend bool operator==(const HistoryReply& a, const HistoryReply& b) {
    return a.ref_.get() == b.ref_.get() || a.get() == b.get();
  }
  friend bool operator==(const HistoryReply& a, const resp::Reply& b) { return a.get() == b; }

 private:
  friend class HistoryInterner;
  void set(resp::Reply r) {
    if (r.is_nil() && !r.is_nil_array()) {
      ref_.reset();
    } else {
      ref_ = history_detail::Ref<resp::Reply>(new history_detail::Node<resp::Reply>(std::move(r)));
    }
  }
  history_detail::Ref<resp::Reply> ref_;
};

// A History's table of the values its events share: equal values become one
// node. Replies are interned when scalar (status, error, integer, bulk);
// other kinds keep a node of their own. Copying a table gives an empty one
// (the copies' events still share the nodes they had).
class HistoryInterner {
 public:
  HistoryInterner() = default;
  HistoryInterner(const HistoryInterner&) {}
  HistoryInterner& operator=(const HistoryInterner&) { return *this; }
  HistoryInterner(HistoryInterner&& o) noexcept { swap(o); }
  HistoryInterner& operator=(HistoryInterner&& o) noexcept {
    HistoryInterner gone(std::move(o));
    swap(gone);
    return *this;
  }
  ~HistoryInterner();

  HistoryText text(std::string_view s);
  HistoryArgv argv(std::vector<std::string>&& v);
  // The same, copying `v` only when no equal argv is in the table.
  HistoryArgv argv(const std::vector<std::string>& v);
  HistoryReply reply(const resp::Reply& r);
  // The same fields made shared: a value already in the table is replaced
  // by the table's node.
  void intern(HistoryText& t);
  void intern(HistoryArgv& a);
  void intern(HistoryReply& r);

 private:
  // Open addressing, linear probing, power-of-two capacity; each slot holds
  // one reference to its node.
  template <class T>
  struct Table {
    std::vector<history_detail::Node<T>*> slots;
    size_t used = 0;
  };
  template <class T, class Eq>
  static history_detail::Node<T>* find(const Table<T>& table, uint64_t hash, Eq&& eq);
  template <class T>
  static void insert(Table<T>& table, history_detail::Node<T>* node, uint64_t hash);
  template <class T>
  static void release(Table<T>& table);
  template <class V>
  HistoryArgv intern_argv(V&& v);
  void swap(HistoryInterner& o) noexcept {
    std::swap(texts_, o.texts_);
    std::swap(argvs_, o.argvs_);
    std::swap(replies_, o.replies_);
  }

  Table<std::string> texts_;
  Table<std::vector<std::string>> argvs_;
  Table<resp::Reply> replies_;
};

}  // namespace redsim::world
