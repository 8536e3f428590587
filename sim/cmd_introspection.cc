// INFO and COMMAND: what the server says about itself (registered in
// cmd_connection.cc). Replies as Redis 7.0.15 (checked against Debian's
// redis-server); where the fake has nothing to report (memory figures,
// replication) the field is left out or reported as a Redis without that
// feature reports it.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/args.h"
#include "sim/cmd_admin.h"
#include "sim/pubsub.h"

namespace redsim::sim::admin {

using resp::Reply;

// ---- INFO ------------------------------------------------------------------

namespace {

// Redis's bytesToHuman: 1023B, 855.47K, 1.01M, ...
std::string bytes_to_human(int64_t n) {
  if (n < 1024) return std::to_string(n) + "B";
  static constexpr char kUnits[] = {'K', 'M', 'G', 'T', 'P'};
  double d = static_cast<double>(n) / 1024;
  size_t unit = 0;
  while (d >= 1024 && unit + 1 < sizeof kUnits) {
    d /= 1024;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f%c", d, kUnits[unit]);
  return buf;
}

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
    line("blocked_clients", std::to_string(server.blocked_clients()));
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
  } else if (section == "memory") {
    // The fake's own count (Server::used_memory_bytes): a walk over the data.
    out = "# Memory\r\n";
    int64_t used = server.used_memory_bytes();
    line("used_memory", std::to_string(used));
    line("used_memory_human", bytes_to_human(used));
  } else if (section == "cpu") {
    // The fake measures no CPU time (a simulated run must not depend on
    // it): Redis's fields, all zero.
    out = "# CPU\r\n";
    for (std::string_view field :
         {"used_cpu_sys", "used_cpu_user", "used_cpu_sys_children", "used_cpu_user_children",
          "used_cpu_sys_main_thread", "used_cpu_user_main_thread"}) {
      line(field, "0.000000");
    }
  } else if (section == "replication") {
    // A master with no replicas and no backlog, as a fresh redis-server
    // reports itself (its random master_replid left out).
    out = "# Replication\r\n";
    line("role", "master");
    line("connected_slaves", "0");
    line("master_failover_state", "no-failover");
    line("master_repl_offset", "0");
    line("second_repl_offset", "-1");
    line("repl_backlog_active", "0");
    line("repl_backlog_size", "1048576");
    line("repl_backlog_first_byte_offset", "0");
    line("repl_backlog_histlen", "0");
  } else if (section == "commandstats") {
    // Redis's line per command run or refused since the start (or CONFIG
    // RESETSTAT), in name order (Redis's order is its hash table's); the
    // fake times nothing, so usec is 0.
    out = "# Commandstats\r\n";
    for (const auto& [name, stats] : server.command_stats()) {
      line("cmdstat_" + name,
           "calls=" + std::to_string(stats.calls) +
               ",usec=0,usec_per_call=0.00,rejected_calls=" + std::to_string(stats.rejected_calls) +
               ",failed_calls=" + std::to_string(stats.failed_calls));
    }
  } else {
    // Sections Redis has and the fake has nothing to report in: the header only.
    static constexpr std::pair<std::string_view, std::string_view> kEmpty[] = {
        {"persistence", "# Persistence\r\n"},   {"modules", "# Modules\r\n"},
        {"errorstats", "# Errorstats\r\n"},     {"cluster", "# Cluster\r\ncluster_enabled:0\r\n"},
        {"latencystats", "# Latencystats\r\n"},
    };
    for (const auto& [name, text] : kEmpty) {
      if (name == section) out = text;
    }
  }
  return out;
}

}  // namespace

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

namespace {

Reply command_flags(const CommandSpec& spec) {
  std::vector<Reply> flags;
  if (spec.flags & kCmdWrite) flags.push_back(Reply::status("write"));
  if (spec.flags & kCmdReadonly) flags.push_back(Reply::status("readonly"));
  if (spec.flags & kCmdDenyOom) flags.push_back(Reply::status("denyoom"));
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

}  // namespace

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

}  // namespace redsim::sim::admin
