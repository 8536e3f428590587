// RESP2 encoding and incremental decoding of Reply values and command argv.
//
//   std::string wire = resp::encode(Reply::integer(1));   // ":1\r\n"
//   resp::Decoder d;
//   d.feed(wire);
//   std::optional<Reply> r = d.next();                     // Reply::integer(1)
//
// Wire format: https://redis.io/docs/reference/protocol-spec/ (RESP2).
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

// Appends the RESP2 bytes of `reply` to `out`.
void encode_to(std::string& out, const Reply& reply);
std::string encode(const Reply& reply);

// A command as a client sends it: an array of bulk strings.
std::string encode_command(const std::vector<std::string>& argv);

// Incremental decoder: feed bytes as they arrive, take complete replies.
// Accepts every RESP2 type at any nesting depth (up to kMaxDepth).
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
