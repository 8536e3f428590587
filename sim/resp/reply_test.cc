// Reply's value semantics with its elements held only by aggregates
// (reply.h): copies are deep, moves leave an empty reply behind, and a
// reply may be assigned one of its own elements.
#include "sim/resp/reply.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace redsim::resp {
namespace {

Reply nested() {
  return Reply::array({Reply::bulk(std::string(40, 'x')),
                       Reply::map({Reply::bulk("k"), Reply::array({Reply::integer(7)})}),
                       Reply::integer(3)});
}

TEST(ReplyValue, ScalarsHaveNoElementsAndCanGrowSome) {
  Reply r = Reply::integer(5);
  EXPECT_TRUE(std::as_const(r).elements().empty());
  r.elements().push_back(Reply::ok());  // the mutable view makes a vector on demand
  ASSERT_EQ(r.elements().size(), 1u);
  EXPECT_TRUE(r.elements()[0].is_status());
  EXPECT_EQ(r.integer(), 5);
}

TEST(ReplyValue, CopiesAreDeepAndEqual) {
  Reply a = nested();
  Reply b = a;
  EXPECT_EQ(a, b);
  b.elements()[1].elements()[1].elements()[0] = Reply::integer(8);
  EXPECT_NE(a, b);
  EXPECT_EQ(a.elements()[1].elements()[1].elements()[0], Reply::integer(7));
  Reply c = Reply::bulk("old");
  c = a;
  EXPECT_EQ(c, a);
  c = Reply::ok();
  EXPECT_TRUE(c.elements().empty());
  EXPECT_EQ(c, Reply::ok());
}

TEST(ReplyValue, MovesLeaveAnEmptyReply) {
  Reply a = nested();
  Reply b = std::move(a);
  EXPECT_EQ(b, nested());
  EXPECT_TRUE(std::as_const(a).elements().empty());  // NOLINT: a moved-from reply is valid
  Reply c;
  c = std::move(b);
  EXPECT_EQ(c, nested());
  EXPECT_TRUE(std::as_const(b).elements().empty());  // NOLINT
  b = Reply::bulk("again");                          // and can be reused
  EXPECT_EQ(b, Reply::bulk("again"));
}

TEST(ReplyValue, AssigningItsOwnElement) {
  Reply r = nested();
  r = std::move(r.elements()[1]);  // the map, out of the array that held it
  ASSERT_TRUE(r.is_map());
  EXPECT_EQ(r, Reply::map({Reply::bulk("k"), Reply::array({Reply::integer(7)})}));
  r = std::move(r.elements()[0]);  // a scalar out of the map
  EXPECT_EQ(r, Reply::bulk("k"));
  EXPECT_TRUE(r.elements().empty());
  Reply s = nested();
  s = s.elements()[2];  // by copy
  EXPECT_EQ(s, Reply::integer(3));
  Reply self = nested();
  Reply& alias = self;
  self = std::move(alias);
  EXPECT_EQ(self, nested());
}

}  // namespace
}  // namespace redsim::resp
