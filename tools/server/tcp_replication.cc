// TcpServer's replication: redsim server as a master (SYNC/PSYNC, the
// replication stream, REPLCONF ACK, INFO replication and ROLE) and as a
// replica (REPLICAOF host port, the replicaof config option). The data
// side is sim/replication.h (the RDB file, the stream's content); this
// file is the network.
//
// As Redis 7.0.15 (replication.c; facts only):
// - Master (syncCommand, replicationSetupSlaveForFullResync,
//   replicationFeedSlaves): PSYNC is always answered as a full resync,
//   "+FULLRESYNC <replid> <offset>", SYNC without that line; then the RDB
//   file as "$<len>\r\n<bytes>" (no trailing CRLF), then the stream: every
//   write as a RESP array, SELECT first when the db changes (slaveseldb,
//   reset for each new replica), PING every repl-ping-replica-period
//   seconds (default 10). The replication id is 40 random hex digits; the
//   offset counts the stream's bytes. The snapshot is taken at once
//   (Redis forks a BGSAVE). REPLCONF listening-port / ACK <offset> record
//   the replica's port and acknowledged offset (INFO's slaveN line, ROLE,
//   WAIT's count). WAIT blocks its client (waitCommand) until enough
//   replicas acknowledged its offset or the timeout passed, sending the
//   replicas REPLCONF GETACK * first; checked every 100 ms at most.
// - Replica (replicaofCommand, connectWithMaster, syncWithMaster,
//   readSyncBulkPayload, replicationSendAck): REPLICAOF host port answers
//   +OK ("+OK Already connected to specified master" when unchanged) and
//   connects within 100 ms; the handshake sends PING, AUTH [masteruser]
//   masterauth when masterauth is set ("Unable to AUTH to MASTER: <err>"
//   logged and a retry a second later on failure), REPLCONF
//   listening-port <port>, REPLCONF capa psync2, PSYNC ? -1, expects
//   +FULLRESYNC, skips the newlines a master sends while it saves, reads
//   the file ($<len>, not the diskless EOF form: capa eof is not sent) and
//   loads it (sim::load_rdb). The stream is then run on the master's own
//   session: its replies are dropped, REPLCONF GETACK answers REPLCONF
//   ACK <offset>, and an ACK goes every second. Ordinary clients' writes
//   get -READONLY while replica-read-only is yes. REPLICAOF NO ONE drops
//   the link and keeps the data. INFO replication shows role:slave,
//   master_host, master_port, master_link_status up/down; ROLE
//   ["slave", host, port, "connected"/"connect", offset].
// Not as Redis: the handshake and the file transfer block the event loop
// (with 5 s socket timeouts; the master is normally near), there is no
// partial resync (no backlog: PSYNC <id> <offset> is a full resync too),
// a replica expires keys on its own clock, and a replica of a replica gets
// the stream its master applies, re-encoded.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/args.h"
#include "sim/replication.h"
#include "sim/resp/codec.h"
#include "tools/server/tcp_conn.h"

namespace redsim::server {

namespace {

int64_t steady_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string encode_command(const sim::Argv& argv) {
  std::string out = "*" + std::to_string(argv.size()) + "\r\n";
  for (const std::string& a : argv) {
    out += "$" + std::to_string(a.size()) + "\r\n";
    out += a;
    out += "\r\n";
  }
  return out;
}

// Blocking I/O on the master link during the handshake.
bool send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

bool read_line(int fd, std::string* line) {
  line->clear();
  while (true) {
    char c = 0;
    ssize_t n = ::recv(fd, &c, 1, 0);
    if (n <= 0) return false;
    if (c == '\n') {
      if (!line->empty() && line->back() == '\r') line->pop_back();
      return true;
    }
    line->push_back(c);
    if (line->size() > 1024 * 1024) return false;
  }
}

std::vector<std::string> base_split(std::string_view text) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    size_t j = i;
    while (j < text.size() && text[j] != ' ') ++j;
    if (j > i) words.emplace_back(text.substr(i, j - i));
    i = j;
  }
  return words;
}

bool read_exact(int fd, size_t len, std::string* out) {
  out->resize(len);
  size_t got = 0;
  while (got < len) {
    ssize_t n = ::recv(fd, out->data() + got, len - got, 0);
    if (n <= 0) return false;
    got += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

void TcpServer::log(const std::string& line) {
  if (options_.log != nullptr) *options_.log << getpid() << ":S " << line << std::endl;
}

const void* TcpServer::replication_tag() const { return &repl_->tag; }

bool TcpServer::replication_active() const {
  return !repl_->master_host.empty() || repl_->had_replica || repl_->any_waiting;
}

TcpServer::Conn* TcpServer::conn_of(const sim::Session& s) {
  auto it = conns_.find(s.peer().fd);
  if (it == conns_.end() || it->second->session.get() != &s) return nullptr;
  return it->second.get();
}

void TcpServer::install_replication() {
  repl_ = std::make_unique<Replication>();
  std::random_device rd;
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 40; ++i) repl_->replid.push_back(kHex[rd() % 16]);
  repl_->master_replid = repl_->replid;
  sim::ReplicationHooks hooks;
  hooks.after_write = [this](sim::Session& s) { s.set_repl_offset(repl_->offset); };
  hooks.acked_replicas = [this](uint64_t offset) {
    int64_t n = 0;
    for (auto& [fd, c] : conns_) n += c->replica && c->replica_ack >= offset;
    return n;
  };
  hooks.propagate = [this](int db, const sim::Argv& argv) { propagate(db, argv); };
  hooks.sync = [this](sim::Session& s, const sim::Argv& argv) { return on_sync(s, argv); };
  hooks.replicaof = [this](const sim::Argv& argv) { return on_replicaof(argv); };
  hooks.replconf = [this](sim::Session& s, const sim::Argv& argv) { on_replconf(s, argv); };
  hooks.role = [this] { return role(); };
  hooks.info = [this] { return info(); };
  hooks.read_only = [this] {
    if (repl_->master_host.empty() || repl_->applying) return false;
    auto it = server_.config().others.find("replica-read-only");
    return it == server_.config().others.end() || it->second != "no";
  };
  server_.set_replication_hooks(std::move(hooks));
  sim::record_changes(server_, false);  // until a replica attaches
  // The replicaof config option (redis_server_args.cc stores "host port").
  auto it = server_.config().others.find("replicaof");
  if (it != server_.config().others.end() && !it->second.empty()) {
    std::vector<std::string> words = base_split(it->second);
    if (words.size() == 2) on_replicaof({"REPLICAOF", words[0], words[1]});
  }
}

void TcpServer::uninstall_replication() {
  server_.set_replication_hooks({});
  if (repl_ && repl_->master_fd >= 0) ::close(repl_->master_fd);
}

void TcpServer::propagate(int db, const sim::Argv& argv) {
  bool any = false;
  for (auto& [fd, c] : conns_) any = any || (c->replica && !c->doomed);
  if (!any) return;
  std::string bytes;
  if (db >= 0 && db != repl_->stream_db) {
    bytes = encode_command({"SELECT", std::to_string(db)});
    repl_->stream_db = db;
  }
  bytes += encode_command(argv);
  repl_->offset += bytes.size();
  for (auto& [fd, c] : conns_) {
    if (!c->replica || c->doomed) continue;
    c->out += bytes;
    if (!c->queued_for_flush) {
      c->queued_for_flush = true;
      to_flush_.push_back(c.get());
    }
  }
}

resp::Reply TcpServer::on_sync(sim::Session& s, const sim::Argv& argv) {
  Conn* c = conn_of(s);
  if (c == nullptr) return resp::Reply::error("ERR redsim: SYNC needs a TCP connection");
  if (c->replica) return resp::Reply::ok();  // syncCommand: already a replica
  if (!repl_->master_host.empty() && !repl_->link_up) {
    return resp::Reply::error("NOMASTERLINK Can't SYNC while not connected with my master");
  }
  sim::propagate_changes(server_);
  c->sync_plain = sim::equals_ci(argv[0], "sync");
  c->rdb = sim::save_rdb(server_, repl_->replid, repl_->offset);
  log("Replica " + s.peer().addr + " asks for synchronization; full resync, RDB of " +
      std::to_string(c->rdb.size()) + " bytes sent at offset " + std::to_string(repl_->offset));
  return resp::Reply::status("FULLRESYNC " + repl_->replid + " " + std::to_string(repl_->offset));
}

void TcpServer::start_replica(Conn& c, const resp::Reply& reply) {
  if (!c.sync_plain) resp::encode_to(c.out, reply, c.session->protocol());
  c.out += "$" + std::to_string(c.rdb.size()) + "\r\n";
  c.out += c.rdb;
  std::string().swap(c.rdb);
  c.replica = true;
  c.replica_ack_us = steady_us();
  repl_->recording = true;
  repl_->had_replica = true;
  repl_->stream_db = -1;  // the next write selects its db first
  sim::record_changes(server_, true);
}

// waitCommand: blocks until numreplicas replicas acknowledged the
// client's offset or the timeout passed, asking them with REPLCONF GETACK *
// (replicationRequestAckFromSlaves); answers the count then.
bool TcpServer::start_wait(Conn& c) {
  std::optional<sim::Session::BlockedWait> w = c.session->take_blocked_wait();
  if (!w) return false;
  c.waiting = true;
  c.blocked = true;
  c.wait_numreplicas = w->numreplicas;
  c.wait_offset = c.session->repl_offset();
  c.wait_deadline_us = w->timeout_ms > 0 ? steady_us() + w->timeout_ms * 1000 : 0;
  repl_->any_waiting = true;
  propagate(-1, {"REPLCONF", "GETACK", "*"});
  return true;
}

void TcpServer::answer_waits() {
  if (!repl_->any_waiting) return;
  const int64_t now = steady_us();
  std::vector<std::pair<int, int64_t>> ready;  // fd, count
  bool still = false;
  for (auto& [fd, c] : conns_) {
    if (!c->waiting || c->doomed) continue;
    int64_t acked = 0;
    for (auto& [rfd, r] : conns_)
      acked += r->replica && !r->doomed && r->replica_ack >= c->wait_offset;
    if (acked >= c->wait_numreplicas || (c->wait_deadline_us != 0 && now >= c->wait_deadline_us)) {
      ready.emplace_back(fd, acked);
    } else {
      still = true;
    }
  }
  repl_->any_waiting = still;
  for (auto [fd, acked] : ready) {
    auto it = conns_.find(fd);
    if (it == conns_.end()) continue;
    Conn& c = *it->second;
    c.waiting = false;
    c.blocked = false;
    if (c.doomed) continue;
    sim::Session& s = *c.session;
    if (!s.reply_suppressed()) resp::encode_to(c.out, resp::Reply::integer(acked), s.protocol());
    s.command_done();
    if (!c.in.empty()) {
      size_t pos = 0;
      process_input(c, c.in, pos);
      keep_unparsed(c, std::string_view(c.in).substr(pos), /*from_in=*/true);
    }
    if (!c.queued_for_flush) {
      c.queued_for_flush = true;
      to_flush_.push_back(&c);
    }
  }
}

void TcpServer::on_replconf(sim::Session& s, const sim::Argv& argv) {
  if (repl_->master_session && &s == repl_->master_session.get()) {
    // The master's REPLCONF GETACK *: answer with our offset.
    for (size_t j = 1; j + 1 < argv.size(); j += 2) {
      if (sim::equals_ci(argv[j], "getack") && repl_->master_fd >= 0) {
        send_all(repl_->master_fd,
                 encode_command({"REPLCONF", "ACK", std::to_string(repl_->applied)}));
      }
    }
    return;
  }
  Conn* c = conn_of(s);
  if (c == nullptr) return;
  for (size_t j = 1; j + 1 < argv.size(); j += 2) {
    int64_t v = 0;
    if (sim::equals_ci(argv[j], "listening-port") && sim::parse_int64(argv[j + 1], &v)) {
      c->replica_port = v;
    } else if (sim::equals_ci(argv[j], "ack") && sim::parse_int64(argv[j + 1], &v)) {
      c->replica_ack = static_cast<uint64_t>(v);
      c->replica_ack_us = steady_us();
    }
  }
}

resp::Reply TcpServer::on_replicaof(const sim::Argv& argv) {
  if (sim::equals_ci(argv[1], "no") && sim::equals_ci(argv[2], "one")) {
    if (!repl_->master_host.empty()) {
      drop_master_link("MASTER MODE enabled (user request)");
      repl_->master_host.clear();
      // shiftReplicationId: a new history starts here.
      repl_->replid.clear();
      std::random_device rd;
      static constexpr char kHex[] = "0123456789abcdef";
      for (int i = 0; i < 40; ++i) repl_->replid.push_back(kHex[rd() % 16]);
      repl_->offset = repl_->applied;
    }
    return resp::Reply::ok();
  }
  int64_t port = 0;
  sim::parse_int64(argv[2], &port);
  if (repl_->master_host == argv[1] && repl_->master_port == port) {
    return resp::Reply::status("OK Already connected to specified master");
  }
  drop_master_link("");
  // Our own replicas must resync from the new history.
  for (auto& [fd, c] : conns_) {
    if (c->replica) doom(*c);
  }
  repl_->master_host = argv[1];
  repl_->master_port = static_cast<int>(port);
  repl_->next_connect_us = 0;
  log("REPLICAOF " + argv[1] + ":" + argv[2] + " enabled (user request from redsim)");
  return resp::Reply::ok();
}

void TcpServer::drop_master_link(const std::string& why) {
  if (!why.empty()) log(why);
  if (repl_->master_fd >= 0) {
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, repl_->master_fd, nullptr);
    ::close(repl_->master_fd);
    repl_->master_fd = -1;
  }
  repl_->link_up = false;
  repl_->master_session.reset();
  repl_->in.clear();
  repl_->partial = 0;
  repl_->parser = RequestParser();
  repl_->next_connect_us = steady_us() + 1'000'000;
}

void TcpServer::connect_to_master() {
  Replication& r = *repl_;
  r.next_connect_us = steady_us() + 1'000'000;
  log("Connecting to MASTER " + r.master_host + ":" + std::to_string(r.master_port));
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(r.master_host.c_str(), std::to_string(r.master_port).c_str(), &hints, &res) !=
      0) {
    log("Unable to connect to MASTER: bad address");
    return;
  }
  int fd = ::socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  const bool connected = fd >= 0 && ::connect(fd, res->ai_addr, res->ai_addrlen) == 0;
  freeaddrinfo(res);
  if (!connected) {
    log(std::string("Error condition on socket for SYNC: ") + std::strerror(errno));
    if (fd >= 0) ::close(fd);
    return;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  auto fail = [&](const std::string& why) {
    log(why);
    ::close(fd);
  };
  std::string line;
  // PING: any reply but a permission error will do (syncWithMaster).
  if (!send_all(fd, encode_command({"PING"})) || !read_line(fd, &line)) {
    return fail("Master did not respond to PING");
  }
  if (line.starts_with("-") && !line.starts_with("-NOAUTH") && !line.starts_with("-NOPERM") &&
      !line.starts_with("-ERR operation not permitted")) {
    return fail("Error reply to PING from master: '" + line + "'");
  }
  const auto& others = server_.config().others;
  auto auth = others.find("masterauth");
  if (auth != others.end() && !auth->second.empty()) {
    sim::Argv cmd = {"AUTH"};
    auto user = others.find("masteruser");
    if (user != others.end() && !user->second.empty()) cmd.push_back(user->second);
    cmd.push_back(auth->second);
    if (!send_all(fd, encode_command(cmd)) || !read_line(fd, &line)) {
      return fail("Unable to AUTH to MASTER: connection lost");
    }
    if (line.starts_with("-")) return fail("Unable to AUTH to MASTER: " + line);
  }
  const sim::Argv steps[] = {
      {"REPLCONF", "listening-port", std::to_string(server_.config().port)},
      {"REPLCONF", "capa", "psync2"},
  };
  for (const sim::Argv& step : steps) {
    if (!send_all(fd, encode_command(step)) || !read_line(fd, &line)) {
      return fail("Master did not answer " + step[1]);
    }
    if (line.starts_with("-NOAUTH") || line.starts_with("-NOPERM")) {
      return fail("Unable to AUTH to MASTER: " + line);
    }
  }
  if (!send_all(fd, encode_command({"PSYNC", "?", "-1"})) || !read_line(fd, &line)) {
    return fail("Master did not answer PSYNC");
  }
  if (!line.starts_with("+FULLRESYNC "))
    return fail("Unexpected reply to PSYNC from master: " + line);
  std::vector<std::string> words = base_split(line.substr(1));
  uint64_t offset = 0;
  int64_t parsed = 0;
  if (words.size() == 3 && sim::parse_int64(words[2], &parsed))
    offset = static_cast<uint64_t>(parsed);
  // The master may send newlines while it saves the file.
  do {
    if (!read_line(fd, &line)) return fail("I/O error reading bulk count from MASTER");
  } while (line.empty());
  int64_t len = 0;
  if (!line.starts_with("$") || !sim::parse_int64(line.substr(1), &len) || len < 0) {
    return fail("Bad protocol from MASTER, the first byte is not '$': " + line);
  }
  std::string file;
  timeval long_tv{60, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &long_tv, sizeof long_tv);
  if (!read_exact(fd, static_cast<size_t>(len), &file)) {
    return fail("I/O error trying to sync with MASTER: connection lost");
  }
  log("MASTER <-> REPLICA sync: receiving " + std::to_string(len) + " bytes from master");
  if (std::string error = sim::load_rdb(server_, file); !error.empty()) {
    return fail("Failed trying to load the MASTER synchronization DB from socket: " + error);
  }
  log("MASTER <-> REPLICA sync: Finished with success");
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = &r.tag;
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
  r.master_fd = fd;
  r.link_up = true;
  r.master_session = server_.connect();
  r.master_session->set_peer({r.master_host + ":" + std::to_string(r.master_port), "", -1});
  r.applied = offset;
  if (words.size() == 3) r.master_replid = words[1];
  r.replid = r.master_replid;
  r.offset = offset;
  r.last_io_us = steady_us();
  r.last_ack_us = 0;
}

void TcpServer::on_master_readable() {
  Replication& r = *repl_;
  char buf[64 * 1024];
  while (r.master_fd >= 0) {
    ssize_t n = ::recv(r.master_fd, buf, sizeof buf, 0);
    if (n > 0) {
      r.in.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    drop_master_link("Connection with master lost.");
    return;
  }
  r.last_io_us = steady_us();
  size_t pos = 0;
  while (r.master_session) {
    const size_t before = pos;
    RequestParser::Status st = r.parser.parse(r.in, &pos);
    if (st == RequestParser::Status::kNeedMore) {
      r.partial += pos - before;  // a request's first bytes, parsed already
      break;
    }
    if (st == RequestParser::Status::kError) {
      drop_master_link("Protocol error from MASTER: " + r.parser.error());
      return;
    }
    sim::Argv argv = r.parser.take_argv();
    r.applied += std::exchange(r.partial, 0) + (pos - before);
    r.applying = true;
    server_.execute(*r.master_session, argv);
    r.applying = false;
    r.master_session->command_done();
    r.offset = r.applied;
  }
  if (r.master_session) r.in.erase(0, pos);
}

void TcpServer::replication_cron() {
  Replication& r = *repl_;
  sim::propagate_changes(server_);  // expiry, blocked clients served
  const int64_t now = steady_us();
  if (!r.master_host.empty() && r.master_fd < 0 && now >= r.next_connect_us) connect_to_master();
  if (r.master_fd >= 0 && now - r.last_ack_us >= 1'000'000) {
    r.last_ack_us = now;
    if (!send_all(r.master_fd, encode_command({"REPLCONF", "ACK", std::to_string(r.applied)}))) {
      drop_master_link("Connection with master lost (ACK).");
    }
  }
  bool any_replica = false;
  for (auto& [fd, c] : conns_) any_replica = any_replica || (c->replica && !c->doomed);
  if (r.recording != any_replica) {
    r.recording = any_replica;
    sim::record_changes(server_, any_replica);
  }
  if (any_replica) {
    int64_t period_s = 10;
    auto it = server_.config().others.find("repl-ping-replica-period");
    if (it != server_.config().others.end()) sim::parse_int64(it->second, &period_s);
    if (now - r.last_ping_us >= period_s * 1'000'000) {
      r.last_ping_us = now;
      propagate(-1, {"PING"});
    }
  }
  answer_waits();
  for (size_t i = 0; i < to_flush_.size(); ++i) {
    Conn* c = to_flush_[i];
    c->queued_for_flush = false;
    if (!c->doomed) flush(*c);
  }
  to_flush_.clear();
}

resp::Reply TcpServer::role() const {
  const Replication& r = *repl_;
  if (!r.master_host.empty()) {
    return resp::Reply::array(
        {resp::Reply::bulk("slave"), resp::Reply::bulk(r.master_host),
         resp::Reply::integer(r.master_port),
         resp::Reply::bulk(r.link_up ? "connected" : "connect"),
         resp::Reply::integer(r.link_up ? static_cast<int64_t>(r.applied) : -1)});
  }
  std::vector<resp::Reply> replicas;
  for (const auto& [fd, c] : conns_) {
    if (!c->replica || c->doomed) continue;
    std::string addr = c->session->peer().addr;
    addr = addr.substr(0, addr.rfind(':'));
    replicas.push_back(resp::Reply::array({resp::Reply::bulk(addr),
                                           resp::Reply::bulk(std::to_string(c->replica_port)),
                                           resp::Reply::bulk(std::to_string(c->replica_ack))}));
  }
  return resp::Reply::array({resp::Reply::bulk("master"),
                             resp::Reply::integer(static_cast<int64_t>(r.offset)),
                             resp::Reply::array(std::move(replicas))});
}

std::string TcpServer::info() const {
  const Replication& r = *repl_;
  std::string out = "# Replication\r\n";
  auto line = [&](std::string_view k, const std::string& v) {
    out += k;
    out += ':';
    out += v;
    out += "\r\n";
  };
  const int64_t now = steady_us();
  if (!r.master_host.empty()) {
    line("role", "slave");
    line("master_host", r.master_host);
    line("master_port", std::to_string(r.master_port));
    line("master_link_status", r.link_up ? "up" : "down");
    line("master_last_io_seconds_ago",
         r.link_up ? std::to_string((now - r.last_io_us) / 1'000'000) : "-1");
    line("master_sync_in_progress", "0");
    line("slave_read_repl_offset", std::to_string(r.applied));
    line("slave_repl_offset", std::to_string(r.applied));
    if (!r.link_up) line("master_link_down_since_seconds", "-1");
    line("slave_priority", "100");
    auto ro = server_.config().others.find("replica-read-only");
    line("slave_read_only", ro != server_.config().others.end() && ro->second == "no" ? "0" : "1");
    line("replica_announced", "1");
  } else {
    line("role", "master");
  }
  int n = 0;
  std::string slaves;
  for (const auto& [fd, c] : conns_) {
    if (!c->replica || c->doomed) continue;
    std::string addr = c->session->peer().addr;
    addr = addr.substr(0, addr.rfind(':'));
    slaves += "slave" + std::to_string(n++) + ":ip=" + addr +
              ",port=" + std::to_string(c->replica_port) +
              ",state=online,offset=" + std::to_string(c->replica_ack) +
              ",lag=" + std::to_string((now - c->replica_ack_us) / 1'000'000) + "\r\n";
  }
  line("connected_slaves", std::to_string(n));
  out += slaves;
  line("master_failover_state", "no-failover");
  line("master_replid", r.replid);
  line("master_replid2", std::string(40, '0'));
  line("master_repl_offset", std::to_string(r.offset));
  line("second_repl_offset", "-1");
  line("repl_backlog_active", r.had_replica || !r.master_host.empty() ? "1" : "0");
  line("repl_backlog_size", "1048576");
  line("repl_backlog_first_byte_offset", "1");
  line("repl_backlog_histlen", "0");
  return out;
}

}  // namespace redsim::server
