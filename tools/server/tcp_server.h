// TcpServer: the fake Redis (sim::Server) over TCP, speaking RESP2 to any
// client: redis-cli, redis-py, redis-benchmark, hiredis. One thread, one
// epoll loop, like Redis itself: commands run one at a time, atomically, in
// arrival order per connection; every complete command in a read is run
// and answered in order (pipelining); pub/sub messages are pushed to
// subscribed connections; a command that blocks (DEBUG SLEEP on the wall
// clock) blocks everyone, as in a single-threaded Redis.
//
//   server::WallClock clock;
//   sim::Server fake(clock);
//   server::TcpServer tcp(fake, {.bind = "127.0.0.1", .port = 0, .wall_clock = true});
//   int port = tcp.listen();       // the port picked (throws std::system_error)
//   tcp.run();                     // until request_stop()
//
// Behaviour taken from Redis 7.0.15 (src/networking.c), checked against
// Debian's redis-server:
// - Malformed requests: the commands before the bad bytes run and are
//   answered, then "-ERR Protocol error: ..." is sent and the connection
//   closed (see request_parser.h for the texts and limits).
// - QUIT answers +OK and closes the connection; CLIENT REPLY OFF/SKIP
//   suppress replies and pushes.
// - A subscribed connection whose unsent output exceeds
//   kPubSubOutputLimitBytes (Redis's client-output-buffer-limit pubsub hard
//   limit, 32 MB) is disconnected. Normal connections have no limit, but
//   one that has not authenticated (requirepass) is disconnected past
//   kUnauthenticatedOutputLimitBytes, and may send at most 10 arguments of
//   16 KiB (request_parser.h).
// - The active expiry cycle runs every 1000 / hz ms of the server clock
//   (CONFIG SET hz). On a virtual clock the loop sleeps without a timeout
//   and runs the cycles the clock has passed after each batch of commands;
//   idle connections cost nothing either way (no per-connection timers).
// - A script running longer than busy-reply-threshold (CONFIG SET
//   busy-reply-threshold, default 5000 ms; wall time on a wall clock, the
//   instruction-charged time of sim/server.h on a virtual one) does not
//   stop the others: as Redis's processEventsWhileBlocked, the loop is
//   re-entered from the script's hook; other connections are read and get
//   -BUSY (or SCRIPT KILL's answer, which ends the script), new ones are
//   accepted, and the script's own connection is not read until it ends.
//   A stop request (SIGTERM/SIGINT in redsim server) ends a running script
//   (even after its writes, even with busy-reply-threshold 0: see
//   sim::Server::set_stop_check), so run() can return; interrupt_fd() lets
//   a blocking clock (WallClock's DEBUG SLEEP) end early too.
// - SHUTDOWN (sim::Server::shutdown_requested) stops the loop: its own
//   reply and everything after it is not sent, every connection is closed
//   and run() returns, as Redis exits.
// - maxclients (CONFIG SET maxclients, default 10000): a connection beyond
//   it gets "-ERR max number of clients reached" and is closed. As Redis's
//   adjustOpenFilesLimit, listen() raises the soft RLIMIT_NOFILE to
//   maxclients + 32 when it can, and otherwise lowers maxclients to the
//   limit - 32. Should accept() still fail for want of descriptors
//   (EMFILE/ENFILE: other descriptors in use, a lowered limit), a spare
//   descriptor kept open for the purpose is closed to accept the client,
//   send it the same error and close it (the listening socket would
//   otherwise stay readable and the loop spin); if even that fails,
//   accepting pauses until a connection closes or 100 ms pass.
// - Memory, as Redis 7.0 (src/networking.c, src/server.c clientsCron):
//   an argument of 32 KiB or more (PROTO_MBULK_BIG_ARG) is read into one
//   string of its exact size that becomes the argument, and SET stores that
//   very string (sim::Server::execute_consuming): a 100 MB SET peaks near
//   1x the value. Every 1000 / hz ms the query and reply buffers of each
//   connection are shrunk to their recent peaks (see resize_client_buffers
//   in tcp_server.cc); a drained reply buffer over 64 KiB is freed at once.
//   After FLUSHALL / FLUSHDB, or once the keys stored dropped by 10,000,
//   glibc's malloc_trim(0) returns the freed heap pages to the system
//   (redsim server also fixes glibc's M_MMAP_THRESHOLD at 128 KiB, so a
//   big value, buffer or reply goes back to the system as it is freed).
// - timeout (CONFIG SET timeout, seconds, default 0 = never): a connection
//   idle (nothing read or written) longer than that on the server clock is
//   closed, checked with the expiry cycles; subscribers and the connection
//   of a running script are kept, as in Redis's clientsCronHandleTimeout.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/server.h"

namespace redsim::server {

struct TcpServerOptions {
  std::string bind = "127.0.0.1";  // numeric IPv4 or IPv6 address
  int port = 6379;                 // 0: the kernel picks a free port
  bool wall_clock = false;         // the server's clock follows wall time (timed expiry cycles)
  std::ostream* log = nullptr;     // the replication link's messages (Redis's log lines)
};

class TcpServer {
 public:
  static constexpr size_t kPubSubOutputLimitBytes = 32 * 1024 * 1024;
  // The fake's bound on an unauthenticated client's unsent output (Redis
  // keeps such a client to "a few MB" at most; tests/unit/auth.tcl).
  static constexpr size_t kUnauthenticatedOutputLimitBytes = 1024 * 1024;

  TcpServer(sim::Server& server, TcpServerOptions options);
  ~TcpServer();
  TcpServer(const TcpServer&) = delete;
  TcpServer& operator=(const TcpServer&) = delete;

  // Binds and listens; returns the port. Throws std::system_error when the
  // address is bad or the port is taken. Sets the fake's CONFIG port/bind.
  int listen();
  // CONFIG SET port (sim::ServerConfig::change_port): listens on `port` on
  // the same address, then closes the old listener (connections stay);
  // false, the old listener kept, when the new one cannot bind or listen.
  bool change_port(int port);
  // Serves until request_stop(); closes every connection before returning.
  void run();
  // Async-signal-safe and thread-safe: makes run() return soon.
  void request_stop();
  // Readable once request_stop() was called (valid after listen()): a
  // clock that blocks may poll it to stop early.
  int interrupt_fd() const { return stop_fd_; }

  size_t connection_count() const { return conns_.size(); }
  // Bytes the connections' query, reply and argument buffers held at the
  // last cron tick (buffer capacities, not contents). Thread-safe.
  size_t buffer_bytes() const { return buffer_bytes_.load(std::memory_order_relaxed); }

 private:
  struct Conn;
  // A bound, listening, non-blocking socket on options_.bind:port and the
  // port it got; throws std::system_error.
  std::pair<int, int> open_listener(int port);
  void accept_all();
  void on_readable(Conn& c);
  void keep_unparsed(Conn& c, std::string_view rest, bool from_in);
  void read_big_arg(Conn& c);
  void resize_client_buffers();
  void trim_freed_memory();
  void process_input(Conn& c, std::string_view buf, size_t& pos);
  void run_command(Conn& c);
  void on_push(Conn& c, const resp::Reply& reply);
  void serve_unblocked();
  void flush(Conn& c);
  void set_writable_interest(Conn& c, bool on);
  void doom(Conn& c);
  void close_killed(Conn& caller);  // after CLIENT KILL marked sessions
  void close_doomed();
  void run_expiry_cycles();
  int wait_timeout_ms() const;
  void serve_while_busy();
  void reject_connection(int fd);
  void on_accept_failed();
  void set_accepting(bool on);
  void close_idle_clients();
  void adjust_open_files_limit();
  // Replication (tcp_replication.cc).
  struct Replication;
  void install_replication();
  void uninstall_replication();
  bool replication_active() const;
  const void* replication_tag() const;
  void replication_cron();
  void on_master_readable();
  void start_replica(Conn& c, const resp::Reply& reply);
  bool start_wait(Conn& c);
  void answer_waits();
  void propagate(int db, const sim::Argv& argv);
  resp::Reply on_sync(sim::Session& s, const sim::Argv& argv);
  resp::Reply on_replicaof(const sim::Argv& argv);
  void on_replconf(sim::Session& s, const sim::Argv& argv);
  resp::Reply role() const;
  std::string info() const;
  Conn* conn_of(const sim::Session& s);
  void connect_to_master();
  void drop_master_link(const std::string& why);
  void log(const std::string& line);

  sim::Server& server_;
  TcpServerOptions options_;
  int listen_fd_ = -1;
  int epoll_fd_ = -1;
  int stop_fd_ = -1;  // eventfd written by request_stop()
  std::unordered_map<int, std::unique_ptr<Conn>> conns_;
  std::vector<Conn*> to_flush_;  // received pushes during this batch
  std::vector<Conn*> doomed_;    // to close once no command is running
  int64_t next_cycle_us_ = 0;
  std::vector<char> read_buf_;  // every plain read lands here first
  // While a busy script runs, reads land here: read_buf_ may still hold the
  // request being run.
  std::vector<char> busy_read_buf_;
  bool serving_while_busy_ = false;
  std::atomic<bool> stop_requested_ = false;
  int spare_fd_ = -1;             // closed to accept one client past EMFILE
  bool accepting_ = true;         // the listening socket is in the epoll set
  int64_t accept_resume_us_ = 0;  // steady-clock time to resume accepting
  std::atomic<size_t> buffer_bytes_ = 0;
  size_t keys_high_ = 0;         // most keys stored since the last malloc_trim
  bool trim_requested_ = false;  // FLUSHALL / FLUSHDB ran
  std::unique_ptr<Replication> repl_;
};

}  // namespace redsim::server
