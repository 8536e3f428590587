#include "tools/server/tcp_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <malloc.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <system_error>

#include "sim/args.h"
#include "sim/resp/codec.h"
#include "tools/server/request_parser.h"
#include "tools/server/tcp_conn.h"

namespace redsim::server {

namespace {

constexpr size_t kReadChunkBytes = 64 * 1024;
constexpr int kMaxCyclesPerWake = 100;

// Buffer sizes of Redis 7.0 (src/server.h) for the client cron's resizing.
constexpr size_t kReplyChunkBytes = 16 * 1024;  // PROTO_REPLY_CHUNK_BYTES
constexpr size_t kReplyMinBytes = 1024;         // PROTO_REPLY_MIN_BYTES
constexpr size_t kReplyReleaseBytes = 4 * kReplyChunkBytes;
constexpr int64_t kReplyPeakResetUs = 5'000'000;          // reply-buffer-peak-reset-time 5000
constexpr size_t kQueryResizeThresholdBytes = 32 * 1024;  // PROTO_RESIZE_THRESHOLD
constexpr size_t kQueryFreeSlackBytes = 4 * 1024;
constexpr int64_t kQueryIdleShrinkUs = 2'000'000;  // idle more than 2 s
constexpr size_t kTrimKeyDrop = 10'000;

// epoll tags for the two non-connection descriptors.
char kListenTag;
char kStopTag;

// Redis's CONFIG_MIN_RESERVED_FDS: descriptors kept for everything but clients.
constexpr int64_t kReservedFds = 32;
constexpr int64_t kAcceptPauseUs = 100 * 1000;
constexpr std::string_view kMaxClientsError = "-ERR max number of clients reached\r\n";

// Accept pauses are measured on the machine's steady clock, not the fake's
// (which may be virtual).
int64_t steady_now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

[[noreturn]] void throw_errno(const std::string& what) {
  throw std::system_error(errno, std::generic_category(), what);
}

std::string address_of(const sockaddr_storage& ss) {
  char host[INET6_ADDRSTRLEN] = "?";
  int port = 0;
  if (ss.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&ss);
    inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
    port = ntohs(a->sin_port);
  } else if (ss.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&ss);
    inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
    port = ntohs(a->sin6_port);
  }
  return std::string(host) + ":" + std::to_string(port);
}

}  // namespace

TcpServer::TcpServer(sim::Server& server, TcpServerOptions options)
    : server_(server),
      options_(std::move(options)),
      read_buf_(kReadChunkBytes),
      busy_read_buf_(kReadChunkBytes) {
  server_.set_busy_script_handler([this](sim::Session&) { serve_while_busy(); });
  install_replication();
  server_.set_stop_check([this] { return stop_requested_.load(std::memory_order_relaxed); });
}

TcpServer::~TcpServer() {
  server_.set_busy_script_handler(nullptr);
  server_.set_stop_check(nullptr);
  uninstall_replication();
  server_.config().change_port = nullptr;
  if (spare_fd_ >= 0) ::close(spare_fd_);
  for (auto& [fd, c] : conns_) ::close(fd);
  conns_.clear();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
  if (stop_fd_ >= 0) ::close(stop_fd_);
}

std::pair<int, int> TcpServer::open_listener(int port_number) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  std::string port = std::to_string(port_number);
  int rc = getaddrinfo(options_.bind.c_str(), port.c_str(), &hints, &res);
  if (rc != 0) {
    throw std::system_error(EINVAL, std::generic_category(),
                            "bad bind address '" + options_.bind + "': " + gai_strerror(rc));
  }
  int fd = ::socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    freeaddrinfo(res);
    throw_errno("socket");
  }
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, res->ai_addr, res->ai_addrlen) != 0) {
    int err = errno;
    freeaddrinfo(res);
    ::close(fd);
    errno = err;
    throw_errno("bind " + options_.bind + ":" + port);
  }
  freeaddrinfo(res);
  if (::listen(fd, 511) != 0) {
    int err = errno;
    ::close(fd);
    errno = err;
    throw_errno("listen");
  }
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
  int bound_port = ss.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port)
                                            : ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  return {fd, bound_port};
}

bool TcpServer::change_port(int port) {
  if (port == server_.config().port) return true;
  std::pair<int, int> opened;
  try {
    opened = open_listener(port);
  } catch (const std::system_error&) {
    return false;  // Redis logs why; CONFIG SET answers "Unable to listen on this port"
  }
  if (accepting_) epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, listen_fd_, nullptr);
  ::close(listen_fd_);
  listen_fd_ = opened.first;
  if (accepting_) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = &kListenTag;
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &ev);
  }
  server_.config().port = opened.second;
  return true;
}

int TcpServer::listen() {
  auto [fd, bound_port] = open_listener(options_.port);
  listen_fd_ = fd;

  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) throw_errno("epoll_create1");
  stop_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (stop_fd_ < 0) throw_errno("eventfd");
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = &kListenTag;
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &ev);
  ev.data.ptr = &kStopTag;
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, stop_fd_, &ev);

  server_.config().port = bound_port;
  server_.config().bind = options_.bind;
  server_.config().change_port = [this](int port) { return change_port(port); };
  adjust_open_files_limit();
  spare_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  return bound_port;
}

// Redis's adjustOpenFilesLimit: room for maxclients plus the reserved
// descriptors, or fewer clients.
void TcpServer::adjust_open_files_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  int64_t& maxclients = server_.config().maxclients;
  const rlim_t wanted = static_cast<rlim_t>(maxclients + kReservedFds);
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < wanted) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max == RLIM_INFINITY ? wanted : std::min(wanted, limit.rlim_max);
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < wanted) {
    maxclients = std::max<int64_t>(1, static_cast<int64_t>(limit.rlim_cur) - kReservedFds);
  }
}

void TcpServer::request_stop() {
  stop_requested_.store(true, std::memory_order_relaxed);
  uint64_t one = 1;
  ssize_t n = ::write(stop_fd_, &one, sizeof one);
  (void)n;
}

int TcpServer::wait_timeout_ms() const {
  int timeout_ms = -1;
  if (options_.wall_clock) {
    int64_t wait_us = next_cycle_us_ - server_.clock().now_us();
    timeout_ms = wait_us <= 0 ? 0 : static_cast<int>(wait_us / 1000 + 1);
  }
  if (std::optional<int64_t> deadline_ms = server_.next_block_deadline_ms()) {
    // A blocked client is due once the server clock passes its deadline.
    int64_t wait_us = (*deadline_ms + 1) * 1000 - server_.clock().now_us();
    int due_ms = wait_us <= 0 ? 0 : static_cast<int>(std::min<int64_t>(wait_us / 1000 + 1, 1000));
    timeout_ms = timeout_ms < 0 ? due_ms : std::min(timeout_ms, due_ms);
  }
  if (replication_active()) {
    // The link's cron (pings, ACKs, reconnecting) runs at least every 100 ms.
    timeout_ms = timeout_ms < 0 ? 100 : std::min(timeout_ms, 100);
  }
  if (!accepting_) {
    int64_t wait_us = accept_resume_us_ - steady_now_us();
    int resume_ms = wait_us <= 0 ? 0 : static_cast<int>(wait_us / 1000 + 1);
    timeout_ms = timeout_ms < 0 ? resume_ms : std::min(timeout_ms, resume_ms);
  }
  return timeout_ms;
}

void TcpServer::run_expiry_cycles() {
  int64_t now_us = server_.clock().now_us();
  int64_t period_us = 1000000 / std::max(1, server_.config().hz);
  if (next_cycle_us_ == 0) next_cycle_us_ = now_us + period_us;
  bool ran = false;
  for (int i = 0; i < kMaxCyclesPerWake && now_us >= next_cycle_us_; ++i) {
    server_.active_expire_cycle();
    next_cycle_us_ += period_us;
    ran = true;
  }
  if (ran) {
    close_idle_clients();
    resize_client_buffers();
    trim_freed_memory();
  }
  if (now_us >= next_cycle_us_) next_cycle_us_ = now_us + period_us;
}

void TcpServer::run() {
  epoll_event events[256];
  run_expiry_cycles();
  while (true) {
    int n = epoll_wait(epoll_fd_, events, 256, wait_timeout_ms());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_errno("epoll_wait");
    }
    bool stop = false;
    for (int i = 0; i < n; ++i) {
      void* tag = events[i].data.ptr;
      if (tag == &kStopTag) {
        stop = true;
      } else if (tag == &kListenTag) {
        accept_all();
      } else if (tag == replication_tag()) {
        on_master_readable();
      } else {
        Conn& c = *static_cast<Conn*>(tag);
        if (c.doomed) continue;
        if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) on_readable(c);
        if (!c.doomed && (events[i].events & EPOLLOUT)) flush(c);
      }
    }
    // SHUTDOWN: Redis exits without sending what is still queued.
    if (server_.shutdown_requested()) break;
    server_.time_out_blocked();
    serve_unblocked();
    if (server_.shutdown_requested()) break;
    // Pushes received by other connections during this batch.
    for (size_t i = 0; i < to_flush_.size(); ++i) {
      Conn* c = to_flush_[i];
      c->queued_for_flush = false;
      if (!c->doomed) flush(*c);
    }
    to_flush_.clear();
    run_expiry_cycles();
    replication_cron();
    close_doomed();
    if (!accepting_ && steady_now_us() >= accept_resume_us_) set_accepting(true);
    if (stop) break;
  }
  for (auto& [fd, c] : conns_) {
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
    ::close(fd);
  }
  conns_.clear();
}

void TcpServer::accept_all() {
  while (true) {
    sockaddr_storage peer{};
    socklen_t len = sizeof peer;
    int fd =
        accept4(listen_fd_, reinterpret_cast<sockaddr*>(&peer), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE) on_accept_failed();
      return;  // EAGAIN, or a connection that died before accept
    }
    // Redis's acceptCommonHandler: the connections already open count.
    if (static_cast<int64_t>(conns_.size()) >= server_.config().maxclients) {
      reject_connection(fd);
      continue;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    sockaddr_storage local{};
    socklen_t local_len = sizeof local;
    getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_len);

    auto conn = std::make_unique<Conn>();
    Conn* c = conn.get();
    c->fd = fd;
    c->session = server_.connect();
    c->session->set_peer({address_of(peer), address_of(local), fd});
    c->session->set_push_handler([this, c](const resp::Reply& r) { on_push(*c, r); });
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = c;
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
    c->last_interaction_us = server_.clock().now_us();
    c->out_peak_reset_us = c->last_interaction_us;
    conns_.emplace(fd, std::move(conn));
  }
}

void TcpServer::reject_connection(int fd) {
  // Best effort, as Redis: the socket buffer of a new connection has room.
  ssize_t n = ::send(fd, kMaxClientsError.data(), kMaxClientsError.size(), MSG_NOSIGNAL);
  (void)n;
  ::close(fd);
}

// Out of descriptors: the pending client would keep the listening socket
// readable and epoll_wait would return at once, forever. Free the spare
// descriptor to take the client and tell it why it is refused; failing
// that, stop watching the listening socket for a while.
void TcpServer::on_accept_failed() {
  if (spare_fd_ >= 0) {
    ::close(spare_fd_);
    spare_fd_ = -1;
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) reject_connection(fd);
    spare_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && spare_fd_ >= 0) return;
  }
  accept_resume_us_ = steady_now_us() + kAcceptPauseUs;
  set_accepting(false);
}

void TcpServer::set_accepting(bool on) {
  if (accepting_ == on) return;
  accepting_ = on;
  if (on) {
    if (spare_fd_ < 0) spare_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = &kListenTag;
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &ev);
  } else {
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, listen_fd_, nullptr);
  }
}

// Redis 7.0's clientsCronResizeQueryBuffer and clientsCronResizeOutputBuffer
// (src/server.c), on std::string buffers, once per cron tick:
// - query buffer: when more than 4 KiB of it is unused, give it all back
//   after 2 s idle, else shrink a buffer over 32 KiB (PROTO_RESIZE_THRESHOLD)
//   whose recent peak is under half its size to that peak; the peak then
//   restarts from the current length.
// - reply buffer: shrink to the recent peak when the peak is under half the
//   buffer (and the half is at least 1 KiB, PROTO_REPLY_MIN_BYTES); the peak
//   restarts from the current length every 5 s (reply-buffer-peak-reset-time).
//   (Redis's own buffer never exceeds 16 KiB; bigger replies go to blocks
//   freed as written, which flush() matches by dropping a drained buffer
//   over kReplyReleaseBytes.)
// Also sums what every connection's buffers hold, for buffer_bytes().
void TcpServer::resize_client_buffers() {
  const int64_t now_us = server_.clock().now_us();
  size_t total = 0;
  for (auto& [fd, conn] : conns_) {
    Conn& c = *conn;
    if (c.doomed) continue;
    if (!c.executing && c.in.capacity() - c.in.size() > kQueryFreeSlackBytes) {
      if (now_us - c.last_interaction_us > kQueryIdleShrinkUs) {
        c.in.shrink_to_fit();
      } else if (c.in.capacity() > kQueryResizeThresholdBytes && c.in.capacity() / 2 > c.in_peak) {
        std::string smaller;
        smaller.reserve(std::max(c.in.size(), c.in_peak));
        smaller.assign(c.in);
        c.in.swap(smaller);
      }
    }
    c.in_peak = c.in.size();
    if (!c.executing && c.out.capacity() / 2 >= kReplyMinBytes &&
        c.out_peak < c.out.capacity() / 2) {
      std::string smaller;
      smaller.reserve(std::max(c.out_peak, c.out.size()));
      smaller.assign(c.out);
      c.out.swap(smaller);
    }
    if (now_us - c.out_peak_reset_us >= kReplyPeakResetUs) {
      c.out_peak = c.out.size();
      c.out_peak_reset_us = now_us;
    }
    total += c.in.capacity() + c.out.capacity() + c.own_pushes.capacity() + c.big_arg.capacity() +
             c.parser.release_large_args(RequestParser::kBigArgBytes);
  }
  buffer_bytes_.store(total, std::memory_order_relaxed);
}

// Memory the keyspace gave back is returned to the system: malloc keeps
// freed small blocks in its heap, so after FLUSHALL or many deletions the
// process would stay at its high-water mark. Once the keys stored dropped
// by kTrimKeyDrop since the last trim, or right after FLUSHALL / FLUSHDB,
// glibc's malloc_trim(0) releases the free pages. (Blocks of 128 KiB or more are
// mmapped by redsim server's M_MMAP_THRESHOLD setting and go back when freed.)
void TcpServer::trim_freed_memory() {
  size_t keys = 0;
  for (int i = 0; i < server_.databases(); ++i) keys += server_.key_count(i);
  keys_high_ = std::max(keys_high_, keys);
  if (keys_high_ - keys >= kTrimKeyDrop || trim_requested_) {
    malloc_trim(0);
    keys_high_ = keys;
    trim_requested_ = false;
  }
}

// Redis's clientsCronHandleTimeout: idle longer than `timeout` seconds,
// neither subscribed nor running a command (a busy script's caller).
void TcpServer::close_idle_clients() {
  int64_t timeout_s = server_.config().timeout_s;
  if (timeout_s <= 0) return;
  int64_t now_us = server_.clock().now_us();
  for (auto& [fd, conn] : conns_) {
    Conn& c = *conn;
    if (c.doomed || c.executing || c.blocked || c.replica || c.session->subscription_count() > 0) {
      continue;  // replicas too: Redis times them out by repl-timeout, not timeout
    }
    if (now_us - c.last_interaction_us > timeout_s * 1000000) doom(c);
  }
}

void TcpServer::on_readable(Conn& c) {
  c.last_interaction_us = server_.clock().now_us();
  c.parser.set_max_bulk_len(server_.config().proto_max_bulk_len);  // CONFIG SET applies at once
  if (c.big_arg_len > 0) {
    read_big_arg(c);
    return;
  }
  // One shared buffer; a connection keeps only the bytes of an incomplete
  // request.
  std::vector<char>& buf = serving_while_busy_ ? busy_read_buf_ : read_buf_;
  ssize_t n = ::recv(c.fd, buf.data(), buf.size(), 0);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
    doom(c);
    return;
  }
  if (n < 0) return;
  size_t pos = 0;
  if (c.blocked) {  // kept for when the block ends (Redis reads, and waits)
    c.in.append(buf.data(), static_cast<size_t>(n));
    c.in_peak = std::max(c.in_peak, c.in.size());
    return;
  }
  if (c.in.empty()) {
    std::string_view view(buf.data(), static_cast<size_t>(n));
    process_input(c, view, pos);
    keep_unparsed(c, view.substr(pos), /*from_in=*/false);
  } else {
    c.in.append(buf.data(), static_cast<size_t>(n));
    c.in_peak = std::max(c.in_peak, c.in.size());
    process_input(c, c.in, pos);
    keep_unparsed(c, std::string_view(c.in).substr(pos), /*from_in=*/true);
  }
  flush(c);
}

// What the parser left of a read: the start of the next request. A big
// argument's bytes go to a string of the argument's exact size, which
// becomes the argument itself (Redis's PROTO_MBULK_BIG_ARG handling);
// anything else stays in `in`.
void TcpServer::keep_unparsed(Conn& c, std::string_view rest, bool from_in) {
  if (c.doomed || c.close_after_reply) return;
  if (size_t len = c.parser.big_bulk_len(); len > 0) {
    c.big_arg.reserve(len + 2);
    c.big_arg.assign(rest);
    c.big_arg_len = len;
    c.in.clear();
    return;
  }
  if (!from_in) {
    if (!rest.empty()) c.in.assign(rest);
  } else if (rest.empty()) {
    c.in.clear();
  } else if (rest.size() < c.in.size()) {
    c.in.erase(0, c.in.size() - rest.size());
  }
  c.in_peak = std::max(c.in_peak, c.in.size());
}

void TcpServer::read_big_arg(Conn& c) {
  const size_t total = c.big_arg_len + 2;
  const size_t old = c.big_arg.size();
  ssize_t n = 0;
  // Within the capacity reserved for the whole argument: no reallocation.
  c.big_arg.resize_and_overwrite(total, [&](char* p, size_t) {
    n = ::recv(c.fd, p + old, total - old, 0);
    return old + static_cast<size_t>(std::max<ssize_t>(n, 0));
  });
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
    doom(c);
    return;
  }
  if (c.big_arg.size() < total) return;
  c.big_arg.resize(c.big_arg_len);  // the CRLF, skipped unread as Redis does
  c.big_arg_len = 0;
  RequestParser::Status s = c.parser.supply_bulk(std::move(c.big_arg));
  c.big_arg = std::string();
  if (s == RequestParser::Status::kCommand) run_command(c);
  flush(c);
}

void TcpServer::process_input(Conn& c, std::string_view buf, size_t& pos) {
  while (!c.close_after_reply && !c.doomed && !c.blocked && !server_.shutdown_requested()) {
    c.parser.set_unauthenticated(!c.session->authenticated());
    RequestParser::Status s = c.parser.parse(buf, &pos);
    if (s == RequestParser::Status::kNeedMore) break;
    if (s == RequestParser::Status::kError) {
      if (!c.session->reply_suppressed()) {
        c.out += "-ERR ";
        c.out += c.parser.error();
        c.out += "\r\n";
      }
      c.close_after_reply = true;
      break;
    }
    run_command(c);
  }
}

namespace {

// A RESP3 push goes out even under CLIENT REPLY OFF/SKIP, as Redis 7.0's
// CLIENT_PUSHING lets pub/sub confirmations and messages through
// (unit/pubsub "PubSub messages with CLIENT REPLY OFF"); so does a
// (un)subscribe confirmation in RESP2 (addReplyPubsubSubscribed sets
// CLIENT_PUSHING in both protocols: unit/pubsub "Keyspace notifications:
// we receive keyspace notifications" reads PSUBSCRIBE's reply after
// CLIENT REPLY OFF, and redis-server 7.0.15 sends it).
bool subscribe_family(std::string_view command) {
  for (std::string_view name :
       {"subscribe", "psubscribe", "ssubscribe", "unsubscribe", "punsubscribe", "sunsubscribe"}) {
    if (sim::equals_ci(command, name)) return true;
  }
  return false;
}

// `subscribe` tells whether the command was one of subscribe_family (the
// request's arguments may be consumed by the time the reply is encoded).
bool pushed_reply(const sim::Session& s, bool subscribe, const resp::Reply& reply) {
  if (reply.is_push()) return true;
  return subscribe && s.protocol() == resp::Protocol::kResp2 && reply.is_array();
}

}  // namespace

void TcpServer::run_command(Conn& c) {
  sim::Argv& argv = c.parser.take_argv();
  sim::Session& s = *c.session;
  // Redis answers QUIT before any other check, then closes.
  if (sim::equals_ci(argv[0], "quit")) {
    if (!s.reply_suppressed()) c.out += "+OK\r\n";
    c.close_after_reply = true;
    return;
  }
  const bool flush_all =
      !s.in_multi() && (sim::equals_ci(argv[0], "flushall") || sim::equals_ci(argv[0], "flushdb"));
  const bool subscribe = subscribe_family(argv[0]);
  c.executing = true;
  resp::Reply reply = server_.execute_consuming(s, argv);
  c.executing = false;
  // Redis frees a command's arguments after it ran; the parser keeps its
  // strings for reuse, but not a big one.
  c.parser.release_large_args(RequestParser::kBigArgBytes);
  if (server_.shutdown_requested()) return;  // Redis exits without a reply
  if (s.blocked()) {
    // The reply comes from Server::take_unblocked() (serve_unblocked).
    c.blocked = true;
    return;
  }
  if (start_wait(c)) return;  // WAIT: replication_cron answers
  if (!c.rdb.empty()) {
    start_replica(c, reply);
  } else if (!s.reply_suppressed() || pushed_reply(s, subscribe, reply)) {
    resp::encode_to(c.out, reply, s.protocol());
  }
  if (!c.own_pushes.empty()) {
    c.out += c.own_pushes;
    c.own_pushes.clear();
    if (c.own_pushes.capacity() > kReplyChunkBytes) std::string().swap(c.own_pushes);
  }
  c.out_peak = std::max(c.out_peak, c.out.size());
  if (!s.authenticated() && c.out.size() - c.out_pos > kUnauthenticatedOutputLimitBytes) {
    // An unauthenticated client that does not read its NOAUTH errors is
    // closed before its output grows (Redis's auth.tcl "For unauthenticated
    // clients output buffer is limited": a few MB at most).
    doom(c);
  }
  s.command_done();
  if (server_.take_kill_requests()) close_killed(c);
  if (flush_all) {
    trim_requested_ = true;
    trim_freed_memory();
  }
}

// The blocks that ended (data came, timeout, CLIENT UNBLOCK): each reply
// goes out and the connection's waiting requests run, which may end more
// blocks.
void TcpServer::serve_unblocked() {
  while (true) {
    std::vector<sim::Server::Unblocked> done = server_.take_unblocked();
    if (done.empty()) return;
    for (sim::Server::Unblocked& u : done) {
      auto it = conns_.find(u.session->peer().fd);
      if (it == conns_.end() || it->second->session.get() != u.session) continue;
      Conn& c = *it->second;
      c.blocked = false;
      if (c.doomed) continue;
      sim::Session& s = *c.session;
      if (!s.reply_suppressed()) resp::encode_to(c.out, u.reply, s.protocol());
      // Pushes ignore CLIENT REPLY OFF/SKIP (see pushed_reply).
      for (const resp::Reply& push : u.pushes) resp::encode_to(c.out, push, s.protocol());
      s.command_done();
      if (!c.in.empty()) {
        size_t pos = 0;
        process_input(c, c.in, pos);
        keep_unparsed(c, std::string_view(c.in).substr(pos), /*from_in=*/true);
      }
      c.out_peak = std::max(c.out_peak, c.out.size());
      if (!c.queued_for_flush) {
        c.queued_for_flush = true;
        to_flush_.push_back(&c);
      }
    }
  }
}

void TcpServer::on_push(Conn& c, const resp::Reply& reply) {
  // Pub/sub messages and further confirmations ignore CLIENT REPLY OFF/SKIP
  // in both protocols (CLIENT_PUSHING, see pushed_reply).
  if (c.doomed) return;
  // Evictions happen before the command runs: their pushes come first.
  if (c.executing && !server_.evicting()) {
    resp::encode_to(c.own_pushes, reply, c.session->protocol());
    return;
  }
  resp::encode_to(c.out, reply, c.session->protocol());
  c.out_peak = std::max(c.out_peak, c.out.size());
  if (c.out.size() - c.out_pos > kPubSubOutputLimitBytes) {
    // Redis's client-output-buffer-limit pubsub 32mb: the client is freed.
    doom(c);
    return;
  }
  if (!c.queued_for_flush) {
    c.queued_for_flush = true;
    to_flush_.push_back(&c);
  }
}

void TcpServer::flush(Conn& c) {
  while (c.out_pos < c.out.size()) {
    ssize_t n = ::send(c.fd, c.out.data() + c.out_pos, c.out.size() - c.out_pos, MSG_NOSIGNAL);
    if (n > 0) {
      c.out_pos += static_cast<size_t>(n);
      c.last_interaction_us = server_.clock().now_us();
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      set_writable_interest(c, true);
      // Keep the unsent tail at the front once much has been sent.
      if (c.out_pos > 1024 * 1024) {
        c.out.erase(0, c.out_pos);
        c.out_pos = 0;
      }
      return;
    }
    doom(c);
    return;
  }
  c.out.clear();
  c.out_pos = 0;
  // Redis writes a big reply from a list of blocks it frees as they are
  // sent: a drained buffer beyond a few blocks is not kept either.
  if (c.out.capacity() > kReplyReleaseBytes) std::string().swap(c.out);
  set_writable_interest(c, false);
  if (c.close_after_reply) doom(c);
}

void TcpServer::set_writable_interest(Conn& c, bool on) {
  if (c.writable_interest == on) return;
  c.writable_interest = on;
  epoll_event ev{};
  ev.events = EPOLLIN | (on ? EPOLLOUT : 0u);
  ev.data.ptr = &c;
  epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, c.fd, &ev);
}

// CLIENT KILL: the killed connections close at once, the caller (when it
// killed itself) after its reply, as Redis's CLIENT_CLOSE_AFTER_REPLY.
void TcpServer::close_killed(Conn& caller) {
  for (auto& [fd, conn] : conns_) {
    if (!conn->session || !conn->session->kill_requested()) continue;
    if (conn.get() == &caller) {
      caller.close_after_reply = true;
    } else {
      doom(*conn);
    }
  }
}

void TcpServer::doom(Conn& c) {
  if (c.doomed) return;
  c.doomed = true;
  doomed_.push_back(&c);
}

void TcpServer::close_doomed() {
  for (Conn* c : doomed_) {
    int fd = c->fd;
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
    c->session.reset();  // unsubscribes, forgets WATCHes
    ::close(fd);
    conns_.erase(fd);
  }
  doomed_.clear();
}

// Called by the Lua engine's hook while a script is busy (see
// sim::Server::set_busy_script_handler): one non-blocking turn of the loop.
// The script's connection is `executing`; it is skipped (epoll reports it
// again later, being level-triggered). Other connections' commands all get
// BUSY but SCRIPT KILL and the few allow_busy ones, so none runs a script
// and this never nests. Closing waits for the outer loop (close_doomed).
void TcpServer::serve_while_busy() {
  if (serving_while_busy_) return;
  serving_while_busy_ = true;
  epoll_event events[64];
  int n = epoll_wait(epoll_fd_, events, 64, 0);
  for (int i = 0; i < n; ++i) {
    void* tag = events[i].data.ptr;
    if (tag == &kStopTag) {
      // The stop check ends the script; the eventfd stays readable for run().
    } else if (tag == &kListenTag) {
      accept_all();
    } else {
      Conn& c = *static_cast<Conn*>(tag);
      if (c.doomed || c.executing) continue;
      if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) on_readable(c);
      if (!c.doomed && (events[i].events & EPOLLOUT)) flush(c);
    }
  }
  serving_while_busy_ = false;
}

}  // namespace redsim::server
