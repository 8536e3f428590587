// CONFIG GET, CONFIG SET, CONFIG RESETSTAT and CONFIG REWRITE, and the
// parameters they know (registered in cmd_connection.cc). Parameters backed
// by ServerConfig or ServerOptions are live; the others are stored and
// echoed. Replies and error texts as Redis 7.0.15 (checked against Debian's
// redis-server).
//
// CONFIG REWRITE (Redis 7.0 config.c configRewriteCommand, rewriteConfig)
// rewrites the config file (sim/config_rewrite.h: config_file): each
// parameter below except the aliases, forced (appended when the file lacks
// it) when its value is not the one of a server started without options
// (Redis: its compiled default), in this table's order (Redis
// walks a hash table); numbers as numbers, memory with rewriteConfigFormatMemory's
// units, strings quoted (sdscatrepr), `dir` always (the working directory),
// `save` always (one line per pair, or save ""), `bind` only when not the
// default, `latency-tracking-info-percentiles` always, `replicaof` only on
// a replica; then rewriteConfigUserOption: one `user` line per user in
// name order (ACL LIST's lines, ACLDescribeUser), or none when `aclfile`
// is set (the users live in that file: ACL SAVE / ACL LOAD, cmd_acl.cc).
// Lines of options redsim has no parameter for (pidfile, logfile,
// unixsocket, redsim's clock and seed, ...) are kept as they are.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sim/args.h"
#include "sim/cmd_admin.h"
#include "sim/config_rewrite.h"
#include "sim/glob.h"
#include "sim/internal.h"
#include "sim/latency_histogram.h"
#include "sim/proc_title.h"

namespace redsim::sim::admin {

using resp::Reply;

namespace {

enum class ParamKind { kInt, kMemory, kBool, kString, kSave, kEnum };

struct Param {
  std::string_view name;
  ParamKind kind;
  bool immutable;
  std::string_view default_value;  // as CONFIG GET shows it when not honoured
  int64_t min = 0;
  int64_t max = INT64_MAX;
  std::string_view choices = "";  // kEnum: ", "-separated, in Redis's order
  bool hidden = false;  // Redis's HIDDEN_CONFIG: only CONFIG GET by its exact name shows it
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
    // Bytes, or a percentage of maxmemory ("10%"); stored and echoed.
    {"maxmemory-clients", ParamKind::kMemory, false, "0", 0, INT64_MAX},
    {"repl-backlog-size", ParamKind::kMemory, false, "1048576", 1, INT64_MAX},
    // A master's address when this server is a replica: none (stored and echoed).
    {"replicaof", ParamKind::kString, true, ""},
    {"slaveof", ParamKind::kString, true, ""},
    // The replication link's credentials (redsim server; stored and echoed).
    {"masterauth", ParamKind::kString, false, ""},
    {"masteruser", ParamKind::kString, false, ""},
    {"slave-read-only", ParamKind::kBool, false, "yes"},
    {"repl-ping-replica-period", ParamKind::kInt, false, "10", 1, INT_MAX},
    // A debugging knob Redis hides from patterns; stored and echoed.
    {"key-load-delay", ParamKind::kInt, false, "0", INT_MIN, INT_MAX, "", true},
    {"lfu-log-factor", ParamKind::kInt, false, "", 0, INT_MAX},
    {"lfu-decay-time", ParamKind::kInt, false, "", 0, INT_MAX},
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
    {"slowlog-log-slower-than", ParamKind::kInt, false, "", -1, INT64_MAX},
    {"slowlog-max-len", ParamKind::kInt, false, "", 0, INT64_MAX},
    {"latency-monitor-threshold", ParamKind::kInt, false, "", 0, INT64_MAX},
    // INFO latencystats and LATENCY HISTOGRAM (sim/latency_histogram.h).
    {"latency-tracking", ParamKind::kBool, false, ""},
    {"latency-tracking-info-percentiles", ParamKind::kString, false, ""},
    {"tracking-table-max-keys", ParamKind::kInt, false, "", 0, LONG_MAX},
    // The default user's password (Server::requirepass; AUTH in
    // sim/cmd_connection.cc). Sessions already connected stay authenticated.
    {"requirepass", ParamKind::kString, false, ""},
    // ACL (sim/acl.h): the log's length, new users' channels, the ACL file.
    {"acllog-max-len", ParamKind::kInt, false, "128", 0, LONG_MAX},
    {"acl-pubsub-default", ParamKind::kEnum, false, "resetchannels", 0, 0,
     "allchannels, resetchannels"},
    {"aclfile", ParamKind::kString, true, ""},
    {"lazyfree-lazy-user-del", ParamKind::kBool, false, "no"},
    {"lazyfree-lazy-user-flush", ParamKind::kBool, false, "no"},
    {"enable-debug-command", ParamKind::kEnum, true, "yes", 0, 0, "no, yes, local"},
    {"replica-read-only", ParamKind::kBool, false, "yes"},
    {"min-replicas-to-write", ParamKind::kInt, false, "", 0, INT_MAX},
    {"min-slaves-to-write", ParamKind::kInt, false, "", 0, INT_MAX},
    {"min-replicas-max-lag", ParamKind::kInt, false, "", 0, INT_MAX},
    {"min-slaves-max-lag", ParamKind::kInt, false, "", 0, INT_MAX},
    {"cluster-enabled", ParamKind::kBool, true, "no"},
    {"io-threads", ParamKind::kInt, true, "1", 1, 128},
    // The encoding thresholds (Keyspace::limits), each under its 7.0 name
    // and its ziplist alias; lists are always "quicklist" in 7.0, so their
    // two are stored and echoed.
    {"hash-max-listpack-entries", ParamKind::kInt, false, "", 0, LONG_MAX},
    {"hash-max-ziplist-entries", ParamKind::kInt, false, "", 0, LONG_MAX},
    {"hash-max-listpack-value", ParamKind::kMemory, false, "", 0, LONG_MAX},
    {"hash-max-ziplist-value", ParamKind::kMemory, false, "", 0, LONG_MAX},
    {"set-max-intset-entries", ParamKind::kInt, false, "", 0, LONG_MAX},
    {"zset-max-listpack-entries", ParamKind::kInt, false, "", 0, LONG_MAX},
    {"zset-max-ziplist-entries", ParamKind::kInt, false, "", 0, LONG_MAX},
    {"zset-max-listpack-value", ParamKind::kMemory, false, "", 0, LONG_MAX},
    {"zset-max-ziplist-value", ParamKind::kMemory, false, "", 0, LONG_MAX},
    {"list-max-listpack-size", ParamKind::kInt, false, "-2", INT_MIN, INT_MAX},
    {"list-max-ziplist-size", ParamKind::kInt, false, "-2", INT_MIN, INT_MAX},
    {"list-compress-depth", ParamKind::kInt, false, "0", 0, INT_MAX},
    // RESTORE always checks what it reads (sim/cmd_restore.cc); stored and echoed.
    {"sanitize-dump-payload", ParamKind::kEnum, false, "no", 0, 0, "no, yes, clients"},
    // Read by the stream commands (sim/cmd_stream.cc) from `others`.
    {"stream-node-max-bytes", ParamKind::kMemory, false, "4096", 0, INT64_MAX},
    {"stream-node-max-entries", ParamKind::kInt, false, "100", 0, INT64_MAX},
    // Read by the HyperLogLog commands (sim/cmd_hll.cc) from `others`.
    {"hll-sparse-max-bytes", ParamKind::kMemory, false, "3000", 0, LONG_MAX},
    // The process title (sim/proc_title.h): stored here, written by redsim
    // server through Server::config_change_handler.
    {"proc-title-template", ParamKind::kString, false, kDefaultProcTitleTemplate},
    {"set-proc-title", ParamKind::kBool, true, "yes"},
    // What SIGINT / SIGTERM do (Redis's MULTI_ARG enum of SHUTDOWN flags):
    // stored and echoed (redsim server stops on either, saving nothing).
    {"shutdown-on-sigint", ParamKind::kEnum, false, "default", 0, 0,
     "default, save, nosave, now, force"},
    {"shutdown-on-sigterm", ParamKind::kEnum, false, "default", 0, 0,
     "default, save, nosave, now, force"},
};

// The Keyspace::limits field a threshold parameter (or its alias) sets.
size_t* limit_of(Server& server, std::string_view n) {
  EncodingLimits& l = ServerAccess::keyspace(server).limits();
  if (n == "hash-max-listpack-entries" || n == "hash-max-ziplist-entries") {
    return &l.hash_max_listpack_entries;
  }
  if (n == "hash-max-listpack-value" || n == "hash-max-ziplist-value") {
    return &l.hash_max_listpack_value;
  }
  if (n == "set-max-intset-entries") return &l.set_max_intset_entries;
  if (n == "zset-max-listpack-entries" || n == "zset-max-ziplist-entries") {
    return &l.zset_max_listpack_entries;
  }
  if (n == "zset-max-listpack-value" || n == "zset-max-ziplist-value") {
    return &l.zset_max_listpack_value;
  }
  return nullptr;
}

// The one stored value a parameter and its alias share.
std::string_view canonical_name(std::string_view n) {
  if (n == "list-max-ziplist-size") return "list-max-listpack-size";
  if (n == "slave-read-only") return "replica-read-only";
  return n;
}

const Param* find_param(std::string_view name) {
  for (const Param& p : kParams) {
    if (equals_ci(p.name, name)) return &p;
  }
  return nullptr;
}

std::string param_value(Server& server, const Param& p) {
  ServerConfig& c = server.config();
  std::string_view n = p.name;
  if (n == "databases") return std::to_string(ServerAccess::keyspace(server).databases());
  if (n == "port") return std::to_string(c.port);
  if (n == "bind") return c.bind;
  if (n == "hz") return std::to_string(c.hz);
  if (n == "busy-reply-threshold" || n == "lua-time-limit") {
    return std::to_string(c.busy_reply_threshold_ms);
  }
  if (n == "maxmemory") return std::to_string(c.maxmemory_bytes);
  if (n == "notify-keyspace-events") return notify::flags_string(c.notify_keyspace_events);
  if (n == "maxclients") return std::to_string(c.maxclients);
  if (n == "slowlog-log-slower-than") return std::to_string(c.slowlog_log_slower_than_us);
  if (n == "slowlog-max-len") return std::to_string(c.slowlog_max_len);
  if (n == "latency-monitor-threshold") return std::to_string(c.latency_monitor_threshold_ms);
  if (n == "latency-tracking") return c.latency_tracking ? "yes" : "no";
  if (n == "latency-tracking-info-percentiles") {
    std::string out;
    for (double p : c.latency_tracking_info_percentiles) {
      if (!out.empty()) out += ' ';
      out += percentile_label(p);
    }
    return out;
  }
  if (n == "timeout") return std::to_string(c.timeout_s);
  if (n == "tracking-table-max-keys") return std::to_string(c.tracking_table_max_keys);
  if (n == "lfu-log-factor") {
    return std::to_string(ServerAccess::keyspace(server).access().lfu_log_factor);
  }
  if (n == "lfu-decay-time") {
    return std::to_string(ServerAccess::keyspace(server).access().lfu_decay_time_min);
  }
  if (n == "min-replicas-to-write" || n == "min-slaves-to-write") {
    return std::to_string(c.min_replicas_to_write);
  }
  if (n == "min-replicas-max-lag" || n == "min-slaves-max-lag") {
    return std::to_string(c.min_replicas_max_lag_s);
  }
  if (n == "proto-max-bulk-len") return std::to_string(c.proto_max_bulk_len);
  if (n == "client-query-buffer-limit") return std::to_string(c.client_query_buffer_limit);
  if (size_t* limit = limit_of(server, n)) return std::to_string(*limit);
  if (n == "dir") {
    char buf[4096];
    if (getcwd(buf, sizeof buf) != nullptr) return buf;
  }
  auto it = c.others.find(canonical_name(n));
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
      if (p.name == "maxmemory-clients" && arg.ends_with('%')) {
        // Redis's PERCENT_CONFIG: a percentage up to 100.
        if (!parse_int64(std::string_view(arg).substr(0, arg.size() - 1), &v) || v < 0) {
          return config_failed(p.name, "argument must be a memory or percent value");
        }
        if (v > 100)
          return config_failed(p.name, "percentage argument must be less or equal to 100");
        *number = v;
        *value = arg;
        return std::nullopt;
      }
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
      if (p.name.starts_with("shutdown-on-sig")) {
        // configEnumGetName with bitflags: the words' flags in the
        // choices' order, "default" for none.
        static constexpr std::string_view kFlags[] = {"save", "nosave", "now", "force"};
        bool chosen[4] = {};
        bool any_word = false;
        std::istringstream words(lower(arg));
        for (std::string w; words >> w;) {
          any_word = true;
          if (w == "default") continue;
          auto it = std::find(std::begin(kFlags), std::end(kFlags), w);
          if (it == std::end(kFlags)) {
            any_word = false;
            break;
          }
          chosen[it - std::begin(kFlags)] = true;
        }
        if (!any_word) {
          return config_failed(
              p.name, "argument(s) must be one of the following: " + std::string(p.choices));
        }
        value->clear();
        for (size_t i = 0; i < 4; ++i) {
          if (chosen[i]) *value += (value->empty() ? "" : " ") + std::string(kFlags[i]);
        }
        if (value->empty()) *value = "default";
        return std::nullopt;
      }
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
      if (p.name == "latency-tracking-info-percentiles") {
        std::vector<double> percentiles;
        std::string why = parse_percentiles(arg, &percentiles);
        if (!why.empty()) return config_failed(p.name, why);
      }
      if (p.name == "proc-title-template" && !valid_proc_title_template(arg)) {
        return config_failed(p.name, "template format is invalid or contains unknown variables");
      }
      if (p.name == "notify-keyspace-events") {
        int flags = notify::parse_flags(arg);
        if (flags < 0) {
          return config_failed(p.name, "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
        }
        *number = flags;
      }
      *value = arg;
      return std::nullopt;
  }
  return std::nullopt;
}

// Stores one checked value; false when applying it failed (only `port`,
// when the transport cannot listen there: nothing was changed then).
bool apply_param(Server& server, const Param& p, const std::string& value, int64_t number) {
  ServerConfig& c = server.config();
  std::string_view n = p.name;
  if (n == "hz") {
    // Redis clamps hz to 1..500.
    c.hz = static_cast<int>(std::clamp<int64_t>(number, 1, 500));
  } else if (n == "busy-reply-threshold" || n == "lua-time-limit") {
    c.busy_reply_threshold_ms = number;
  } else if (n == "maxmemory") {
    c.maxmemory_bytes = number;
  } else if (n == "notify-keyspace-events") {
    c.notify_keyspace_events = static_cast<int>(number);
  } else if (n == "maxclients") {
    c.maxclients = number;
  } else if (n == "slowlog-log-slower-than") {
    c.slowlog_log_slower_than_us = number;
  } else if (n == "slowlog-max-len") {
    c.slowlog_max_len = number;
  } else if (n == "latency-monitor-threshold") {
    c.latency_monitor_threshold_ms = number;
  } else if (n == "latency-tracking") {
    c.latency_tracking = value == "yes";
  } else if (n == "latency-tracking-info-percentiles") {
    parse_percentiles(value, &c.latency_tracking_info_percentiles);  // checked before
  } else if (n == "timeout") {
    c.timeout_s = number;
  } else if (n == "tracking-table-max-keys") {
    c.tracking_table_max_keys = number;
  } else if (n == "lfu-log-factor") {
    ServerAccess::keyspace(server).access().lfu_log_factor = number;
  } else if (n == "lfu-decay-time") {
    ServerAccess::keyspace(server).access().lfu_decay_time_min = number;
  } else if (n == "min-replicas-to-write" || n == "min-slaves-to-write") {
    c.min_replicas_to_write = number;
  } else if (n == "min-replicas-max-lag" || n == "min-slaves-max-lag") {
    c.min_replicas_max_lag_s = number;
  } else if (n == "maxmemory-policy") {
    c.maxmemory_noeviction = value == "noeviction";
    ServerAccess::keyspace(server).access().lfu = value.ends_with("-lfu");
    c.others[std::string(n)] = value;
  } else if (n == "proto-max-bulk-len") {
    c.proto_max_bulk_len = number;
  } else if (n == "client-query-buffer-limit") {
    c.client_query_buffer_limit = number;
  } else if (n == "port") {
    // The transport moves its listener (and stores the port it got);
    // without one the port is reported only.
    if (!c.change_port) {
      c.port = static_cast<int>(number);
    } else if (!c.change_port(static_cast<int>(number))) {
      return false;
    }
  } else if (n == "bind") {
    c.bind = value;
  } else if (n == "requirepass") {
    // Redis 7.0 config.c updateRequirePass / ACLUpdateDefaultUserPassword:
    // the default user's passwords become this one ("": nopass).
    c.others[std::string(n)] = value;
    ServerAccess::acl(server).set_user(
        "default", {"resetpass", value.empty() ? std::string("nopass") : ">" + value});
    server.note_acl_change();
  } else if (n == "acl-pubsub-default" || n == "acllog-max-len") {
    c.others[std::string(n)] = value;
    AclUsers& acl = ServerAccess::acl(server);
    if (n == "acllog-max-len") acl.set_log_max_len(static_cast<size_t>(number));
    if (n == "acl-pubsub-default") acl.set_pubsub_default_all(value == "allchannels");
  } else if (size_t* limit = limit_of(server, n)) {
    *limit = static_cast<size_t>(number);
  } else {
    c.others[std::string(canonical_name(n))] = value;
  }
  return true;
}

// Redis's ALIAS_CONFIG names and the parameters they stand for: a file's
// alias lines are rewritten under the parameter's name.
constexpr std::pair<std::string_view, std::string_view> kAliases[] = {
    {"lua-time-limit", "busy-reply-threshold"},
    {"slaveof", "replicaof"},
    {"min-slaves-to-write", "min-replicas-to-write"},
    {"min-slaves-max-lag", "min-replicas-max-lag"},
    {"hash-max-ziplist-entries", "hash-max-listpack-entries"},
    {"hash-max-ziplist-value", "hash-max-listpack-value"},
    {"zset-max-ziplist-entries", "zset-max-listpack-entries"},
    {"zset-max-ziplist-value", "zset-max-listpack-value"},
    {"list-max-ziplist-size", "list-max-listpack-size"},
};

bool is_alias(std::string_view name) {
  for (const auto& [alias, target] : kAliases) {
    if (alias == name) return true;
  }
  return false;
}

// What rewriteConfig writes for one parameter (its rewrite callback).
// `fresh` is a server started without options: a value it has too is not
// written unless the file has the option (Redis compares with its compiled
// defaults; redsim's differ in a few, hash-max-listpack-entries 128 as in
// redis.conf, and a restart must give back the same value).
ConfigRewriteEntry rewrite_entry(Server& server, Server& fresh, const Param& p) {
  std::string name(p.name);
  std::string value = param_value(server, p);
  const std::string default_value = param_value(fresh, p);
  ConfigRewriteEntry e{name, {}, value != default_value};
  auto add = [&](std::string rest) { e.lines.push_back(name + " " + rest); };
  if (p.name == "save") {
    // rewriteConfigSaveOption: always, one line per pair.
    e.force = true;
    std::istringstream in(value);
    std::string seconds, changes;
    while (in >> seconds >> changes) add(seconds + " " + changes);
    if (e.lines.empty()) add("\"\"");
    return e;
  }
  if (p.name == "dir") {  // rewriteConfigDirOption: always, absolute
    e.force = true;
    add(config_repr(value));
    return e;
  }
  if (p.name == "bind") {  // rewriteConfigBindOption
    if (e.force) add(value.empty() ? "\"\"" : value);
    return e;
  }
  if (p.name == "replicaof" || p.name == "requirepass") {
    // rewriteConfigReplicaOfOption (a master has none) and
    // rewriteConfigRequirepassOption (none without a password).
    e.force = true;
    if (!value.empty()) add(p.name == "replicaof" ? value : config_repr(value));
    return e;
  }
  if (p.name == "latency-tracking-info-percentiles") {
    e.force = true;  // Redis 7.0.15 writes it even at its default
    add(value);
    return e;
  }
  switch (p.kind) {
    case ParamKind::kMemory: {
      int64_t bytes = 0;
      if (!value.ends_with('%') && parse_int64(value, &bytes)) {
        add(config_format_memory(bytes));
      } else {
        add(value);
      }
      break;
    }
    case ParamKind::kString:
      add(config_repr(value));
      break;
    default:
      add(value);
      break;
  }
  return e;
}

// rewriteConfigOverwriteFile: a temporary file next to it, then rename.
// "" on success, else strerror's text.
std::string overwrite_file(const std::string& path, const std::string& content) {
  std::string tmp = path + ".XXXXXX";
  int fd = mkstemp(tmp.data());
  if (fd < 0) return std::strerror(errno);
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      int err = errno;
      ::close(fd);
      unlink(tmp.c_str());
      return std::strerror(err);
    }
    done += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0 || fchmod(fd, 0644) != 0 || ::close(fd) != 0 ||
      std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    unlink(tmp.c_str());
    return std::strerror(err);
  }
  return {};
}

}  // namespace

Reply config_rewrite(Server& server, bool force_all) {
  const std::string path = config_file(server);
  if (path.empty()) return Reply::error("ERR The server is running without a config file");
  // rewriteConfig(path, force_all): errors name the caller.
  const std::string failed =
      force_all ? "ERR CONFIG-REWRITE-FORCE-ALL failed: " : "ERR Rewriting config file: ";
  // rewriteConfigReadOldFile: a missing file reads as empty.
  std::string old_text;
  {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      if (errno != ENOENT) {
        return Reply::error(failed + std::strerror(errno));
      }
    } else {
      std::ostringstream text;
      text << in.rdbuf();
      old_text = text.str();
    }
  }
  ManualClock clock;
  Server fresh(clock, ServerOptions{});
  std::vector<ConfigRewriteEntry> entries;
  for (const Param& p : kParams) {
    if (!is_alias(p.name)) entries.push_back(rewrite_entry(server, fresh, p));
  }
  // rewriteConfigUserOption, then rewriteConfigLoadmoduleOption (no modules).
  ConfigRewriteEntry users{"user", {}, true};
  auto aclfile = server.config().others.find("aclfile");
  if (aclfile == server.config().others.end() || aclfile->second.empty()) {
    for (const auto& [name, user] : ServerAccess::acl(server).users()) {
      users.lines.push_back(AclUsers::describe(name, user));
    }
  }
  entries.push_back(std::move(users));
  entries.push_back({"loadmodule", {}, false});
  if (force_all) {  // state->force_write: every line written, even at its default
    for (ConfigRewriteEntry& e : entries) e.force = true;
  }
  std::string error = overwrite_file(path, rewrite_config_text(old_text, entries, kAliases));
  if (!error.empty()) return Reply::error(failed + error);
  return Reply::ok();
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
        if (p.hidden && pattern != p.name) continue;
        seen.insert(p.name);
        out.push_back(Reply::bulk(std::string(p.name)));
        out.push_back(Reply::bulk(param_value(ctx.server, p)));
      }
    }
    return Reply::map(std::move(out));  // a map in RESP3
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
    // Redis's configSetCommand: every value set, then applied; when one
    // fails to apply, every parameter of the call goes back to its old
    // value and the error names the one that failed.
    std::vector<std::string> old_values;
    for (const Change& c : changes) old_values.push_back(param_value(ctx.server, *c.param));
    for (size_t i = 0; i < changes.size(); ++i) {
      const Change& c = changes[i];
      if (apply_param(ctx.server, *c.param, c.value, c.number)) continue;
      for (size_t k = i; k-- > 0;) {
        Change old{changes[k].param, {}, 0};
        if (!check_param(*old.param, old_values[k], &old.value, &old.number)) {
          apply_param(ctx.server, *old.param, old.value, old.number);
        }
      }
      return config_failed(c.param->name, "Unable to listen on this port");
    }
    if (const Server::ConfigChangeHandler& changed = ctx.server.config_change_handler()) {
      for (const Change& c : changes) changed(c.param->name);
    }
    return Reply::ok();
  }
  if (sub == "resetstat" || sub == "rewrite") {
    if (argv.size() != 2) return sub_arity("config", sub);
    if (sub == "rewrite") return config_rewrite(ctx.server, false);
    ctx.server.reset_stats();
    return Reply::ok();
  }
  if (sub == "help") {
    if (argv.size() != 2) return sub_arity("config", sub);
    return help_reply(
        "CONFIG", {"GET <pattern>",
                   "    Return parameters matching the glob-like <pattern> and their "
                   "values.",
                   "SET <directive> <value>", "    Set the configuration <directive> to <value>.",
                   "RESETSTAT", "    Reset statistics reported by the INFO command.", "REWRITE",
                   "    Rewrite the configuration file."});
  }
  return unknown_subcommand(argv[1], "CONFIG");
}

}  // namespace redsim::sim::admin

namespace redsim::sim {

namespace {
constexpr std::string_view kConfigFileKey = "config-file";
}  // namespace

void set_config_file(Server& server, std::string path) {
  server.config().others[std::string(kConfigFileKey)] = std::move(path);
}

const std::string& config_file(Server& server) {
  static const std::string kNone;
  const auto& others = server.config().others;
  auto it = others.find(kConfigFileKey);
  return it == others.end() ? kNone : it->second;
}

bool config_parameter_settable(std::string_view name) {
  const admin::Param* p = admin::find_param(name);
  return p != nullptr && !p->immutable;
}

}  // namespace redsim::sim
