// HiredisOptions: where and how lock::HiredisEnv connects to one Redis
// server, with units and defaults; parse_url() reads the same from a
// redis:// URL.
//
//   auto opts = lock::HiredisOptions::parse_url("redis://:secret@127.0.0.1:6380/2");
//   opts.command_timeout = std::chrono::milliseconds(500);
//   lock::HiredisEnv env(opts);
//
// URL shape (the IANA redis scheme, as redis-cli -u reads it):
//   redis://[[user]:password@]host[:port][/database]
// host is a name, an IPv4 address or a bracketed IPv6 address ([::1]);
// user and password may be percent-encoded (%40 for '@'). The port defaults
// to 6379, the database to 0. rediss:// (TLS), unix sockets and query
// parameters are not supported and are refused with a message saying so.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace redsim::lock {

struct HiredisOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 6379;
  // SELECTed after connecting when not 0.
  int database = 0;
  // AUTH after connecting when password is not empty: `AUTH password`, or
  // `AUTH user password` (Redis 6 ACL) when user is not empty too.
  std::string user;
  std::string password;
  // How long redisConnectWithTimeout may take (TimeoutError past it).
  std::chrono::milliseconds connect_timeout{2000};
  // How long a command may wait for its reply (redisSetTimeout); past it the
  // call throws TimeoutError and the connection is replaced. nullopt: no
  // limit (a blocking call waits as long as the server takes). A value is
  // at least 1 ms in effect. Connection::call(argv, timeout) overrides it
  // for one call.
  std::optional<std::chrono::milliseconds> command_timeout = std::chrono::milliseconds(5000);

  // Parses a redis:// URL into host, port, database, user and password; the
  // timeouts keep their defaults. Throws std::invalid_argument naming the
  // URL and what is wrong ("port must be 1..65535", "database must be a
  // non-negative integer", ...).
  static HiredisOptions parse_url(std::string_view url);
  // redis://host:port/database, without credentials (for logs).
  std::string url() const;
};

}  // namespace redsim::lock
