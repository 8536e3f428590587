#include "sim/resp/codec.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

// The bytes redis-server 7.0.15 sends a HELLO 3 connection (read off a
// socket): HELLO's map, HGETALL and CONFIG GET as maps, SMEMBERS as a set,
// ZSCORE/ZINCRBY as doubles ("%.17g", "inf"), a missing key as "_", a
// subscription confirmation as a push.
TEST(Codec, EncodesResp3AsRedis70Does) {
  const auto k = Protocol::kResp3;
  EXPECT_EQ(
      encode(Reply::map({Reply::bulk("f"), Reply::bulk("v"), Reply::bulk("g"), Reply::bulk("w")}),
             k),
      "%2\r\n$1\r\nf\r\n$1\r\nv\r\n$1\r\ng\r\n$1\r\nw\r\n");
  EXPECT_EQ(encode(Reply::set({Reply::bulk("a")}), k), "~1\r\n$1\r\na\r\n");
  EXPECT_EQ(encode(Reply::double_value(1.5), k), ",1.5\r\n");
  EXPECT_EQ(encode(Reply::double_value(1.5 + 0.1), k), ",1.6000000000000001\r\n");
  EXPECT_EQ(encode(Reply::double_value(1.0 / 0.0), k), ",inf\r\n");
  EXPECT_EQ(encode(Reply::double_value(-1.0 / 0.0), k), ",-inf\r\n");
  EXPECT_EQ(encode(Reply::nil(), k), "_\r\n");
  EXPECT_EQ(encode(Reply::nil_array(), k), "_\r\n");
  EXPECT_EQ(
      encode(Reply::push({Reply::bulk("subscribe"), Reply::bulk("ch"), Reply::integer(1)}), k),
      ">3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n");
  EXPECT_EQ(encode(Reply::boolean(true), k), "#t\r\n");
  EXPECT_EQ(encode(Reply::boolean(false), k), "#f\r\n");
  EXPECT_EQ(encode(Reply::verbatim("txt", "Some string"), k), "=15\r\ntxt:Some string\r\n");
  EXPECT_EQ(encode(Reply::big_number("-3492890328409238509324850943850943825024385"), k),
            "(-3492890328409238509324850943850943825024385\r\n");
  // RESP2 types are the same bytes on both protocols.
  EXPECT_EQ(encode(Reply::array({Reply::integer(1), Reply::bulk("x")}), k),
            "*2\r\n:1\r\n$1\r\nx\r\n");
}

// The same replies on a RESP2 connection: ZSCORE "$18\r\n1.6000000000000001",
// HELLO 2's flattened map "*14\r\n...".
TEST(Codec, EncodesResp3KindsInTheirResp2Form) {
  EXPECT_EQ(encode(Reply::double_value(1.5 + 0.1)), "$18\r\n1.6000000000000001\r\n");
  EXPECT_EQ(encode(Reply::map({Reply::bulk("proto"), Reply::integer(2)})),
            "*2\r\n$5\r\nproto\r\n:2\r\n");
  EXPECT_EQ(encode(Reply::set({Reply::bulk("a")})), "*1\r\n$1\r\na\r\n");
  EXPECT_EQ(encode(Reply::push({Reply::bulk("message")})), "*1\r\n$7\r\nmessage\r\n");
  EXPECT_EQ(encode(Reply::boolean(true)), ":1\r\n");
  EXPECT_EQ(encode(Reply::verbatim("txt", "hi")), "$2\r\nhi\r\n");
  EXPECT_EQ(encode(Reply::big_number("12")), "$2\r\n12\r\n");
  const Reply nested = Reply::array({Reply::map({Reply::bulk("k"), Reply::double_value(2)})});
  EXPECT_TRUE(nested.has_resp3());
  EXPECT_EQ(to_resp2(nested), Reply::array({Reply::array({Reply::bulk("k"), Reply::bulk("2")})}));
  EXPECT_EQ(encode(to_resp2(nested)), encode(nested));
  EXPECT_FALSE(to_resp2(nested).has_resp3());
}

TEST(Codec, DecodesEveryResp3Type) {
  const std::vector<Reply> values = {
      Reply::map({Reply::bulk("a"), Reply::set({Reply::integer(1)}), Reply::status("b"),
                  Reply::push({Reply::boolean(false)})}),
      Reply::double_value(-0.25),
      Reply::verbatim("mkd", "# t\r\nx"),
      Reply::big_number("123456789012345678901234567890"),
      Reply::boolean(true),
  };
  std::string wire;
  for (const Reply& v : values) wire += encode(v, Protocol::kResp3);
  wire += "_\r\n!8\r\nERR a\r\nb\r\n|1\r\n+ttl\r\n:3600\r\n:7\r\n";
  Decoder d;
  std::vector<Reply> got;
  for (char c : wire) {
    d.feed(std::string_view(&c, 1));
    while (auto r = d.next()) got.push_back(*r);
  }
  ASSERT_EQ(got.size(), values.size() + 3);
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(got[i], values[i]) << i;
  EXPECT_EQ(got[values.size()], Reply::nil());
  EXPECT_EQ(got[values.size() + 1], Reply::error("ERR a\r\nb")) << "a blob error";
  EXPECT_EQ(got[values.size() + 2], Reply::integer(7)) << "the attribute is dropped";
  for (const char* bad : {"#x\r\n", "_x\r\n", "=2\r\nab\r\n", "~-1\r\n"}) {
    Decoder e;
    e.feed(bad);
    EXPECT_THROW(e.next(), ProtocolError) << bad;
  }
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

// Found by codec_fuzz (its RESP2-only round trip after RESP3 landed): a
// RESP3 reply encodes back to itself in RESP3 and to its RESP2 form in RESP2.
TEST(Codec, ARespThreeReplyRoundTripsInRespThreeAndBecomesItsRespTwoForm) {
  Decoder d;
  d.feed("(3\r\n");
  std::optional<Reply> big = d.next();
  ASSERT_TRUE(big.has_value());
  EXPECT_EQ(encode(*big, Protocol::kResp3), "(3\r\n");
  EXPECT_EQ(encode(*big, Protocol::kResp2), "$1\r\n3\r\n");
  Decoder back;
  back.feed(encode(*big, Protocol::kResp2));
  std::optional<Reply> two = back.next();
  ASSERT_TRUE(two.has_value());
  EXPECT_EQ(*two, to_resp2(*big));
  EXPECT_FALSE(*two == *big);
}

// Found by codec_fuzz: a RESP3 blob error may hold CR and LF. It goes out as
// a blob error in RESP3 and, RESP2 having none, with spaces in RESP2.
TEST(Codec, AnErrorWithANewlineIsABlobErrorInRespThreeAndSpacedInRespTwo) {
  Decoder d;
  d.feed("!8\r\nERR a\r\nb\r\n");
  std::optional<Reply> error = d.next();
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(*error, Reply::error("ERR a\r\nb"));
  EXPECT_EQ(encode(*error, Protocol::kResp3), "!8\r\nERR a\r\nb\r\n");
  EXPECT_EQ(encode(*error, Protocol::kResp2), "-ERR a  b\r\n");
}

}  // namespace
}  // namespace redsim::resp
