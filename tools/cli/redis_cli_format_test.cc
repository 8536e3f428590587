#include "tools/cli/redis_cli_format.h"

#include <gtest/gtest.h>

namespace redsim::cli {
namespace {

using resp::Reply;

TEST(SplitArgs, FollowsRedisCliQuoting) {
  using V = std::vector<std::string>;
  EXPECT_EQ(split_args("  SET  k v "), (V{"SET", "k", "v"}));
  EXPECT_EQ(split_args(R"(SET a "x\ty\x01\"q\\z\n\xff")"),
            (V{"SET", "a", std::string("x\ty\x01\"q\\z\n\xff")}));
  EXPECT_EQ(split_args(R"(set c 'it\'s')"), (V{"set", "c", "it's"}));
  EXPECT_EQ(split_args(R"(set h 'a\nb')"), (V{"set", "h", "a\\nb"}));
  EXPECT_EQ(split_args(R"(set e "")"), (V{"set", "e", ""}));
  EXPECT_EQ(split_args(R"(a"b c" d)"), (V{"ab c", "d"}));
  EXPECT_EQ(split_args(""), V{});
  EXPECT_FALSE(split_args(R"(set b "unbalanced)"));
  EXPECT_FALSE(split_args(R"(set f a"b)"));
  EXPECT_FALSE(split_args(R"(set g "a"b)"));
}

// Expected texts were printed by redis-cli 7.0.15 --no-raw.
TEST(FormatReply, MatchesRedisCliNoRaw) {
  EXPECT_EQ(format_reply(Reply::ok()), "OK\n");
  EXPECT_EQ(format_reply(Reply::nil()), "(nil)\n");
  EXPECT_EQ(format_reply(Reply::integer(2)), "(integer) 2\n");
  EXPECT_EQ(format_reply(Reply::error("ERR x")), "(error) ERR x\n");
  EXPECT_EQ(format_reply(Reply::bulk("\xc3\xa9")), "\"\\xc3\\xa9\"\n");
  EXPECT_EQ(format_reply(Reply::bulk("x\ty\x01\"q\\z\n\xff")),
            "\"x\\ty\\x01\\\"q\\\\z\\n\\xff\"\n");
  EXPECT_EQ(format_reply(Reply::array({})), "(empty array)\n");
  Reply nested = Reply::array(
      {Reply::integer(1),
       Reply::array({Reply::integer(2), Reply::array({Reply::integer(3), Reply::bulk("a")})}),
       Reply::bulk("b"), Reply::array({})});
  EXPECT_EQ(format_reply(nested),
            "1) (integer) 1\n"
            "2) 1) (integer) 2\n"
            "   2) 1) (integer) 3\n"
            "      2) \"a\"\n"
            "3) \"b\"\n"
            "4) (empty array)\n");
  std::vector<Reply> eleven;
  for (int i = 1; i <= 11; ++i) eleven.push_back(Reply::integer(i));
  std::string got = format_reply(Reply::array(eleven));
  EXPECT_EQ(got.substr(0, 15), " 1) (integer) 1");
  EXPECT_NE(got.find("\n10) (integer) 10\n11) (integer) 11\n"), std::string::npos);
}

}  // namespace
}  // namespace redsim::cli
