// redsim server's replication (tools/server/tcp_replication.cc) over real
// sockets: a redis-server 7.0.15 replica of a redsim master, a redsim
// replica of a redis-server master, and redsim with redsim (masterauth).
// Each test starts its own servers on free loopback ports; waiting for the
// link polls INFO replication (up to 10 s), it asserts no speed.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>

#include "tools/server/server_test_util.h"
#include "tools/server/wall_clock.h"
#include "tools/testing/redis_server_process.h"

namespace redsim::server {
namespace {

using testing_util::RawClient;
using testing_util::ServingThread;

bool eventually(const std::function<bool()>& condition) {
  for (int i = 0; i < 500; ++i) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

std::string bulk(RawClient& c, const std::vector<std::string>& argv) {
  c.command(argv);
  return c.read_bulk();
}

std::string line(RawClient& c, const std::vector<std::string>& argv) {
  c.command(argv);
  return c.line();
}

bool link_up(int port) {
  RawClient c(port);
  return bulk(c, {"INFO", "replication"}).find("master_link_status:up") != std::string::npos;
}

bool have_redis_server() { return access("/usr/bin/redis-server", X_OK) == 0; }

// A directory of the test's own for a redis-server that writes an RDB file
// (a master saves one for each full resync; a replica may keep the file it
// received): RedisServerProcess's default --dir /tmp is shared, and a
// dump.rdb left there would be loaded by the next server started there.
class TempDir {
 public:
  TempDir() {
    char path[] = "/tmp/redsim-repl-XXXXXX";
    if (mkdtemp(path) != nullptr) path_ = path;
  }
  ~TempDir() {
    if (!path_.empty()) std::filesystem::remove_all(path_);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(TcpReplication, RedisServerReplicaSyncsFromRedsimAndFollowsTheStream) {
  if (!have_redis_server()) GTEST_SKIP() << "no /usr/bin/redis-server";
  WallClock clock;
  sim::Server fake(clock);
  ServingThread master(fake, {.bind = "127.0.0.1", .port = 0, .wall_clock = true});
  RawClient m(master.port());
  EXPECT_EQ(line(m, {"SET", "s", "v"}), "+OK\r\n");
  EXPECT_EQ(line(m, {"RPUSH", "l", "a", "b"}), ":2\r\n");
  EXPECT_EQ(line(m, {"SET", "e", "x", "EX", "1000"}), "+OK\r\n");
  EXPECT_EQ(line(m, {"SELECT", "4"}), "+OK\r\n");
  EXPECT_EQ(line(m, {"HSET", "h", "f", "v"}), ":1\r\n");

  // swapdb: the replica loads the file from the socket, writing nothing.
  testing::RedisServerProcess replica(
      {.extra_args = {"--replicaof", "127.0.0.1", std::to_string(master.port()),
                      "--repl-diskless-load", "swapdb"}});
  ASSERT_TRUE(eventually([&] { return link_up(replica.port()); }));
  RawClient r(replica.port());
  EXPECT_EQ(bulk(r, {"GET", "s"}), "v");
  EXPECT_EQ(line(r, {"LLEN", "l"}), ":2\r\n");
  const std::string ttl = line(r, {"TTL", "e"});
  EXPECT_TRUE(ttl == ":1000\r\n" || ttl == ":999\r\n") << ttl;
  EXPECT_EQ(line(r, {"SELECT", "4"}), "+OK\r\n");
  EXPECT_EQ(bulk(r, {"HGET", "h", "f"}), "v");

  // The stream: db 4 first, then db 0 (SELECT), a delete, a script.
  EXPECT_EQ(line(m, {"HSET", "h", "g", "w"}), ":1\r\n");
  EXPECT_EQ(line(m, {"SELECT", "0"}), "+OK\r\n");
  EXPECT_EQ(line(m, {"DEL", "l"}), ":1\r\n");
  EXPECT_EQ(line(m, {"EVAL", "redis.call('incr','n'); redis.call('incr','n')", "0"}), "$-1\r\n");
  ASSERT_TRUE(eventually([&] { return bulk(r, {"HGET", "h", "g"}) == "w"; }));
  EXPECT_EQ(line(r, {"SELECT", "0"}), "+OK\r\n");
  ASSERT_TRUE(eventually([&] { return bulk(r, {"GET", "n"}) == "2"; }));
  EXPECT_EQ(line(r, {"EXISTS", "l"}), ":0\r\n");
  // The replica's ACKs reach the master: INFO's slave0 line and ROLE.
  ASSERT_TRUE(eventually([&] {
    const std::string info = bulk(m, {"INFO", "replication"});
    return info.find("connected_slaves:1") != std::string::npos &&
           info.find(",port=" + std::to_string(replica.port()) + ",state=online") !=
               std::string::npos;
  }));
  EXPECT_EQ(line(m, {"ROLE"}), "*3\r\n");
  RawClient m2(master.port());
  // WAIT blocks until the replica acknowledged (GETACK asks it), or until
  // the timeout when more replicas are asked for than there are.
  EXPECT_EQ(line(m2, {"SET", "w", "1"}), "+OK\r\n");
  EXPECT_EQ(line(m2, {"WAIT", "1", "0"}), ":1\r\n");
  EXPECT_EQ(line(m2, {"WAIT", "2", "50"}), ":1\r\n");
}

TEST(TcpReplication, RedsimReplicaOfRedisServerIsReadOnlyUntilNoOne) {
  if (!have_redis_server()) GTEST_SKIP() << "no /usr/bin/redis-server";
  TempDir dir;  // the master saves the file it sends there
  testing::RedisServerProcess master({.extra_args = {"--dir", dir.path()}});
  RawClient m(master.port());
  EXPECT_EQ(line(m, {"SET", "a", "1"}), "+OK\r\n");
  EXPECT_EQ(line(m, {"RPUSH", "l", "x", "y", "z"}), ":3\r\n");
  EXPECT_EQ(line(m, {"ZADD", "z", "1", "a", "2.5", "b"}), ":2\r\n");
  EXPECT_EQ(line(m, {"SADD", "s", "1", "2", "3"}), ":3\r\n");  // an intset

  WallClock clock;
  sim::Server fake(clock);
  ServingThread replica(fake, {.bind = "127.0.0.1", .port = 0, .wall_clock = true});
  RawClient r(replica.port());
  RawClient sub(replica.port());
  EXPECT_EQ(line(r, {"REPLICAOF", "127.0.0.1", std::to_string(master.port())}), "+OK\r\n");
  ASSERT_TRUE(eventually([&] { return link_up(replica.port()); }));
  EXPECT_EQ(line(r, {"REPLICAOF", "127.0.0.1", std::to_string(master.port())}),
            "+OK Already connected to specified master\r\n");
  EXPECT_EQ(bulk(r, {"GET", "a"}), "1");
  EXPECT_EQ(line(r, {"LLEN", "l"}), ":3\r\n");
  EXPECT_EQ(bulk(r, {"ZSCORE", "z", "b"}), "2.5");
  EXPECT_EQ(line(r, {"SCARD", "s"}), ":3\r\n");
  EXPECT_EQ(line(r, {"SET", "a", "2"}),
            "-READONLY You can't write against a read only replica.\r\n");
  // The master's writes and SPUBLISH come down the link.
  sub.command({"SSUBSCRIBE", "ch"});
  EXPECT_TRUE(sub.reads("*3\r\n$10\r\nssubscribe\r\n$2\r\nch\r\n:1\r\n"));
  EXPECT_EQ(line(m, {"INCR", "a"}), ":2\r\n");
  EXPECT_EQ(line(m, {"SPUBLISH", "ch", "hello"}), ":0\r\n");
  EXPECT_TRUE(sub.reads("*3\r\n$8\r\nsmessage\r\n$2\r\nch\r\n$5\r\nhello\r\n"));
  ASSERT_TRUE(eventually([&] { return bulk(r, {"GET", "a"}) == "2"; }));
  ASSERT_TRUE(eventually([&] {
    return bulk(m, {"INFO", "replication"}).find("connected_slaves:1") != std::string::npos;
  }));

  EXPECT_EQ(line(r, {"REPLICAOF", "NO", "ONE"}), "+OK\r\n");
  EXPECT_EQ(line(r, {"SET", "a", "mine"}), "+OK\r\n");
  EXPECT_NE(bulk(r, {"INFO", "replication"}).find("role:master"), std::string::npos);
}

TEST(TcpReplication, RedsimWithRedsimNeedsTheRightMasterauth) {
  WallClock clock;
  sim::Server master_fake(clock);
  sim::Server replica_fake(clock);
  ServingThread master(master_fake, {.bind = "127.0.0.1", .port = 0, .wall_clock = true});
  ServingThread replica(replica_fake, {.bind = "127.0.0.1", .port = 0, .wall_clock = true});
  RawClient m(master.port());
  RawClient r(replica.port());
  const std::string password("abc\0def", 7);
  EXPECT_EQ(line(m, {"SET", "k", "v"}), "+OK\r\n");
  EXPECT_EQ(line(m, {"CONFIG", "SET", "requirepass", password}), "+OK\r\n");
  EXPECT_EQ(line(r, {"CONFIG", "SET", "masterauth", "abc"}), "+OK\r\n");
  EXPECT_EQ(line(r, {"REPLICAOF", "127.0.0.1", std::to_string(master.port())}), "+OK\r\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_NE(bulk(r, {"INFO", "replication"}).find("master_link_status:down"), std::string::npos);
  EXPECT_EQ(line(r, {"CONFIG", "SET", "masterauth", password}), "+OK\r\n");
  ASSERT_TRUE(eventually([&] { return link_up(replica.port()); }));
  EXPECT_EQ(bulk(r, {"GET", "k"}), "v");
  EXPECT_EQ(line(m, {"AUTH", password}), "+OK\r\n");
  EXPECT_EQ(line(m, {"SET", "k", "w", "PX", "100000"}), "+OK\r\n");
  ASSERT_TRUE(eventually([&] { return bulk(r, {"GET", "k"}) == "w"; }));
  const std::string pttl = line(r, {"PTTL", "k"});
  EXPECT_TRUE(pttl.starts_with(":99") || pttl == ":100000\r\n") << pttl;
  r.command({"ROLE"});
  EXPECT_EQ(r.line(), "*5\r\n");
  EXPECT_EQ(r.read_bulk(), "slave");
}

}  // namespace
}  // namespace redsim::server
