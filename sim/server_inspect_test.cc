// Server's read-only inspection (databases, key_count, stored_keys, peek,
// inconsistency): the shapes sim/server.h promises, and no side effect.
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/server.h"
#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT
using Strings = std::vector<std::string>;

class InspectTest : public ServerTest {};

TEST_F(InspectTest, EachTypeInItsReadCommandsOrder) {
  run({"SET", "s", "v"});
  run({"HSET", "h", "f2", "b", "f1", "a"});
  run({"RPUSH", "l", "x", "y", "z"});
  run({"SADD", "set", "3", "1", "2"});
  run({"ZADD", "z", "2", "m2", "1.5", "m1"});

  const std::optional<StoredKey> s = server_->peek("s");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->type, "string");
  EXPECT_EQ(s->elements, Strings{"v"});
  EXPECT_EQ(s->expire_at_ms, std::nullopt);
  EXPECT_FALSE(s->expired);
  EXPECT_TRUE(s->scores.empty());

  EXPECT_EQ(server_->peek("h")->type, "hash");
  EXPECT_EQ(server_->peek("h")->elements, (Strings{"f2", "b", "f1", "a"}));  // HGETALL
  EXPECT_EQ(server_->peek("l")->type, "list");
  EXPECT_EQ(server_->peek("l")->elements, (Strings{"x", "y", "z"}));
  EXPECT_EQ(server_->peek("set")->type, "set");
  EXPECT_EQ(server_->peek("set")->elements, (Strings{"1", "2", "3"}));  // an intset: ascending
  EXPECT_EQ(server_->peek("z")->type, "zset");
  EXPECT_EQ(server_->peek("z")->elements, (Strings{"m1", "m2"}));
  EXPECT_EQ(server_->peek("z")->scores, (std::vector<double>{1.5, 2}));
  EXPECT_EQ(server_->peek("absent"), std::nullopt);
}

TEST_F(InspectTest, AnExpiredKeyIsSeenAsStoredAndNotDeleted) {
  run({"SET", "k", "v", "PX", "100"});
  const int64_t deadline = now_ms() + 100;
  EXPECT_EQ(server_->peek("k")->expire_at_ms, deadline);
  EXPECT_FALSE(server_->peek("k")->expired);
  advance_ms(100);  // at the deadline: not expired yet (now > deadline)
  EXPECT_FALSE(server_->peek("k")->expired);
  advance_ms(1);
  EXPECT_TRUE(server_->peek("k")->expired);
  EXPECT_EQ(server_->key_count(), 1u);  // peek deleted nothing
  EXPECT_EQ(server_->stored_keys(), Strings{"k"});
  EXPECT_EQ(server_->peek("k")->elements, Strings{"v"});
  EXPECT_EQ(run({"GET", "k"}), Nil());  // a command expires it
  EXPECT_EQ(server_->peek("k"), std::nullopt);
  EXPECT_EQ(server_->key_count(), 0u);
}

TEST_F(InspectTest, KeysPerDatabaseInBytewiseOrder) {
  run({"SET", "b", "1"});
  run({"SET", "a", "1"});
  run({"SET", "B", "1"});
  run({"SELECT", "3"});
  run({"SET", "other", "1"});
  EXPECT_EQ(server_->databases(), 16);
  EXPECT_EQ(server_->stored_keys(0), (Strings{"B", "a", "b"}));
  EXPECT_EQ(server_->key_count(0), 3u);
  EXPECT_EQ(server_->stored_keys(3), Strings{"other"});
  EXPECT_EQ(server_->peek("other"), std::nullopt);  // db 0 by default
  EXPECT_EQ(server_->peek("other", 3)->elements, Strings{"1"});
  EXPECT_THROW(server_->peek("a", 16), std::out_of_range);
  EXPECT_THROW(server_->key_count(-1), std::out_of_range);
  EXPECT_THROW(server_->stored_keys(16), std::out_of_range);
  EXPECT_EQ(server_->inconsistency(), "");
}

}  // namespace
}  // namespace redsim::sim
