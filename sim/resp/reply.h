// Reply: one RESP2 value, the common language of every Redis answer, fake or
// real. A Redis error reply is an ordinary Reply of kind kError, not an
// exception; a broken connection is reported elsewhere (lock/errors.h).
//
//   Reply r = Reply::bulk("v");
//   if (r.is_error()) ...;            // "-ERR ..." replies
//   r == Reply::bulk("v");            // deep equality, kind included
//
// Shapes follow the RESP2 spec (https://redis.io/docs/reference/protocol-spec/):
// simple string (status), error, integer, bulk string, null bulk ($-1),
// null array (*-1), array.
#pragma once

#include <cstdint>
#include <initializer_list>
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
};

class Reply {
 public:
  // A null bulk string, the most common "nothing" reply.
  Reply() = default;

  static Reply status(std::string text);
  static Reply ok();                     // +OK
  static Reply error(std::string text);  // text without the leading '-'
  static Reply integer(int64_t value);
  static Reply bulk(std::string data);
  static Reply nil();        // $-1
  static Reply nil_array();  // *-1, e.g. EXEC after a WATCH failure
  static Reply array(std::vector<Reply> elements);
  static Reply array(std::initializer_list<Reply> elements);

  Kind kind() const { return kind_; }
  bool is_status() const { return kind_ == Kind::kStatus; }
  bool is_error() const { return kind_ == Kind::kError; }
  bool is_integer() const { return kind_ == Kind::kInteger; }
  bool is_bulk() const { return kind_ == Kind::kBulk; }
  bool is_nil() const { return kind_ == Kind::kNil; }
  bool is_nil_array() const { return kind_ == Kind::kNil && nil_array_; }
  bool is_array() const { return kind_ == Kind::kArray; }

  // Text of a status, error or bulk reply; empty for the other kinds.
  const std::string& str() const { return str_; }
  // Value of an integer reply; 0 for the other kinds.
  int64_t integer() const { return integer_; }
  // Elements of an array reply; empty for the other kinds.
  const std::vector<Reply>& elements() const { return elements_; }
  std::vector<Reply>& elements() { return elements_; }

  // The first word of an error reply ("ERR", "WRONGTYPE", "NOSCRIPT").
  std::string_view error_code() const;

  friend bool operator==(const Reply& a, const Reply& b);

  // A one-line human-readable form for logs and timelines, e.g.
  // `"v"`, `(integer) 1`, `(nil)`, `(error) ERR x`, `["a", (integer) 2]`.
  std::string debug_string() const;

 private:
  Kind kind_ = Kind::kNil;
  bool nil_array_ = false;
  int64_t integer_ = 0;
  std::string str_;
  std::vector<Reply> elements_;
};

}  // namespace redsim::resp
