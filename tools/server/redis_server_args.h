// `redis-server` command lines for `redsim server`: what test harnesses
// written for Redis pass, mapped onto the fake (tools/server/server_cmd.h).
//
//   redsim redis-server /tmp/t/redis.conf --port 6380 --save '' --appendonly no
//   ln -s $(command -v redsim) bin/redis-server && bin/redis-server --port 6380
//
// The syntax is Redis 7.0's (src/server.c main, src/config.c): an optional
// config file first ("-" reads it from stdin), then `--name value...`
// options, each appended as one more config line ("--save" alone means
// `save ""`). Config lines are split with Redis's quoting rules; `#` starts
// a comment line.
//
// What the options do here:
// - honoured: port, bind (the first IPv4 address or *), daemonize (fork and
//   detach), pidfile, logfile (the start-up lines and warnings go there),
//   dir (chdir), databases, user and aclfile (ACL users, loaded after the
//   config as Redis's ACLLoadUsersAtStartup), set-proc-title and
//   proc-title-template (the process title, tools/server/proc_title.h, as
//   redis-server sets it; the config file's path and unixsocket fill its
//   variables), and every parameter `CONFIG SET` can change
//   (sim/config_rewrite.h config_parameter_settable: hz, maxclients,
//   timeout, maxmemory, ...), applied before the first client and reported
//   by CONFIG GET (so that what CONFIG REWRITE writes reads back; the config
//   file's path is CONFIG REWRITE's file);
// - accepted, with a warning on stderr when they ask for something the fake
//   does not do: save and appendonly (no persistence), enable-debug-command
//   (DEBUG is always on), loglevel, and the persistence and logging options
//   in kAcceptedOnly (redis_server_args.cc);
// - refused with Redis's "FATAL CONFIG FILE ERROR" text and exit code 1:
//   unixsocket, requirepass, cluster-enabled yes, include, and any option
//   redsim does not know.
// Two redsim options are accepted as well: --clock real|virtual, --seed N.
#pragma once

#include <expected>
#include <iosfwd>
#include <span>
#include <string>
#include <vector>

#include "tools/server/server_cmd.h"

namespace redsim::server {

struct RedisServerLaunch {
  ServerCmdOptions options;
  std::vector<std::string> warnings;  // one line each, printed on stderr at start
};

// Parses `args` (the command line after the program name). `config_stdin`
// is read when the config file is "-". Returns the launch, or the message
// Redis prints before exiting with 1 (several lines, no trailing newline).
std::expected<RedisServerLaunch, std::string> parse_redis_server_args(
    std::span<const std::string> args, std::istream& config_stdin);

// True when `args` (after `redsim server`) use Redis's syntax rather than
// redsim's own flags (--port, --bind, --clock, --seed, --help): a config file
// or any other option.
bool uses_redis_server_syntax(std::span<const std::string> args);

// The whole `redis-server` entry point: --version / -v, --help / -h, else
// parse and run_server(). Returns the process exit code.
int redis_server_main(std::span<const std::string> args, std::ostream& out, std::ostream& err);

}  // namespace redsim::server
