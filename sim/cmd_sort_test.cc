// SORT and SORT_RO. Expected replies are what redis-server 7.0.15 answered
// to the same commands.
#include <gtest/gtest.h>

#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class SortTest : public ServerTest {};

TEST_F(SortTest, NumericAlphaLimitAndDesc) {
  run({"RPUSH", "l", "3", "1", "2", "10", "1.5"});
  EXPECT_EQ(run({"SORT", "l"}), Bulks({"1", "1.5", "2", "3", "10"}));
  EXPECT_EQ(run({"SORT", "l", "DESC"}), Bulks({"10", "3", "2", "1.5", "1"}));
  EXPECT_EQ(run({"SORT", "l", "ALPHA"}), Bulks({"1", "1.5", "10", "2", "3"}));
  EXPECT_EQ(run({"SORT", "l", "LIMIT", "1", "2"}), Bulks({"1.5", "2"}));
  EXPECT_EQ(run({"SORT", "l", "LIMIT", "10", "2"}), Bulks({}));
  EXPECT_EQ(run({"SORT", "l", "LIMIT", "x", "2"}), Err(kNotInt));
  EXPECT_EQ(run({"SORT", "l", "LIMIT", "1"}), Err(kSyntax));
  run({"RPUSH", "bad", "a", "1"});
  EXPECT_EQ(run({"SORT", "bad"}), Err("ERR One or more scores can't be converted into double"));
  EXPECT_EQ(run({"SORT", "bad", "ALPHA"}), Bulks({"1", "a"}));
  run({"SET", "str", "x"});
  EXPECT_EQ(run({"SORT", "str"}), Err(kWrongType));
  EXPECT_EQ(run({"SORT", "nokey"}), Bulks({}));
}

// LIMIT's numbers are clamped to the value's size before start + count
// (Redis's sortCommandGeneric), so the largest ones neither overflow (UBSan
// in dispatch_fuzz) nor change the answer.
TEST_F(SortTest, LimitWithTheLargestNumbersIsClampedToTheValue) {
  const std::string max = "9223372036854775807";
  const std::string min = "-9223372036854775808";
  run({"RPUSH", "l", "3", "1", "2", "10", "1.5"});
  EXPECT_EQ(run({"SORT", "l", "LIMIT", "1", max}), Bulks({"1.5", "2", "3", "10"}));
  EXPECT_EQ(run({"SORT", "l", "LIMIT", max, max}), Bulks({}));
  EXPECT_EQ(run({"SORT", "l", "LIMIT", min, max}), Bulks({"1", "1.5", "2", "3", "10"}));
  EXPECT_EQ(run({"SORT", "l", "LIMIT", "2", min}), Bulks({"2", "3", "10"}));
  EXPECT_EQ(run({"SORT", "l", "BY", "nosort", "LIMIT", "3", max}), Bulks({"10", "1.5"}));
  EXPECT_EQ(run({"SORT", "l", "BY", "nosort", "DESC", "LIMIT", "3", max}), Bulks({"1", "3"}));
}

TEST_F(SortTest, ByAndGetPatterns) {
  run({"RPUSH", "l", "3", "1", "2", "10", "1.5"});
  run({"MSET", "w_3", "30", "w_1", "10", "w_2", "20", "w_10", "5"});
  run({"HSET", "h_3", "f", "c"});
  run({"HSET", "h_1", "f", "a"});
  // A missing weight sorts as 0; GET # is the element, a missing GET nil.
  EXPECT_EQ(run({"SORT", "l", "BY", "w_*", "GET", "#", "GET", "h_*->f"}),
            Arr({Bulk("1.5"), Nil(), Bulk("10"), Nil(), Bulk("1"), Bulk("a"), Bulk("2"), Nil(),
                 Bulk("3"), Bulk("c")}));
  // BY a pattern without '*' does not sort: the list's order, reversed by DESC.
  EXPECT_EQ(run({"SORT", "l", "BY", "nosort", "DESC", "LIMIT", "1", "2"}), Bulks({"10", "2"}));
  EXPECT_EQ(run({"SORT", "l", "GET", "h_*->f", "STORE", "dst"}), Int(5));
  EXPECT_EQ(run({"LRANGE", "dst", "0", "-1"}), Bulks({"a", "", "", "c", ""}));
  EXPECT_EQ(run({"SORT", "nokey", "STORE", "dst"}), Int(0));
  EXPECT_EQ(run({"EXISTS", "dst"}), Int(0));
  EXPECT_EQ(run({"SORT_RO", "l", "STORE", "x"}), Err(kSyntax));
  EXPECT_EQ(run({"SORT_RO", "l", "DESC"}), Bulks({"10", "3", "2", "1.5", "1"}));
}

TEST_F(SortTest, SetsAreSortedWhenStoredEvenByNosort) {
  run({"SADD", "s", "b", "a", "c"});
  EXPECT_EQ(run({"SORT", "s", "BY", "nosort", "STORE", "d"}), Int(3));
  EXPECT_EQ(run({"LRANGE", "d", "0", "-1"}), Bulks({"a", "b", "c"}));
  run({"ZADD", "z", "1", "c", "2", "b", "3", "a"});
  EXPECT_EQ(run({"SORT", "z", "BY", "nosort"}), Bulks({"c", "b", "a"}));
  EXPECT_EQ(run({"SORT", "z", "BY", "nosort", "DESC", "LIMIT", "0", "2"}), Bulks({"a", "b"}));
  EXPECT_EQ(run({"SORT", "z", "ALPHA"}), Bulks({"a", "b", "c"}));
  EXPECT_EQ(run({"OBJECT", "ENCODING", "z"}), Bulk("skiplist"));  // SORT converts it
}

}  // namespace
}  // namespace redsim::sim
