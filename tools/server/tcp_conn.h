// TcpServer's connection (private to tools/server: tcp_server.cc and
// tcp_replication.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "sim/server.h"
#include "tools/server/request_parser.h"
#include "tools/server/tcp_server.h"

namespace redsim::server {

struct TcpServer::Conn {
  int fd = -1;
  std::unique_ptr<sim::Session> session;
  RequestParser parser;
  std::string in;
  std::string out;
  size_t out_pos = 0;
  std::string own_pushes;  // pushes raised by this connection's running command
  // A big argument being read straight into its own string (see
  // RequestParser::big_bulk_len): its length, 0 when none.
  std::string big_arg;
  size_t big_arg_len = 0;
  size_t in_peak = 0;               // most bytes `in` held since the last cron
  size_t out_peak = 0;              // most bytes `out` held since out_peak_reset_us
  int64_t out_peak_reset_us = 0;    // server clock
  int64_t last_interaction_us = 0;  // server clock: last read or write (timeout)
  bool executing = false;
  // Blocked by a blocking command (sim::Session::blocked()): its requests
  // wait in `in` until Server::take_unblocked() hands over the reply.
  bool blocked = false;
  bool close_after_reply = false;
  bool writable_interest = false;
  bool queued_for_flush = false;
  bool doomed = false;
  // Replication (tcp_replication.cc): a replica of this server once SYNC or
  // PSYNC sent it the RDB file; the stream follows in `out`.
  bool replica = false;
  bool sync_plain = false;     // SYNC: no +FULLRESYNC line before the file
  std::string rdb;             // the file, sent after the command's reply
  int64_t replica_port = 0;    // REPLCONF listening-port
  uint64_t replica_ack = 0;    // REPLCONF ACK offset
  int64_t replica_ack_us = 0;  // steady clock
  // WAIT blocked (sim::Session::BlockedWait): `blocked` is set too, so that
  // its next requests wait; replication_cron answers.
  bool waiting = false;
  int64_t wait_numreplicas = 0;
  int64_t wait_deadline_us = 0;  // steady clock; 0: no timeout
  uint64_t wait_offset = 0;
};

// The replication link's state (tcp_replication.cc).
struct TcpServer::Replication {
  char tag = 0;  // the master link's epoll tag
  // As a master.
  std::string replid;
  uint64_t offset = 0;
  int stream_db = -1;
  bool had_replica = false;
  bool recording = false;
  bool any_waiting = false;  // a connection is blocked in WAIT  // sim::record_changes is on: a
                             // replica is attached
  int64_t last_ping_us = 0;
  // As a replica.
  std::string master_host;
  int master_port = 0;
  int master_fd = -1;
  bool link_up = false;
  std::unique_ptr<sim::Session> master_session;
  RequestParser parser;
  std::string in;
  size_t partial = 0;    // bytes of an incomplete request already parsed
  uint64_t applied = 0;  // the replica's offset (slave_repl_offset)
  std::string master_replid;
  bool applying = false;
  int64_t next_connect_us = 0;
  int64_t last_ack_us = 0;
  int64_t last_io_us = 0;
};

}  // namespace redsim::server
