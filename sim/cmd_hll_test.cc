// HyperLogLog commands. Expected replies and bytes are what redis-server
// 7.0.15 answered to the same commands (sim/cmd_hll_real_test.cc compares
// many more against a live server).
#include <gtest/gtest.h>

#include <string>

#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class HllTest : public ServerTest {};

// The bytes of a literal, NULs included.
template <size_t N>
std::string bytes(const char (&s)[N]) {
  return std::string(s, N - 1);
}

TEST_F(HllTest, SparseBytesAndCachedCardinality) {
  EXPECT_EQ(run({"PFADD", "h", "a", "b", "c"}), Int(1));
  EXPECT_EQ(run({"PFADD", "h", "a", "b", "c"}), Int(0));
  // The cache is stale (top bit of byte 15) until PFCOUNT writes it.
  EXPECT_EQ(run({"GETRANGE", "h", "15", "15"}), Bulk("\x80"));
  EXPECT_EQ(run({"PFCOUNT", "h"}), Int(3));
  EXPECT_EQ(run({"GET", "h"}), Bulk(bytes("HYLL\x01\0\0\0\x03\0\0\0\0\0\0\0"
                                          "`\xf3\x80P\xb1\x84K\xfb\x80"
                                          "BZ")));
  EXPECT_EQ(run({"PFDEBUG", "DECODE", "h"}), Bulk("Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603"));
  EXPECT_EQ(run({"PFDEBUG", "ENCODING", "h"}), Status("sparse"));
  EXPECT_EQ(run({"OBJECT", "ENCODING", "h"}), Bulk("raw"));
  EXPECT_EQ(run({"PFADD", "h2", ""}), Int(1));
  EXPECT_EQ(run({"GET", "h2"}), Bulk(bytes("HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80"
                                           "W1\x84h\xcc")));
  EXPECT_EQ(run({"PFADD", "h3", "1", "2", "3", "4", "5"}), Int(1));
  EXPECT_EQ(run({"PFCOUNT", "h3"}), Int(5));
  EXPECT_EQ(run({"PFADD", "h3", "6", "7", "8", "8", "9", "10"}), Int(1));
  EXPECT_EQ(run({"PFCOUNT", "h3"}), Int(10));
  EXPECT_EQ(run({"PFMERGE", "m", "h", "h3"}), Ok());
  EXPECT_EQ(run({"PFCOUNT", "m"}), Int(13));
  EXPECT_EQ(run({"GET", "m"}), Bulk(bytes("HYLL\x01\0\0\0\x0d\0\0\0\0\0\0\0"
                                          "A\xee\x84H#\x80SQ\x80"
                                          "C\x8b\x80IS\x80@\x92\x80"
                                          "F\xc8\x84"
                                          "Eu\x80"
                                          "B\xd7\x80"
                                          "B\x12\x8c@\xb8\x80\x15\x84@\xc6\x80"
                                          "BZ")));
}

TEST_F(HllTest, DenseAndMultiKeyCount) {
  std::vector<std::string> argv{"PFADD", "big"};
  for (int i = 1; i <= 3000; ++i) argv.push_back(std::to_string(i));
  EXPECT_EQ(server_->execute(*s_, Argv(argv.begin(), argv.end())), Int(1));
  EXPECT_EQ(run({"PFCOUNT", "big"}), Int(3005));
  EXPECT_EQ(run({"STRLEN", "big"}), Int(12304));
  EXPECT_EQ(run({"PFDEBUG", "ENCODING", "big"}), Status("dense"));
  EXPECT_EQ(run({"PFADD", "h", "a", "b", "c"}), Int(1));
  EXPECT_EQ(run({"PFADD", "h3", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}), Int(1));
  EXPECT_EQ(run({"PFCOUNT", "h", "h3", "big", "nokey"}), Int(3009));
  EXPECT_EQ(run({"PFDEBUG", "TODENSE", "h"}), Int(1));
  EXPECT_EQ(run({"PFDEBUG", "TODENSE", "h"}), Int(0));
  EXPECT_EQ(run({"PFDEBUG", "DECODE", "h"}), Err("ERR HLL encoding is not sparse"));
  EXPECT_EQ(run({"PFCOUNT", "h"}), Int(3));
}

TEST_F(HllTest, Errors) {
  EXPECT_EQ(run({"SET", "s", "bar"}), Ok());
  EXPECT_EQ(run({"PFADD", "s", "x"}),
            Err("WRONGTYPE Key is not a valid HyperLogLog string value."));
  EXPECT_EQ(run({"RPUSH", "l", "x"}), Int(1));
  EXPECT_EQ(run({"PFCOUNT", "l"}), Err(kWrongType));
  EXPECT_EQ(run({"PFDEBUG", "GETREG", "nokey"}), Err("ERR The specified key does not exist"));
  EXPECT_EQ(run({"PFADD", "h", "a"}), Int(1));
  EXPECT_EQ(run({"PFDEBUG", "Nope", "h"}), Err("ERR Unknown PFDEBUG subcommand 'Nope'"));
  EXPECT_EQ(run({"APPEND", "h", "hello"}), Int(26));
  EXPECT_EQ(run({"PFCOUNT", "h"}), Err("INVALIDOBJ Corrupted HLL object detected"));
  EXPECT_EQ(run({"CONFIG", "SET", "hll-sparse-max-bytes", "1kb"}), Ok());
  EXPECT_EQ(run({"CONFIG", "GET", "hll-sparse-max-bytes"}),
            Bulks({"hll-sparse-max-bytes", "1024"}));
  EXPECT_EQ(run({"CONFIG", "SET", "hll-sparse-max-bytes", "-1"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'hll-sparse-max-bytes') - "
                "argument must be a memory value"));
}

TEST_F(HllTest, SelfTestPasses) { EXPECT_EQ(run({"PFSELFTEST"}), Ok()); }

}  // namespace
}  // namespace redsim::sim
