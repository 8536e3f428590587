// Test helpers for tools/server/*_test.cc: a TcpServer served by a thread of
// the test on a free loopback port, and a raw client that sends bytes and
// checks the bytes that come back, with a 10 s timeout on every read.
//
//   sim::ManualClock clock;
//   sim::Server fake(clock);
//   ServingThread serving(fake, {.bind = "127.0.0.1", .port = 0});
//   RawClient c(serving.port());
//   EXPECT_TRUE(c.replies("PING\r\n", "+PONG\r\n"));
//   c.command({"GET", "k"});
//   EXPECT_EQ(c.line(), "$-1\r\n");
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "sim/resp/codec.h"
#include "sim/server.h"
#include "tools/server/tcp_server.h"

namespace redsim::server::testing_util {

inline constexpr int kReadTimeoutMs = 10000;

// TcpServer over `fake`, listening at once (port() is the port picked) and
// served by a thread until stop() or destruction.
class ServingThread {
 public:
  ServingThread(sim::Server& fake, const TcpServerOptions& options) : tcp_(fake, options) {
    port_ = tcp_.listen();
    thread_ = std::thread([this] { tcp_.run(); });
  }
  ~ServingThread() { stop(); }
  ServingThread(const ServingThread&) = delete;
  ServingThread& operator=(const ServingThread&) = delete;

  int port() const { return port_; }
  TcpServer& tcp() { return tcp_; }
  // request_stop() and join; the server closes every connection. Idempotent.
  void stop() {
    if (!thread_.joinable()) return;
    tcp_.request_stop();
    thread_.join();
  }

 private:
  TcpServer tcp_;
  int port_ = 0;
  std::thread thread_;
};

// A blocking loopback client with timeouts on every read.
class RawClient {
 public:
  explicit RawClient(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  }
  ~RawClient() { ::close(fd_); }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  void send(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      ASSERT_GT(n, 0);
      bytes.remove_prefix(static_cast<size_t>(n));
    }
  }
  void command(const std::vector<std::string>& argv) { send(resp::encode_command(argv)); }
  // Exactly n bytes, or fewer if the server closed or nothing came for 10 s.
  std::string read(size_t n) {
    std::string out;
    while (out.size() < n) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, kReadTimeoutMs) <= 0) break;
      char buf[65536];
      ssize_t got = ::recv(fd_, buf, std::min(sizeof buf, n - out.size()), 0);
      if (got <= 0) break;
      out.append(buf, static_cast<size_t>(got));
    }
    return out;
  }
  // One reply line with its CRLF; what came so far if nothing more comes
  // for 10 s.
  std::string line() {
    std::string out;
    while (!out.ends_with("\r\n")) {
      std::string b = read(1);
      if (b.empty()) break;
      out += b;
    }
    return out;
  }
  // The payload of a bulk reply (its header line when it is not one).
  std::string read_bulk() {
    std::string header = line();
    if (!header.ends_with("\r\n") || header[0] != '$') return header;
    std::string body = read(std::stoul(header.substr(1)) + 2);
    return body.substr(0, body.size() - 2);
  }
  // Reads as many bytes as `want` has; success when they are `want`.
  //   EXPECT_TRUE(c.reads("+OK\r\n"));
  ::testing::AssertionResult reads(std::string_view want) {
    const std::string got = read(want.size());
    if (got == want) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "read " << ::testing::PrintToString(got) << "\n want "
                                         << ::testing::PrintToString(std::string(want));
  }
  // send(request), then reads(want).
  ::testing::AssertionResult replies(std::string_view request, std::string_view want) {
    send(request);
    return reads(want);
  }
  // True when the server closed the connection (EOF within 10 s, after
  // draining whatever was still buffered).
  bool closed_by_server() {
    while (true) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, kReadTimeoutMs) <= 0) return false;
      char buf[65536];
      ssize_t got = ::recv(fd_, buf, sizeof buf, 0);
      if (got == 0) return true;
      if (got < 0) return errno == ECONNRESET;
    }
  }

 private:
  int fd_ = -1;
};

}  // namespace redsim::server::testing_util
