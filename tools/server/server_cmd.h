// `redsim server`: the fake Redis over TCP (tools/server/tcp_server.h).
//
//   redsim server --port 0 --clock virtual
//   # prints: Ready to accept connections tcp 127.0.0.1:41234
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace redsim::server {

struct ServerCmdOptions {
  std::string bind = "127.0.0.1";
  int port = 6379;
  std::string clock =
      "real";         // "real": wall time; "virtual": moves on DEBUG SLEEP / REDSIM.ADVANCE
  uint64_t seed = 0;  // the fake's seed (random choices of the server)
  int databases = 16;
  // The redis-server launch options (tools/server/redis_server_args.h);
  // empty / false: not used.
  std::string dir;         // chdir here first (relative pidfile and logfile follow)
  bool daemonize = false;  // fork; the parent exits 0, the child detaches
  std::string pidfile;     // written after the fork, removed at exit
  std::string logfile;     // the ready line and messages go here (appended) instead of out/err
  // `CONFIG SET name value` pairs applied to the fake before it listens.
  std::vector<std::pair<std::string, std::string>> config;
  // Set on the fake's config directly (immutable for CONFIG SET, reported by CONFIG GET).
  std::vector<std::pair<std::string, std::string>> reported_only;
  // ACL users: the config's `user` lines ("name rule...") or an ACL file,
  // loaded after the config pairs (sim::Server::load_acl_users).
  std::vector<std::string> acl_users;
  std::string aclfile;
  // The process title (tools/server/proc_title.h) from proc-title-template
  // once listening and after each CONFIG SET of it: Redis's set-proc-title,
  // on for the redis-server syntax. config_file (absolute) and unixsocket
  // only fill the template's {config-file} and {unixsocket}.
  bool set_proc_title = false;
  std::string config_file;
  std::string unixsocket;
  // Printed as "# WARNING redsim: <line>" on err (the logfile if any) at start.
  std::vector<std::string> warnings;
};

// Listens, prints the ready line, serves until SIGINT, SIGTERM or SHUTDOWN.
// Returns the exit code: 0 after a signal, 1 when it cannot listen, chdir,
// open the logfile or apply a config pair (message on err).
int run_server(const ServerCmdOptions& options, std::ostream& out, std::ostream& err);

}  // namespace redsim::server
