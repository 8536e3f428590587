#include "sim/resp/codec.h"

#include <gtest/gtest.h>

namespace redsim::resp {
namespace {

TEST(Codec, EncodesEveryKind) {
  EXPECT_EQ(encode(Reply::ok()), "+OK\r\n");
  EXPECT_EQ(encode(Reply::error("ERR x")), "-ERR x\r\n");
  EXPECT_EQ(encode(Reply::integer(-42)), ":-42\r\n");
  EXPECT_EQ(encode(Reply::bulk(std::string("a\0b", 3))), std::string("$3\r\na\0b\r\n", 9));
  EXPECT_EQ(encode(Reply::nil()), "$-1\r\n");
  EXPECT_EQ(encode(Reply::nil_array()), "*-1\r\n");
  EXPECT_EQ(encode(Reply::array({Reply::integer(1), Reply::array({})})), "*2\r\n:1\r\n*0\r\n");
}

TEST(Codec, RoundTripsNestedValuesFedByteByByte) {
  Reply v = Reply::array({Reply::bulk("x\r\ny"), Reply::nil(), Reply::nil_array(),
                          Reply::array({Reply::status("QUEUED"), Reply::error("E e")})});
  std::string wire = encode(v) + encode(Reply::integer(7));
  Decoder d;
  std::vector<Reply> got;
  for (char c : wire) {
    d.feed(std::string_view(&c, 1));
    while (auto r = d.next()) got.push_back(*r);
  }
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], v);
  EXPECT_EQ(got[1], Reply::integer(7));
  EXPECT_EQ(d.buffered(), 0u);
}

TEST(Codec, EncodesCommands) {
  EXPECT_EQ(encode_command({"GET", "k"}), "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n");
}

TEST(Codec, RejectsMalformedInput) {
  for (std::string bad : {"?x\r\n", "$-2\r\n", ":1x\r\n", "$1\r\nab\r\n", "*x\r\n"}) {
    Decoder d;
    d.feed(bad);
    EXPECT_THROW(d.next(), ProtocolError) << bad;
  }
}

// Found by resp_decoder_fuzz: an array header alone used to allocate its
// elements, so a hostile length (here about 10^12 elements) ran the client
// out of memory before any element arrived.
TEST(Codec, HugeArrayLengthAllocatesNothingUntilTheElementsArrive) {
  Decoder d;
  d.feed("*999999999999\r\n:1\r\n");
  EXPECT_EQ(d.next(), std::nullopt);
  EXPECT_EQ(d.buffered(), 19u);
  Decoder small;
  small.feed("*2\r\n:1\r\n");
  EXPECT_EQ(small.next(), std::nullopt);
  small.feed(":2\r\n");
  EXPECT_EQ(small.next(), Reply::array({Reply::integer(1), Reply::integer(2)}));
}

TEST(Reply, EqualityDistinguishesKinds) {
  EXPECT_NE(Reply::status("OK"), Reply::bulk("OK"));
  EXPECT_NE(Reply::nil(), Reply::nil_array());
  EXPECT_EQ(Reply::error("ERR a b").error_code(), "ERR");
  EXPECT_EQ(Reply::array({Reply::bulk("a"), Reply::integer(2)}).debug_string(),
            "[\"a\", (integer) 2]");
}

}  // namespace
}  // namespace redsim::resp
