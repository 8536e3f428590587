#include "tools/testing/redis_server_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace redsim::testing {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

sockaddr_in loopback(uint16_t port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return addr;
}

// Waits until fd is ready for `events` or the deadline passes.
bool wait_fd(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(left.count()));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

// The inodes of the sockets listening on 127.0.0.1:port, from /proc/net/tcp
// (columns: sl local_address rem_address st ... inode; addresses are
// hex "0100007F:1F90", state 0A is LISTEN).
std::vector<std::string> listening_inodes(uint16_t port) {
  std::vector<std::string> inodes;
  std::ifstream tcp("/proc/net/tcp");
  std::string line;
  std::getline(tcp, line);  // the header
  while (std::getline(tcp, line)) {
    std::istringstream fields(line);
    std::string sl, local, remote, state, skip, inode;
    fields >> sl >> local >> remote >> state;
    for (int i = 0; i < 5; ++i) fields >> skip;  // tx:rx tr:when retrnsmt uid timeout
    fields >> inode;
    const size_t colon = local.find(':');
    if (state != "0A" || colon == std::string::npos) continue;
    if (std::stoul(local.substr(colon + 1), nullptr, 16) == port) inodes.push_back(inode);
  }
  return inodes;
}

// True when process `pid` holds the socket listening on 127.0.0.1:port: the
// server that answered PING there is our child, not another test's server
// that took the port between free_loopback_port() and our child's bind.
bool listens_on(pid_t pid, uint16_t port) {
  const std::vector<std::string> inodes = listening_inodes(port);
  std::error_code ec;
  for (const auto& fd :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
    const auto target = std::filesystem::read_symlink(fd.path(), ec).string();
    for (const auto& inode : inodes) {
      if (target == "socket:[" + inode + "]") return true;
    }
  }
  return false;
}

}  // namespace

uint16_t free_loopback_port() {
  Fd s{::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)};
  if (s.fd < 0) throw RedisServerError(errno_text("socket"));
  sockaddr_in addr = loopback(0);
  if (::bind(s.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    throw RedisServerError(errno_text("bind 127.0.0.1:0"));
  }
  socklen_t len = sizeof addr;
  if (::getsockname(s.fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    throw RedisServerError(errno_text("getsockname"));
  }
  return ntohs(addr.sin_port);
}

RefusingPort::RefusingPort() : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
  if (fd_ < 0) throw RedisServerError(errno_text("socket"));
  sockaddr_in addr = loopback(0);
  socklen_t len = sizeof addr;
  if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    const std::string why = errno_text("bind 127.0.0.1:0");
    ::close(fd_);
    throw RedisServerError(why);
  }
  port_ = ntohs(addr.sin_port);
}

RefusingPort::~RefusingPort() { ::close(fd_); }

std::string send_inline_command(uint16_t port, const std::string& command, milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  Fd s{::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)};
  if (s.fd < 0) return {};
  sockaddr_in addr = loopback(port);
  if (::connect(s.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    if (errno != EINPROGRESS || !wait_fd(s.fd, POLLOUT, deadline)) return {};
    int err = 0;
    socklen_t len = sizeof err;
    if (::getsockopt(s.fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) return {};
  }
  const std::string line = command + "\r\n";
  if (::send(s.fd, line.data(), line.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(line.size())) {
    return {};
  }
  std::string reply;
  char buf[256];
  while (reply.find("\r\n") == std::string::npos) {
    if (!wait_fd(s.fd, POLLIN, deadline)) return {};
    const ssize_t n = ::recv(s.fd, buf, sizeof buf, 0);
    if (n <= 0) return {};
    reply.append(buf, static_cast<size_t>(n));
  }
  return reply.substr(0, reply.find("\r\n"));
}

RedisServerProcess::RedisServerProcess(RedisServerOptions options) : options_(std::move(options)) {
  start();
}

RedisServerProcess::~RedisServerProcess() { stop(); }

std::string RedisServerProcess::url() const {
  return "redis://" + host_ + ":" + std::to_string(port_);
}

bool RedisServerProcess::available(const std::string& binary) {
  return ::access(binary.c_str(), X_OK) == 0;
}

void RedisServerProcess::start() {
  if (running()) return;
  if (!available(options_.binary)) {
    throw RedisServerError("redis-server not found or not executable: " + options_.binary +
                           " (apt-get install redis-server)");
  }
  if (port_ != 0) {  // a restart keeps its address
    if (try_start()) return;
    throw RedisServerError("redis-server could not restart on port " + std::to_string(port_));
  }
  for (int attempt = 0; attempt < options_.port_attempts; ++attempt) {
    port_ = free_loopback_port();
    if (try_start()) return;
  }
  port_ = 0;
  throw RedisServerError("redis-server did not start on any of " +
                         std::to_string(options_.port_attempts) + " free ports");
}

bool RedisServerProcess::try_start() {
  std::vector<std::string> args = {
      options_.binary, "--port", std::to_string(port_), "--bind", host_,   "--save", "",
      "--appendonly",  "no",     "--daemonize",         "no",     "--dir", "/tmp",   "--loglevel",
      "warning"};
  if (options_.enable_debug_command) {
    args.insert(args.end(), {"--enable-debug-command", "yes"});
  }
  args.insert(args.end(), options_.extra_args.begin(), options_.extra_args.end());
  // Everything the child needs is built before fork: between fork and exec
  // only async-signal-safe calls are allowed (other threads may hold locks).
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();

  const pid_t pid = ::fork();
  if (pid < 0) throw RedisServerError(errno_text("fork"));
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the parent died before prctl
    const int devnull = ::open("/dev/null", O_RDWR);
    if (devnull >= 0) {
      ::dup2(devnull, 0);
      ::dup2(devnull, 1);
      ::dup2(devnull, 2);
    }
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  pid_ = pid;

  const auto deadline = Clock::now() + options_.start_timeout;
  while (Clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;  // exited: most likely the port was taken meanwhile
      return false;
    }
    // -NOAUTH: alive, but started with --requirepass (options_.extra_args).
    // The answer counts only if our child holds the listening socket: a
    // concurrent test may have started its server on this port first, and
    // then our child is about to exit with "Address already in use".
    const std::string pong = send_inline_command(port_, "PING", milliseconds(200));
    if ((pong == "+PONG" || pong.starts_with("-NOAUTH")) && listens_on(pid_, port_)) return true;
    std::this_thread::sleep_for(milliseconds(10));
  }
  kill();
  throw RedisServerError("redis-server on port " + std::to_string(port_) +
                         " did not answer PING within " +
                         std::to_string(options_.start_timeout.count()) + " ms");
}

bool RedisServerProcess::wait_exit(milliseconds within) noexcept {
  const auto deadline = Clock::now() + within;
  for (;;) {
    int status = 0;
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_ || (r < 0 && errno == ECHILD)) {
      pid_ = -1;
      return true;
    }
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(milliseconds(5));
  }
}

void RedisServerProcess::stop() noexcept {
  if (!running()) return;
  try {
    const std::string reply = send_inline_command(port_, "SHUTDOWN NOSAVE", options_.stop_grace);
    // A password-protected server refuses SHUTDOWN; SIGTERM is its other
    // shutdown, and with persistence off it saves nothing either.
    if (reply.starts_with("-")) ::kill(pid_, SIGTERM);
  } catch (...) {  // std::string allocation only; SIGKILL below still runs
  }
  if (!wait_exit(options_.stop_grace)) kill();
}

void RedisServerProcess::kill() noexcept {
  if (!running()) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

void RedisServerProcess::restart() {
  stop();
  start();
}

}  // namespace redsim::testing
