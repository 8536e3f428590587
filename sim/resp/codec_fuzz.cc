// libFuzzer target: the incremental RESP2/RESP3 Decoder (sim/resp/codec.h).
//
// Input: one byte that seeds the split points, then the wire bytes. The
// bytes are decoded twice, once fed whole and once in pieces of 1..16 bytes
// (calling next() after every piece, as a socket reader does); both must give
// the same replies and fail, or not, at the same reply. Every decoded reply
// must encode, in RESP2 and in RESP3, to bytes that decode to a reply
// encoding to the same bytes, with nothing left over. A failure aborts (libFuzzer
// keeps the input).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/resp/codec.h"

namespace {

using redsim::resp::Decoder;
using redsim::resp::ProtocolError;
using redsim::resp::Reply;

struct Outcome {
  std::vector<Reply> replies;
  bool failed = false;
};

void check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "codec_fuzz: %s\n", what);
  std::abort();
}

// Takes every complete reply; false once the decoder threw.
bool drain(Decoder& d, Outcome& out) {
  try {
    while (std::optional<Reply> r = d.next()) out.replies.push_back(std::move(*r));
  } catch (const ProtocolError&) {
    out.failed = true;
    return false;
  }
  return true;
}

Outcome decode_whole(std::string_view wire) {
  Outcome out;
  Decoder d;
  d.feed(wire);
  drain(d, out);
  return out;
}

Outcome decode_split(std::string_view wire, uint8_t seed) {
  Outcome out;
  Decoder d;
  uint32_t state = seed * 2654435761u + 1;
  size_t pos = 0;
  while (pos < wire.size()) {
    state = state * 1103515245u + 12345u;
    size_t n = 1 + (state >> 16) % 16;
    if (n > wire.size() - pos) n = wire.size() - pos;
    d.feed(wire.substr(pos, n));
    pos += n;
    if (!drain(d, out)) break;
  }
  return out;
}

// Encodes `r` in `protocol` and decodes it again (nothing may be left over).
Reply encode_and_decode(const Reply& r, redsim::resp::Protocol protocol, std::string& bytes) {
  bytes = redsim::resp::encode(r, protocol);
  Decoder d;
  d.feed(bytes);
  std::optional<Reply> back;
  try {
    back = d.next();
  } catch (const ProtocolError&) {
    check(false, "an encoded reply does not decode");
  }
  check(back.has_value(), "an encoded reply decodes as incomplete");
  check(d.buffered() == 0, "an encoded reply leaves bytes behind");
  return std::move(*back);
}

// In either protocol the bytes decode to a reply that encodes to the same
// bytes. (Not to an equal reply: RESP3 has one null, so RESP2's null bulk and
// null array come back as the null they were sent as; RESP2 has no blob
// error, so an error text with CR or LF goes out with spaces.)
void check_round_trip(const Reply& r) {
  for (const redsim::resp::Protocol protocol :
       {redsim::resp::Protocol::kResp2, redsim::resp::Protocol::kResp3}) {
    std::string bytes;
    const Reply back = encode_and_decode(r, protocol, bytes);
    check(redsim::resp::encode(back, protocol) == bytes,
          "an encoded reply decodes to a reply that encodes differently");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  uint8_t seed = data[0];
  std::string_view wire(reinterpret_cast<const char*>(data) + 1, size - 1);
  Outcome whole = decode_whole(wire);
  Outcome split = decode_split(wire, seed);
  // Both decoders see the same bytes in the same order, so they must agree.
  check(whole.failed == split.failed, "whole and split input disagree on failing");
  check(whole.replies == split.replies, "whole and split input decode differently");
  for (const Reply& r : whole.replies) check_round_trip(r);
  return 0;
}
