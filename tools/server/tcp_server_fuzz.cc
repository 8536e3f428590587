// libFuzzer target: redsim server end to end (tools/server/tcp_server.h).
//
// Each input is what one client sends: a fresh fake on a virtual clock is
// served by a TcpServer on a loopback port (its loop on a thread of its
// own, as in redsim server); the client writes the input in pieces of 1..64
// bytes (byte 0 seeds the sizes), half-closes, and reads until the server
// closes the connection, as it must once it has read everything (at EOF,
// after QUIT, SHUTDOWN or a protocol error). A script looping with nobody
// to kill it is met by a stop request once it has run kScriptHookBudget
// hook calls (500,000 Lua instructions, past a busy-reply-threshold of 1 ms
// so the busy path is reached first): the request must end the script and
// close, as redis server's SIGTERM does. (The harness used to wait for a
// second of silence before the request: such inputs cost a second each,
// and the fuzzer's mutations of the looping seeds are common.) A second of
// silence still counts as a loop and gets the stop request. Then a second client must still get
// +PONG (unless the input stopped the server), the loop is stopped and joined, and, from this
// thread, every db's indexes must agree and an in-process session must work. A failure aborts; a
// server that never closes shows as a timeout.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>

#include "sim/clock.h"
#include "sim/server.h"
#include "tools/server/tcp_server.h"

namespace {

using redsim::resp::Reply;

constexpr int kScriptHookBudget = 50;  // hook calls of 10,000 Lua instructions, per input

void check(bool ok, const std::string& why) {
  if (ok) return;
  std::fprintf(stderr, "tcp_server_fuzz: %s\n", why.c_str());
  std::abort();
}

int connect_to(int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  // EADDRNOTAVAIL and EAGAIN are the machine's (local ports in TIME_WAIT
  // on a busy host), not the server's: tried again with a new socket.
  for (int attempt = 0;; ++attempt) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    check(fd >= 0, std::string("socket(): ") + std::strerror(errno));
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return fd;
    int err = errno;
    ::close(fd);
    bool transient = err == EINTR || err == EAGAIN || err == EADDRNOTAVAIL;
    check(transient && attempt < 50, std::string("connect(): ") + std::strerror(err));
    ::usleep(20'000);
  }
}

void send_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return;  // the server closed first (QUIT, a protocol error): fine
    bytes.remove_prefix(static_cast<size_t>(n));
  }
}

// Reads what the server sends until it closes the connection (true), or
// until nothing came for `idle_ms` (false).
bool read_to_eof(int fd, int idle_ms, std::string* out) {
  char buf[4096];
  for (;;) {
    pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
    int ready = ::poll(&p, 1, idle_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) return false;
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;  // EOF, or reset after unread input
    out->append(buf, static_cast<size_t>(n));
  }
}

// Closes a client socket whose server closed first (it read to EOF) with
// a reset (SO_LINGER 0): the server's side, in FIN_WAIT_2, is then gone at
// once instead of spending a minute in TIME_WAIT. Thousands of TIME_WAIT
// connections on the one port made every bind() of it scan them all
// (14% of the target's time).
void close_after_eof(int fd) {
  linger reset{.l_onoff = 1, .l_linger = 0};
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
  ::close(fd);
}

// Every input's server listens on the port the first one got. A fresh
// port per input ran the machine out of them in about a minute of fuzzing
// (bind to port 0 fails with EADDRINUSE): a port the kernel hands out for
// port 0 must have no socket at all, and each input leaves the connections
// it served in TIME_WAIT for a minute. SO_REUSEADDR (TcpServer sets it)
// lets a listener bind a port whose old connections are in TIME_WAIT.
std::unique_ptr<redsim::server::TcpServer> listening(redsim::sim::Server& fake, int* port) {
  static int last_port = 0;
  using redsim::server::TcpServer;
  if (last_port != 0) {
    try {
      auto tcp = std::make_unique<TcpServer>(
          fake, redsim::server::TcpServerOptions{
                    .bind = "127.0.0.1", .port = last_port, .wall_clock = false});
      *port = tcp->listen();
      return tcp;
    } catch (const std::system_error&) {
      // taken by another process meanwhile: a new port
    }
  }
  auto tcp = std::make_unique<TcpServer>(
      fake, redsim::server::TcpServerOptions{.bind = "127.0.0.1", .port = 0, .wall_clock = false});
  last_port = *port = tcp->listen();
  return tcp;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0 || size > 16 * 1024) return 0;
  redsim::sim::ManualClock clock;
  redsim::sim::Server fake(clock);
  int port = 0;
  std::unique_ptr<redsim::server::TcpServer> tcp_owner = listening(fake, &port);
  redsim::server::TcpServer& tcp = *tcp_owner;
  // Replaces TcpServer's own stop check (the same test of a stop request)
  // with one that also makes the request once a script has used the
  // budget; it runs on the loop's thread.
  std::atomic<bool> stopping = false;
  std::atomic<bool> stopped_by_budget = false;
  int hooks = 0;
  fake.set_stop_check([&] {
    if (stopping.load(std::memory_order_relaxed)) return true;
    if (++hooks <= kScriptHookBudget) return false;
    stopped_by_budget.store(true);
    stopping.store(true);
    tcp.request_stop();
    return true;
  });
  auto request_stop = [&] {
    stopping.store(true);
    tcp.request_stop();
  };
  std::thread loop([&tcp] { tcp.run(); });

  int fd = connect_to(port);
  uint32_t state = data[0] * 2654435761u + 3;
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  while (!input.empty()) {
    state = state * 1103515245u + 12345u;
    size_t n = std::min<size_t>(input.size(), 1 + (state >> 16) % 64);
    send_all(fd, input.substr(0, n));
    input.remove_prefix(n);
  }
  ::shutdown(fd, SHUT_WR);
  std::string replies;
  // A script that loops with no other client to send SCRIPT KILL keeps the
  // connection open, as in Redis: the budget (or a second of silence)
  // stops the server (redsim server's SIGTERM), which must end the script
  // and close.
  bool closed = read_to_eof(fd, 1000, &replies);
  if (!closed) {
    request_stop();
    check(read_to_eof(fd, 10000, &replies), "a stop request did not close the connection");
  }
  close_after_eof(fd);

  if (closed && !fake.shutdown_requested() && !stopped_by_budget.load()) {
    int probe = connect_to(port);
    send_all(probe, "PING\r\nQUIT\r\n");
    std::string answer;
    check(read_to_eof(probe, 10000, &answer), "a new client after the input was not answered");
    close_after_eof(probe);
    check(answer == "+PONG\r\n+OK\r\n", "a new client after the input got: " + answer);
  }
  request_stop();
  loop.join();
  fake.set_stop_check(nullptr);

  const std::string why = fake.inconsistency();
  check(why.empty(), why);
  auto session = fake.connect();
  Reply pong = fake.execute(*session, {"PING"});
  check(pong == Reply::status("PONG"), "PING in process answers " + pong.debug_string());
  return 0;
}
