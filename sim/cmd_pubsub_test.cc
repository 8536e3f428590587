// Pub/sub: reply shapes, counts, delivery order. Shapes and counts are what
// redis-server 7.0.15 answered; the order among several receivers is ours
// (subscription order; Redis uses hash order there).
#include <gtest/gtest.h>

#include "sim/pubsub.h"
#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class PubSubTest : public ServerTest {
 protected:
  resp::Reply Conf(const char* kind, const char* name, int64_t count) {
    return Arr({Bulk(kind), Bulk(name), Int(count)});
  }
  resp::Reply Msg(const char* ch, const char* payload) {
    return Arr({Bulk("message"), Bulk(ch), Bulk(payload)});
  }
  resp::Reply PMsg(const char* pattern, const char* ch, const char* payload) {
    return Arr({Bulk("pmessage"), Bulk(pattern), Bulk(ch), Bulk(payload)});
  }
  std::unique_ptr<Session> pub_ = server_->connect();
};

TEST_F(PubSubTest, SubscribeReturnsTheFirstConfirmationAndPushesTheRest) {
  EXPECT_EQ(run({"SUBSCRIBE", "c1", "c2", "c1"}), Conf("subscribe", "c1", 1));
  EXPECT_EQ(s_->take_pushes(),
            (std::vector<resp::Reply>{Conf("subscribe", "c2", 2), Conf("subscribe", "c1", 2)}));
  EXPECT_EQ(s_->subscription_count(), 2u);
  EXPECT_EQ(run({"PSUBSCRIBE", "c*", "x?"}), Conf("psubscribe", "c*", 3));
  EXPECT_EQ(s_->take_pushes(), (std::vector<resp::Reply>{Conf("psubscribe", "x?", 4)}));
  EXPECT_EQ(server_->pubsub().channel_count(), 2u);
  EXPECT_EQ(server_->pubsub().pattern_count(), 2u);
}

TEST_F(PubSubTest, PublishCountsChannelAndPatternReceivers) {
  run({"SUBSCRIBE", "c1", "c2"});
  run({"PSUBSCRIBE", "c*", "x?"});
  s_->take_pushes();
  EXPECT_EQ(run(*pub_, {"PUBLISH", "c1", "hello"}), Int(2));
  EXPECT_EQ(run(*pub_, {"PUBLISH", "c3", "m"}), Int(1));
  EXPECT_EQ(run(*pub_, {"PUBLISH", "x1", "m"}), Int(1));
  EXPECT_EQ(run(*pub_, {"PUBLISH", "zz", "m"}), Int(0));
  EXPECT_EQ(s_->take_pushes(),
            (std::vector<resp::Reply>{Msg("c1", "hello"), PMsg("c*", "c1", "hello"),
                                      PMsg("c*", "c3", "m"), PMsg("x?", "x1", "m")}));
  EXPECT_TRUE(pub_->take_pushes().empty());
}

TEST_F(PubSubTest, DeliveryOrderIsSubscriptionOrder) {
  auto a = server_->connect();
  auto b = server_->connect();
  run(*b, {"SUBSCRIBE", "ch"});
  run(*a, {"PSUBSCRIBE", "*"});
  run(*a, {"SUBSCRIBE", "ch"});
  run(*b, {"PSUBSCRIBE", "c*", "*"});
  std::vector<std::string> seen;
  auto record = [&](const char* who) {
    return [&seen, who](const resp::Reply& r) {
      seen.push_back(std::string(who) + ":" + r.elements()[0].str() + ":" + r.elements()[1].str());
    };
  };
  a->set_push_handler(record("a"));
  b->set_push_handler(record("b"));
  EXPECT_EQ(run(*pub_, {"PUBLISH", "ch", "m"}), Int(5));
  EXPECT_EQ(seen, (std::vector<std::string>{"b:message:ch", "a:message:ch", "a:pmessage:*",
                                            "b:pmessage:c*", "b:pmessage:*"}));
  EXPECT_TRUE(a->take_pushes().empty());  // the handler got them instead
}

TEST_F(PubSubTest, PublishToAnEmptyChannelDoesNotMatchStar) {
  run({"PSUBSCRIBE", "*"});
  EXPECT_EQ(run(*pub_, {"PUBLISH", "", "empty"}), Int(0));
  EXPECT_EQ(run(*pub_, {"PUBLISH", "any", "thing"}), Int(1));
}

TEST_F(PubSubTest, MessagesArriveInPublishOrder) {
  run({"SUBSCRIBE", "ch"});
  s_->take_pushes();
  for (int i = 0; i < 5; ++i) run(*pub_, {"PUBLISH", "ch", std::to_string(i)});
  EXPECT_EQ(s_->take_pushes(),
            (std::vector<resp::Reply>{Msg("ch", "0"), Msg("ch", "1"), Msg("ch", "2"),
                                      Msg("ch", "3"), Msg("ch", "4")}));
}

TEST_F(PubSubTest, UnsubscribeShapes) {
  EXPECT_EQ(run({"UNSUBSCRIBE"}), Arr({Bulk("unsubscribe"), Nil(), Int(0)}));
  EXPECT_EQ(run({"PUNSUBSCRIBE"}), Arr({Bulk("punsubscribe"), Nil(), Int(0)}));
  EXPECT_EQ(run({"UNSUBSCRIBE", "x", "y"}), Conf("unsubscribe", "x", 0));
  EXPECT_EQ(s_->take_pushes(), (std::vector<resp::Reply>{Conf("unsubscribe", "y", 0)}));
  run({"SUBSCRIBE", "c1", "c2"});
  run({"PSUBSCRIBE", "p1", "p2"});
  s_->take_pushes();
  EXPECT_EQ(run({"UNSUBSCRIBE"}), Conf("unsubscribe", "c1", 3));
  EXPECT_EQ(s_->take_pushes(), (std::vector<resp::Reply>{Conf("unsubscribe", "c2", 2)}));
  EXPECT_EQ(run({"UNSUBSCRIBE"}), Arr({Bulk("unsubscribe"), Nil(), Int(2)}));
  EXPECT_EQ(run({"PUNSUBSCRIBE", "nope"}), Conf("punsubscribe", "nope", 2));
  EXPECT_EQ(run({"PUNSUBSCRIBE"}), Conf("punsubscribe", "p1", 1));
  EXPECT_EQ(s_->take_pushes(), (std::vector<resp::Reply>{Conf("punsubscribe", "p2", 0)}));
  EXPECT_EQ(run({"PUNSUBSCRIBE"}), Arr({Bulk("punsubscribe"), Nil(), Int(0)}));
  EXPECT_EQ(run(*pub_, {"PUBLISH", "c1", "m"}), Int(0));
}

TEST_F(PubSubTest, PatternSubscriptionsOfOneSessionCountSeparately) {
  run({"PSUBSCRIBE", "a*", "*"});
  EXPECT_EQ(run(*pub_, {"PUBLISH", "abc", "x"}), Int(2));
  run({"PUNSUBSCRIBE", "a*", "zz"});
  EXPECT_EQ(run(*pub_, {"PUBLISH", "abc", "x"}), Int(1));
}

TEST_F(PubSubTest, ArityErrors) {
  EXPECT_EQ(run({"SUBSCRIBE"}), Err("ERR wrong number of arguments for 'subscribe' command"));
  EXPECT_EQ(run({"PSUBSCRIBE"}), Err("ERR wrong number of arguments for 'psubscribe' command"));
  EXPECT_EQ(run({"PUBLISH", "a"}), Err("ERR wrong number of arguments for 'publish' command"));
}

TEST_F(PubSubTest, SubscribeInsideExec) {
  run({"MULTI"});
  run({"SUBSCRIBE", "a", "b"});
  EXPECT_EQ(run({"EXEC"}), Arr({Conf("subscribe", "a", 1)}));
  EXPECT_EQ(s_->take_pushes(), (std::vector<resp::Reply>{Conf("subscribe", "b", 2)}));
  EXPECT_EQ(s_->subscription_count(), 2u);
}

}  // namespace
}  // namespace redsim::sim
