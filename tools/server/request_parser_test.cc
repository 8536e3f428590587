// RequestParser on its own: incremental parsing and the limits. The wire
// behaviour against real sockets is in tcp_server_test.cc.
#include "tools/server/request_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace redsim::server {
namespace {

using Status = RequestParser::Status;
using Argv = std::vector<std::string>;

std::string resp_like(const std::string& arg) {
  return "*2\r\n$4\r\nECHO\r\n$" + std::to_string(arg.size()) + "\r\n" + arg + "\r\n";
}

TEST(RequestParser, MultibulkAndInline) {
  RequestParser p;
  std::string in = "*2\r\n$3\r\nGET\r\n$1\r\nk\r\nECHO 'a b' \"c\\td\"\r\n";
  size_t pos = 0;
  ASSERT_EQ(p.parse(in, &pos), Status::kCommand);
  EXPECT_EQ(p.argv(), (Argv{"GET", "k"}));
  ASSERT_EQ(p.parse(in, &pos), Status::kCommand);
  EXPECT_EQ(p.argv(), (Argv{"ECHO", "a b", "c\td"}));
  EXPECT_EQ(p.parse(in, &pos), Status::kNeedMore);
  EXPECT_EQ(pos, in.size());
}

TEST(RequestParser, ResumesAPartialMultibulkAfterTheBufferIsRebased) {
  RequestParser p;
  std::string in = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhel";
  size_t pos = 0;
  EXPECT_EQ(p.parse(in, &pos), Status::kNeedMore);
  EXPECT_EQ(p.pending_bulk_bytes(in.size() - pos), 4u);  // "lo\r\n"
  std::string rest = in.substr(pos) + "lo\r\n";
  pos = 0;
  ASSERT_EQ(p.parse(rest, &pos), Status::kCommand);
  EXPECT_EQ(p.argv(), (Argv{"SET", "k", "hello"}));
}

TEST(RequestParser, BigBulkIsSuppliedWholeAndLargeArgumentsAreReleased) {
  RequestParser p;
  const std::string big(RequestParser::kBigArgBytes, 'b');
  std::string in = "*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + std::to_string(big.size()) + "\r\nbbb";
  size_t pos = 0;
  EXPECT_EQ(p.parse(in, &pos), Status::kNeedMore);
  EXPECT_EQ(pos, in.size() - 3);  // at the bulk's first byte
  ASSERT_EQ(p.big_bulk_len(), big.size());
  std::string bulk = big;
  const char* bytes = bulk.data();
  EXPECT_EQ(p.supply_bulk(std::move(bulk)), Status::kNeedMore);  // one argument to go
  EXPECT_EQ(p.big_bulk_len(), 0u);
  std::string tail = "$2\r\nPX\r\n";
  pos = 0;
  ASSERT_EQ(p.parse(tail, &pos), Status::kCommand);
  ASSERT_EQ(p.argv().size(), 4u);
  EXPECT_EQ(p.argv()[2].data(), bytes);  // the supplied string itself
  EXPECT_EQ(p.argv()[2], big);
  EXPECT_EQ(p.argv()[3], "PX");
  // In the middle of a request nothing is dropped (redsim server's cron
  // runs between reads).
  {
    RequestParser q;
    std::string head = "*3\r\n$3\r\nSET\r\n$" + std::to_string(big.size()) + "\r\n" + big + "\r\n";
    size_t at = 0;
    ASSERT_EQ(q.parse(head, &at), Status::kNeedMore);
    q.release_large_args(1024);
    std::string rest = "$1\r\nv\r\n";
    at = 0;
    ASSERT_EQ(q.parse(rest, &at), Status::kCommand);
    ASSERT_EQ(q.argv().size(), 3u);
    EXPECT_EQ(q.argv()[0], "SET");
    EXPECT_EQ(q.argv()[1], big);
    EXPECT_EQ(q.argv()[2], "v");
  }
  // After the command, a big argument's buffer is not kept for reuse.
  EXPECT_LT(p.release_large_args(1024), size_t{1024});
  EXPECT_TRUE(p.argv()[2].empty());
  EXPECT_EQ(p.argv()[1], "k");
  // A big bulk that arrives whole is parsed from the buffer as any other.
  std::string whole = resp_like(big);
  pos = 0;
  ASSERT_EQ(p.parse(whole, &pos), Status::kCommand);
  EXPECT_EQ(p.argv(), (Argv{"ECHO", big}));
}

TEST(RequestParser, ReusedArgumentSlotsHoldExactlyTheNewCommand) {
  RequestParser p;
  std::string in =
      "*3\r\n$3\r\nSET\r\n$20\r\nkey:0123456789abcdef\r\n$1\r\nv\r\n"
      "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n*4\r\n$1\r\na\r\n$0\r\n\r\n$1\r\nc\r\n$1\r\nd\r\n";
  size_t pos = 0;
  ASSERT_EQ(p.parse(in, &pos), Status::kCommand);
  EXPECT_EQ(p.argv(), (Argv{"SET", "key:0123456789abcdef", "v"}));
  ASSERT_EQ(p.parse(in, &pos), Status::kCommand);
  EXPECT_EQ(p.argv(), (Argv{"GET", "k"}));
  ASSERT_EQ(p.parse(in, &pos), Status::kCommand);
  EXPECT_EQ(p.argv(), (Argv{"a", "", "c", "d"}));
}

TEST(RequestParser, BinaryArgumentsKeepEveryByte) {
  RequestParser p;
  std::string value("a\0b\r\nc", 6);
  std::string in = "*2\r\n$4\r\nECHO\r\n$6\r\n" + value + "\r\n";
  size_t pos = 0;
  ASSERT_EQ(p.parse(in, &pos), Status::kCommand);
  EXPECT_EQ(p.argv()[1], value);
}

// tests/unit/auth.tcl: before AUTH, at most 10 arguments of 16384 bytes.
TEST(RequestParser, UnauthenticatedLimits) {
  RequestParser p;
  p.set_unauthenticated(true);
  size_t pos = 0;
  EXPECT_EQ(p.parse("*100\r\n", &pos), Status::kError);
  EXPECT_EQ(p.error(), "Protocol error: unauthenticated multibulk length");
  RequestParser q;
  q.set_unauthenticated(true);
  pos = 0;
  EXPECT_EQ(q.parse("*1\r\n$100000000\r\n", &pos), Status::kError);
  EXPECT_EQ(q.error(), "Protocol error: unauthenticated bulk length");
  RequestParser ok;
  ok.set_unauthenticated(true);
  pos = 0;
  std::string ten = "*10\r\n";
  for (int i = 0; i < 10; ++i) ten += "$16384\r\n" + std::string(16384, 'x') + "\r\n";
  EXPECT_EQ(ok.parse(ten, &pos), Status::kCommand);
  ok.set_unauthenticated(false);
  pos = 0;
  EXPECT_EQ(ok.parse("*11\r\n$1\r\na\r\n", &pos), Status::kNeedMore);  // allowed once authenticated
}

TEST(RequestParser, Errors) {
  struct Case {
    std::string in;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"*2147483648\r\n", "Protocol error: invalid multibulk length"},
      {"*1\r\n$-5\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n\r\n", "Protocol error: expected '$', got ' '"},  // CR shown as a space
      {"\"open\r\n", "Protocol error: unbalanced quotes in request"},
  };
  for (const Case& c : cases) {
    RequestParser p;
    size_t pos = 0;
    EXPECT_EQ(p.parse(c.in, &pos), Status::kError) << c.in;
    EXPECT_EQ(p.error(), c.error);
  }
  RequestParser small(1024 * 1024);
  size_t pos = 0;
  EXPECT_EQ(small.parse("*1\r\n$1048577\r\n", &pos), Status::kError);
  EXPECT_EQ(small.error(), "Protocol error: invalid bulk length");
}

TEST(RequestParser, WaitsUpTo64KiBForALineEnd) {
  RequestParser p;
  std::string in(65536, 'a');
  size_t pos = 0;
  EXPECT_EQ(p.parse(in, &pos), Status::kNeedMore);
  in += 'a';
  EXPECT_EQ(p.parse(in, &pos), Status::kError);
  EXPECT_EQ(p.error(), "Protocol error: too big inline request");
}

}  // namespace
}  // namespace redsim::server
