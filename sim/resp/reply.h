// Reply: one RESP2 value, the common language of every Redis answer, fake or
// real. A Redis error reply is an ordinary Reply of kind kError, not an
// exception; a broken connection is reported elsewhere (lock/errors.h).
//
//   Reply r = Reply::bulk("v");
//   if (r.is_error()) ...;            // "-ERR ..." replies
//   r == Reply::bulk("v");            // deep equality, kind included
//
// Shapes follow the RESP spec (https://redis.io/docs/reference/protocol-spec/):
// RESP2's simple string (status), error, integer, bulk string, null bulk
// ($-1), null array (*-1), array; and RESP3's double, boolean, verbatim
// string, big number, map, set and push (RESP3's null is kNil: both RESP2
// nulls are `_` in RESP3). A RESP3 kind reaches a RESP2 connection in its
// RESP2 form (to_resp2 below, as Redis's addReply* functions choose by the
// client's protocol): map, set and push as arrays (a map's pairs flattened),
// double, verbatim string and big number as bulk strings, boolean as the
// integer 1 or 0.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <new>
#include <string>
#include <string_view>
#include <vector>

namespace redsim::resp {

enum class Kind : uint8_t {
  kStatus,   // +OK
  kError,    // -ERR ...
  kInteger,  // :1
  kBulk,     // $1\r\nv
  kNil,      // $-1 (null bulk) or *-1 (null array), see Reply::is_nil_array()
  kArray,    // *N
  // RESP3 (HELLO 3):
  kDouble,     // ,1.5 (str(): the text Redis sends, e.g. "1.5", "inf", "-inf")
  kBoolean,    // #t / #f (integer(): 1 or 0)
  kVerbatim,   // =N\r\ntxt:... (str(): "txt:..." as on the wire: format, ':', text)
  kBigNumber,  // (123... (str(): the digits, sign included)
  kMap,        // %N (elements(): key, value, key, value, ...; N pairs)
  kSet,        // ~N
  kPush,       // >N (pub/sub messages, invalidations)
};

// The protocol a connection speaks (HELLO's protover): how RESP3 kinds are
// encoded to it.
enum class Protocol : uint8_t { kResp2 = 2, kResp3 = 3 };

class Reply {
 public:
  // A null bulk string, the most common "nothing" reply.
  Reply() noexcept {}
  Reply(const Reply& other)
      : kind_(other.kind_),
        nil_array_(other.nil_array_),
        integer_(other.integer_),
        str_(other.str_) {
    if (other.has_elements_) copy_elements_from(other);
  }
  Reply(Reply&& other) noexcept
      : kind_(other.kind_),
        nil_array_(other.nil_array_),
        integer_(other.integer_),
        str_(std::move(other.str_)) {
    if (other.has_elements_) {
      ::new (&elements_) std::vector<Reply>(std::move(other.elements_));
      has_elements_ = true;
      // A moved-from vector owns no storage: `other` need not destroy it.
      other.has_elements_ = false;
    }
  }
  Reply& operator=(const Reply& other) {
    if (this != &other) *this = Reply(other);
    return *this;
  }
  // `other` may be one of this reply's own elements (`r = std::move(r.elements()[0])`):
  // its parts are taken before this reply's old elements are destroyed.
  Reply& operator=(Reply&& other) noexcept {
    if (this == &other) return *this;
    kind_ = other.kind_;
    nil_array_ = other.nil_array_;
    integer_ = other.integer_;
    str_ = std::move(other.str_);
    if (other.has_elements_) {
      if (has_elements_) {
        elements_ = std::move(other.elements_);
      } else {
        ::new (&elements_) std::vector<Reply>(std::move(other.elements_));
        has_elements_ = true;
        other.has_elements_ = false;  // not one of ours: this reply had none
      }
    } else if (has_elements_) {
      drop_elements();
    }
    return *this;
  }
  // Inline and branch-only for the scalar kinds (the common case on every
  // command): only a reply that ever had elements pays the out-of-line,
  // recursive vector destructor.
  ~Reply() {
    if (has_elements_) drop_elements();
  }

  static Reply status(std::string text) { return Reply(Kind::kStatus, std::move(text)); }
  static Reply ok() { return Reply(Kind::kStatus, std::string("OK", 2)); }  // +OK
  // text without the leading '-'
  static Reply error(std::string text) { return Reply(Kind::kError, std::move(text)); }
  static Reply integer(int64_t value) {
    Reply r;
    r.kind_ = Kind::kInteger;
    r.integer_ = value;
    return r;
  }
  static Reply bulk(std::string data) { return Reply(Kind::kBulk, std::move(data)); }
  static Reply nil() { return Reply(); }  // $-1
  static Reply nil_array();               // *-1, e.g. EXEC after a WATCH failure
  static Reply array(std::vector<Reply> elements);
  static Reply array(std::initializer_list<Reply> elements);
  // RESP3 kinds (see Kind). A double's text is Redis 7.0's addReplyDouble:
  // "%.17g", "inf" / "-inf" (nan is refused by every command before it
  // gets here and is sent as "nan").
  static Reply double_value(double value);
  // A double as the text that was sent (the decoder's: kept, not reparsed).
  static Reply double_text(std::string text);
  static Reply boolean(bool value);
  // `format` is three characters ("txt", "mkd").
  static Reply verbatim(std::string_view format, std::string_view text);
  static Reply big_number(std::string digits);
  // Flat key, value, key, value, ...; an odd count is a programming error
  // (the last key then has no value and is dropped).
  static Reply map(std::vector<Reply> key_values);
  static Reply set(std::vector<Reply> elements);
  static Reply push(std::vector<Reply> elements);

  Kind kind() const { return kind_; }
  bool is_status() const { return kind_ == Kind::kStatus; }
  bool is_error() const { return kind_ == Kind::kError; }
  bool is_integer() const { return kind_ == Kind::kInteger; }
  bool is_bulk() const { return kind_ == Kind::kBulk; }
  bool is_nil() const { return kind_ == Kind::kNil; }
  bool is_nil_array() const { return kind_ == Kind::kNil && nil_array_; }
  bool is_array() const { return kind_ == Kind::kArray; }
  bool is_map() const { return kind_ == Kind::kMap; }
  bool is_set() const { return kind_ == Kind::kSet; }
  bool is_push() const { return kind_ == Kind::kPush; }
  bool is_double() const { return kind_ == Kind::kDouble; }
  bool is_boolean() const { return kind_ == Kind::kBoolean; }
  // An array, map, set or push: elements() holds its contents.
  bool is_aggregate() const;
  // Of this reply or any element: a kind RESP2 does not have.
  bool has_resp3() const;

  // Text of a status, error, bulk, double, verbatim (with its "txt:"
  // prefix) or big number reply; empty for the other kinds.
  const std::string& str() const { return str_; }
  // A verbatim string's text without its format prefix.
  std::string_view verbatim_text() const;
  // Value of an integer reply (a boolean's 1 or 0); 0 for the other kinds.
  int64_t integer() const { return integer_; }
  // Elements of an array, map (flattened), set or push; empty for the others.
  const std::vector<Reply>& elements() const { return has_elements_ ? elements_ : kNoElements; }
  std::vector<Reply>& elements() {
    if (!has_elements_) {
      ::new (&elements_) std::vector<Reply>();
      has_elements_ = true;
    }
    return elements_;
  }

  // The first word of an error reply ("ERR", "WRONGTYPE", "NOSCRIPT").
  std::string_view error_code() const;

  friend bool operator==(const Reply& a, const Reply& b);

  // A one-line human-readable form for logs and timelines, e.g.
  // `"v"`, `(integer) 1`, `(nil)`, `(error) ERR x`, `["a", (integer) 2]`.
  std::string debug_string() const;

  // What this reply is on a RESP2 connection (see the top of this file);
  // a RESP2 reply is returned unchanged.
  friend Reply to_resp2(Reply reply);

 private:
  Reply(Kind kind, std::string text) noexcept : kind_(kind), str_(std::move(text)) {}
  Reply(Kind kind, std::vector<Reply> elements) noexcept : kind_(kind), has_elements_(true) {
    ::new (&elements_) std::vector<Reply>(std::move(elements));
  }
  void copy_elements_from(const Reply& other);
  // Destroys elements_ (out of line: ~vector<Reply> recurses).
  void drop_elements() noexcept;

  static const std::vector<Reply> kNoElements;

  Kind kind_ = Kind::kNil;
  bool nil_array_ = false;
  // Whether elements_ holds a constructed vector: only the aggregate kinds
  // (and a reply whose mutable elements() was asked for) construct it.
  bool has_elements_ = false;
  int64_t integer_ = 0;
  std::string str_;
  union {
    std::vector<Reply> elements_;
  };
};

Reply to_resp2(Reply reply);

}  // namespace redsim::resp
