#include "lock/hiredis/hiredis_env.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "lock/errors.h"
#include "lock/hiredis/real_redis_test_util.h"

namespace redsim::lock {
namespace {

using namespace std::chrono_literals;
using resp::Reply;
using testing_util::flush_shared_redis;
using testing_util::shared_redis;
using testing_util::shared_redis_options;

class HiredisEnvTest : public ::testing::Test {
 protected:
  void SetUp() override { flush_shared_redis(); }
};

TEST_F(HiredisEnvTest, RepliesAreTheFakesReplies) {
  HiredisEnv env(shared_redis_options());
  Connection& c = env.connection();
  EXPECT_EQ(c.call({"SET", "k", "v"}), Reply::ok());
  EXPECT_EQ(c.call({"GET", "k"}), Reply::bulk("v"));
  EXPECT_EQ(c.call({"GET", "missing"}), Reply::nil());
  EXPECT_EQ(c.call({"INCR", "n"}), Reply::integer(1));
  EXPECT_EQ(c.call({"RPUSH", "l", "a", "b"}), Reply::integer(2));
  EXPECT_EQ(c.call({"LRANGE", "l", "0", "-1"}), Reply::array({Reply::bulk("a"), Reply::bulk("b")}));
  EXPECT_EQ(c.call({"PING"}), Reply::status("PONG"));
}

TEST_F(HiredisEnvTest, ArgvIsBinarySafe) {
  HiredisEnv env(shared_redis_options());
  const std::string key("k\0ey", 4), value("a\0b\r\n\xff", 6);
  EXPECT_EQ(env.connection().call({"SET", key, value}), Reply::ok());
  EXPECT_EQ(env.connection().call({"GET", key}), Reply::bulk(value));
  EXPECT_EQ(env.connection().call({"STRLEN", key}), Reply::integer(6));
  EXPECT_EQ(env.connection().call({"EXISTS", "k"}), Reply::integer(0));
}

TEST_F(HiredisEnvTest, ErrorRepliesAreReplies) {
  HiredisEnv env(shared_redis_options());
  env.connection().call({"SET", "k", "v"});
  EXPECT_EQ(env.connection().call({"HGET", "k", "f"}),
            Reply::error("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(env.connection().call({"GET"}),
            Reply::error("ERR wrong number of arguments for 'get' command"));
  EXPECT_EQ(env.connection().call({"GET", "k"}), Reply::bulk("v")) << "connection still usable";
}

TEST_F(HiredisEnvTest, ConnectionRefusedIsIoError) {
  const redsim::testing::RefusingPort nobody_listens;
  HiredisOptions o;
  o.port = nobody_listens.port();
  HiredisEnv env(o);
  EXPECT_THROW(env.connection().call({"PING"}), IoError);
  EXPECT_THROW(env.subscribe("ch", [](const std::string&) {}), IoError);
}

TEST_F(HiredisEnvTest, TimeoutBreaksTheConnectionAndTheNextCallReconnects) {
  HiredisEnv env(shared_redis_options());
  Connection& c = env.connection();
  const Reply id = c.call({"CLIENT", "ID"});
  ASSERT_TRUE(id.is_integer());
  EXPECT_THROW(c.call({"DEBUG", "SLEEP", "0.3"}, 50ms), TimeoutError);
  // The server finishes its sleep, then answers on a fresh connection.
  const Reply again = c.call({"CLIENT", "ID"});
  ASSERT_TRUE(again.is_integer());
  EXPECT_NE(again.integer(), id.integer()) << "replaced, not reused";
  EXPECT_EQ(c.call({"PING"}), Reply::status("PONG"));
}

TEST_F(HiredisEnvTest, CommandTimeoutOptionApplies) {
  HiredisOptions o = shared_redis_options();
  o.command_timeout = 50ms;
  HiredisEnv env(o);
  EXPECT_THROW(env.connection().call({"DEBUG", "SLEEP", "0.3"}), TimeoutError);
  EXPECT_EQ(env.connection().call({"PING"}, 2s), Reply::status("PONG"));
}

TEST_F(HiredisEnvTest, ServerGoneIsIoErrorThenReconnectsWhenBack) {
  redsim::testing::RedisServerProcess own;
  HiredisEnv env(HiredisOptions::parse_url(own.url()));
  ASSERT_EQ(env.connection().call({"SET", "k", "v"}), Reply::ok());
  own.restart();
  EXPECT_THROW(env.connection().call({"GET", "k"}), IoError);
  EXPECT_EQ(env.connection().call({"GET", "k"}), Reply::nil()) << "a new, empty server";
}

TEST_F(HiredisEnvTest, DatabaseAndPasswordFromOptions) {
  redsim::testing::RedisServerOptions options;
  options.extra_args = {"--requirepass", "pw"};
  redsim::testing::RedisServerProcess own(options);
  HiredisEnv no_auth(HiredisOptions::parse_url(own.url()));
  EXPECT_EQ(no_auth.connection().call({"GET", "k"}),
            Reply::error("NOAUTH Authentication required."));
  HiredisEnv wrong(
      HiredisOptions::parse_url("redis://:nope@127.0.0.1:" + std::to_string(own.port())));
  EXPECT_THROW(wrong.connection().call({"PING"}), ConnectionError);
  HiredisEnv db2(
      HiredisOptions::parse_url("redis://:pw@127.0.0.1:" + std::to_string(own.port()) + "/2"));
  EXPECT_EQ(db2.connection().call({"SET", "k", "in-2"}), Reply::ok());
  HiredisEnv db0(
      HiredisOptions::parse_url("redis://default:pw@127.0.0.1:" + std::to_string(own.port())));
  EXPECT_EQ(db0.connection().call({"GET", "k"}), Reply::nil());
  EXPECT_EQ(db0.connection().call({"SELECT", "2"}), Reply::ok());
  EXPECT_EQ(db0.connection().call({"GET", "k"}), Reply::bulk("in-2"));
}

TEST_F(HiredisEnvTest, EachThreadHasItsOwnConnectionAndTaskId) {
  HiredisEnv env(shared_redis_options());
  std::mutex mu;
  std::set<int64_t> client_ids;
  std::set<uint64_t> task_ids;
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      const Reply a = env.connection().call({"CLIENT", "ID"});
      const Reply b = env.connection().call({"CLIENT", "ID"});
      EXPECT_EQ(a, b) << "the same thread keeps its connection";
      std::lock_guard<std::mutex> lock(mu);
      client_ids.insert(a.integer());
      task_ids.insert(env.task_id());
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(client_ids.size(), 4u);
  EXPECT_EQ(task_ids.size(), 4u);
  EXPECT_EQ(task_ids.count(env.task_id()), 0u);
}

TEST_F(HiredisEnvTest, ClientIdIsAUuidPerEnv) {
  HiredisEnv a(shared_redis_options()), b(shared_redis_options());
  EXPECT_EQ(a.client_id().size(), 36u);
  EXPECT_EQ(a.client_id()[8], '-');
  EXPECT_EQ(a.client_id(), a.client_id());
  EXPECT_NE(a.client_id(), b.client_id());
  EXPECT_EQ(a.task_id(), b.task_id()) << "one thread, one task id";
}

TEST_F(HiredisEnvTest, SubscribeDeliversMessagesByChannel) {
  HiredisEnv env(shared_redis_options());
  std::mutex mu;
  std::vector<std::string> on_a, on_b;
  auto ev = env.make_event();
  const SubscriptionId a = env.subscribe("a", [&](const std::string& m) {
    std::lock_guard<std::mutex> lock(mu);
    on_a.push_back(m);
    ev->signal();
  });
  env.subscribe("b", [&](const std::string& m) {
    std::lock_guard<std::mutex> lock(mu);
    on_b.push_back(m);
  });
  // subscribe() returned after the confirmation: the publish is seen.
  EXPECT_EQ(env.connection().call({"PUBLISH", "a", "hello"}), Reply::integer(1));
  ASSERT_TRUE(ev->wait_for(5s));
  EXPECT_EQ(env.connection().call({"PUBLISH", "b", std::string("x\0y", 3)}), Reply::integer(1));
  env.unsubscribe(a);
  // Once the server confirms, PUBLISH on "a" reaches nobody.
  Reply receivers;
  for (int i = 0; i < 2500; ++i) {
    receivers = env.connection().call({"PUBSUB", "NUMSUB", "a"});
    if (receivers.elements().at(1) == Reply::integer(0)) break;
    env.sleep_for(2ms);
  }
  EXPECT_EQ(receivers.elements().at(1), Reply::integer(0));
  EXPECT_EQ(env.connection().call({"PUBLISH", "b", "last"}), Reply::integer(1));
  for (int i = 0; i < 2500; ++i) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (on_b.size() == 2) break;
    }
    env.sleep_for(2ms);
  }
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(on_a, (std::vector<std::string>{"hello"}));
  EXPECT_EQ(on_b, (std::vector<std::string>{std::string("x\0y", 3), "last"}));
}

TEST_F(HiredisEnvTest, SubscriberReconnectsAfterTheServerRestarts) {
  redsim::testing::RedisServerProcess own;
  HiredisEnv env(HiredisOptions::parse_url(own.url()));
  auto ev = env.make_event();
  env.subscribe("a", [&](const std::string&) { ev->signal(); });
  own.restart();
  // The reader notices the loss; the next subscribe reconnects and
  // subscribes again to "a" as well.
  bool subscribed = false;
  for (int i = 0; i < 500 && !subscribed; ++i) {
    try {
      env.subscribe("b", [](const std::string&) {});
      subscribed = true;
    } catch (const ConnectionError&) {
      env.sleep_for(10ms);
    }
  }
  ASSERT_TRUE(subscribed);
  Reply published;
  for (int i = 0; i < 3; ++i) {
    try {
      published = env.connection().call({"PUBLISH", "a", "m"});
      break;
    } catch (const IoError&) {  // this thread's command connection saw the restart too
    }
  }
  EXPECT_EQ(published, Reply::integer(1));
  EXPECT_TRUE(ev->wait_for(5s));
}

TEST_F(HiredisEnvTest, EventRemembersOneSignal) {
  HiredisEnv env(shared_redis_options());
  auto ev = env.make_event();
  EXPECT_FALSE(ev->wait_for(1ms));
  ev->signal();
  EXPECT_TRUE(ev->wait_for(0us));
  EXPECT_FALSE(ev->wait_for(0us)) << "consumed";
}

TEST_F(HiredisEnvTest, EventWithoutALimitIsWokenBySignal) {
  HiredisEnv env(shared_redis_options());
  std::shared_ptr<Event> ev = env.make_event();
  std::thread signaller([ev] { ev->signal(); });
  EXPECT_TRUE(ev->wait_for(Micros::max())) << "Micros::max() must not overflow the deadline";
  signaller.join();
}

TEST_F(HiredisEnvTest, CloseWakesSpawnedTasksAndRefusesCalls) {
  auto env = std::make_unique<HiredisEnv>(shared_redis_options());
  std::atomic<bool> woke{false};
  std::atomic<bool> refused{false};
  auto ev = std::shared_ptr<Event>(env->make_event());
  HiredisEnv* raw = env.get();
  env->spawn("sleeper", [&, raw, ev] {
    ev->wait_for(std::chrono::hours(1));  // returns false on close
    woke = true;
    try {
      raw->connection().call({"PING"});
    } catch (const ClosedError&) {
      refused = true;
    }
  });
  env->close();  // joins the task
  EXPECT_TRUE(woke);
  EXPECT_TRUE(refused);
  EXPECT_THROW(env->connection(), ClosedError);
  EXPECT_THROW(env->subscribe("x", [](const std::string&) {}), ClosedError);
  env.reset();
}

TEST_F(HiredisEnvTest, SeveralServers) {
  redsim::testing::RedisServerProcess second;
  HiredisEnv env({shared_redis_options(), HiredisOptions::parse_url(second.url())});
  EXPECT_EQ(env.server_count(), 2u);
  env.connection(0).call({"SET", "k", "zero"});
  env.connection(1).call({"SET", "k", "one"});
  EXPECT_EQ(env.connection(0).call({"GET", "k"}), Reply::bulk("zero"));
  EXPECT_EQ(env.connection(1).call({"GET", "k"}), Reply::bulk("one"));
  EXPECT_THROW(env.connection(2), std::out_of_range);
}

}  // namespace
}  // namespace redsim::lock
