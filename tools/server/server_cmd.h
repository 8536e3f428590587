// `redsim server`: the fake Redis over TCP (tools/server/tcp_server.h).
//
//   redsim server --port 0 --clock virtual
//   # prints: Ready to accept connections tcp 127.0.0.1:41234
#pragma once

#include <ostream>
#include <string>

namespace redsim::server {

struct ServerCmdOptions {
  std::string bind = "127.0.0.1";
  int port = 6379;
  std::string clock =
      "real";         // "real": wall time; "virtual": moves on DEBUG SLEEP / REDSIM.ADVANCE
  uint64_t seed = 0;  // the fake's seed (random choices of the server)
};

// Listens, prints the ready line, serves until SIGINT or SIGTERM. Returns
// the exit code: 0 after a signal, 1 when it cannot listen (message on err).
int run_server(const ServerCmdOptions& options, std::ostream& out, std::ostream& err);

}  // namespace redsim::server
