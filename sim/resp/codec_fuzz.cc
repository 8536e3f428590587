// libFuzzer target: the incremental RESP2 Decoder (sim/resp/codec.h).
//
// Input: one byte that seeds the split points, then the wire bytes. The
// bytes are decoded twice, once fed whole and once in pieces of 1..16 bytes
// (calling next() after every piece, as a socket reader does); both must give
// the same replies and fail, or not, at the same reply. Every decoded reply
// must encode to bytes that decode back to an equal reply, with nothing left
// over. A failure aborts (libFuzzer keeps the input).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
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

void check_round_trip(const Reply& r) {
  std::string bytes = redsim::resp::encode(r);
  Decoder d;
  d.feed(bytes);
  std::optional<Reply> back;
  try {
    back = d.next();
  } catch (const ProtocolError&) {
    check(false, "an encoded reply does not decode");
  }
  check(back.has_value(), "an encoded reply decodes as incomplete");
  check(*back == r, "an encoded reply decodes to another reply");
  check(d.buffered() == 0, "an encoded reply leaves bytes behind");
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
