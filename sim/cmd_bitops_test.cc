// BITCOUNT, BITPOS, BITOP, BITFIELD, BITFIELD_RO. Expected replies are what
// redis-server 7.0.15 answered to the same commands.
#include <gtest/gtest.h>

#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class BitopsTest : public ServerTest {};

TEST_F(BitopsTest, BitcountRanges) {
  run({"SET", "a", "foobar"});
  EXPECT_EQ(run({"BITCOUNT", "a"}), Int(26));
  EXPECT_EQ(run({"BITCOUNT", "a", "1", "1"}), Int(6));
  EXPECT_EQ(run({"BITCOUNT", "a", "1", "-2", "BIT"}), Int(26));
  EXPECT_EQ(run({"BITCOUNT", "a", "5", "30", "BIT"}), Int(17));
  EXPECT_EQ(run({"BITCOUNT", "a", "1"}), Err(kSyntax));
  EXPECT_EQ(run({"BITCOUNT", "a", "1", "2", "xx"}), Err(kSyntax));
  EXPECT_EQ(run({"BITCOUNT", "nokey", "1", "2", "xx"}), Int(0));
  run({"LPUSH", "l", "x"});
  EXPECT_EQ(run({"BITCOUNT", "l"}), Err(kWrongType));
}

TEST_F(BitopsTest, Bitpos) {
  run({"SET", "a", "foobar"});
  EXPECT_EQ(run({"BITPOS", "a", "0"}), Int(0));
  EXPECT_EQ(run({"BITPOS", "a", "1"}), Int(1));
  EXPECT_EQ(run({"BITPOS", "a", "0", "3", "20", "BIT"}), Int(3));
  EXPECT_EQ(run({"BITPOS", "a", "2"}), Err("ERR The bit argument must be 1 or 0."));
  EXPECT_EQ(run({"BITPOS", "nokey", "1"}), Int(-1));
  EXPECT_EQ(run({"BITPOS", "nokey", "0"}), Int(0));
  run({"SET", "ff", "\xff\xff"});
  EXPECT_EQ(run({"BITPOS", "ff", "0"}), Int(16));             // zero padding past the end
  EXPECT_EQ(run({"BITPOS", "ff", "0", "0", "-1"}), Int(-1));  // an explicit end: none
  EXPECT_EQ(run({"BITPOS", "ff", "1", "7", "15", "BIT"}), Int(7));
  run({"SETBIT", "z", "7", "1"});
  EXPECT_EQ(run({"BITPOS", "z", "1", "0", "-1", "BIT"}), Int(7));
}

TEST_F(BitopsTest, Bitop) {
  run({"SET", "a", "foobar"});
  run({"SET", "b", "fooxbar"});
  EXPECT_EQ(run({"BITOP", "AND", "d", "a", "b"}), Int(7));
  EXPECT_EQ(run({"GET", "d"}), Bulk(std::string("foo```\0", 7)));
  EXPECT_EQ(run({"OBJECT", "ENCODING", "d"}), Bulk("raw"));
  EXPECT_EQ(run({"BITOP", "NOT", "d", "a", "b"}),
            Err("ERR BITOP NOT must be called with a single source key."));
  EXPECT_EQ(run({"BITOP", "foo", "d", "a"}), Err(kSyntax));
  EXPECT_EQ(run({"BITOP", "AND", "d", "nokey", "nokey2"}), Int(0));
  EXPECT_EQ(run({"EXISTS", "d"}), Int(0));
  run({"LPUSH", "l", "x"});
  EXPECT_EQ(run({"BITOP", "AND", "d", "a", "l"}), Err(kWrongType));
}

TEST_F(BitopsTest, BitfieldTypesOffsetsAndOverflow) {
  EXPECT_EQ(
      run({"BITFIELD", "bf",       "SET", "u8",     "#1",  "255", "INCRBY", "u8",       "8",
           "10",       "OVERFLOW", "SAT", "INCRBY", "i4",  "0",   "100",    "OVERFLOW", "FAIL",
           "INCRBY",   "u2",       "100", "5",      "GET", "i16", "0"}),
      Arr({Int(0), Int(9), Int(7), Nil(), Int(28681)}));
  EXPECT_EQ(run({"BITFIELD", "b64", "SET", "i64", "0", "-1", "GET", "u63", "0", "GET", "i64", "0"}),
            Arr({Int(0), Int(9223372036854775807LL), Int(-1)}));
  const char* type_error =
      "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but "
      "i64 is.";
  EXPECT_EQ(run({"BITFIELD", "bf", "GET", "u64", "0"}), Err(type_error));
  EXPECT_EQ(run({"BITFIELD", "bf", "GET", "i0", "0"}), Err(type_error));
  EXPECT_EQ(run({"BITFIELD", "bf", "OVERFLOW", "foo"}), Err("ERR Invalid OVERFLOW type specified"));
  EXPECT_EQ(run({"BITFIELD", "bf", "SET", "i8", "-1", "1"}),
            Err("ERR bit offset is not an integer or out of range"));
  EXPECT_EQ(run({"BITFIELD_RO", "bf", "SET", "i8", "0", "1"}),
            Err("ERR BITFIELD_RO only supports the GET subcommand"));
  EXPECT_EQ(run({"BITFIELD_RO", "bf", "GET", "u8", "0"}), Arr({Int(112)}));
  EXPECT_EQ(run({"BITFIELD", "nokey", "GET", "u8", "0"}), Arr({Int(0)}));
  EXPECT_EQ(run({"EXISTS", "nokey"}), Int(0));
  EXPECT_EQ(run({"BITFIELD", "w", "OVERFLOW", "WRAP", "INCRBY", "i8", "0", "200", "OVERFLOW", "SAT",
                 "INCRBY", "i8", "0", "-300"}),
            Arr({Int(-56), Int(-128)}));
}

}  // namespace
}  // namespace redsim::sim
