// RawClient: a minimal blocking RESP2 client over TCP for the differential
// tester. It sends argv as a RESP array and reads replies back into the same
// resp::Reply the fake returns; since a RESP2 value has exactly one
// encoding, resp::encode(reply) reproduces the bytes the server sent.
//
//   RawClient c("127.0.0.1", 6379);
//   resp::Reply r = c.call({"SET", "k", "v"});   // +OK
//
// Errors: a failed connect, a closed connection, a timeout or bytes that are
// not RESP throw RawClientError with what happened.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/resp/codec.h"

namespace redsim::difftest {

class RawClientError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RawClient {
 public:
  // Connects to host:port (numeric IPv4 or "localhost"); throws RawClientError.
  RawClient(const std::string& host, int port,
            std::chrono::milliseconds timeout = std::chrono::seconds(10));
  ~RawClient();
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  // Sends one command and reads its reply.
  resp::Reply call(const std::vector<std::string>& argv);
  void send(const std::vector<std::string>& argv);
  // The next reply (or push); throws RawClientError on timeout.
  resp::Reply read();

 private:
  int fd_ = -1;
  std::chrono::milliseconds timeout_;
  resp::Decoder decoder_;
};

}  // namespace redsim::difftest
