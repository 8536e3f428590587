// HyperLogLog against a real redis-server 7.0 (started on a free loopback
// port): the same commands on both must give the same replies, and a GET of
// the HLL key the same bytes (sparse and dense representations, the cached
// cardinality in the header), for adds crossing sparse to dense, merges,
// hll-sparse-max-bytes, corrupted values SET by hand, and the error texts.
#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "lock/hiredis/reply_conversion.h"
#include "sim/server.h"
#include "sim/sim_test_util.h"
#include "tools/testing/redis_server_process.h"

namespace redsim::sim {
namespace {

// One redis-server for the whole suite (started on the main thread).
class HllReal : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    redis_ = new redsim::testing::RedisServerProcess();
    ctx_ = redisConnect(redis_->host().c_str(), redis_->port());
  }
  static void TearDownTestSuite() {
    redisFree(ctx_);
    delete redis_;
  }
  void SetUp() override {
    ASSERT_NE(ctx_, nullptr);
    ASSERT_EQ(ctx_->err, 0) << ctx_->errstr;
    real({"FLUSHALL"});
    real({"CONFIG", "SET", "hll-sparse-max-bytes", "3000"});
  }

  resp::Reply real(const std::vector<std::string>& argv) {
    std::vector<const char*> ptrs;
    std::vector<size_t> lens;
    for (const std::string& a : argv) {
      ptrs.push_back(a.data());
      lens.push_back(a.size());
    }
    auto* r = static_cast<redisReply*>(
        redisCommandArgv(ctx_, static_cast<int>(argv.size()), ptrs.data(), lens.data()));
    if (r == nullptr) return resp::Reply::error("connection failed");
    resp::Reply out = lock::to_reply(*r);
    freeReplyObject(r);
    return out;
  }
  resp::Reply fake(const std::vector<std::string>& argv) {
    return server_.execute(*session_, Argv(argv.begin(), argv.end()));
  }
  // Runs `argv` on both; the fake must answer as the real server did.
  resp::Reply both(const std::vector<std::string>& argv) {
    resp::Reply want = real(argv);
    resp::Reply got = fake(argv);
    std::string shown;
    for (const std::string& a : argv) {
      shown.append(a, 0, std::min<size_t>(a.size(), 40));
      shown += a.size() > 40 ? "... " : " ";
    }
    if (got.is_bulk() && want.is_bulk() && got.str() != want.str()) {
      // Long values: where they part, not the whole bytes.
      const std::string& a = got.str();
      const std::string& b = want.str();
      size_t i = 0;
      while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
      ADD_FAILURE() << shown << ": fake " << a.size() << " bytes, real " << b.size()
                    << " bytes, first difference at offset " << i;
      return want;
    }
    EXPECT_EQ(got, want) << shown;
    return want;
  }
  // Key `key` holds the same bytes on both.
  void same_value(const std::string& key) { both({"GET", key}); }

  static std::vector<std::string> elements(const std::string& prefix, int from, int to) {
    std::vector<std::string> out;
    for (int i = from; i < to; ++i) out.push_back(prefix + std::to_string(i));
    return out;
  }
  void pfadd(const std::string& key, const std::vector<std::string>& els) {
    std::vector<std::string> argv{"PFADD", key};
    argv.insert(argv.end(), els.begin(), els.end());
    both(argv);
  }

  static redsim::testing::RedisServerProcess* redis_;
  static redisContext* ctx_;
  ManualClock clock_;
  Server server_{clock_};
  std::unique_ptr<Session> session_ = server_.connect();
};

redsim::testing::RedisServerProcess* HllReal::redis_ = nullptr;
redisContext* HllReal::ctx_ = nullptr;

TEST_F(HllReal, AddsCrossingSparseToDenseAreByteIdentical) {
  // Elements of lengths 1..7+ exercise every MurmurHash64A tail.
  for (int n : {0, 1, 2, 3, 7, 10, 50, 100, 300, 700, 1000, 1500, 2000, 2500, 3000, 5000}) {
    const std::string key = "h" + std::to_string(n);
    both({"PFADD", key});
    for (int from = 0; from < n; from += 97)
      pfadd(key, elements("e", from, std::min(n, from + 97)));
    same_value(key);
    both({"PFDEBUG", "ENCODING", key});
    both({"PFCOUNT", key});
    same_value(key);  // the cached cardinality written by PFCOUNT
    both({"PFCOUNT", key});
    both({"PFADD", key, "e0"});  // nothing changes: the cache stays valid
    same_value(key);
    both({"PFADD", key, "fresh-" + std::to_string(n)});
    same_value(key);
    both({"PFDEBUG", "DECODE", key});
    both({"DUMP", key});  // LZF-compressed above 20 bytes, as Redis's DUMP
  }
  // Empty, binary and long elements.
  pfadd("odd", {"", std::string("\0\x01\xff", 3), std::string(1000, 'x'), "12345678", "123456789"});
  same_value("odd");
  both({"PFCOUNT", "odd"});
}

TEST_F(HllReal, SparseMaxBytesAndToDense) {
  both({"CONFIG", "SET", "hll-sparse-max-bytes", "100"});
  for (int from = 0; from < 200; from += 10) {
    pfadd("small", elements("s", from, from + 10));
    same_value("small");
    both({"PFDEBUG", "ENCODING", "small"});
  }
  both({"CONFIG", "SET", "hll-sparse-max-bytes", "0"});
  pfadd("zero", {"a", "b"});
  same_value("zero");
  both({"CONFIG", "SET", "hll-sparse-max-bytes", "3000"});
  pfadd("t", elements("t", 0, 40));
  both({"PFDEBUG", "TODENSE", "t"});
  both({"PFDEBUG", "TODENSE", "t"});
  same_value("t");
  both({"PFDEBUG", "DECODE", "t"});
  pfadd("g", elements("g", 0, 5));
  both({"PFDEBUG", "GETREG", "g"});
  same_value("g");  // GETREG converted it to dense
  both({"PFDEBUG", "ENCODING", "g"});
}

TEST_F(HllReal, MergesAndMultiKeyCounts) {
  pfadd("a", elements("x", 0, 30));
  pfadd("b", elements("x", 20, 60));
  pfadd("c", elements("y", 0, 4000));  // dense
  both({"PFCOUNT", "a", "b"});
  both({"PFCOUNT", "a", "b", "c", "nokey"});
  both({"PFMERGE", "d1", "a", "b"});
  same_value("d1");
  both({"PFCOUNT", "d1"});
  both({"PFMERGE", "d2", "a", "c"});
  same_value("d2");
  both({"PFMERGE", "a", "b"});  // the destination is an input too
  same_value("a");
  both({"PFMERGE", "empty"});
  same_value("empty");
  both({"PFMERGE", "empty", "nokey"});
  same_value("empty");
  both({"CONFIG", "SET", "hll-sparse-max-bytes", "60"});
  both({"PFMERGE", "d3", "b"});  // promoted while merging
  same_value("d3");
  both({"PFDEBUG", "ENCODING", "d3"});
}

TEST_F(HllReal, ErrorsAndTypeChecks) {
  both({"SET", "str", "bar"});
  both({"RPUSH", "list", "x"});
  both({"PFADD", "str", "1"});
  both({"PFADD", "list", "1"});
  both({"PFCOUNT", "str"});
  both({"PFCOUNT", "list"});
  both({"PFCOUNT", "nokey", "str"});
  both({"PFMERGE", "dst", "str"});
  both({"PFMERGE", "str", "nokey"});
  both({"EXISTS", "dst"});
  both({"PFDEBUG", "GETREG", "nokey"});
  both({"PFDEBUG", "ENCODING", "str"});
  both({"PFADD", "h", "a"});
  both({"PFDEBUG", "foo", "h"});
  both({"PFDEBUG", "GETREG"});
  both({"PFDEBUG", "GETREG", "h", "x"});
  both({"PFADD"});
  both({"PFCOUNT"});
  both({"PFMERGE"});
  both({"OBJECT", "ENCODING", "h"});
  both({"SET", "num", "12345678901234567"});
  both({"PFCOUNT", "num"});
}

// The Tcl unit's corruptions, then seeded random ones: every reply and the
// bytes left behind as the real server's.
TEST_F(HllReal, CorruptedValues) {
  pfadd("hll", {"a", "b", "c"});
  both({"APPEND", "hll", "hello"});
  both({"PFCOUNT", "hll"});
  both({"PFADD", "hll", "zz", "yy"});
  same_value("hll");
  both({"DEL", "hll"});
  pfadd("hll", {"a", "b", "c"});
  both({"SETRANGE", "hll", "0", "0123"});
  both({"PFCOUNT", "hll"});
  both({"DEL", "hll"});
  pfadd("hll", {"a", "b", "c"});
  both({"SETRANGE", "hll", "4", "x"});
  both({"PFCOUNT", "hll"});
  both({"DEL", "hll"});
  pfadd("hll", {"a", "b", "c"});
  both({"SETRANGE", "hll", "4", std::string(1, '\0')});
  both({"PFCOUNT", "hll"});

  // Runs past register 16383 (Debian's CVE-2025-32023 fix refuses them).
  const std::string header = std::string("HYLL\x01", 5) + std::string(11, '\0');
  std::string xzeros = header;
  for (int i = 0; i < 3; ++i) xzeros += std::string("\x7f\xff", 2);
  xzeros += '\xff';
  std::string zeros = header + std::string(300, '\x3f') + '\xff';
  for (const std::string& bytes : {xzeros, zeros}) {
    both({"SET", "over", bytes});
    both({"PFCOUNT", "over", "over"});
    both({"PFDEBUG", "GETREG", "over"});
    both({"PFCOUNT", "over"});
    both({"PFMERGE", "dst", "over"});
    both({"PFADD", "over", "a"});
    same_value("over");
  }

  std::mt19937_64 rng(20261124);
  for (int round = 0; round < 300; ++round) {
    const std::string key = "f" + std::to_string(round);
    const int n = static_cast<int>(rng() % (round % 3 == 0 ? 3000 : 60));
    pfadd(key, elements(std::to_string(round) + ":", 0, n));
    std::string bytes = real({"GET", key}).str();
    const int changes = 1 + static_cast<int>(rng() % 5);
    for (int c = 0; c < changes; ++c) {
      switch (rng() % 4) {
        case 0:  // a random byte
        case 1:
          bytes[rng() % bytes.size()] = static_cast<char>(rng() & 0xff);
          break;
        case 2:  // truncated
          bytes.resize(16 + rng() % (bytes.size() - 15));
          break;
        default:  // extended
          bytes += std::string(1 + rng() % 3, static_cast<char>(rng() & 0xff));
      }
    }
    both({"SET", key, bytes});
    switch (round % 5) {
      case 0:
        both({"PFCOUNT", key});
        break;
      case 1:
        both({"PFADD", key, "p", "q", "r", "s", "t", "u"});
        break;
      case 2:
        both({"PFMERGE", "dst", key});
        both({"GET", "dst"});
        break;
      case 3:
        both({"PFCOUNT", key, "f0"});
        break;
      default:
        both({"PFDEBUG", "DECODE", key});
        both({"PFDEBUG", "TODENSE", key});
    }
    same_value(key);
    both({"PFCOUNT", key});
  }
}

// DUMP of strings: integers, raw up to 20 bytes, LZF above (when it saves
// 4 bytes or more), byte for byte.
TEST_F(HllReal, StringDumpsAreByteIdentical) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    const size_t n = round < 40 ? static_cast<size_t>(round) : rng() % 5000;
    const int alphabet = 1 + static_cast<int>(rng() % 40);
    std::string v(n, '\0');
    for (char& c : v) c = static_cast<char>(rng() % 4 == 0 ? 0 : 'a' + rng() % alphabet);
    both({"SET", "s", v});
    both({"DUMP", "s"});
  }
  both({"SET", "s", "12345678901"});
  both({"DUMP", "s"});
  both({"SET", "s", std::string(100000, 'x')});
  both({"DUMP", "s"});
}

}  // namespace
}  // namespace redsim::sim
