// Client-side caching (CLIENT TRACKING, sim/tracking.h) and the "expired"
// and "new" keyspace events. Message shapes and error texts are those of
// redis-server 7.0.15 (src/tracking.c, src/networking.c; Redis's
// tests/unit/tracking.tcl and unit/pubsub.tcl check the same).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/internal.h"
#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT
using Pushes = std::vector<resp::Reply>;

resp::Reply Push(std::initializer_list<resp::Reply> e) {
  return resp::Reply::push(std::vector<resp::Reply>(e));
}
// RESP3: ["invalidate", [keys...]].
resp::Reply Invalidate(std::initializer_list<std::string> keys) {
  return Push({Bulk("invalidate"), Bulks(keys)});
}
// RESP2 through REDIRECT: ["message", "__redis__:invalidate", [keys...]].
resp::Reply InvalidateMessage(std::initializer_list<std::string> keys) {
  return Arr({Bulk("message"), Bulk("__redis__:invalidate"), Bulks(keys)});
}

class TrackingTest : public ServerTest {
 protected:
  TrackingTest() {
    redirect_id_ = std::to_string(redir_->id());
    EXPECT_EQ(run(*redir_, {"SUBSCRIBE", "__redis__:invalidate"}),
              Arr({Bulk("subscribe"), Bulk("__redis__:invalidate"), Int(1)}));
  }
  void hello3(Session& s) { EXPECT_TRUE(run(s, {"HELLO", "3"}).is_map()); }

  std::unique_ptr<Session> redir_ = server_->connect();  // subscribed, RESP2
  std::unique_ptr<Session> other_ = server_->connect();  // writes
  std::string redirect_id_;
};

TEST_F(TrackingTest, Resp2RedirectGetsOneMessagePerKeyReadThenWritten) {
  EXPECT_EQ(run({"CLIENT", "TRACKING", "on", "REDIRECT", redirect_id_}), Ok());
  run(*other_, {"SET", "a", "1"});
  run(*other_, {"SET", "b", "1"});
  EXPECT_EQ(run({"GET", "a"}), Bulk("1"));
  run(*other_, {"INCR", "b"});  // never read: no message
  EXPECT_TRUE(redir_->take_pushes().empty());
  run(*other_, {"INCR", "a"});
  EXPECT_EQ(redir_->take_pushes(), Pushes{InvalidateMessage({"a"})});
  // Once sent, the key left the table: the next write says nothing.
  run(*other_, {"INCR", "a"});
  EXPECT_TRUE(redir_->take_pushes().empty());
  // MGET tracks each of its keys; DEL invalidates those it deleted (a
  // missing key is not modified: c stays tracked until written).
  run({"MGET", "a", "b", "c"});
  run(*other_, {"DEL", "a", "c"});
  EXPECT_EQ(redir_->take_pushes(), Pushes{InvalidateMessage({"a"})});
  run(*other_, {"SET", "c", "1"});
  EXPECT_EQ(redir_->take_pushes(), Pushes{InvalidateMessage({"c"})});
  EXPECT_EQ(run({"CLIENT", "TRACKING", "off"}), Ok());
  run(*other_, {"SET", "b", "2"});
  EXPECT_TRUE(redir_->take_pushes().empty());
}

TEST_F(TrackingTest, Resp2WithoutRedirectOrSubscriptionGetsNothing) {
  run({"CLIENT", "TRACKING", "on"});
  run({"GET", "k"});
  run(*other_, {"SET", "k", "v"});
  EXPECT_TRUE(s_->take_pushes().empty());
  // A RESP2 redirect target that is not subscribed gets nothing either.
  auto plain = server_->connect();
  run({"CLIENT", "TRACKING", "on", "REDIRECT", std::to_string(plain->id())});
  run({"GET", "k"});
  run(*other_, {"SET", "k", "w"});
  EXPECT_TRUE(plain->take_pushes().empty());
}

TEST_F(TrackingTest, Resp3PushesFollowTheCommandThatCausedThem) {
  hello3(*s_);
  run({"CLIENT", "TRACKING", "on"});
  run({"HSET", "h", "f", "1"});
  EXPECT_EQ(run({"HGET", "h", "f"}), Bulk("1"));
  EXPECT_TRUE(s_->take_pushes().empty());
  // Its own write: held until the command ended, then pushed.
  EXPECT_EQ(run({"HDEL", "h", "f"}), Int(1));
  EXPECT_EQ(s_->take_pushes(), Pushes{Invalidate({"h"})});
  // Inside a transaction: one push after EXEC.
  run({"SET", "a", "1"});
  run({"GET", "a"});
  run({"MULTI"});
  run({"INCR", "a"});
  run({"GET", "a"});
  EXPECT_EQ(run({"EXEC"}), Arr({Int(2), Bulk("2")}));
  EXPECT_EQ(s_->take_pushes(), Pushes{Invalidate({"a"})});
  // Another client's write.
  run(*other_, {"SET", "a", "3"});
  EXPECT_EQ(s_->take_pushes(), Pushes{Invalidate({"a"})});
  // A RESP3 redirect target gets the push form.
  hello3(*other_);
  run({"CLIENT", "TRACKING", "on", "REDIRECT", std::to_string(other_->id())});
  run({"GET", "a"});
  auto writer = server_->connect();
  run(*writer, {"SET", "a", "4"});
  EXPECT_EQ(other_->take_pushes(), Pushes{Invalidate({"a"})});
  EXPECT_TRUE(s_->take_pushes().empty());
}

TEST_F(TrackingTest, BcastSendsOneMessagePerPrefixAfterTheCommand) {
  EXPECT_EQ(run({"CLIENT", "TRACKING", "on", "BCAST", "REDIRECT", redirect_id_, "PREFIX",
                 "a:", "PREFIX", "b:"}),
            Ok());
  run({"MULTI"});
  for (const char* key : {"b:2", "a:1", "c:1", "a:2", "b:1"}) run({"INCR", key});
  run({"EXEC"});
  EXPECT_EQ(redir_->take_pushes(),
            (Pushes{InvalidateMessage({"a:1", "a:2"}), InvalidateMessage({"b:1", "b:2"})}));
  // ON again adds a prefix; the empty prefix matches every key.
  EXPECT_EQ(run({"CLIENT", "TRACKING", "on", "BCAST", "REDIRECT", redirect_id_, "PREFIX", "c:"}),
            Ok());
  run(*other_, {"SET", "c:9", "x"});
  EXPECT_EQ(redir_->take_pushes(), Pushes{InvalidateMessage({"c:9"})});
  run({"CLIENT", "TRACKING", "off"});
  run({"CLIENT", "TRACKING", "on", "BCAST", "REDIRECT", redirect_id_});
  run(*other_, {"MSET", "z", "1", "y", "2"});
  EXPECT_EQ(redir_->take_pushes(), Pushes{InvalidateMessage({"y", "z"})});
  EXPECT_EQ(ServerAccess::tracking(*server_).total_prefixes(), 1u);
}

TEST_F(TrackingTest, OptionErrorsHaveRedisTexts) {
  EXPECT_EQ(run({"CLIENT", "TRACKING", "on", "PREFIX", "a"}),
            Err("ERR PREFIX option requires BCAST mode to be enabled"));
  EXPECT_EQ(run({"CLIENT", "TRACKING", "on", "BCAST", "OPTIN"}),
            Err("ERR OPTIN and OPTOUT are not compatible with BCAST"));
  EXPECT_EQ(run({"CLIENT", "TRACKING", "on", "OPTIN", "OPTOUT"}),
            Err("ERR You can't specify both OPTIN mode and OPTOUT mode"));
  EXPECT_EQ(run({"CLIENT", "TRACKING", "on", "REDIRECT", "999"}),
            Err("ERR The client ID you want redirect to does not exist"));
  EXPECT_EQ(run({"CLIENT", "TRACKING", "on", "REDIRECT", "x"}), Err(kNotInt));
  EXPECT_EQ(run({"CLIENT", "TRACKING", "on", "REDIRECT", redirect_id_, "REDIRECT", redirect_id_}),
            Err("ERR A client can only redirect to a single other client"));
  EXPECT_EQ(run({"CLIENT", "TRACKING", "on", "FOO"}), Err(kSyntax));
  EXPECT_EQ(run({"CLIENT", "TRACKING", "maybe"}), Err(kSyntax));
  EXPECT_EQ(run({"CLIENT", "TRACKING"}),
            Err("ERR wrong number of arguments for 'client|tracking' command"));
  EXPECT_EQ(run({"CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "FOOBAR", "PREFIX", "FOO"}),
            Err("ERR Prefix 'FOOBAR' overlaps with another provided prefix 'FOO'. Prefixes for a "
                "single client must not overlap."));
  EXPECT_EQ(run({"CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "FOO", "PREFIX", "BAR"}), Ok());
  EXPECT_EQ(run({"CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "FO"}),
            Err("ERR Prefix 'FO' overlaps with an existing prefix 'FOO'. Prefixes for a single "
                "client must not overlap."));
  EXPECT_EQ(run({"CLIENT", "TRACKING", "on"}),
            Err("ERR You can't switch BCAST mode on/off before disabling tracking for this "
                "client, and then re-enabling it with a different mode."));
  run({"CLIENT", "TRACKING", "off"});
  run({"CLIENT", "TRACKING", "on", "OPTIN"});
  EXPECT_EQ(run({"CLIENT", "TRACKING", "on", "OPTOUT"}),
            Err("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this "
                "client, and then re-enabling it with a different mode."));
  EXPECT_EQ(run({"CLIENT", "CACHING", "no"}),
            Err("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode."));
  EXPECT_EQ(run({"CLIENT", "CACHING", "maybe"}), Err(kSyntax));
  run({"CLIENT", "TRACKING", "off"});
  EXPECT_EQ(run({"CLIENT", "CACHING", "yes"}),
            Err("ERR CLIENT CACHING can be called only when the client is in tracking mode with "
                "OPTIN or OPTOUT mode enabled"));
}

TEST_F(TrackingTest, OptinTracksOnlyAfterCachingYesAndOptoutSkipsAfterCachingNo) {
  run({"CLIENT", "TRACKING", "on", "OPTIN", "REDIRECT", redirect_id_});
  run({"GET", "k1"});
  run(*other_, {"SET", "k1", "1"});
  EXPECT_TRUE(redir_->take_pushes().empty());
  EXPECT_EQ(run({"CLIENT", "CACHING", "yes"}), Ok());
  run({"GET", "k1"});
  run({"GET", "k2"});  // CACHING held for one command only
  run(*other_, {"SET", "k1", "2"});
  run(*other_, {"SET", "k2", "2"});
  EXPECT_EQ(redir_->take_pushes(), Pushes{InvalidateMessage({"k1"})});

  run({"CLIENT", "TRACKING", "off"});
  run({"CLIENT", "TRACKING", "on", "OPTOUT", "REDIRECT", redirect_id_});
  EXPECT_EQ(run({"CLIENT", "CACHING", "no"}), Ok());
  run({"GET", "k1"});
  run({"GET", "k2"});
  run(*other_, {"SET", "k1", "3"});
  run(*other_, {"SET", "k2", "3"});
  EXPECT_EQ(redir_->take_pushes(), Pushes{InvalidateMessage({"k2"})});
}

TEST_F(TrackingTest, NoloopSkipsTheClientsOwnWrites) {
  run({"CLIENT", "TRACKING", "on", "REDIRECT", redirect_id_, "NOLOOP"});
  run({"MGET", "other1", "loop", "other2"});
  run(*other_, {"SET", "other1", "1"});
  run({"SET", "loop", "1"});
  run(*other_, {"SET", "other2", "1"});
  EXPECT_EQ(redir_->take_pushes(),
            (Pushes{InvalidateMessage({"other1"}), InvalidateMessage({"other2"})}));

  run({"CLIENT", "TRACKING", "off"});
  run({"CLIENT", "TRACKING", "on", "BCAST", "REDIRECT", redirect_id_, "NOLOOP"});
  run(*other_, {"SET", "x1", "1"});
  run({"SET", "loop", "2"});
  run({"MSET", "loop", "3", "mine", "1"});
  run(*other_, {"SET", "x2", "1"});
  EXPECT_EQ(redir_->take_pushes(), (Pushes{InvalidateMessage({"x1"}), InvalidateMessage({"x2"})}));
}

TEST_F(TrackingTest, FlushSendsANullToEveryTrackingClient) {
  run({"CLIENT", "TRACKING", "on", "REDIRECT", redirect_id_});
  hello3(*other_);
  run(*other_, {"CLIENT", "TRACKING", "on"});
  run({"GET", "k"});
  run(*other_, {"GET", "k"});
  EXPECT_EQ(ServerAccess::tracking(*server_).total_keys(), 1u);
  EXPECT_EQ(ServerAccess::tracking(*server_).total_items(), 2u);
  auto flusher = server_->connect();
  run(*flusher, {"FLUSHALL"});
  EXPECT_EQ(redir_->take_pushes(),
            Pushes{Arr({Bulk("message"), Bulk("__redis__:invalidate"), Nil()})});
  EXPECT_EQ(other_->take_pushes(), Pushes{Push({Bulk("invalidate"), Nil()})});
  EXPECT_EQ(ServerAccess::tracking(*server_).total_keys(), 0u);
  // The flushing client's own null follows its reply; FLUSHDB too.
  run(*other_, {"FLUSHDB"});
  EXPECT_EQ(other_->take_pushes(), Pushes{Push({Bulk("invalidate"), Nil()})});
  EXPECT_EQ(redir_->take_pushes().size(), 1u);
}

TEST_F(TrackingTest, ExpiryInvalidatesLazilyAndActively) {
  hello3(*s_);
  run({"CLIENT", "TRACKING", "on"});
  run({"SET", "lazy", "v", "PX", "100"});
  run({"GET", "lazy"});
  advance_ms(101);
  EXPECT_EQ(run({"MGET", "x", "lazy"}), Arr({Nil(), Nil()}));
  EXPECT_EQ(s_->take_pushes(), Pushes{Invalidate({"lazy"})});

  run({"CLIENT", "TRACKING", "off"});
  run({"CLIENT", "TRACKING", "on", "BCAST", "NOLOOP"});
  run({"SET", "mykey", "v", "PX", "1"});  // own write: NOLOOP
  run({"SET", "mykeyother", "v"});
  EXPECT_TRUE(s_->take_pushes().empty());
  advance_ms(2);
  EXPECT_EQ(server_->active_expire_cycle(), 1u);
  // The expiry has no writer: NOLOOP does not hide it.
  EXPECT_EQ(s_->take_pushes(), Pushes{Invalidate({"mykey"})});
}

TEST_F(TrackingTest, RedirectToAGoneClientIsBroken) {
  hello3(*s_);
  auto target = server_->connect();
  run({"CLIENT", "TRACKING", "on", "REDIRECT", std::to_string(target->id())});
  EXPECT_EQ(run({"CLIENT", "GETREDIR"}), Int(static_cast<int64_t>(target->id())));
  run({"GET", "k"});
  const int64_t gone = static_cast<int64_t>(target->id());
  target.reset();
  run(*other_, {"SET", "k", "v"});
  EXPECT_EQ(s_->take_pushes(), Pushes{Push({Bulk("tracking-redir-broken"), Int(gone)})});
  resp::Reply info = run({"CLIENT", "TRACKINGINFO"});
  EXPECT_EQ(info, resp::Reply::map({Bulk("flags"),
                                    resp::Reply::set({Bulk("on"), Bulk("broken_redirect")}),
                                    Bulk("redirect"), Int(gone), Bulk("prefixes"), Arr({})}));
  EXPECT_NE(run({"CLIENT", "INFO"}).str().find(" flags=tR "), std::string::npos);
}

TEST_F(TrackingTest, TrackingInfoGetRedirAndClientList) {
  EXPECT_EQ(run({"CLIENT", "GETREDIR"}), Int(-1));
  EXPECT_EQ(run({"CLIENT", "TRACKINGINFO"}), Arr({Bulk("flags"), Bulks({"off"}), Bulk("redirect"),
                                                  Int(-1), Bulk("prefixes"), Arr({})}));
  run({"CLIENT", "TRACKING", "on", "OPTIN"});
  run({"CLIENT", "CACHING", "yes"});
  EXPECT_EQ(run({"CLIENT", "TRACKINGINFO"}),
            Arr({Bulk("flags"), Bulks({"on", "optin", "caching-yes"}), Bulk("redirect"), Int(0),
                 Bulk("prefixes"), Arr({})}));
  EXPECT_EQ(run({"CLIENT", "GETREDIR"}), Int(0));
  run({"CLIENT", "TRACKING", "off"});
  run({"CLIENT", "TRACKING", "on", "BCAST", "NOLOOP", "PREFIX", "b", "PREFIX", "a", "REDIRECT",
       redirect_id_});
  EXPECT_EQ(run({"CLIENT", "TRACKINGINFO"}),
            Arr({Bulk("flags"), Bulks({"on", "bcast", "noloop"}), Bulk("redirect"),
                 Int(static_cast<int64_t>(redir_->id())), Bulk("prefixes"), Bulks({"a", "b"})}));
  std::string line = run({"CLIENT", "INFO"}).str();
  EXPECT_NE(line.find(" flags=tB "), std::string::npos) << line;
  EXPECT_NE(line.find(" redir=" + redirect_id_ + " "), std::string::npos) << line;
  std::string info = run({"INFO", "clients"}).str();
  EXPECT_NE(info.find("tracking_clients:1\r\n"), std::string::npos);
  // RESET turns tracking off.
  EXPECT_EQ(run({"RESET"}), Status("RESET"));
  EXPECT_EQ(run({"CLIENT", "GETREDIR"}), Int(-1));
  EXPECT_EQ(ServerAccess::tracking(*server_).clients(), 0u);
}

TEST_F(TrackingTest, ScriptsTrackTheirDeclaredKeysWhenTheyRead) {
  hello3(*s_);
  run({"CLIENT", "TRACKING", "on"});
  run({"EVAL", "redis.call('set', 'k3', 'bar')", "2", "k1", "k2"});
  run(*other_, {"MSET", "k2", "1", "k1", "1"});
  EXPECT_TRUE(s_->take_pushes().empty());
  run({"EVAL", "redis.call('get', 'k3')", "2", "k1", "k2"});
  run(*other_, {"MSET", "k2", "2", "k1", "2"});
  EXPECT_EQ(s_->take_pushes(), (Pushes{Invalidate({"k2"}), Invalidate({"k1"})}));
  // EVAL_RO itself tracks nothing; a read inside it does.
  run({"EVAL_RO", "redis.call('ping')", "1", "k1"});
  run(*other_, {"SET", "k1", "3"});
  EXPECT_TRUE(s_->take_pushes().empty());
  run({"EVAL_RO", "redis.call('get', 'k9')", "1", "k1"});
  run(*other_, {"SET", "k1", "4"});
  EXPECT_EQ(s_->take_pushes(), Pushes{Invalidate({"k1"})});
}

TEST_F(TrackingTest, TableLimitInvalidatesKeysAsIfWritten) {
  run({"CLIENT", "TRACKING", "on", "REDIRECT", redirect_id_});
  for (int i = 0; i < 150; ++i) run({"GET", "key" + std::to_string(1000 + i)});
  EXPECT_EQ(ServerAccess::tracking(*server_).total_keys(), 150u);
  EXPECT_EQ(run({"CONFIG", "SET", "tracking-table-max-keys", "1"}), Ok());
  // Effort 100 at the next cron (or command), then 200: the first keys in
  // key order go.
  server_->active_expire_cycle();
  EXPECT_EQ(ServerAccess::tracking(*server_).total_keys(), 50u);
  EXPECT_EQ(run({"CONFIG", "GET", "tracking-table-max-keys"}),
            Bulks({"tracking-table-max-keys", "1"}));
  EXPECT_EQ(ServerAccess::tracking(*server_).total_keys(), 1u);
  Pushes got = redir_->take_pushes();
  ASSERT_EQ(got.size(), 149u);
  EXPECT_EQ(got.front(), InvalidateMessage({"key1000"}));
}

TEST_F(TrackingTest, UnblockedClientGetsItsOwnInvalidationAfterItsReply) {
  hello3(*s_);
  run({"RPUSH", "list2", "a"});
  run({"CLIENT", "TRACKING", "on"});
  run({"LRANGE", "list2", "0", "-1"});
  run({"BLMOVE", "list1", "list2", "LEFT", "LEFT", "0"});
  ASSERT_TRUE(s_->blocked());
  EXPECT_EQ(run(*other_, {"RPUSH", "list1", "foo"}), Int(1));
  EXPECT_TRUE(s_->take_pushes().empty());
  std::vector<Server::Unblocked> done = server_->take_unblocked();
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].session, s_.get());
  EXPECT_EQ(done[0].reply, Bulk("foo"));
  EXPECT_EQ(done[0].pushes, Pushes{Invalidate({"list2"})});
}

// ---- keyspace events of expiry ---------------------------------------------

class ExpiredEventTest : public ServerTest {
 protected:
  ExpiredEventTest() { run(*sub_, {"PSUBSCRIBE", "*"}); }
  resp::Reply PMsg(const std::string& channel, const std::string& payload) {
    return Arr({Bulk("pmessage"), Bulk("*"), Bulk(channel), Bulk(payload)});
  }
  std::unique_ptr<Session> sub_ = server_->connect();
};

TEST_F(ExpiredEventTest, LazyExpiryPublishesExpired) {
  EXPECT_EQ(run({"CONFIG", "SET", "notify-keyspace-events", "Ex"}), Ok());
  run({"PSETEX", "foo", "100", "1"});
  EXPECT_TRUE(sub_->take_pushes().empty());  // no "set" event: class $ is off
  advance_ms(101);
  EXPECT_EQ(run({"EXISTS", "foo"}), Int(0));
  EXPECT_EQ(sub_->take_pushes(), Pushes{PMsg("__keyevent@0__:expired", "foo")});
}

TEST_F(ExpiredEventTest, ActiveExpiryPublishesExpiredInTheKeysDb) {
  run({"CONFIG", "SET", "notify-keyspace-events", "KEx"});
  run({"SELECT", "3"});
  run({"SET", "bar", "1", "PX", "10"});
  advance_ms(11);
  EXPECT_EQ(server_->active_expire_cycle(), 1u);
  EXPECT_EQ(sub_->take_pushes(),
            (Pushes{PMsg("__keyspace@3__:bar", "expired"), PMsg("__keyevent@3__:expired", "bar")}));
}

TEST_F(ExpiredEventTest, NothingWithoutTheExpiredClassOrWithoutKOrE) {
  run({"CONFIG", "SET", "notify-keyspace-events", "E$"});
  run({"SET", "a", "1", "PX", "10"});
  EXPECT_EQ(sub_->take_pushes(), (Pushes{PMsg("__keyevent@0__:set", "a")}));
  advance_ms(11);
  EXPECT_EQ(run({"GET", "a"}), Nil());
  run({"CONFIG", "SET", "notify-keyspace-events", "x"});
  run({"SET", "b", "1", "PX", "10"});
  advance_ms(11);
  server_->active_expire_cycle();
  EXPECT_TRUE(sub_->take_pushes().empty());
  EXPECT_EQ(server_->key_count(), 0u);
}

TEST_F(ExpiredEventTest, NewKeyEventOnCreationOnly) {
  run({"CONFIG", "SET", "notify-keyspace-events", "En"});
  run({"SET", "foo", "bar"});
  run({"SET", "foo", "baz"});
  run({"SET", "bar", "bar"});
  run({"RPUSH", "l", "x"});
  run({"RPUSH", "l", "y"});
  EXPECT_EQ(sub_->take_pushes(),
            (Pushes{PMsg("__keyevent@0__:new", "foo"), PMsg("__keyevent@0__:new", "bar"),
                    PMsg("__keyevent@0__:new", "l")}));
}

// tracking.tcl "Tracking invalidation message of eviction keys should be
// before response": under volatile-random, the command that finds memory
// over maxmemory first evicts the volatile key, whose invalidation comes
// before its own reply; keys without a deadline stay, and once nothing can
// be evicted a denyoom command is refused as under noeviction.
TEST_F(TrackingTest, EvictionInvalidatesAndPublishesEvicted) {
  hello3(*s_);
  EXPECT_EQ(run({"CLIENT", "TRACKING", "on"}), Ok());
  EXPECT_EQ(run(*other_, {"CONFIG", "SET", "notify-keyspace-events", "Ke"}), Ok());
  EXPECT_EQ(run(*redir_, {"PSUBSCRIBE", "__keyspace@0__:*"}).elements().size(), 3u);
  const int64_t used = server_->used_memory_bytes();
  EXPECT_EQ(run(*other_, {"CONFIG", "SET", "maxmemory", std::to_string(used + 100 * 1024)}), Ok());
  EXPECT_EQ(run(*other_, {"CONFIG", "SET", "maxmemory-policy", "volatile-random"}), Ok());
  EXPECT_EQ(run({"SETEX", "volatile-key", "10000", "x"}), Ok());
  EXPECT_EQ(run({"GET", "volatile-key"}), Bulk("x"));
  EXPECT_EQ(run({"SETBIT", "big-key", "1600000", "0"}), Int(0));  // 200 kB: over the limit
  EXPECT_TRUE(s_->take_pushes().empty());
  EXPECT_EQ(run({"GETBIT", "big-key", "0"}), Int(0));
  EXPECT_EQ(s_->take_pushes(), Pushes{Invalidate({"volatile-key"})});
  EXPECT_EQ(run({"EXISTS", "volatile-key", "big-key"}), Int(1));
  EXPECT_EQ(server_->evicted_keys(), 1u);
  EXPECT_EQ(redir_->take_pushes(),
            Pushes{Arr({Bulk("pmessage"), Bulk("__keyspace@0__:*"),
                        Bulk("__keyspace@0__:volatile-key"), Bulk("evicted")})});
  EXPECT_EQ(run({"SET", "more", "x"}),
            Err("OOM command not allowed when used memory > 'maxmemory'."));
  // allkeys-lru: the least recently used key goes first.
  EXPECT_EQ(run(*other_, {"CONFIG", "SET", "maxmemory-policy", "allkeys-lru"}), Ok());
  EXPECT_EQ(run({"SET", "more", "x"}), Ok());
  EXPECT_EQ(run({"EXISTS", "big-key", "more"}), Int(1));
  EXPECT_EQ(server_->evicted_keys(), 2u);
  EXPECT_EQ(run(*other_, {"CONFIG", "SET", "maxmemory", "0"}), Ok());
}

}  // namespace
}  // namespace redsim::sim
