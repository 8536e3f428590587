#include "lock/hiredis/reply_conversion.h"

#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

#include <memory>

#include "lock/errors.h"
#include "sim/resp/codec.h"

namespace redsim::lock {
namespace {

using resp::Reply;

// Parses RESP bytes with hiredis's own reader, as a connection would.
Reply via_hiredis(const std::string& wire) {
  std::unique_ptr<redisReader, void (*)(redisReader*)> reader(redisReaderCreate(), redisReaderFree);
  EXPECT_EQ(redisReaderFeed(reader.get(), wire.data(), wire.size()), REDIS_OK);
  void* raw = nullptr;
  EXPECT_EQ(redisReaderGetReply(reader.get(), &raw), REDIS_OK);
  EXPECT_NE(raw, nullptr) << "incomplete: " << wire;
  if (raw == nullptr) return Reply::error("no reply");
  std::unique_ptr<redisReply, void (*)(void*)> reply(static_cast<redisReply*>(raw),
                                                     freeReplyObject);
  return to_reply(*reply);
}

TEST(ReplyConversion, EveryKindMatchesTheFakesReply) {
  const Reply replies[] = {
      Reply::ok(),
      Reply::status("QUEUED"),
      Reply::error("WRONGTYPE Operation against a key holding the wrong kind of value"),
      Reply::integer(0),
      Reply::integer(-42),
      Reply::integer(INT64_MAX),
      Reply::bulk(""),
      Reply::bulk("v"),
      Reply::bulk(std::string("a\0b\r\nc", 6)),  // binary-safe
      Reply::nil(),
      Reply::array({}),
      Reply::array({Reply::bulk("message"), Reply::bulk("ch"), Reply::bulk("0")}),
      Reply::array({Reply::integer(1), Reply::nil(), Reply::array({Reply::status("OK")}),
                    Reply::error("ERR x")}),
  };
  for (const Reply& r : replies) {
    EXPECT_EQ(via_hiredis(resp::encode(r)), r) << r.debug_string();
  }
}

TEST(ReplyConversion, NullArrayBecomesNil) {
  // hiredis 0.14 reports *-1 as REDIS_REPLY_NIL, like $-1.
  const Reply r = via_hiredis("*-1\r\n");
  EXPECT_TRUE(r.is_nil());
  EXPECT_EQ(r, Reply::nil());
}

TEST(ReplyConversion, UnknownTypeIsAProtocolError) {
  redisReply odd{};
  odd.type = 99;
  EXPECT_THROW(to_reply(odd), ProtocolError);
}

}  // namespace
}  // namespace redsim::lock
