// RESP2 and RESP3 encoding and incremental decoding of Reply values and
// command argv.
//
//   std::string wire = resp::encode(Reply::integer(1));   // ":1\r\n"
//   resp::encode(Reply::nil(), Protocol::kResp3);         // "_\r\n"
//   resp::Decoder d;
//   d.feed(wire);
//   std::optional<Reply> r = d.next();                     // Reply::integer(1)
//
// Wire format: https://redis.io/docs/reference/protocol-spec/ (RESP2 and
// RESP3; Redis 7.0 sends every RESP3 type but attributes and streamed
// aggregates).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sim/resp/reply.h"

namespace redsim::resp {

// Malformed input to the decoder. what() is the reason, e.g.
// "invalid bulk length".
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Appends the bytes of `reply` to `out` for a connection speaking
// `protocol`: RESP2 sends a RESP3 kind in its RESP2 form (to_resp2); RESP3
// sends both nulls as "_".
void encode_to(std::string& out, const Reply& reply, Protocol protocol = Protocol::kResp2);
std::string encode(const Reply& reply, Protocol protocol = Protocol::kResp2);

// A command as a client sends it: an array of bulk strings.
std::string encode_command(const std::vector<std::string>& argv);

// Incremental decoder: feed bytes as they arrive, take complete replies.
// Accepts every RESP2 and RESP3 type at any nesting depth (up to kMaxDepth):
// "_" is Reply::nil(), a blob error ("!N") an error reply, and an attribute
// ("|N" and its pairs) is read and dropped before the value it annotates.
// Streamed strings and aggregates ("$?", "*?") are refused (ProtocolError):
// Redis never sends them.
class Decoder {
 public:
  static constexpr int kMaxDepth = 64;

  void feed(std::string_view bytes) { buffer_.append(bytes); }
  // The next complete value, or nullopt when more bytes are needed.
  // Throws ProtocolError on malformed input; the decoder is then unusable.
  std::optional<Reply> next();
  // Bytes received but not yet consumed.
  size_t buffered() const { return buffer_.size() - pos_; }

 private:
  // Parses one value starting at pos; returns false (pos unchanged) when incomplete.
  bool parse(size_t& pos, Reply& out, int depth);
  bool read_line(size_t& pos, std::string_view& line);

  std::string buffer_;
  size_t pos_ = 0;
};

}  // namespace redsim::resp
