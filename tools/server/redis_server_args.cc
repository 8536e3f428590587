#include "tools/server/redis_server_args.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string_view>
#include <utility>

#include "base/split_args.h"
#include "sim/acl.h"
#include "sim/config_rewrite.h"

namespace redsim::server {

namespace {

// Redis 7.0 options the fake accepts and ignores: persistence, logging and
// process details that change nothing a client can observe of the fake.
constexpr std::string_view kAcceptedOnly[] = {
    "appendfilename",
    "appenddirname",
    "aof-use-rdb-preamble",
    "aof-timestamp-enabled",
    "auto-aof-rewrite-percentage",
    "auto-aof-rewrite-min-size",
    "no-appendfsync-on-rewrite",
    "rdbcompression",
    "rdbchecksum",
    "stop-writes-on-bgsave-error",
    "always-show-logo",
    "syslog-enabled",
    "syslog-ident",
    "syslog-facility",
    "supervised",
    "tcp-backlog",
    "crash-log-enabled",
    "crash-memcheck-enabled",
    "jemalloc-bg-thread",
    "activerehashing",
    "lazyfree-lazy-eviction",
    "lazyfree-lazy-expire",
    "lazyfree-lazy-server-del",
    "replica-lazy-flush",
    "dynamic-hz",
    // Replication, protection and module switches of the test suite's
    // tests/assets/default.conf: the fake has no replicas, no modules, and
    // every config is settable.
    "repl-diskless-sync",
    "repl-diskless-sync-delay",
    "repl-diskless-load",
    "repl-ping-replica-period",
    "repl-timeout",
    "slave-serve-stale-data",
    "replica-serve-stale-data",
    "enable-protected-configs",
    "enable-module-command",
    "propagation-error-behavior",
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Redis's loadServerConfigFromString error, exit 1.
std::string fatal(int line_number, const std::string& line, std::string_view why) {
  return "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at "
         "line " +
         std::to_string(line_number) + "\n>>> '" + line + "'\n" + std::string(why);
}

std::string join(std::span<const std::string> words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// A command-line option as Redis quotes it in its config text (main() adds
// each value with sdscatrepr): name "value" ...
std::string quoted_option(std::span<const std::string> words) {
  std::string out = words.empty() ? "" : words[0];
  for (size_t i = 1; i < words.size(); ++i) {
    out += " \"";
    for (char c : words[i]) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out;
}

bool parse_int(std::string_view s, int64_t* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

// Applies one config line (already split) to the launch; an error message
// (Redis's text after the banner) when it is refused.
std::optional<std::string> apply(const std::vector<std::string>& words, RedisServerLaunch* launch) {
  ServerCmdOptions& o = launch->options;
  std::string name = lower(words[0]);
  std::span<const std::string> args(words.begin() + 1, words.end());
  std::string value = join(args);
  auto one_arg = [&]() -> std::optional<std::string> {
    if (args.size() != 1) return "wrong number of arguments";
    return std::nullopt;
  };
  auto yes_no = [&](bool* out) -> std::optional<std::string> {
    if (auto e = one_arg()) return e;
    std::string v = lower(args[0]);
    if (v != "yes" && v != "no") return "argument must be 'yes' or 'no'";
    *out = v == "yes";
    return std::nullopt;
  };
  if (name == "port") {
    int64_t port = 0;
    if (auto e = one_arg()) return e;
    if (!parse_int(args[0], &port)) return "argument couldn't be parsed into an integer";
    if (port < 0 || port > 65535) {
      return "argument must be between 0 and 65535 inclusive";
    }
    o.port = static_cast<int>(port);
    o.config.emplace_back("port", args[0]);
    return std::nullopt;
  }
  if (name == "bind") {
    // The fake listens on one IPv4 address: the first one given ("-" marks
    // an optional address in Redis; * is every IPv4 address).
    for (const std::string& a : args) {
      std::string addr = a.starts_with('-') ? a.substr(1) : a;
      if (addr == "*") addr = "0.0.0.0";
      if (addr.find(':') != std::string::npos) continue;  // IPv6: not served
      o.bind = addr;
      if (args.size() > 1) launch->warnings.push_back("bind: listening on " + addr + " only");
      o.config.emplace_back("bind", value);
      return std::nullopt;
    }
    return "redsim listens on IPv4 only: give an IPv4 address or *";
  }
  if (name == "daemonize") return yes_no(&o.daemonize);
  if (name == "set-proc-title") {
    if (auto e = yes_no(&o.set_proc_title)) return e;
    o.reported_only.emplace_back("set-proc-title", o.set_proc_title ? "yes" : "no");
    return std::nullopt;
  }
  if (name == "pidfile" || name == "logfile" || name == "dir") {
    if (auto e = one_arg()) return e;
    (name == "pidfile" ? o.pidfile : name == "logfile" ? o.logfile : o.dir) = args[0];
    if (name == "dir") o.config.emplace_back("dir", args[0]);
    return std::nullopt;
  }
  if (name == "databases") {
    int64_t n = 0;
    if (auto e = one_arg()) return e;
    if (!parse_int(args[0], &n) || n < 1 || n > 1 << 20) return "Invalid number of databases";
    o.databases = static_cast<int>(n);
    return std::nullopt;
  }
  if (name == "clock") {  // redsim's own
    if (auto e = one_arg()) return e;
    if (args[0] != "real" && args[0] != "virtual") return "clock must be real or virtual";
    o.clock = args[0];
    return std::nullopt;
  }
  if (name == "seed") {  // redsim's own
    int64_t seed = 0;
    if (auto e = one_arg()) return e;
    if (!parse_int(args[0], &seed) || seed < 0) return "seed must be a non-negative integer";
    o.seed = static_cast<uint64_t>(seed);
    return std::nullopt;
  }
  if (name == "io-threads") {
    // One thread serves every client here; the value is reported only.
    int64_t n = 0;
    if (auto e = one_arg()) return e;
    if (!parse_int(args[0], &n)) return "argument couldn't be parsed into an integer";
    if (n < 1 || n > 128) return "argument must be between 1 and 128 inclusive";
    o.reported_only.emplace_back("io-threads", args[0]);
    return std::nullopt;
  }
  if (name == "enable-debug-command") {
    if (auto e = one_arg()) return e;
    std::string v = lower(args[0]);
    if (v != "yes" && v != "no" && v != "local") {
      return "argument(s) must be one of the following: no, yes, local";
    }
    if (v == "no") launch->warnings.push_back("enable-debug-command no: DEBUG stays enabled");
    o.reported_only.emplace_back("enable-debug-command", v);
    return std::nullopt;
  }
  if (name == "save") {
    bool none = value.empty() || std::all_of(args.begin(), args.end(),
                                             [](const std::string& a) { return a.empty(); });
    if (!none)
      launch->warnings.push_back("save " + value + ": nothing is persisted (accepted only)");
    // Redis's config loading adds each save line's pairs to the earlier
    // lines' (save "" clears them).
    auto prev = std::find_if(o.config.rbegin(), o.config.rend(),
                             [](const auto& kv) { return kv.first == "save"; });
    if (!none && prev != o.config.rend() && !prev->second.empty()) {
      prev->second += " " + value;
    } else {
      o.config.emplace_back("save", none ? "" : value);
    }
    return std::nullopt;
  }
  if (name == "appendonly") {
    bool on = false;
    if (auto e = yes_no(&on)) return e;
    if (on) launch->warnings.push_back("appendonly yes: nothing is persisted (accepted only)");
    o.config.emplace_back("appendonly", on ? "yes" : "no");
    return std::nullopt;
  }
  if (name == "unixsocket" || name == "unixsocketperm") {
    // Redis's test suite always names a socket; its clients use TCP.
    if (auto e = one_arg()) return e;
    if (name == "unixsocket") {
      launch->warnings.push_back("unixsocket " + args[0] + ": redsim serves TCP only");
      o.unixsocket = args[0];
    }
    return std::nullopt;
  }
  if (name == "requirepass") {
    // The default user's password (sim/cmd_connection.cc AUTH); "" is none.
    if (auto e = one_arg()) return e;
    o.config.emplace_back("requirepass", args[0]);
    return std::nullopt;
  }
  if (name == "user") {
    // ACLAppendUserForLoading: loaded after the whole config (sim/acl.h).
    if (args.empty()) return "wrong number of arguments";
    for (const std::string& line : o.acl_users) {
      if (line.substr(0, line.find(' ')) == args[0]) {
        return "Error in user declaration '" + args[0] +
               "': Duplicate user found. A user can only be defined once in config files";
      }
    }
    // ACLAppendUserForLoading tries the rules on a scratch user; a bad one
    // is a config error. Redis 7.0.15 names argv[i] of the whole line for
    // the i-th rule (so 'user' for the first), which is kept.
    sim::AclUsers scratch;
    if (std::string e = scratch.set_user(args[0], {args.begin() + 1, args.end()}); !e.empty()) {
      const size_t from = e.find("modifier '");
      const size_t reason = e.rfind("': ");
      std::string named = args[0];
      if (from != std::string::npos && reason != std::string::npos && reason > from) {
        const std::string bad = e.substr(from + 10, reason - from - 10);
        auto at = std::find(args.begin() + 1, args.end(), bad);
        if (at != args.end()) {
          const size_t k = static_cast<size_t>(at - args.begin()) - 1;
          named = k == 0 ? "user" : args[k - 1];
        }
      }
      return "Error in user declaration '" + named +
             "': " + (reason == std::string::npos ? e : e.substr(reason + 3));
    }
    o.acl_users.push_back(value);
    return std::nullopt;
  }
  if (name == "aclfile") {
    if (auto e = one_arg()) return e;
    o.aclfile = args[0];
    return std::nullopt;
  }
  if (name == "cluster-enabled") {
    bool on = false;
    if (auto e = yes_no(&on)) return e;
    if (on) return "redsim is not a cluster: cluster-enabled yes is not supported";
    return std::nullopt;
  }
  if (name == "replicaof" || name == "slaveof") {
    // Started as a replica: redsim server connects out (tcp_replication.cc).
    if (args.size() != 2) return "wrong number of arguments";
    o.reported_only.emplace_back("replicaof", args[0] + " " + args[1]);
    return std::nullopt;
  }
  if (name == "include" || name == "loadmodule") {
    return "redsim does not support " + name;
  }
  if (std::find(std::begin(kAcceptedOnly), std::end(kAcceptedOnly), name) !=
      std::end(kAcceptedOnly)) {
    return std::nullopt;
  }
  // The rest goes to the fake's CONFIG SET when it knows the name as a
  // settable parameter (every line CONFIG REWRITE writes, sim/cmd_config.cc);
  // run_server reports a value it refuses. The immutable ones it knows are above.
  if (sim::config_parameter_settable(name)) {
    if (args.empty()) return "wrong number of arguments";
    o.config.emplace_back(name, value);
    return std::nullopt;
  }
  return "Bad directive or wrong number of arguments (redsim does not support '" + name + "')";
}

}  // namespace

std::expected<RedisServerLaunch, std::string> parse_redis_server_args(
    std::span<const std::string> args, std::istream& config_stdin) {
  // Redis's main(): the config text is the file, then stdin, then one line
  // per --option. Lines are kept as text so that errors quote them.
  std::vector<std::string> lines;
  size_t j = 0;
  bool from_stdin = false;
  if (!args.empty() && !args[0].starts_with("-")) {
    std::ifstream file(args[0]);
    if (!file) {
      return std::unexpected("Fatal error, can't open config file '" + args[0] +
                             "': No such file or directory");
    }
    for (std::string line; std::getline(file, line);) lines.push_back(line);
    j = 1;
  }
  std::vector<std::vector<std::string>> options;  // from the command line, already split
  // The last --name has no value yet: the next argument is its value, even
  // one starting with "--" (as in Redis).
  bool name_only = false;
  for (; j < args.size(); ++j) {
    const std::string& a = args[j];
    if (a == "-" && (j == 0 || j + 1 == args.size())) {
      from_stdin = true;
    } else if (a.starts_with("--") && !name_only) {
      // "--port 6380" as one argument splits into name and value.
      auto words = base::split_args(std::string_view(a).substr(2));
      if (!words || words->empty()) return std::unexpected(fatal(1, a, "Bad directive"));
      options.push_back(*words);
      name_only = words->size() == 1;
      if (name_only && lower(a) == "--save" &&
          (j + 1 == args.size() || args[j + 1].starts_with("--"))) {
        options.back().push_back("");  // `--save` alone is `save ""`
        name_only = false;
      }
    } else if (options.empty()) {
      return std::unexpected("Invalid option '" + a + "'");
    } else {
      options.back().push_back(a);
      name_only = false;
    }
  }
  if (from_stdin) {
    for (std::string line; std::getline(config_stdin, line);) lines.push_back(line);
  }
  RedisServerLaunch launch;
  // Redis's set-proc-title defaults to yes; {config-file} is the file's
  // absolute path (getAbsolutePath, before any dir option's chdir).
  launch.options.set_proc_title = true;
  if (!args.empty() && !args[0].starts_with("-")) {
    std::error_code ec;
    std::filesystem::path path = std::filesystem::absolute(args[0], ec);
    launch.options.config_file = ec ? args[0] : path.lexically_normal().string();
  }
  int line_number = 0;
  for (std::string line : lines) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#') continue;
    auto words = base::split_args(line);
    if (!words) {
      return std::unexpected(fatal(line_number, line, "Unbalanced quotes in configuration line"));
    }
    if (words->empty()) continue;
    if (auto why = server::apply(*words, &launch))
      return std::unexpected(fatal(line_number, line, *why));
  }
  for (const std::vector<std::string>& words : options) {
    ++line_number;
    if (auto why = server::apply(words, &launch)) {
      return std::unexpected(fatal(line_number, quoted_option(words), *why));
    }
  }
  // No save line at all: Redis's own default (CONFIG GET reports it; nothing
  // is persisted).
  auto& config = launch.options.config;
  if (std::none_of(config.begin(), config.end(),
                   [](const auto& kv) { return kv.first == "save"; })) {
    config.insert(config.begin(), {"save", "3600 1 300 100 60 10000"});
  }
  return launch;
}

bool uses_redis_server_syntax(std::span<const std::string> args) {
  static constexpr std::string_view kOwn[] = {"--port", "--bind", "--clock", "--seed"};
  for (size_t i = 0; i < args.size(); i += 2) {  // each own flag takes a value
    const std::string& a = args[i];
    if (a == "-h" || a == "--help" || a == "--help-all") return false;
    bool own = std::find(std::begin(kOwn), std::end(kOwn), a) != std::end(kOwn);
    if (!own) return true;
  }
  return false;
}

int redis_server_main(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  if (args.size() == 1 && (args[0] == "-v" || args[0] == "--version")) {
    out << "Redis server v=7.0.15 sha=00000000:0 malloc=libc bits=64 build=redsim\n";
    return 0;
  }
  if (args.size() == 1 && (args[0] == "-h" || args[0] == "--help")) {
    out << "Usage: redis-server [/path/to/redis.conf] [options] [-]\n"
           "       redis-server - (read config from stdin)\n"
           "       redis-server -v or --version\n"
           "       redis-server -h or --help\n\n"
           "redsim's fake Redis 7.0; see tools/server/redis_server_args.h for the options it "
           "honours.\n";
    return 0;
  }
  auto launch = parse_redis_server_args(args, std::cin);
  if (!launch) {
    err << launch.error() << "\n";
    return 1;
  }
  launch->options.warnings = std::move(launch->warnings);
  return run_server(launch->options, out, err);
}

}  // namespace redsim::server
