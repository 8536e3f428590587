// Connection and administration commands that clients and test harnesses
// send on connect or around tests: HELLO, CLIENT, CONFIG, INFO, COMMAND,
// FUNCTION FLUSH and redsim's own REDSIM.ADVANCE. Replies and error texts
// as Redis 7.0.15 (checked against Debian's redis-server); where the fake
// has nothing to report (memory figures, replication) the field is left
// out or reported as a Redis without that feature reports it.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdio>
#include <optional>
#include <set>
#include <string>

#include "sim/args.h"
#include "sim/glob.h"
#include "sim/internal.h"
#include "sim/pubsub.h"

namespace redsim::sim {

using resp::Reply;

namespace {

constexpr const char* kRedisVersion = "7.0.15";

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Reply unknown_subcommand(std::string_view sub, std::string_view container) {
  return Reply::error(one_line("ERR unknown subcommand '" + std::string(sub.substr(0, 128)) +
                               "'. Try " + std::string(container) + " HELP."));
}

Reply sub_arity(std::string_view container, std::string_view sub) {
  return Reply::error("ERR wrong number of arguments for '" + std::string(container) + "|" +
                      lower(sub) + "' command");
}

// Redis's validateClientName: printable ASCII without spaces.
bool valid_client_name(std::string_view name) {
  return std::all_of(name.begin(), name.end(), [](char c) { return c > ' ' && c <= '~'; });
}

const char* kBadClientName =
    "ERR Client names cannot contain spaces, newlines or special characters.";

// ---- HELLO -----------------------------------------------------------------

// HELLO [protover [AUTH username password] [SETNAME name]]. The fake speaks
// RESP2 only: protover 3 gets the NOPROTO error a Redis without RESP3
// support gives. AUTH succeeds for the "default" user (Redis's default
// user has no password), fails with WRONGPASS for any other.
Reply hello(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  if (argv.size() >= 2) {
    int64_t ver = 0;
    if (!parse_int64(argv[1], &ver)) {
      return Reply::error("ERR Protocol version is not an integer or out of range");
    }
    if (ver != 2) return Reply::error("NOPROTO unsupported protocol version");
  }
  const std::string* user = nullptr;
  const std::string* name = nullptr;
  for (size_t j = 2; j < argv.size(); ++j) {
    size_t more = argv.size() - 1 - j;
    if (equals_ci(argv[j], "auth") && more >= 2) {
      user = &argv[j + 1];
      j += 2;
    } else if (equals_ci(argv[j], "setname") && more >= 1) {
      name = &argv[j + 1];
      if (!valid_client_name(*name)) return Reply::error(kBadClientName);
      ++j;
    } else {
      return Reply::error(one_line("ERR Syntax error in HELLO option '" + argv[j] + "'"));
    }
  }
  if (user != nullptr && *user != "default") {
    return Reply::error("WRONGPASS invalid username-password pair or user is disabled.");
  }
  if (name != nullptr) SessionAccess::name(ctx.session) = *name;
  return Reply::array({Reply::bulk("server"), Reply::bulk("redis"), Reply::bulk("version"),
                       Reply::bulk(kRedisVersion), Reply::bulk("proto"), Reply::integer(2),
                       Reply::bulk("id"), Reply::integer(static_cast<int64_t>(ctx.session.id())),
                       Reply::bulk("mode"), Reply::bulk("standalone"), Reply::bulk("role"),
                       Reply::bulk("master"), Reply::bulk("modules"), Reply::array({})});
}

// ---- CLIENT ----------------------------------------------------------------

// One CLIENT LIST line, fields in Redis 7.0's order. Memory and buffer
// figures belong to the transport and are reported as 0.
std::string client_line(Server& server, const Session& s, int64_t now_ms) {
  std::string flags;
  if (s.subscription_count() > 0) flags += 'P';
  if (s.in_multi()) flags += 'x';
  if (SessionAccess::watch_dirty(s)) flags += 'd';
  if (flags.empty()) flags = "N";
  std::string cmd(SessionAccess::last_command(s));
  if (!SessionAccess::last_subcommand(s).empty()) cmd += "|" + SessionAccess::last_subcommand(s);
  auto& queued = SessionAccess::queued(const_cast<Session&>(s));
  (void)server;
  char buf[160];
  std::snprintf(buf, sizeof buf,
                " age=%lld idle=%lld flags=", (long long)((now_ms - s.created_ms()) / 1000),
                (long long)((now_ms - s.last_command_ms()) / 1000));
  std::string out =
      "id=" + std::to_string(s.id()) + " addr=" + s.peer().addr + " laddr=" + s.peer().laddr +
      " fd=" + std::to_string(s.peer().fd) + " name=" + s.name() + buf + flags +
      " db=" + std::to_string(s.db()) +
      " sub=" + std::to_string(SessionAccess::channels(s).size()) +
      " psub=" + std::to_string(SessionAccess::patterns(s).size()) +
      " ssub=0 multi=" + std::to_string(s.in_multi() ? static_cast<int64_t>(queued.size()) : -1) +
      " qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 "
      "tot-mem=0 events=r cmd=" +
      cmd + " user=default redir=-1 resp=2\n";
  return out;
}

Reply client_list(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  std::set<uint64_t> ids;
  bool only_pubsub = false;
  bool none = false;
  if (argv.size() == 4 && equals_ci(argv[2], "type")) {
    std::string type = lower(argv[3]);
    if (type == "pubsub") {
      only_pubsub = true;
    } else if (type == "master" || type == "replica" || type == "slave") {
      none = true;
    } else if (type != "normal") {
      return Reply::error(one_line("ERR Unknown client type '" + argv[3] + "'"));
    }
  } else if (argv.size() > 3 && equals_ci(argv[2], "id")) {
    for (size_t j = 3; j < argv.size(); ++j) {
      int64_t id = 0;
      if (!parse_int64(argv[j], &id) || id <= 0) {
        return Reply::error("ERR Invalid client ID");
      }
      ids.insert(static_cast<uint64_t>(id));
    }
  } else if (argv.size() != 2) {
    return errors::syntax();
  }
  std::string out;
  if (!none) {
    for (const auto& [id, s] : ctx.server.sessions()) {
      if (!ids.empty() && !ids.contains(id)) continue;
      bool pubsub = s->subscription_count() > 0;
      if (only_pubsub != pubsub && argv.size() == 4 && !equals_ci(argv[2], "id")) continue;
      out += client_line(ctx.server, *s, ctx.now_ms);
    }
  }
  return Reply::bulk(std::move(out));
}

Reply client(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  std::string sub = lower(argv[1]);
  size_t argc = argv.size();
  if (sub == "id") {
    if (argc != 2) return sub_arity("client", sub);
    return Reply::integer(static_cast<int64_t>(ctx.session.id()));
  }
  if (sub == "info") {
    if (argc != 2) return sub_arity("client", sub);
    return Reply::bulk(client_line(ctx.server, ctx.session, ctx.now_ms));
  }
  if (sub == "list") return client_list(ctx);
  if (sub == "getname") {
    if (argc != 2) return sub_arity("client", sub);
    if (ctx.session.name().empty()) return Reply::nil();
    return Reply::bulk(ctx.session.name());
  }
  if (sub == "setname") {
    if (argc != 3) return sub_arity("client", sub);
    if (!valid_client_name(argv[2])) return Reply::error(kBadClientName);
    SessionAccess::name(ctx.session) = argv[2];
    return Reply::ok();
  }
  if (sub == "reply") {
    if (argc != 3) return sub_arity("client", sub);
    std::string mode = lower(argv[2]);
    if (mode == "on") {
      SessionAccess::reply_flags(ctx.session, false, false);
      return Reply::ok();
    }
    if (mode == "off") {
      SessionAccess::reply_flags(ctx.session, true, false);
      return Reply::ok();  // suppressed: OFF is now in force
    }
    if (mode == "skip") {
      if (!ctx.session.reply_suppressed()) SessionAccess::reply_flags(ctx.session, false, true);
      return Reply::ok();  // suppressed: SKIP's own reply is never sent
    }
    return errors::syntax();
  }
  if (sub == "no-evict") {
    if (argc != 3) return sub_arity("client", sub);
    if (equals_ci(argv[2], "on") || equals_ci(argv[2], "off")) return Reply::ok();
    return errors::syntax();
  }
  return unknown_subcommand(argv[1], "CLIENT");
}

// ---- CONFIG ----------------------------------------------------------------

enum class ParamKind { kInt, kMemory, kBool, kString, kSave, kEnum };

struct Param {
  std::string_view name;
  ParamKind kind;
  bool immutable;
  std::string_view default_value;  // as CONFIG GET shows it when not honoured
  int64_t min = 0;
  int64_t max = INT64_MAX;
  std::string_view choices = "";  // kEnum: ", "-separated, in Redis's order
};

// The parameters CONFIG GET knows. Those backed by ServerConfig or
// ServerOptions report the live value; the others report what a Redis
// 7.0.15 started without persistence reports, or what CONFIG SET stored.
constexpr Param kParams[] = {
    {"databases", ParamKind::kInt, true, "", 1, INT_MAX},
    {"port", ParamKind::kInt, false, "", 0, 65535},
    {"bind", ParamKind::kString, false, ""},
    {"hz", ParamKind::kInt, false, "", 0, INT_MAX},
    {"busy-reply-threshold", ParamKind::kInt, false, "", 0, INT64_MAX},
    {"lua-time-limit", ParamKind::kInt, false, "", 0, INT64_MAX},
    {"maxmemory", ParamKind::kMemory, false, "", 0, INT64_MAX},
    {"proto-max-bulk-len", ParamKind::kMemory, false, "", 1024 * 1024, INT64_MAX},
    {"client-query-buffer-limit", ParamKind::kMemory, false, "", 1024 * 1024, INT64_MAX},
    {"save", ParamKind::kSave, false, ""},
    {"appendonly", ParamKind::kBool, false, "no"},
    {"maxmemory-policy", ParamKind::kEnum, false, "noeviction", 0, 0,
     "volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, "
     "allkeys-random, noeviction"},
    {"maxmemory-samples", ParamKind::kInt, false, "5", 1, 64},
    {"maxclients", ParamKind::kInt, false, "10000", 1, UINT_MAX},
    {"timeout", ParamKind::kInt, false, "0", 0, INT_MAX},
    {"tcp-keepalive", ParamKind::kInt, false, "300", 0, INT_MAX},
    {"protected-mode", ParamKind::kBool, false, "yes"},
    {"daemonize", ParamKind::kBool, true, "no"},
    {"appendfsync", ParamKind::kEnum, false, "everysec", 0, 0, "always, everysec, no"},
    {"dir", ParamKind::kString, false, ""},
    {"dbfilename", ParamKind::kString, false, "dump.rdb"},
    {"loglevel", ParamKind::kEnum, false, "notice", 0, 0, "debug, verbose, notice, warning"},
    {"notify-keyspace-events", ParamKind::kString, false, ""},
    {"slowlog-log-slower-than", ParamKind::kInt, false, "10000", INT_MIN, INT64_MAX},
    {"slowlog-max-len", ParamKind::kInt, false, "128", 0, LONG_MAX},
    {"lazyfree-lazy-user-del", ParamKind::kBool, false, "no"},
    {"lazyfree-lazy-user-flush", ParamKind::kBool, false, "no"},
    {"enable-debug-command", ParamKind::kEnum, true, "yes", 0, 0, "no, yes, local"},
    {"replica-read-only", ParamKind::kBool, false, "yes"},
    {"cluster-enabled", ParamKind::kBool, true, "no"},
    {"io-threads", ParamKind::kInt, true, "1", 1, 128},
};

const Param* find_param(std::string_view name) {
  for (const Param& p : kParams) {
    if (equals_ci(p.name, name)) return &p;
  }
  return nullptr;
}

std::string param_value(Server& server, const Param& p) {
  ServerConfig& c = server.config();
  std::string_view n = p.name;
  if (n == "databases") return std::to_string(server.keyspace().databases());
  if (n == "port") return std::to_string(c.port);
  if (n == "bind") return c.bind;
  if (n == "hz") return std::to_string(c.hz);
  if (n == "busy-reply-threshold" || n == "lua-time-limit") {
    return std::to_string(c.busy_reply_threshold_ms);
  }
  if (n == "maxmemory") return std::to_string(c.maxmemory_bytes);
  if (n == "proto-max-bulk-len") return std::to_string(c.proto_max_bulk_len);
  if (n == "client-query-buffer-limit") return std::to_string(c.client_query_buffer_limit);
  if (n == "dir") {
    char buf[4096];
    if (getcwd(buf, sizeof buf) != nullptr) return buf;
  }
  auto it = c.others.find(n);
  if (it != c.others.end()) return it->second;
  return std::string(p.default_value);
}

// Redis's memtoull: a number with an optional b/k/kb/m/mb/g/gb unit.
bool parse_memory(std::string_view s, int64_t* out) {
  size_t digits = 0;
  while (digits < s.size() &&
         (std::isdigit(static_cast<unsigned char>(s[digits])) || (digits == 0 && s[0] == '-')))
    ++digits;
  std::string unit = lower(s.substr(digits));
  int64_t mul = 1;
  if (unit.empty() || unit == "b")
    mul = 1;
  else if (unit == "k")
    mul = 1000;
  else if (unit == "kb")
    mul = 1024;
  else if (unit == "m")
    mul = 1000 * 1000;
  else if (unit == "mb")
    mul = 1024 * 1024;
  else if (unit == "g")
    mul = 1000LL * 1000 * 1000;
  else if (unit == "gb")
    mul = 1024LL * 1024 * 1024;
  else
    return false;
  int64_t v = 0;
  if (!parse_int64(s.substr(0, digits), &v) || v < 0) return false;
  if (v > INT64_MAX / mul) return false;
  *out = v * mul;
  return true;
}

// Redis's "save" syntax: pairs of seconds and changes, or "".
bool valid_save(std::string_view s) {
  std::vector<std::string> words;
  std::string cur;
  for (char c : s) {
    if (c == ' ') {
      if (!cur.empty()) words.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) words.push_back(std::move(cur));
  if (words.size() % 2 != 0) return false;
  for (const std::string& w : words) {
    int64_t v = 0;
    if (!parse_int64(w, &v) || v < 0) return false;
  }
  return true;
}

Reply config_failed(std::string_view name, std::string_view why) {
  return Reply::error("ERR CONFIG SET failed (possibly related to argument '" + std::string(name) +
                      "') - " + std::string(why));
}

// Checks one CONFIG SET pair; on success returns nullopt and sets *value
// to the canonical form CONFIG GET will show.
std::optional<Reply> check_param(const Param& p, const std::string& arg, std::string* value,
                                 int64_t* number) {
  if (p.immutable) return config_failed(p.name, "can't set immutable config");
  switch (p.kind) {
    case ParamKind::kInt: {
      int64_t v = 0;
      if (!parse_int64(arg, &v)) {
        return config_failed(p.name, "argument couldn't be parsed into an integer");
      }
      if (v < p.min || v > p.max) {
        return config_failed(p.name, "argument must be between " + std::to_string(p.min) + " and " +
                                         std::to_string(p.max) + " inclusive");
      }
      *number = v;
      *value = std::to_string(v);
      return std::nullopt;
    }
    case ParamKind::kMemory: {
      int64_t v = 0;
      if (!parse_memory(arg, &v)) return config_failed(p.name, "argument must be a memory value");
      if (v < p.min || v > p.max) {
        return config_failed(p.name, "argument must be between " + std::to_string(p.min) + " and " +
                                         std::to_string(p.max) + " inclusive");
      }
      *number = v;
      *value = std::to_string(v);
      return std::nullopt;
    }
    case ParamKind::kBool:
      if (equals_ci(arg, "yes") || equals_ci(arg, "no")) {
        *value = lower(arg);
        return std::nullopt;
      }
      return config_failed(p.name, "argument must be 'yes' or 'no'");
    case ParamKind::kSave:
      if (!valid_save(arg)) return config_failed(p.name, "Invalid save parameters");
      *value = arg;
      return std::nullopt;
    case ParamKind::kEnum: {
      std::string_view rest = p.choices;
      std::string want = lower(arg);
      while (!rest.empty()) {
        size_t comma = rest.find(", ");
        std::string_view choice = rest.substr(0, comma);
        if (choice == want) {
          *value = want;
          return std::nullopt;
        }
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 2);
      }
      return config_failed(p.name,
                           "argument(s) must be one of the following: " + std::string(p.choices));
    }
    case ParamKind::kString:
      *value = arg;
      return std::nullopt;
  }
  return std::nullopt;
}

void apply_param(Server& server, const Param& p, const std::string& value, int64_t number) {
  ServerConfig& c = server.config();
  std::string_view n = p.name;
  if (n == "hz") {
    // Redis clamps hz to 1..500.
    c.hz = static_cast<int>(std::clamp<int64_t>(number, 1, 500));
  } else if (n == "busy-reply-threshold" || n == "lua-time-limit") {
    c.busy_reply_threshold_ms = number;
  } else if (n == "maxmemory") {
    c.maxmemory_bytes = number;
  } else if (n == "proto-max-bulk-len") {
    c.proto_max_bulk_len = number;
  } else if (n == "client-query-buffer-limit") {
    c.client_query_buffer_limit = number;
  } else if (n == "port") {
    c.port = static_cast<int>(number);  // reported only: the listener stays where it is
  } else if (n == "bind") {
    c.bind = value;
  } else {
    c.others[std::string(n)] = value;
  }
}

Reply config(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  std::string sub = lower(argv[1]);
  if (sub == "get") {
    if (argv.size() < 3) return sub_arity("config", sub);
    std::vector<Reply> out;
    std::set<std::string_view> seen;
    for (size_t j = 2; j < argv.size(); ++j) {
      std::string pattern = lower(argv[j]);
      for (const Param& p : kParams) {
        if (seen.contains(p.name) || !glob_match(pattern, p.name)) continue;
        seen.insert(p.name);
        out.push_back(Reply::bulk(std::string(p.name)));
        out.push_back(Reply::bulk(param_value(ctx.server, p)));
      }
    }
    return Reply::array(std::move(out));
  }
  if (sub == "set") {
    if (argv.size() < 4) return sub_arity("config", sub);
    if (argv.size() % 2 != 0) return errors::syntax();
    struct Change {
      const Param* param;
      std::string value;
      int64_t number;
    };
    std::vector<Change> changes;
    for (size_t j = 2; j + 1 < argv.size(); j += 2) {
      const Param* p = find_param(argv[j]);
      if (p == nullptr) {
        return Reply::error(one_line(
            "ERR Unknown option or number of arguments for CONFIG SET - '" + argv[j] + "'"));
      }
      for (const Change& c : changes) {
        if (c.param == p) return config_failed(p->name, "duplicate parameter");
      }
      Change change{p, {}, 0};
      if (auto err = check_param(*p, argv[j + 1], &change.value, &change.number)) return *err;
      changes.push_back(std::move(change));
    }
    for (const Change& c : changes) apply_param(ctx.server, *c.param, c.value, c.number);
    return Reply::ok();
  }
  if (sub == "resetstat" || sub == "rewrite") {
    if (argv.size() != 2) return sub_arity("config", sub);
    if (sub == "rewrite") return Reply::error("ERR The server is running without a config file");
    return Reply::ok();
  }
  return unknown_subcommand(argv[1], "CONFIG");
}

// ---- INFO ------------------------------------------------------------------

std::string info_section(Server& server, std::string_view section, int64_t now_ms) {
  std::string out;
  auto line = [&out](std::string_view key, const std::string& value) {
    out.append(key);
    out += ':';
    out += value;
    out += "\r\n";
  };
  if (section == "server") {
    out = "# Server\r\n";
    line("redis_version", kRedisVersion);
    line("redis_git_sha1", "00000000");
    line("redis_git_dirty", "0");
    line("redis_mode", "standalone");
    line("redsim", "1");
    line("arch_bits", "64");
    line("multiplexing_api", "epoll");
    line("process_id", std::to_string(getpid()));
    line("tcp_port", std::to_string(server.config().port));
    line("server_time_usec", std::to_string(server.clock().now_us()));
    int64_t up_s = (now_ms - server.start_ms()) / 1000;
    line("uptime_in_seconds", std::to_string(up_s));
    line("uptime_in_days", std::to_string(up_s / 86400));
    line("hz", std::to_string(server.config().hz));
    line("configured_hz", std::to_string(server.config().hz));
    line("config_file", "");
    line("io_threads_active", "0");
  } else if (section == "clients") {
    out = "# Clients\r\n";
    line("connected_clients", std::to_string(server.sessions().size()));
    line("cluster_connections", "0");
    line("maxclients", "10000");
    line("blocked_clients", "0");
    line("tracking_clients", "0");
    line("clients_in_timeout_table", "0");
  } else if (section == "stats") {
    out = "# Stats\r\n";
    line("total_connections_received", std::to_string(server.connections_received()));
    line("total_commands_processed", std::to_string(server.commands_processed()));
    line("rejected_connections", "0");
    line("sync_full", "0");
    line("sync_partial_ok", "0");
    line("sync_partial_err", "0");
    line("evicted_keys", "0");
    line("pubsub_channels", std::to_string(server.pubsub().channel_count()));
    line("pubsub_patterns", std::to_string(server.pubsub().pattern_count()));
    line("latest_fork_usec", "0");
    line("total_forks", "0");
  } else if (section == "keyspace") {
    out = "# Keyspace\r\n";
    Keyspace& ks = server.keyspace();
    for (int i = 0; i < ks.databases(); ++i) {
      Db& db = ks.db(i);
      if (db.size() == 0) continue;
      int64_t ttl_sum = 0;
      int64_t ttl_n = 0;
      db.for_each([&](const std::string&, const Entry& e) {
        if (e.has_expire() && e.expire_ms > now_ms) {
          ttl_sum += e.expire_ms - now_ms;
          ++ttl_n;
        }
      });
      line("db" + std::to_string(i), "keys=" + std::to_string(db.size()) +
                                         ",expires=" + std::to_string(db.volatile_count()) +
                                         ",avg_ttl=" + std::to_string(ttl_n ? ttl_sum / ttl_n : 0));
    }
  } else {
    // Sections Redis has and the fake has nothing to report in: the header only.
    static constexpr std::pair<std::string_view, std::string_view> kEmpty[] = {
        {"memory", "# Memory\r\n"},
        {"persistence", "# Persistence\r\n"},
        {"replication", "# Replication\r\nrole:master\r\nconnected_slaves:0\r\n"},
        {"cpu", "# CPU\r\n"},
        {"modules", "# Modules\r\n"},
        {"errorstats", "# Errorstats\r\n"},
        {"cluster", "# Cluster\r\ncluster_enabled:0\r\n"},
        {"commandstats", "# Commandstats\r\n"},
        {"latencystats", "# Latencystats\r\n"},
    };
    for (const auto& [name, text] : kEmpty) {
      if (name == section) out = text;
    }
  }
  return out;
}

Reply info(CommandContext& ctx) {
  static constexpr std::string_view kDefault[] = {
      "server", "clients", "memory",     "persistence", "stats",   "replication",
      "cpu",    "modules", "errorstats", "cluster",     "keyspace"};
  static constexpr std::string_view kAll[] = {
      "server",  "clients",      "memory",     "persistence",  "stats",   "replication", "cpu",
      "modules", "commandstats", "errorstats", "latencystats", "cluster", "keyspace"};
  std::vector<std::string_view> wanted;
  std::set<std::string> asked;
  for (size_t j = 1; j < ctx.argv.size(); ++j) asked.insert(lower(ctx.argv[j]));
  auto want = [&](std::string_view s) {
    if (std::find(wanted.begin(), wanted.end(), s) == wanted.end()) wanted.push_back(s);
  };
  if (asked.empty() || asked.contains("default")) {
    for (auto s : kDefault) want(s);
  }
  if (asked.contains("all") || asked.contains("everything")) {
    for (auto s : kAll) want(s);
  }
  // Named sections come out in Redis's order, not the order asked.
  for (auto s : kAll) {
    if (asked.contains(std::string(s))) want(s);
  }
  std::string out;
  for (std::string_view s : wanted) {
    std::string text = info_section(ctx.server, s, ctx.now_ms);
    if (text.empty()) continue;
    if (!out.empty()) out += "\r\n";
    out += text;
  }
  return Reply::bulk(std::move(out));
}

// ---- COMMAND ---------------------------------------------------------------

Reply command_flags(const CommandSpec& spec) {
  std::vector<Reply> flags;
  if (spec.flags & kCmdWrite) flags.push_back(Reply::status("write"));
  if (spec.flags & kCmdReadonly) flags.push_back(Reply::status("readonly"));
  if (spec.flags & kCmdNoScript) flags.push_back(Reply::status("noscript"));
  if (spec.flags & kCmdPubSub) flags.push_back(Reply::status("pubsub"));
  if (spec.flags & kCmdNoMulti) flags.push_back(Reply::status("no_multi"));
  if (spec.flags & kCmdFast) flags.push_back(Reply::status("fast"));
  if (spec.flags & kCmdMayReplicate) flags.push_back(Reply::status("may_replicate"));
  return Reply::array(std::move(flags));
}

// COMMAND INFO's shape: name, arity, flags, first key, last key, step, ACL
// categories, tips, key specs, subcommands. The fake's table has no key
// positions: data commands report the common single-key shape (1, 1, 1).
Reply command_info(const CommandSpec& spec) {
  bool keyed = (spec.flags & (kCmdWrite | kCmdReadonly)) && spec.name != "flushdb" &&
               spec.name != "flushall" && spec.name != "dbsize";
  int64_t first = keyed ? 1 : 0;
  return Reply::array({Reply::bulk(std::string(spec.name)), Reply::integer(spec.arity),
                       command_flags(spec), Reply::integer(first), Reply::integer(first),
                       Reply::integer(first), Reply::array({}), Reply::array({}), Reply::array({}),
                       Reply::array({})});
}

std::vector<const CommandSpec*> sorted_commands(const CommandTable& table) {
  std::vector<const CommandSpec*> specs;
  table.for_each([&](const CommandSpec& s) { specs.push_back(&s); });
  std::sort(specs.begin(), specs.end(),
            [](const CommandSpec* a, const CommandSpec* b) { return a->name < b->name; });
  return specs;
}

Reply command(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  const CommandTable& table = ctx.server.commands();
  if (argv.size() == 1) {
    std::vector<Reply> out;
    for (const CommandSpec* s : sorted_commands(table)) out.push_back(command_info(*s));
    return Reply::array(std::move(out));
  }
  std::string sub = lower(argv[1]);
  if (sub == "count") {
    if (argv.size() != 2) return sub_arity("command", sub);
    return Reply::integer(static_cast<int64_t>(table.size()));
  }
  if (sub == "info") {
    std::vector<Reply> out;
    if (argv.size() == 2) {
      for (const CommandSpec* s : sorted_commands(table)) out.push_back(command_info(*s));
    }
    for (size_t j = 2; j < argv.size(); ++j) {
      const CommandSpec* s = table.find(argv[j]);
      out.push_back(s ? command_info(*s) : Reply::nil_array());
    }
    return Reply::array(std::move(out));
  }
  if (sub == "docs") {
    // A map (flat in RESP2) of name -> doc map. The fake documents each
    // command's group only; redis-cli uses the names for completion.
    std::vector<Reply> out;
    auto doc = [&](const CommandSpec& s) {
      out.push_back(Reply::bulk(std::string(s.name)));
      out.push_back(
          Reply::array({Reply::bulk("summary"), Reply::bulk(""), Reply::bulk("since"),
                        Reply::bulk("1.0.0"), Reply::bulk("group"), Reply::bulk("generic")}));
    };
    if (argv.size() == 2) {
      for (const CommandSpec* s : sorted_commands(table)) doc(*s);
    }
    for (size_t j = 2; j < argv.size(); ++j) {
      if (const CommandSpec* s = table.find(argv[j])) doc(*s);
    }
    return Reply::array(std::move(out));
  }
  if (sub == "list") {
    if (argv.size() != 2) return errors::syntax();
    std::vector<Reply> out;
    for (const CommandSpec* s : sorted_commands(table)) {
      out.push_back(Reply::bulk(std::string(s->name)));
    }
    return Reply::array(std::move(out));
  }
  return unknown_subcommand(argv[1], "COMMAND");
}

// ---- FUNCTION, REDSIM.ADVANCE ----------------------------------------------

// FUNCTION FLUSH [ASYNC|SYNC]: the fake has no functions, so there is
// nothing to flush. FUNCTION KILL: no function ever runs, so NOTBUSY (while
// an EVAL script is busy the dispatcher answers BUSY, as Redis does). Other
// FUNCTION subcommands are not simulated.
Reply function(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  if (equals_ci(argv[1], "kill")) {
    if (argv.size() != 2) return sub_arity("function", "kill");
    return Reply::error("NOTBUSY No scripts in execution right now.");
  }
  if (equals_ci(argv[1], "flush")) {
    if (argv.size() > 3) return sub_arity("function", "flush");
    if (argv.size() == 3 && !equals_ci(argv[2], "async") && !equals_ci(argv[2], "sync")) {
      return Reply::error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
    }
    return Reply::ok();
  }
  return unknown_subcommand(argv[1], "FUNCTION");
}

// REDSIM.ADVANCE <ms>: redsim's control command. Moves the server clock
// forward by ms milliseconds through Clock::sleep_us, as DEBUG SLEEP does:
// a virtual clock jumps, a wall clock really blocks the server that long.
Reply redsim_advance(CommandContext& ctx) {
  int64_t ms = 0;
  if (!parse_int64(ctx.argv[1], &ms) || ms < 0 || ms > INT64_MAX / 1000) {
    return errors::not_integer();
  }
  ctx.server.clock().sleep_us(ms * 1000);
  return Reply::ok();
}

}  // namespace

void register_connection_commands(CommandTable& table) {
  table.add({"hello", -1, kCmdNoScript | kCmdFast, &hello});
  table.add({"client", -2, kCmdNoScript | kCmdContainer, &client});
  table.add({"config", -2, kCmdContainer, &config});
  table.add({"info", -1, 0, &info});
  table.add({"command", -1, kCmdContainer, &command});
  table.add({"function", -2, kCmdContainer | kCmdNoScript | kCmdWrite, &function});
  table.add({"redsim.advance", 2, kCmdNoScript, &redsim_advance});
}

}  // namespace redsim::sim
