// redis-server command lines: what each option does to the launch, and the
// messages of the refused ones. The processes themselves are started by
// tools/redis_server_dropin_test.sh.
#include "tools/server/redis_server_args.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace redsim::server {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

std::expected<RedisServerLaunch, std::string> parse(std::vector<std::string> args,
                                                    std::string stdin_text = "") {
  std::istringstream in(stdin_text);
  return parse_redis_server_args(args, in);
}

TEST(RedisServerArgs, ConfigFileThenCommandLineOptionsWin) {
  char path[] = "/tmp/redsim_args_test_XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  std::ofstream(path) << "# comment\n\nport 6380\r\nbind \"127.0.0.2\" -::1\nhz 20\nsave 900 1\n";
  auto launch = parse({path, "--port", "7000", "--daemonize", "yes", "--pidfile", "/tmp/p.pid"});
  unlink(path);
  ASSERT_TRUE(launch.has_value()) << launch.error();
  EXPECT_EQ(launch->options.port, 7000);
  EXPECT_EQ(launch->options.bind, "127.0.0.2");
  EXPECT_TRUE(launch->options.daemonize);
  EXPECT_EQ(launch->options.pidfile, "/tmp/p.pid");
  EXPECT_EQ(launch->options.config, (Pairs{{"port", "6380"},
                                           {"bind", "127.0.0.2 -::1"},
                                           {"hz", "20"},
                                           {"save", "900 1"},
                                           {"port", "7000"}}));
  // Two warnings: only the first bind address is served; save is not honoured.
  ASSERT_EQ(launch->warnings.size(), 2u);
  EXPECT_EQ(launch->warnings[1], "save 900 1: nothing is persisted (accepted only)");
}

// What CONFIG REWRITE writes (sim/cmd_config.cc) starts the server again:
// every settable parameter, repeated save lines (their pairs add up, save ""
// clears them) and the users as ACL LIST describes them.
TEST(RedisServerArgs, AFileConfigRewriteWroteIsAccepted) {
  auto launch = parse({"--save",
                       "900 1",
                       "--save",
                       "100 2",
                       "--latency-tracking-info-percentiles",
                       "50 99 99.9",
                       "--hash-max-listpack-entries",
                       "100",
                       "--list-max-ziplist-size",
                       "-1",
                       "--notify-keyspace-events",
                       "AKE",
                       "--user",
                       "default",
                       "on",
                       "nopass",
                       "sanitize-payload",
                       "~*",
                       "resetchannels",
                       "+@all",
                       "-flushdb"});
  ASSERT_TRUE(launch.has_value()) << launch.error();
  EXPECT_EQ(launch->options.config, (Pairs{{"save", "900 1 100 2"},
                                           {"latency-tracking-info-percentiles", "50 99 99.9"},
                                           {"hash-max-listpack-entries", "100"},
                                           {"list-max-ziplist-size", "-1"},
                                           {"notify-keyspace-events", "AKE"}}));
  EXPECT_EQ(launch->options.acl_users,
            std::vector<std::string>{
                "default on nopass sanitize-payload ~* resetchannels +@all -flushdb"});
  auto cleared = parse({"--save", "900 1", "--save", "", "--save", "60 5"});
  ASSERT_TRUE(cleared.has_value()) << cleared.error();
  EXPECT_EQ(cleared->options.config, (Pairs{{"save", "900 1"}, {"save", ""}, {"save", "60 5"}}));
  // No save line: Redis's default (introspection.tcl "CONFIG save params
  // special case handled properly"); io-threads is reported only.
  auto defaults = parse({"--io-threads", "4"});
  ASSERT_TRUE(defaults.has_value()) << defaults.error();
  EXPECT_EQ(defaults->options.config, (Pairs{{"save", "3600 1 300 100 60 10000"}}));
  EXPECT_EQ(defaults->options.reported_only, (Pairs{{"io-threads", "4"}}));
  EXPECT_FALSE(parse({"--io-threads", "0"}).has_value());
}

TEST(RedisServerArgs, ProcessTitleOptions) {
  // Redis sets its process title unless told not to; the template goes to
  // CONFIG SET, the config file (absolute) and unixsocket fill its variables.
  auto launch = parse({"--proc-title-template", "TEST {title}", "--unixsocket", "/tmp/s"});
  ASSERT_TRUE(launch.has_value()) << launch.error();
  EXPECT_TRUE(launch->options.set_proc_title);
  EXPECT_EQ(launch->options.config,
            (Pairs{{"save", "3600 1 300 100 60 10000"}, {"proc-title-template", "TEST {title}"}}));
  EXPECT_EQ(launch->options.unixsocket, "/tmp/s");
  EXPECT_EQ(launch->options.config_file, "");
  char path[] = "/tmp/redsim_args_test_XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  char cwd[4096];
  ASSERT_NE(getcwd(cwd, sizeof cwd), nullptr);
  ASSERT_EQ(chdir("/tmp"), 0);
  launch = parse({std::string(path).substr(5), "--set-proc-title", "no"});
  ASSERT_EQ(chdir(cwd), 0);
  unlink(path);
  ASSERT_TRUE(launch.has_value()) << launch.error();
  EXPECT_FALSE(launch->options.set_proc_title);
  EXPECT_EQ(launch->options.config_file, path);
  EXPECT_EQ(launch->options.reported_only, (Pairs{{"set-proc-title", "no"}}));
}

TEST(RedisServerArgs, SaveAloneIsEmptyAndValuesMaySpanArguments) {
  auto launch = parse({"--save", "--appendonly", "no", "--bind", "*", "--clock", "virtual"});
  ASSERT_TRUE(launch.has_value()) << launch.error();
  EXPECT_EQ(launch->options.config, (Pairs{{"save", ""}, {"appendonly", "no"}, {"bind", "*"}}));
  EXPECT_EQ(launch->options.bind, "0.0.0.0");
  EXPECT_EQ(launch->options.clock, "virtual");
  EXPECT_TRUE(launch->warnings.empty());
  // "--port 6381" as one argument, as Redis splits it; `--save` last.
  launch = parse({"--port 6381", "--save"});
  ASSERT_TRUE(launch.has_value()) << launch.error();
  EXPECT_EQ(launch->options.port, 6381);
  EXPECT_EQ(launch->options.config, (Pairs{{"port", "6381"}, {"save", ""}}));
}

TEST(RedisServerArgs, ConfigFromStdin) {
  auto launch = parse({"-", "--databases", "4"}, "port 6390\nenable-debug-command local\n");
  ASSERT_TRUE(launch.has_value()) << launch.error();
  EXPECT_EQ(launch->options.port, 6390);
  EXPECT_EQ(launch->options.databases, 4);
  EXPECT_EQ(launch->options.reported_only, (Pairs{{"enable-debug-command", "local"}}));
}

TEST(RedisServerArgs, RefusedWithRedisBanner) {
  // redis-server 7.0.15 --port 0 --port abc, byte for byte.
  auto launch = parse({"--port", "0", "--port", "abc"});
  ASSERT_FALSE(launch.has_value());
  EXPECT_EQ(launch.error(),
            "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\n"
            "Reading the configuration file, at line 2\n"
            ">>> 'port \"abc\"'\n"
            "argument couldn't be parsed into an integer");
  auto two = parse({"--requirepass", "a", "b"});
  ASSERT_FALSE(two.has_value());
  EXPECT_NE(two.error().find(">>> 'requirepass \"a\" \"b\"'\nwrong number of arguments"),
            std::string::npos)
      << two.error();
  // ACLAppendUserForLoading: a bad rule is a config error (redis-server
  // 7.0.15 --port 0 --user alice nosuchrule names argv[0] of the line).
  auto rule = parse({"--port", "0", "--user", "alice", "nosuchrule"});
  ASSERT_FALSE(rule.has_value());
  EXPECT_NE(rule.error().find(">>> 'user \"alice\" \"nosuchrule\"'\n"
                              "Error in user declaration 'user': Syntax error"),
            std::string::npos)
      << rule.error();
  // ACLAppendUserForLoading: a user is declared once.
  auto dup = parse({"--user", "foo", "--user", "foo", "on"});
  ASSERT_FALSE(dup.has_value());
  EXPECT_NE(
      dup.error().find(">>> 'user \"foo\" \"on\"'\nError in user declaration 'foo': Duplicate "
                       "user found. A user can only be defined once in config files"),
      std::string::npos)
      << dup.error();
  auto users = parse({"--user", "alice", "on", ">pw", "--aclfile", "users.acl"});
  ASSERT_TRUE(users.has_value());
  EXPECT_EQ(users->options.acl_users, std::vector<std::string>{"alice on >pw"});
  EXPECT_EQ(users->options.aclfile, "users.acl");
  EXPECT_FALSE(parse({"--port", "70000"}).has_value());
  EXPECT_FALSE(parse({"--daemonize", "maybe"}).has_value());
  EXPECT_FALSE(parse({"--cluster-enabled", "yes"}).has_value());
  EXPECT_FALSE(parse({"--bind", "::1"}).has_value());
  auto unknown = parse({"--frobnicate", "1"});
  ASSERT_FALSE(unknown.has_value());
  EXPECT_NE(unknown.error().find("Bad directive or wrong number of arguments"), std::string::npos);
  auto missing = parse({"/nonexistent/redis.conf"});
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error(),
            "Fatal error, can't open config file '/nonexistent/redis.conf': No such file or "
            "directory");
  EXPECT_FALSE(parse({"stray", "args"}).has_value());
}

// tests/assets/default.conf of Redis's test suite, plus what its
// start_server adds (unixsocket, requirepass overrides): all accepted.
TEST(RedisServerArgs, RedisTestSuiteConfig) {
  std::string conf =
      "always-show-logo yes\nnotify-keyspace-events KEA\ndaemonize no\n"
      "pidfile /var/run/redis.pid\nport 21111\ntimeout 0\nbind 127.0.0.1\n"
      "loglevel verbose\nlogfile ''\ndatabases 16\nlatency-monitor-threshold 1\n"
      "repl-diskless-sync-delay 0\nsave 900 1\nrdbcompression yes\ndbfilename dump.rdb\n"
      "dir ./\nslave-serve-stale-data yes\nappendonly no\nappendfsync everysec\n"
      "no-appendfsync-on-rewrite no\nactiverehashing yes\nenable-protected-configs yes\n"
      "enable-debug-command yes\nenable-module-command yes\n"
      "propagation-error-behavior panic\nunixsocket /tmp/x/socket\nrequirepass foobar\n"
      "maxclients 10\n";
  auto launch = parse({"-", "--port", "21112"}, conf);
  ASSERT_TRUE(launch.has_value()) << launch.error();
  EXPECT_EQ(launch->options.port, 21112);
  EXPECT_EQ(launch->options.bind, "127.0.0.1");
  EXPECT_EQ(launch->options.logfile, "");
  EXPECT_EQ(launch->options.dir, "./");
  const Pairs& c = launch->options.config;
  EXPECT_NE(
      std::find(c.begin(), c.end(), std::pair<std::string, std::string>{"requirepass", "foobar"}),
      c.end());
  EXPECT_NE(std::find(c.begin(), c.end(), std::pair<std::string, std::string>{"maxclients", "10"}),
            c.end());
  // Applied, so that CONFIG REWRITE writes the file's value back.
  EXPECT_NE(std::find(c.begin(), c.end(),
                      std::pair<std::string, std::string>{"latency-monitor-threshold", "1"}),
            c.end());
  bool socket_noted = false;
  for (const std::string& w : launch->warnings)
    socket_noted = socket_noted || w.starts_with("unixsocket");
  EXPECT_TRUE(socket_noted);
}

TEST(RedisServerArgs, WhichSyntax) {
  using V = std::vector<std::string>;
  EXPECT_FALSE(uses_redis_server_syntax(V{}));
  EXPECT_FALSE(uses_redis_server_syntax(V{"--port", "0", "--clock", "virtual", "--seed", "3"}));
  EXPECT_FALSE(uses_redis_server_syntax(V{"--help"}));
  EXPECT_TRUE(uses_redis_server_syntax(V{"redis.conf"}));
  EXPECT_TRUE(uses_redis_server_syntax(V{"--port", "0", "--save", ""}));
}

}  // namespace
}  // namespace redsim::server
