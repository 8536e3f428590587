// TcpServer over real sockets: the fake on a virtual clock, served on a free
// loopback port by a thread of this test; raw clients send bytes and check
// the bytes that come back. Expected protocol errors are what redis-server
// 7.0.15 sent for the same bytes.
#include "tools/server/tcp_server.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "sim/clock.h"
#include "sim/resp/codec.h"
#include "sim/server.h"
#include "tools/server/server_test_util.h"

namespace redsim::server {
namespace {

using testing_util::RawClient;
using testing_util::ServingThread;

class TcpServerTest : public ::testing::Test {
 protected:
  sim::ManualClock clock_;
  sim::Server fake_{clock_};
  ServingThread serving_{fake_, {.bind = "127.0.0.1", .port = 0}};
  int port_ = serving_.port();
};

TEST_F(TcpServerTest, AnswersInlineAndMultibulkCommands) {
  RawClient c(port_);
  EXPECT_TRUE(c.replies("PING\r\n", "+PONG\r\n"));
  c.command({"SET", "k", "v w"});
  EXPECT_TRUE(c.reads("+OK\r\n"));
  // A bare '\n' ends an inline command too.
  EXPECT_TRUE(c.replies("GET k\n", "$3\r\nv w\r\n"));
  EXPECT_TRUE(c.replies("ECHO \"a\\x41\\n\" \r\n", "$3\r\naA\n\r\n"));
  // Blank lines and empty multibulks are skipped.
  EXPECT_TRUE(c.replies("\r\n\n*0\r\n*-1\r\nPING\r\n", "+PONG\r\n"));
  // Redis skips the two bytes after a bulk unread.
  EXPECT_TRUE(c.replies("*1\r\n$4\r\nPINGxx", "+PONG\r\n"));
}

TEST_F(TcpServerTest, PipelinedCommandsAreAnsweredInOrder) {
  RawClient c(port_);
  std::string batch;
  std::string expected;
  for (int i = 1; i <= 2000; ++i) {
    batch += resp::encode_command({"INCR", "n"});
    expected += ":" + std::to_string(i) + "\r\n";
  }
  c.send(batch);
  EXPECT_EQ(c.read(expected.size()), expected);
}

TEST_F(TcpServerTest, RequestSplitAcrossReadsByteByByte) {
  RawClient c(port_);
  std::string value(100000, 'x');
  value[5] = '\r';
  value[6] = '\n';
  std::string req = resp::encode_command({"SET", "big", value});
  for (size_t i = 0; i < 40; ++i) {
    c.send(req.substr(i, 1));
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  EXPECT_TRUE(c.replies(req.substr(40), "+OK\r\n"));
  c.command({"STRLEN", "big"});
  EXPECT_TRUE(c.reads(":100000\r\n"));
  c.command({"GET", "big"});
  EXPECT_EQ(c.read(100000 + 11), "$100000\r\n" + value + "\r\n");
}

struct BadInput {
  std::string bytes;
  std::string reply;  // after "-ERR Protocol error: "
};

TEST_F(TcpServerTest, MalformedInputGetsRedisErrorThenClose_OthersUnaffected) {
  const std::vector<BadInput> cases = {
      {"*3000000000\r\n", "invalid multibulk length"},
      {"*abc\r\n", "invalid multibulk length"},
      {"*+1\r\n", "invalid multibulk length"},
      {"*1\r\n$600000000\r\n", "invalid bulk length"},  // > proto-max-bulk-len (512 MB)
      {"*1\r\n$-1\r\n", "invalid bulk length"},
      {"*1\r\n$01\r\n", "invalid bulk length"},
      {"*1\r\nx\r\n", "expected '$', got 'x'"},
      {"*2\r\n$1\r\na\r\n:1\r\n", "expected '$', got ':'"},
      {"SET \"a b\r\n", "unbalanced quotes in request"},
      {"SET 'a'b\r\n", "unbalanced quotes in request"},
      {std::string(70000, 'a'), "too big inline request"},
      {"*" + std::string(70000, '1'), "too big mbulk count string"},
      {"*1\r\n$" + std::string(70000, '1'), "too big bulk count string"},
  };
  RawClient bystander(port_);
  bystander.command({"SUBSCRIBE", "news"});
  std::string sub = "*3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n";
  EXPECT_TRUE(bystander.reads(sub));
  RawClient worker(port_);
  int n = 0;
  for (const BadInput& bad : cases) {
    SCOPED_TRACE(bad.reply);
    RawClient c(port_);
    // Commands before the bad bytes run and are answered.
    c.send("INCR before\r\n" + bad.bytes);
    std::string want = ":" + std::to_string(++n) + "\r\n-ERR Protocol error: " + bad.reply + "\r\n";
    EXPECT_TRUE(c.reads(want));
    EXPECT_TRUE(c.closed_by_server());
    // Meanwhile the others are served, nothing lost.
    worker.command({"PUBLISH", "news", std::to_string(n)});
    EXPECT_TRUE(worker.reads(":1\r\n"));
    std::string msg = "*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$" +
                      std::to_string(std::to_string(n).size()) + "\r\n" + std::to_string(n) +
                      "\r\n";
    EXPECT_TRUE(bystander.reads(msg));
  }
  worker.command({"GET", "before"});
  std::string count = std::to_string(cases.size());
  std::string want = "$" + std::to_string(count.size()) + "\r\n" + count + "\r\n";
  EXPECT_TRUE(worker.reads(want));
}

TEST_F(TcpServerTest, ProtoMaxBulkLenIsTheLimit) {
  RawClient ok(port_);
  ok.send("*1\r\n$536870912\r\n");  // exactly 512 MB is allowed: the server waits for it
  RawClient bad(port_);
  bad.send("*1\r\n$536870913\r\n");
  std::string want = "-ERR Protocol error: invalid bulk length\r\n";
  EXPECT_TRUE(bad.reads(want));
  EXPECT_TRUE(bad.closed_by_server());
  ok.send("PING");  // still inside the 512 MB argument: no reply
  RawClient other(port_);
  EXPECT_TRUE(other.replies("PING\r\n", "+PONG\r\n"));
}

TEST_F(TcpServerTest, QuitAnswersOkAndCloses) {
  RawClient c(port_);
  EXPECT_TRUE(c.replies("QUIT\r\nPING\r\n", "+OK\r\n"));
  EXPECT_TRUE(c.closed_by_server());
}

// REPLCONF ACK from a client that is not a replica: redis-server 7.0.15
// answers nothing at all; the next command answers as usual.
TEST_F(TcpServerTest, ReplconfAckAnswersNothing) {
  RawClient c(port_);
  EXPECT_TRUE(c.replies("REPLCONF ACK 1\r\nREPLCONF GETACK 1\r\nPING\r\n", "+PONG\r\n"));
  EXPECT_TRUE(c.replies("REPLCONF listening-port 1\r\n", "+OK\r\n"));
}

// CONFIG SET port moves the listener (Redis's changeListenPort); a port
// that cannot be listened on fails the whole CONFIG SET, naming it, and
// every parameter of the call keeps its old value (introspection.tcl's
// "CONFIG SET rollback on apply error"); the old listener keeps serving.
// A loopback socket bound to a free port, listening when `listen`; closed
// by the destructor.
struct PortHolder {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  int port = 0;
  explicit PortHolder(bool listen) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    if (listen) {
      EXPECT_EQ(::listen(fd, 1), 0);
    }
    socklen_t len = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
  }
  ~PortHolder() { ::close(fd); }
};

TEST_F(TcpServerTest, ConfigSetPortMovesTheListenerOrRollsBack) {
  PortHolder taken(/*listen=*/true);
  RawClient c(port_);
  c.command({"CONFIG", "SET", "maxmemory", "10000001", "port", std::to_string(taken.port),
             "client-query-buffer-limit", "10mb"});
  EXPECT_EQ(c.line(),
            "-ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on "
            "this port\r\n");
  EXPECT_EQ(fake_.config().maxmemory_bytes, 0);
  EXPECT_EQ(fake_.config().client_query_buffer_limit, 1024LL * 1024 * 1024);
  EXPECT_EQ(fake_.config().port, port_);
  RawClient again(port_);
  EXPECT_TRUE(again.replies("PING\r\n", "+PONG\r\n"));

  // A free port: the listener moves there; open connections stay.
  int free_port = 0;
  {
    PortHolder probe(/*listen=*/false);
    free_port = probe.port;
  }
  c.command({"CONFIG", "SET", "port", std::to_string(free_port)});
  EXPECT_EQ(c.line(), "+OK\r\n");
  EXPECT_EQ(fake_.config().port, free_port);
  EXPECT_TRUE(c.replies("PING\r\n", "+PONG\r\n"));
  RawClient moved(free_port);
  EXPECT_TRUE(moved.replies("PING\r\n", "+PONG\r\n"));
}

TEST_F(TcpServerTest, ClientReplyOffAndSkip) {
  RawClient c(port_);
  EXPECT_TRUE(c.replies("CLIENT REPLY SKIP\r\nSET a 1\r\nGET a\r\n", "$1\r\n1\r\n"));
  EXPECT_TRUE(c.replies("CLIENT REPLY OFF\r\nSET a 2\r\nGET a\r\nCLIENT REPLY ON\r\nGET a\r\n",
                        "+OK\r\n$1\r\n2\r\n"));
}

// redis-server 7.0.15 (RESP2): CLIENT REPLY OFF silences PING's pub/sub
// reply but neither the confirmations nor the messages (CLIENT_PUSHING).
TEST_F(TcpServerTest, ClientReplyOffLetsPubSubThrough) {
  RawClient sub(port_);
  sub.send("CLIENT REPLY OFF\r\nSUBSCRIBE a b\r\nPING\r\n");
  std::string want =
      "*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n*3\r\n$9\r\nsubscribe\r\n$1\r\nb\r\n:2\r\n";
  EXPECT_TRUE(sub.reads(want));
  RawClient pub(port_);
  EXPECT_TRUE(pub.replies("PUBLISH a hi\r\n", ":1\r\n"));
  EXPECT_TRUE(sub.reads("*3\r\n$7\r\nmessage\r\n$1\r\na\r\n$2\r\nhi\r\n"));
}

TEST_F(TcpServerTest, PubSubPushesAndConfirmationsInOrder) {
  RawClient sub(port_);
  sub.send("SUBSCRIBE a b\r\n");
  std::string want =
      "*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n*3\r\n$9\r\nsubscribe\r\n$1\r\nb\r\n:2\r\n";
  EXPECT_TRUE(sub.reads(want));
  RawClient pub(port_);
  EXPECT_TRUE(pub.replies("PUBLISH b hi\r\nPUBLISH c x\r\nPUBLISH a yo\r\n", ":1\r\n:0\r\n:1\r\n"));
  std::string msgs =
      "*3\r\n$7\r\nmessage\r\n$1\r\nb\r\n$2\r\nhi\r\n"
      "*3\r\n$7\r\nmessage\r\n$1\r\na\r\n$2\r\nyo\r\n";
  EXPECT_TRUE(sub.reads(msgs));
  sub.send("GET a\r\n");
  std::string refused =
      "-ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET "
      "are allowed in this context\r\n";
  EXPECT_TRUE(sub.reads(refused));
}

// HELLO 3 switches only its own connection to RESP3; the bytes are those
// redis-server 7.0.15 sends (HELLO's map, a missing key "_", ZSCORE a
// double, a subscription confirmation and a message as pushes).
TEST_F(TcpServerTest, Hello3SwitchesOneConnectionToResp3) {
  RawClient three(port_), two(port_);
  EXPECT_TRUE(two.replies("ZADD z 1.5 m\r\n", ":1\r\n"));
  three.send("HELLO 3\r\n");
  EXPECT_TRUE(
      three.reads("%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n7.0.15\r\n"
                  "$5\r\nproto\r\n:3\r\n$2\r\nid\r\n"));
  (void)three.line();  // the connection's id
  EXPECT_TRUE(three.reads(
      "$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$7\r\nmodules\r\n*0\r\n"));
  EXPECT_TRUE(three.replies("GET nokey\r\nZSCORE z m\r\n", "_\r\n,1.5\r\n"));
  EXPECT_TRUE(two.replies("GET nokey\r\nZSCORE z m\r\n", "$-1\r\n$3\r\n1.5\r\n"))
      << "the other connection stays RESP2";
  EXPECT_TRUE(three.replies("SUBSCRIBE ch\r\n", ">3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n"));
  EXPECT_TRUE(two.replies("PUBLISH ch hi\r\n", ":1\r\n"));
  EXPECT_TRUE(three.reads(">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n"));
  EXPECT_TRUE(three.replies("RESET\r\nGET nokey\r\n", "+RESET\r\n$-1\r\n"));
}

TEST_F(TcpServerTest, SubscriberThatStopsReadingIsDisconnectedAtTheLimit) {
  RawClient sub(port_);
  sub.send("SUBSCRIBE flood\r\n");
  std::string conf = "*3\r\n$9\r\nsubscribe\r\n$5\r\nflood\r\n:1\r\n";
  EXPECT_TRUE(sub.reads(conf));
  RawClient pub(port_);
  const std::string payload(1024 * 1024, 'p');
  int delivered = 0;
  // The subscriber reads nothing: once ~32 MB wait for it (beyond what the
  // kernel's socket buffers hold), the server drops it.
  for (int i = 0; i < 100; ++i) {
    pub.command({"PUBLISH", "flood", payload});
    std::string r = pub.read(4);
    ASSERT_TRUE(r == ":1\r\n" || r == ":0\r\n") << r;
    if (r == ":0\r\n") break;
    ++delivered;
  }
  EXPECT_GE(delivered, 32);
  EXPECT_LT(delivered, 100);
  EXPECT_TRUE(sub.closed_by_server());
  EXPECT_TRUE(pub.replies("PING\r\n", "+PONG\r\n"));
}

TEST_F(TcpServerTest, MultiExecIsPerConnection) {
  RawClient a(port_);
  RawClient b(port_);
  EXPECT_TRUE(a.replies("MULTI\r\nSET k a\r\n", "+OK\r\n+QUEUED\r\n"));
  // Not queued: b is not in a transaction.
  EXPECT_TRUE(b.replies("SET k b\r\nGET k\r\n", "+OK\r\n$1\r\nb\r\n"));
  EXPECT_TRUE(a.replies("EXEC\r\n", "*1\r\n+OK\r\n"));
  EXPECT_TRUE(b.replies("WATCH k\r\n", "+OK\r\n"));
  EXPECT_TRUE(a.replies("SET k again\r\n", "+OK\r\n"));
  EXPECT_TRUE(b.replies("MULTI\r\nGET k\r\nEXEC\r\n", "+OK\r\n+QUEUED\r\n*-1\r\n"));
}

TEST_F(TcpServerTest, ManyConnectionsAndIdleOnes) {
  std::vector<std::unique_ptr<RawClient>> clients;
  for (int i = 0; i < 200; ++i) clients.push_back(std::make_unique<RawClient>(port_));
  for (int i = 0; i < 200; ++i) clients[i]->command({"SET", "k" + std::to_string(i), "v"});
  for (int i = 0; i < 200; ++i) EXPECT_TRUE(clients[i]->reads("+OK\r\n"));
  EXPECT_TRUE(clients.front()->replies("DBSIZE\r\nINFO clients\r\n", ":200\r\n"));
  std::string info = clients.front()->read_bulk();
  EXPECT_NE(info.find("connected_clients:200\r\n"), std::string::npos) << info;
}

TEST_F(TcpServerTest, VirtualClockMovesOnlyWhenToldAndExpiryCycleRuns) {
  RawClient c(port_);
  EXPECT_TRUE(c.replies("SET k v PX 100\r\nSET keep v\r\n", "+OK\r\n+OK\r\n"));
  std::this_thread::sleep_for(std::chrono::milliseconds(150));  // wall time does not count
  EXPECT_TRUE(c.replies("PTTL k\r\n", ":100\r\n"));
  EXPECT_TRUE(c.replies("DEBUG SLEEP 0.05\r\nREDSIM.ADVANCE 60\r\n", "+OK\r\n+OK\r\n"));
  // The active cycle ran after that batch: the key is gone without a lookup.
  EXPECT_TRUE(c.replies("DBSIZE\r\n", ":1\r\n"));
}

TEST_F(TcpServerTest, ClientListShowsTheTransportsFacts) {
  RawClient c(port_);
  EXPECT_TRUE(c.replies("CLIENT SETNAME me\r\nCLIENT INFO\r\n", "+OK\r\n"));
  std::string info = c.read_bulk();
  EXPECT_NE(info.find(" addr=127.0.0.1:"), std::string::npos) << info;
  EXPECT_NE(info.find(" laddr=127.0.0.1:" + std::to_string(port_) + " fd="), std::string::npos)
      << info;
  EXPECT_NE(info.find(" name=me "), std::string::npos) << info;
  c.send("CONFIG GET port\r\n");
  std::string port = std::to_string(port_);
  std::string want = "*2\r\n$4\r\nport\r\n$" + std::to_string(port.size()) + "\r\n" + port + "\r\n";
  EXPECT_TRUE(c.reads(want));
}

// Issue 15, item 5: maxclients, with redis-server 7.0.15's error line.
TEST_F(TcpServerTest, MaxclientsRefusesConnectionsBeyondIt) {
  RawClient a(port_);
  EXPECT_TRUE(a.replies("CONFIG GET maxclients\r\n", "*2\r\n$10\r\nmaxclients\r\n$5\r\n10000\r\n"));
  EXPECT_TRUE(a.replies("CONFIG SET maxclients 2\r\n", "+OK\r\n"));
  RawClient b(port_);
  EXPECT_TRUE(b.replies("PING\r\n", "+PONG\r\n"));
  RawClient c(port_);
  EXPECT_TRUE(c.reads("-ERR max number of clients reached\r\n"));
  EXPECT_TRUE(c.closed_by_server());
  EXPECT_TRUE(a.replies("PING\r\n", "+PONG\r\n"));
  EXPECT_TRUE(b.replies("PING\r\n", "+PONG\r\n"));
}

// Issue 15, item 6: timeout closes idle clients, not subscribers (as
// redis-server 7.0.15 with CONFIG SET timeout 1). On the virtual clock
// DEBUG SLEEP makes the time pass.
// A blocked connection is not served until a push from another connection
// serves it (its pipelined requests wait, then run in order), or its
// timeout passes on the server clock.
TEST_F(TcpServerTest, BlockedClientWaitsForAPushOrItsTimeout) {
  RawClient a(port_);
  RawClient b(port_);
  a.send("BLPOP q 0\r\nPING\r\n");
  // b sees a blocked before pushing (INFO's blocked_clients).
  for (int i = 0; i < 100; ++i) {
    b.command({"INFO", "clients"});
    if (b.read_bulk().find("blocked_clients:1") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(b.replies("RPUSH q x\r\n", ":1\r\n"));
  EXPECT_TRUE(a.reads("*2\r\n$1\r\nq\r\n$1\r\nx\r\n+PONG\r\n"));
  a.send("BZPOPMIN z 0.1\r\n");
  for (int i = 0; i < 100; ++i) {
    b.command({"INFO", "clients"});
    if (b.read_bulk().find("blocked_clients:1") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(b.replies("REDSIM.ADVANCE 101\r\n", "+OK\r\n"));
  EXPECT_TRUE(a.reads("*-1\r\n"));
}

TEST_F(TcpServerTest, TimeoutClosesIdleClientsButNotSubscribers) {
  RawClient a(port_);
  RawClient idle(port_);
  RawClient sub(port_);
  EXPECT_TRUE(idle.replies("PING\r\n", "+PONG\r\n"));
  EXPECT_TRUE(sub.replies("SUBSCRIBE c\r\n", "*3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:1\r\n"));
  EXPECT_TRUE(a.replies("CONFIG SET timeout 1\r\n", "+OK\r\n"));
  EXPECT_TRUE(a.replies("DEBUG SLEEP 1\r\n", "+OK\r\n"));  // not more than 1 s yet
  EXPECT_TRUE(idle.replies("PING\r\n", "+PONG\r\n"));
  EXPECT_TRUE(a.replies("DEBUG SLEEP 1.5\r\n", "+OK\r\n"));
  EXPECT_TRUE(idle.closed_by_server());
  EXPECT_TRUE(sub.replies("PING\r\n", "*2\r\n$4\r\npong\r\n$0\r\n\r\n"));
  EXPECT_TRUE(a.replies("PING\r\n", "+PONG\r\n"));
}

// Issue 15, item 5: at the descriptor limit the server neither spins nor
// leaves clients hanging. A child process serves with RLIMIT_NOFILE 64
// (maxclients drops to 64 - 32, as Redis's adjustOpenFilesLimit does) and
// every descriptor but three taken, so accept() fails with EMFILE before
// maxclients is reached: those clients get maxclients' error and are
// closed, the others are served, and SHUTDOWN NOSAVE ends the child.
// A big argument is read into a string of its own and stored as it is; a
// pipeline around it goes on as usual (Redis's PROTO_MBULK_BIG_ARG path).
TEST_F(TcpServerTest, BigArgumentsInAPipeline) {
  RawClient c(port_);
  std::string big(300000, 'x');
  for (size_t i = 0; i < big.size(); i += 1000) big[i] = static_cast<char>('a' + i % 26);
  c.send(resp::encode_command({"SET", "k", big, "PX", "100000"}) +
         resp::encode_command({"STRLEN", "k"}) +
         resp::encode_command({"ECHO", std::string(40000, 'e')}) + "PING\r\n");
  EXPECT_TRUE(c.reads("+OK\r\n:300000\r\n"));
  EXPECT_EQ(c.read_bulk(), std::string(40000, 'e'));
  EXPECT_TRUE(c.reads("+PONG\r\n"));
  c.command({"GET", "k"});
  EXPECT_EQ(c.read_bulk(), big);
  EXPECT_TRUE(c.replies("PTTL k\r\n", ":100000\r\n"));
  // Split anywhere: the header alone, then the bytes in pieces.
  std::string req = resp::encode_command({"SET", "k2", big});
  size_t header = req.find(big);
  c.send(req.substr(0, header));
  c.send(req.substr(header, 70000));
  c.send(req.substr(header + 70000));
  EXPECT_TRUE(c.reads("+OK\r\n"));
  c.command({"GET", "k2"});
  EXPECT_EQ(c.read_bulk(), big);
}

// Redis's clientsCron resizing: after a 10 MB request and a 10 MB reply the
// connection's buffers (query, reply, the parser's kept arguments) are back
// to small sizes once a cron tick ran.
TEST_F(TcpServerTest, BuffersShrinkAfterBigRequestsAndReplies) {
  RawClient c(port_);
  const std::string big(10 * 1024 * 1024, 'v');
  c.command({"SET", "big", big});
  EXPECT_TRUE(c.reads("+OK\r\n"));
  c.command({"APPEND", "other", big});  // copies its argument: the parser held it
  EXPECT_TRUE(c.reads(":10485760\r\n"));
  c.command({"GET", "big"});
  EXPECT_EQ(c.read_bulk().size(), big.size());
  RawClient idle(port_);
  idle.command({"GET", "other"});
  EXPECT_EQ(idle.read_bulk().size(), big.size());
  // A cron tick runs after the batch that moves the virtual clock; the
  // PING after it is read once that tick is over.
  EXPECT_TRUE(c.replies("REDSIM.ADVANCE 1000\r\n", "+OK\r\n"));
  EXPECT_TRUE(c.replies("PING\r\n", "+PONG\r\n"));
  EXPECT_LT(serving_.tcp().buffer_bytes(), size_t{256 * 1024});
}

TEST(TcpServerFdLimit, ClientsPastEmfileGetTheMaxClientsError) {
  int port_pipe[2];
  ASSERT_EQ(::pipe(port_pipe), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    rlimit limit{64, 64};
    if (setrlimit(RLIMIT_NOFILE, &limit) != 0) _exit(2);
    sim::ManualClock clock;
    sim::Server fake(clock);
    TcpServer tcp(fake, {.bind = "127.0.0.1", .port = 0});
    int port = tcp.listen();
    if (fake.config().maxclients != 32) _exit(3);
    std::vector<int> taken;
    for (int fd; (fd = ::dup(0)) >= 0;) taken.push_back(fd);
    for (int i = 0; i < 3 && !taken.empty(); ++i) {
      ::close(taken.back());
      taken.pop_back();
    }
    if (::write(port_pipe[1], &port, sizeof port) != sizeof port) _exit(4);
    tcp.run();
    _exit(fake.shutdown_requested() ? 0 : 5);
  }
  ::close(port_pipe[1]);
  int port = 0;
  ASSERT_EQ(::read(port_pipe[0], &port, sizeof port), static_cast<ssize_t>(sizeof port));
  ::close(port_pipe[0]);
  std::vector<std::unique_ptr<RawClient>> served;
  for (int i = 0; i < 3; ++i) {
    served.push_back(std::make_unique<RawClient>(port));
    EXPECT_TRUE(served.back()->replies("PING\r\n", "+PONG\r\n")) << i;
  }
  for (int i = 0; i < 5; ++i) {
    RawClient refused(port);
    EXPECT_TRUE(refused.reads("-ERR max number of clients reached\r\n")) << i;
    EXPECT_TRUE(refused.closed_by_server()) << i;
  }
  EXPECT_TRUE(
      served[0]->replies("CONFIG GET maxclients\r\n", "*2\r\n$10\r\nmaxclients\r\n$2\r\n32\r\n"));
  served[1]->command({"SHUTDOWN", "NOSAVE"});
  EXPECT_TRUE(served[1]->closed_by_server());
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace redsim::server
