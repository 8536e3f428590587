// ZookeeperServerProcess (zookeeper_server_process.h).
#include "tools/testing/zookeeper_server_process.h"

#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <vector>

#include "tools/testing/redis_server_process.h"

namespace redsim::testing {

namespace {
constexpr const char* kJava = "/usr/bin/java";
constexpr const char* kJar = "/usr/share/java/zookeeper.jar";
}  // namespace

bool ZookeeperServerProcess::start(std::chrono::milliseconds timeout) {
  namespace fs = std::filesystem;
  stop();
  if (!fs::exists(kJava) || !fs::exists(kJar)) {
    why_not_ = "no /usr/bin/java or /usr/share/java/zookeeper.jar (apt-get install zookeeper)";
    return false;
  }
  port_ = free_loopback_port();
  char tmpl[] = "/tmp/redsim-zk-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) {
    why_not_ = "mkdtemp failed";
    return false;
  }
  dir_ = tmpl;
  // Built one by one: gcc 12 warns falsely (-Warray-bounds) on an
  // initializer list of std::strings here.
  std::vector<std::string> args;
  for (const char* a : {kJava, "-Xmx256m", "-Dzookeeper.admin.enableServer=false",
                        "-Dzookeeper.4lw.commands.whitelist=isro", "-cp",
                        "/usr/share/java/zookeeper.jar:/etc/zookeeper/conf",
                        "org.apache.zookeeper.server.ZooKeeperServerMain"}) {
    args.emplace_back(a);
  }
  args.push_back(std::to_string(port_));
  args.push_back(dir_);
  args.emplace_back("200");  // tickTime, ms
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string log = dir_ + "/server.log";
  pid_ = ::fork();
  if (pid_ < 0) {
    why_not_ = "fork failed";
    stop();
    return false;
  }
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (std::FILE* f = std::freopen(log.c_str(), "w", stdout)) (void)f;
    ::dup2(STDOUT_FILENO, STDERR_FILENO);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (serving()) {
      why_not_.clear();
      return true;
    }
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      why_not_ = "the zookeeper server exited (see its log)";
      stop();
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  why_not_ = "the zookeeper server did not serve in time";
  stop();
  return false;
}

void ZookeeperServerProcess::stop() noexcept {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    dir_.clear();
  }
}

// The four-letter word isro: "rw" once the server serves ("null" before).
// The answer has no line end: read until the server closes.
bool ZookeeperServerProcess::serving() const {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port_);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::string answer;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::send(fd, "isro", 4, MSG_NOSIGNAL) == 4) {
    char buf[64];
    ssize_t n;
    while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) answer.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return answer == "rw";
}

}  // namespace redsim::testing
