// Test-only: a minimal blocking Env over real redis-server processes, for
// the lock tests that need what the fake lacks on this branch (WAIT, sorted
// sets) or N independent real servers (Redlock). Not the project's
// real-Redis adapter (lock/hiredis is): no pub/sub (subscribe throws
// lock::Error), spawn() only records, one task (id 1). The servers come from
// testing::RedisServerProcess (tools/testing/redis_server_process.h): free
// loopback port, persistence off, stopped at the end, also on failure; link
// redsim_redis_server_process.
//
//   redsim::testing::RedisServerProcess server;   // redis-server on a free port
//   SocketEnv env({server.port()}, "client-a");
//   lock::ReentrantLock lock(env, "k");
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/prng.h"
#include "lock/env.h"
#include "lock/errors.h"
#include "sim/resp/codec.h"
#include "tools/testing/redis_server_process.h"

namespace redsim::lock::testing {

// A blocking RESP2 connection to 127.0.0.1:port. Reconnects on the next call
// after a failure.
class SocketConnection final : public Connection {
 public:
  explicit SocketConnection(int port) : port_(port) {}
  ~SocketConnection() override { close_fd(); }

 private:
  // The default timeout (std::nullopt) is 10 s.
  Reply do_call(const Argv& argv, std::optional<Micros> given) override {
    const Micros timeout = given.value_or(Micros(std::chrono::seconds(10)));
    if (fd_ < 0) open_fd();
    const std::string wire = resp::encode_command(argv);
    for (size_t sent = 0; sent < wire.size();) {
      const ssize_t n = ::send(fd_, wire.data() + sent, wire.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) fail<IoError>("send failed");
      sent += static_cast<size_t>(n);
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (auto reply = decoder_.next()) return *reply;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd p{fd_, POLLIN, 0};
      if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) {
        fail<TimeoutError>("no reply within " + std::to_string(timeout.count()) + " us");
      }
      char buf[4096];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) fail<IoError>("connection closed");
      decoder_.feed(std::string_view(buf, static_cast<size_t>(n)));
    }
  }

  template <class E>
  [[noreturn]] void fail(const std::string& why) {
    close_fd();
    throw E("127.0.0.1:" + std::to_string(port_) + ": " + why);
  }
  void open_fd() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port_));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      fail<IoError>(std::string("connect: ") + std::strerror(errno));
    }
    decoder_ = resp::Decoder();
  }
  void close_fd() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  int port_;
  int fd_ = -1;
  resp::Decoder decoder_;
};

class SocketEnv final : public Env {
 public:
  SocketEnv(const std::vector<int>& ports, std::string client_id, uint64_t seed = 1)
      : client_id_(std::move(client_id)), rng_(base::Prng(seed).fork("socket-env")) {
    for (int p : ports) connections_.push_back(std::make_unique<SocketConnection>(p));
  }
  Connection& connection(size_t server = 0) override { return *connections_.at(server); }
  size_t server_count() const override { return connections_.size(); }
  SubscriptionId subscribe(const std::string&, std::function<void(const std::string&)>,
                           size_t = 0) override {
    throw Error("SocketEnv (test-only) has no pub/sub");
  }
  void unsubscribe(SubscriptionId) override {}
  EnvTime now() override {
    return EnvTime(
        std::chrono::duration_cast<Micros>(std::chrono::steady_clock::now().time_since_epoch()));
  }
  void sleep_for(Micros d) override { std::this_thread::sleep_for(d); }
  std::unique_ptr<Event> make_event() override { return std::make_unique<CvEvent>(); }
  void spawn(std::string, std::function<void()>) override { ++spawned; }
  void call_detached(Argv argv, size_t server = 0) override {
    try {
      connection(server).call(argv);
    } catch (const Error&) {
      // Dropped, as Env::call_detached says.
    }
  }
  std::string client_id() override { return client_id_; }
  uint64_t task_id() override { return 1; }
  uint64_t random_u64() override { return rng_.next_u64(); }

  int spawned = 0;

 private:
  struct CvEvent final : Event {
    void signal() override {
      std::lock_guard<std::mutex> g(mu);
      signaled = true;
      cv.notify_all();
    }
    bool wait_for(Micros timeout) override {
      std::unique_lock<std::mutex> g(mu);
      const bool got = cv.wait_for(g, timeout, [&] { return signaled; });
      signaled = false;
      return got;
    }
    std::mutex mu;
    std::condition_variable cv;
    bool signaled = false;
  };

  std::string client_id_;
  base::Prng rng_;
  std::vector<std::unique_ptr<SocketConnection>> connections_;
};

}  // namespace redsim::lock::testing
