#include "tools/difftest/raw_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace redsim::difftest {

namespace {
std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }
}  // namespace

RawClient::RawClient(const std::string& host, int port, std::chrono::milliseconds timeout)
    : timeout_(timeout) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const std::string ip = host == "localhost" ? "127.0.0.1" : host;
  if (inet_pton(AF_INET, ip.c_str(), &addr.sin_addr) != 1) {
    throw RawClientError("not an IPv4 address: " + host);
  }
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw RawClientError(errno_text("socket"));
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    const std::string why = errno_text(("connect " + ip + ":" + std::to_string(port)).c_str());
    ::close(fd_);
    throw RawClientError(why);
  }
  int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

RawClient::~RawClient() {
  if (fd_ >= 0) ::close(fd_);
}

void RawClient::send(const std::vector<std::string>& argv) {
  const std::string wire = resp::encode_command(argv);
  size_t sent = 0;
  while (sent < wire.size()) {
    const ssize_t n = ::send(fd_, wire.data() + sent, wire.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw RawClientError(errno_text("send"));
    sent += static_cast<size_t>(n);
  }
}

resp::Reply RawClient::read() {
  for (;;) {
    try {
      if (auto r = decoder_.next()) return std::move(*r);
    } catch (const resp::ProtocolError& e) {
      throw RawClientError(std::string("not RESP: ") + e.what());
    }
    pollfd p{fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(timeout_.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0)
      throw RawClientError("no reply within " + std::to_string(timeout_.count()) + " ms");
    if (ready < 0) throw RawClientError(errno_text("poll"));
    char buf[16384];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) throw RawClientError("connection closed by the server");
    if (n < 0) throw RawClientError(errno_text("recv"));
    decoder_.feed(std::string_view(buf, static_cast<size_t>(n)));
  }
}

resp::Reply RawClient::call(const std::vector<std::string>& argv) {
  send(argv);
  return read();
}

}  // namespace redsim::difftest
