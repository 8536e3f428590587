// RequestParser: turns the bytes a client sends into command argv, as Redis
// 7.0's processInlineBuffer / processMultibulkBuffer (src/networking.c) do,
// including their protocol errors and limits. Incremental: a request split
// across reads is resumed where it stopped; arguments already read are kept.
//
//   RequestParser parser;
//   std::string in = "*1\r\n$4\r\nPING\r\nECHO hi\r\n";
//   size_t pos = 0;
//   parser.parse(in, &pos);   // kCommand, parser.argv() == {"PING"}
//   parser.parse(in, &pos);   // kCommand, parser.argv() == {"ECHO", "hi"} (inline)
//   parser.parse(in, &pos);   // kNeedMore: pos == in.size()
//
// Rules (Redis 7.0.15, checked with raw sockets against redis-server):
// - A request starting with '*' is multibulk: "*<n>\r\n" then n times
//   "$<len>\r\n<len bytes>" followed by two bytes that are skipped unread.
//   n <= 0 is an empty request (ignored); n > INT_MAX is an error. Lengths
//   are Redis's string2ll (no '+', no leading zeros). A bulk longer than
//   `max_bulk_len` (proto-max-bulk-len, 512 MB) is an error.
// - Anything else is inline: one line up to '\n' (a '\r' before it is
//   dropped), split with redis-cli's quoting rules; a blank line is ignored.
// - Without a line end, more than 64 KiB pending is an error: "too big
//   inline request", "too big mbulk count string", "too big bulk count string".
// error() is then the text after "-ERR " that Redis sends before closing
// the connection, e.g. "Protocol error: invalid multibulk length".
// - Big arguments (Redis's PROTO_MBULK_BIG_ARG, 32 KiB): while a bulk of at
//   least kBigArgBytes is incomplete, big_bulk_len() tells its length; the
//   reader may then collect its bytes in one string of exactly that size
//   plus the CRLF and hand it over with supply_bulk(): the string becomes
//   the argument without a copy, as Redis turns its query buffer into the
//   argument object. take_argv() lets a command keep argument strings
//   (SET stores its value string itself); release_large_args() frees what
//   a command left in the kept argument strings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace redsim::server {

class RequestParser {
 public:
  enum class Status { kCommand, kNeedMore, kError };
  static constexpr size_t kInlineMaxBytes = 64 * 1024;  // Redis's PROTO_INLINE_MAX_SIZE
  static constexpr int64_t kDefaultMaxBulkBytes = 512LL * 1024 * 1024;

  explicit RequestParser(int64_t max_bulk_len = kDefaultMaxBulkBytes)
      : max_bulk_len_(max_bulk_len) {}

  // Parses the next request in `buf` from *pos. kCommand: argv() holds it
  // and *pos is past it. kNeedMore: *pos is past whatever was consumed (the
  // parser remembers a partly read multibulk); call again with more bytes,
  // keeping buf[*pos..] (earlier bytes may be dropped, positions rebased).
  // kError: error() says why; the connection must be closed.
  Status parse(std::string_view buf, size_t* pos);

  const std::vector<std::string>& argv() const { return argv_; }
  // The same strings, for a consumer that may move some out (their slots
  // are refilled by the next request).
  std::vector<std::string>& take_argv() { return argv_; }
  static constexpr size_t kBigArgBytes = 32 * 1024;
  static constexpr size_t kKeptArgSlots = 1024;
  // The length of the bulk being read when it is at least kBigArgBytes and
  // buf held too few of its bytes at the last parse(); 0 otherwise.
  size_t big_bulk_len() const {
    return multibulk_left_ > 0 && bulk_len_ >= static_cast<int64_t>(kBigArgBytes)
               ? static_cast<size_t>(bulk_len_)
               : 0;
  }
  // The bytes of that bulk (exactly big_bulk_len() of them, its CRLF
  // already dropped): kCommand when it was the last argument, else
  // kNeedMore (parse() continues with the next argument's header).
  Status supply_bulk(std::string&& bulk);
  // Between requests: drops argument strings whose buffers exceed
  // `max_bytes` (a big argument kept by the parser's reuse of strings), and
  // all of them when more than kKeptArgSlots slots are kept; returns the
  // bytes still held (strings' buffers and the slots). In the middle of a
  // request (some of its arguments parsed, more to come) nothing is
  // dropped: those arguments are the request's.
  size_t release_large_args(size_t max_bytes);
  const std::string& error() const { return error_; }
  // Bytes the bulk being read still needs (0 when not inside one): lets the
  // reader size its next read for a big argument.
  size_t pending_bulk_bytes(size_t available) const;
  void set_max_bulk_len(int64_t n) { max_bulk_len_ = n; }
  // A client that has not authenticated yet (requirepass) may send at most
  // 10 arguments of at most 16384 bytes each (Redis 7.0 networking.c,
  // processMultibulkBuffer): "unauthenticated multibulk length" / "...
  // bulk length" errors beyond.
  void set_unauthenticated(bool on) { unauthenticated_ = on; }

 private:
  Status fail(std::string text);

  int64_t max_bulk_len_;
  bool unauthenticated_ = false;
  int64_t multibulk_left_ = 0;  // arguments still to read of the current multibulk
  int64_t bulk_len_ = -1;       // length of the bulk being read, -1 before its header
  std::vector<std::string> argv_;
  size_t argc_ = 0;  // arguments of the current multibulk read so far
  std::string error_;
};

}  // namespace redsim::server
