#include "sim/world/zk/coordination_node.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace redsim::zk {
namespace {

struct Fired {
  SessionId session;
  WatchEvent event;
};

class CoordinationNodeTest : public ::testing::Test {
 protected:
  CoordinationNodeTest() {
    node.set_notify([this](SessionId s, const WatchEvent& e) { fired.push_back({s, e}); });
    a = node.open_session(0, 1000).id;
    b = node.open_session(0, 1000).id;
    EXPECT_EQ(node.create(a, "/locks", "", Mode::kPersistent).err, Err::kOk);
  }
  CoordinationNode node{NodeOptions{.min_session_timeout_us = 100}};
  std::vector<Fired> fired;
  SessionId a = 0, b = 0;
};

TEST_F(CoordinationNodeTest, SequentialNamesAreTenDigitsFromTheParentsCversion) {
  auto first = node.create(a, "/locks/lock-", "", Mode::kEphemeralSequential);
  auto second = node.create(b, "/locks/lock-", "", Mode::kEphemeralSequential);
  EXPECT_EQ(first.path, "/locks/lock-0000000000");
  EXPECT_EQ(second.path, "/locks/lock-0000000001");
  EXPECT_LT(first.czxid, second.czxid);
  ASSERT_EQ(node.remove(a, first.path, -1), Err::kOk);
  // The delete bumped the parent's cversion too.
  EXPECT_EQ(node.create(a, "/locks/lock-", "", Mode::kEphemeralSequential).path,
            "/locks/lock-0000000003");
}

TEST_F(CoordinationNodeTest, ErrorsOfCreateAndDelete) {
  EXPECT_EQ(node.create(a, "/missing/x", "", Mode::kPersistent).err, Err::kNoNode);
  EXPECT_EQ(node.create(a, "/locks", "", Mode::kPersistent).err, Err::kNodeExists);
  EXPECT_EQ(node.create(a, "locks", "", Mode::kPersistent).err, Err::kBadArguments);
  auto e = node.create(a, "/locks/e", "", Mode::kEphemeral);
  EXPECT_EQ(node.create(a, "/locks/e/child", "", Mode::kPersistent).err,
            Err::kNoChildrenForEphemerals);
  EXPECT_EQ(node.remove(a, "/locks", -1), Err::kNotEmpty);
  EXPECT_EQ(node.remove(a, e.path, 3), Err::kBadVersion);
  EXPECT_EQ(node.remove(a, e.path, 0), Err::kOk);
  EXPECT_EQ(node.remove(a, e.path, -1), Err::kNoNode);
}

TEST_F(CoordinationNodeTest, WatchesAreOneShot) {
  auto mine = node.create(a, "/locks/lock-", "", Mode::kEphemeralSequential);
  ASSERT_EQ(node.get_data(b, mine.path, true).err, Err::kOk);
  ASSERT_EQ(node.get_children(b, "/locks", true).err, Err::kOk);
  ASSERT_EQ(node.remove(a, mine.path, -1), Err::kOk);
  ASSERT_EQ(fired.size(), 2u);
  EXPECT_EQ(fired[0].session, b);
  EXPECT_EQ(fired[0].event.type, WatchEvent::Type::kNodeDeleted);
  EXPECT_EQ(fired[1].event.type, WatchEvent::Type::kNodeChildrenChanged);
  EXPECT_EQ(fired[1].event.path, "/locks");
  node.create(a, "/locks/again", "", Mode::kEphemeral);
  EXPECT_EQ(fired.size(), 2u);  // both watches were spent
}

TEST_F(CoordinationNodeTest, GetDataOnAnAbsentNodeSetsNoWatchButExistsDoes) {
  EXPECT_EQ(node.get_data(b, "/locks/x", true).err, Err::kNoNode);
  EXPECT_EQ(node.exists(b, "/locks/y", true).err, Err::kNoNode);
  node.create(a, "/locks/x", "", Mode::kEphemeral);
  EXPECT_TRUE(fired.empty());
  node.create(a, "/locks/y", "", Mode::kEphemeral);
  ASSERT_EQ(fired.size(), 1u);
  EXPECT_EQ(fired[0].event.type, WatchEvent::Type::kNodeCreated);
}

TEST_F(CoordinationNodeTest, ExpiryDeletesEphemeralsAndFiresTheirWatches) {
  auto mine = node.create(a, "/locks/lock-", "", Mode::kEphemeralSequential);
  node.create(a, "/locks/keep", "", Mode::kPersistent);
  node.get_data(b, mine.path, true);
  EXPECT_TRUE(node.touch(a, 500));  // a's deadline moves to 1500
  EXPECT_TRUE(node.touch(b, 1400));
  EXPECT_EQ(node.expire_sessions(1499), 0u);
  EXPECT_EQ(node.expire_sessions(1500), 1u);
  EXPECT_FALSE(node.alive(a));
  EXPECT_FALSE(node.has_node(mine.path));
  EXPECT_TRUE(node.has_node("/locks/keep"));
  ASSERT_EQ(fired.size(), 1u);
  EXPECT_EQ(fired[0].event.path, mine.path);
  EXPECT_EQ(node.create(a, "/locks/z", "", Mode::kEphemeral).err, Err::kSessionExpired);
  EXPECT_FALSE(node.touch(a, 1600));
}

TEST_F(CoordinationNodeTest, TimeoutsAreClampedToTheNodesBounds) {
  CoordinationNode n(NodeOptions{.min_session_timeout_us = 100, .max_session_timeout_us = 200});
  EXPECT_EQ(n.open_session(0, 10).timeout_us, 100);
  EXPECT_EQ(n.open_session(0, 1000).timeout_us, 200);
}

TEST_F(CoordinationNodeTest, SetWatchesFiresWhatChangedSinceTheClientsZxid) {
  auto mine = node.create(a, "/locks/lock-", "", Mode::kEphemeralSequential);
  node.get_data(b, mine.path, true);
  const int64_t seen = node.zxid();
  // b's watch is dropped with its connection; a's node goes meanwhile.
  node.set_watches(b, seen, {});
  node.remove(a, mine.path, -1);
  EXPECT_TRUE(fired.empty());
  CoordinationNode::WatchSet w;
  w.data = {mine.path};
  w.child = {"/locks"};
  node.set_watches(b, seen, w);
  ASSERT_EQ(fired.size(), 2u);
  EXPECT_EQ(fired[0].event.type, WatchEvent::Type::kNodeDeleted);
  EXPECT_EQ(fired[1].event.type, WatchEvent::Type::kNodeChildrenChanged);
}

}  // namespace
}  // namespace redsim::zk
