// Pub/sub: reply shapes, counts, delivery order. Shapes and counts are what
// redis-server 7.0.15 answered; the order among several receivers is ours
// (subscription order; Redis uses hash order there).
#include <gtest/gtest.h>

#include "sim/internal.h"
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
  EXPECT_EQ(ServerAccess::pubsub(*server_).channel_count(), 2u);
  EXPECT_EQ(ServerAccess::pubsub(*server_).pattern_count(), 2u);
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

// The replies below are what redis-server 7.0.15 answered to the same
// commands (redis-cli and a raw RESP client, 2026-11-24).
TEST_F(PubSubTest, ShardChannelsCountApartAndGetSmessage) {
  EXPECT_EQ(run({"SUBSCRIBE", "a"}), Conf("subscribe", "a", 1));
  EXPECT_EQ(run({"SSUBSCRIBE", "b", "c", "b"}), Conf("ssubscribe", "b", 1));
  EXPECT_EQ(s_->take_pushes(),
            (std::vector<resp::Reply>{Conf("ssubscribe", "c", 2), Conf("ssubscribe", "b", 2)}));
  EXPECT_EQ(run({"PSUBSCRIBE", "p*"}), Conf("psubscribe", "p*", 2));
  EXPECT_EQ(s_->shard_subscription_count(), 2u);
  EXPECT_EQ(run(*pub_, {"SPUBLISH", "b", "hi"}), Int(1));
  EXPECT_EQ(run(*pub_, {"PUBLISH", "b", "no"}), Int(0));    // another namespace
  EXPECT_EQ(run(*pub_, {"SPUBLISH", "pz", "no"}), Int(0));  // patterns never match
  EXPECT_EQ(s_->take_pushes(),
            (std::vector<resp::Reply>{Arr({Bulk("smessage"), Bulk("b"), Bulk("hi")})}));
  EXPECT_EQ(run({"SUNSUBSCRIBE", "x"}), Conf("sunsubscribe", "x", 2));
  EXPECT_EQ(run({"SUNSUBSCRIBE"}), Conf("sunsubscribe", "b", 1));
  EXPECT_EQ(s_->take_pushes(), (std::vector<resp::Reply>{Conf("sunsubscribe", "c", 0)}));
  EXPECT_EQ(run({"SUNSUBSCRIBE"}), Arr({Bulk("sunsubscribe"), Nil(), Int(0)}));
  EXPECT_EQ(run(*pub_, {"SPUBLISH", "b", "gone"}), Int(0));
  EXPECT_EQ(run(*pub_, {"SPUBLISH", "b"}),
            Err("ERR wrong number of arguments for 'spublish' command"));
}

TEST_F(PubSubTest, ShardSubscriptionAloneIsASubscribedContext) {
  run({"SSUBSCRIBE", "q"});
  EXPECT_EQ(run({"GET", "x"}),
            Err("ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / "
                "RESET are allowed in this context"));
  EXPECT_EQ(run({"PUBSUB", "NUMPAT"}),
            Err("ERR Can't execute 'pubsub|numpat': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / "
                "PING / QUIT / RESET are allowed in this context"));
  EXPECT_EQ(run({"PING"}), Arr({Bulk("pong"), Bulk("")}));
  EXPECT_EQ(run({"UNSUBSCRIBE"}), Arr({Bulk("unsubscribe"), Nil(), Int(0)}));
  EXPECT_EQ(run({"SUNSUBSCRIBE", "q"}), Conf("sunsubscribe", "q", 0));
  EXPECT_EQ(run({"GET", "x"}), Nil());
}

TEST_F(PubSubTest, Resp3SubscribedSessionRunsAnyCommand) {
  run({"HELLO", "3"});
  run({"SUBSCRIBE", "a"});
  EXPECT_EQ(run({"PING"}), Status("PONG"));
  EXPECT_EQ(run({"GET", "x"}), Nil());
  EXPECT_EQ(run({"PUBSUB", "NUMSUB", "a"}), Arr({Bulk("a"), Int(1)}));
}

TEST_F(PubSubTest, PubsubChannelsNumsubNumpat) {
  auto a = server_->connect();
  auto b = server_->connect();
  run(*a, {"SUBSCRIBE", "news.a", "news.b", "other"});
  run(*a, {"PSUBSCRIBE", "n*", "x"});
  run(*a, {"SSUBSCRIBE", "sh1"});
  run(*b, {"PSUBSCRIBE", "n*"});
  run(*b, {"SUBSCRIBE", "news.a"});
  EXPECT_EQ(run({"PUBSUB", "CHANNELS"}), Arr({Bulk("news.a"), Bulk("news.b"), Bulk("other")}));
  EXPECT_EQ(run({"PUBSUB", "channels", "news.*"}), Arr({Bulk("news.a"), Bulk("news.b")}));
  EXPECT_EQ(run({"PUBSUB", "CHANNELS", "zz*"}), Arr({}));
  EXPECT_EQ(run({"PUBSUB", "NUMSUB", "news.a", "zz", "sh1"}),
            Arr({Bulk("news.a"), Int(2), Bulk("zz"), Int(0), Bulk("sh1"), Int(0)}));
  EXPECT_EQ(run({"PUBSUB", "NUMSUB"}), Arr({}));
  EXPECT_EQ(run({"PUBSUB", "NUMPAT"}), Int(2));  // n* twice counts once
  EXPECT_EQ(run({"PUBSUB", "SHARDCHANNELS"}), Arr({Bulk("sh1")}));
  EXPECT_EQ(run({"PUBSUB", "SHARDCHANNELS", "news*"}), Arr({}));
  EXPECT_EQ(run({"PUBSUB", "SHARDNUMSUB", "sh1", "news.a"}),
            Arr({Bulk("sh1"), Int(1), Bulk("news.a"), Int(0)}));
  a.reset();  // disconnecting drops every kind of subscription
  EXPECT_EQ(run({"PUBSUB", "CHANNELS"}), Arr({Bulk("news.a")}));
  EXPECT_EQ(run({"PUBSUB", "NUMPAT"}), Int(1));
  EXPECT_EQ(run({"PUBSUB", "SHARDCHANNELS"}), Arr({}));
}

TEST_F(PubSubTest, PubsubErrorsAndHelp) {
  EXPECT_EQ(run({"PUBSUB"}), Err("ERR wrong number of arguments for 'pubsub' command"));
  EXPECT_EQ(run({"PUBSUB", "foo"}), Err("ERR unknown subcommand 'foo'. Try PUBSUB HELP."));
  EXPECT_EQ(run({"PUBSUB", "NumPat", "x"}),
            Err("ERR wrong number of arguments for 'pubsub|numpat' command"));
  EXPECT_EQ(run({"PUBSUB", "HELP", "x"}),
            Err("ERR wrong number of arguments for 'pubsub|help' command"));
  EXPECT_EQ(run({"PUBSUB", "CHANNELS", "a", "b"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'CHANNELS'. Try PUBSUB "
                "HELP."));
  EXPECT_EQ(run({"PUBSUB", "shardchannels", "a", "b"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'shardchannels'. Try "
                "PUBSUB HELP."));
  resp::Reply help = run({"PUBSUB", "HELP"});
  ASSERT_EQ(help.elements().size(), 14u);
  EXPECT_EQ(help.elements()[0],
            Status("PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
  EXPECT_EQ(help.elements()[1], Status("CHANNELS [<pattern>]"));
  EXPECT_EQ(help.elements()[7], Status("    pattern subscriptions(default: no channels)."));
  EXPECT_EQ(help.elements()[11],
            Status("    Return the number of subscribers for the specified shard level "
                   "channel(s)"));
  EXPECT_EQ(help.elements()[13], Status("    Prints this help."));
}

TEST_F(PubSubTest, NotifyKeyspaceEventsConfigSpelling) {
  auto spelled = [&](const char* in) {
    EXPECT_EQ(run({"CONFIG", "SET", "notify-keyspace-events", in}), Ok());
    return run({"CONFIG", "GET", "notify-keyspace-events"}).elements()[1].str();
  };
  EXPECT_EQ(spelled("gKE"), "gKE");
  EXPECT_EQ(spelled("$lshzxeKE"), "$lshzxeKE");
  EXPECT_EQ(spelled("KA"), "AK");
  EXPECT_EQ(spelled("EA"), "AE");
  EXPECT_EQ(spelled("Axm"), "Am");
  EXPECT_EQ(spelled("nA"), "A");  // 'n' is set but not shown next to A
  EXPECT_EQ(spelled("n"), "n");
  EXPECT_EQ(spelled("KE$glshzxetdn"), "AKE");
  EXPECT_EQ(run({"CONFIG", "SET", "notify-keyspace-events", "bogus"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - "
                "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."));
  EXPECT_EQ(spelled("AKE"), "AKE");  // the refused value left it alone
  EXPECT_EQ(spelled(""), "");
}

// What redis-server 7.0.15 published for the same commands with KEA.
TEST_F(PubSubTest, KeyspaceAndKeyeventNotifications) {
  run({"CONFIG", "SET", "notify-keyspace-events", "KEA"});
  run({"SELECT", "9"});
  run(*pub_, {"PSUBSCRIBE", "*"});
  pub_->take_pushes();
  run({"SET", "k", "v", "EX", "100"});
  run({"EXPIRE", "k", "0"});
  run({"RPUSH", "l", "a", "b"});
  run({"LPOP", "l", "2"});
  run({"SADD", "s", "a"});
  run({"SADD", "s", "a"});  // nothing added: no event
  run({"SREM", "s", "a"});
  run({"ZADD", "z", "1", "a"});
  run({"ZINCRBY", "z", "1", "a"});
  run({"ZREM", "z", "a"});
  run({"HMSET", "h", "a", "1"});
  run({"HINCRBY", "h", "a", "1"});
  run({"DEL", "h", "nope"});
  std::vector<std::string> seen;
  for (const resp::Reply& r : pub_->take_pushes()) {
    seen.push_back(r.elements()[2].str() + " " + r.elements()[3].str());
  }
  auto both = [](std::vector<std::string>& out, const char* key, const char* event) {
    out.push_back(std::string("__keyspace@9__:") + key + " " + event);
    out.push_back(std::string("__keyevent@9__:") + event + " " + key);
  };
  std::vector<std::string> want;
  for (auto [key, event] :
       std::initializer_list<std::pair<const char*, const char*>>{{"k", "set"},
                                                                  {"k", "expire"},
                                                                  {"k", "del"},
                                                                  {"l", "rpush"},
                                                                  {"l", "lpop"},
                                                                  {"l", "del"},
                                                                  {"s", "sadd"},
                                                                  {"s", "srem"},
                                                                  {"s", "del"},
                                                                  {"z", "zadd"},
                                                                  {"z", "zincr"},
                                                                  {"z", "zrem"},
                                                                  {"z", "del"},
                                                                  {"h", "hset"},
                                                                  {"h", "hincrby"},
                                                                  {"h", "del"}}) {
    both(want, key, event);
  }
  EXPECT_EQ(seen, want);
}

TEST_F(PubSubTest, NotificationClassesMaskEvents) {
  run({"CONFIG", "SET", "notify-keyspace-events", "Kl"});
  run(*pub_, {"PSUBSCRIBE", "*"});
  pub_->take_pushes();
  run({"SET", "foo", "bar"});
  run({"LPUSH", "mylist", "a"});
  run({"DEL", "mylist"});
  EXPECT_EQ(pub_->take_pushes(),
            (std::vector<resp::Reply>{PMsg("*", "__keyspace@0__:mylist", "lpush")}));
  run({"CONFIG", "SET", "notify-keyspace-events", ""});
  run({"LPUSH", "mylist", "a"});
  EXPECT_TRUE(pub_->take_pushes().empty());
}

}  // namespace
}  // namespace redsim::sim
