// INFO and COMMAND: what the server says about itself (registered in
// cmd_connection.cc). Replies as Redis 7.0.15 (checked against Debian's
// redis-server); where the fake has nothing to report (memory figures,
// replication) the field is left out or reported as a Redis without that
// feature reports it.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/args.h"
#include "sim/cmd_admin.h"
#include "sim/command_facts.h"
#include "sim/glob.h"
#include "sim/internal.h"
#include "sim/latency_histogram.h"
#include "sim/lua/script_engine.h"
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
    line("tracking_clients", std::to_string(ServerAccess::tracking(server).clients()));
    line("clients_in_timeout_table", "0");
  } else if (section == "stats") {
    out = "# Stats\r\n";
    line("total_connections_received", std::to_string(server.connections_received()));
    line("total_commands_processed", std::to_string(server.commands_processed()));
    line("rejected_connections", "0");
    line("sync_full", "0");
    line("sync_partial_ok", "0");
    line("sync_partial_err", "0");
    line("evicted_keys", std::to_string(server.evicted_keys()));
    line("pubsub_channels", std::to_string(ServerAccess::pubsub(server).channel_count()));
    line("pubsub_patterns", std::to_string(ServerAccess::pubsub(server).pattern_count()));
    line("latest_fork_usec", "0");
    line("total_error_replies", std::to_string(server.total_error_replies()));
    line("migrate_cached_sockets", "0");  // MIGRATE opens no connection
    line("total_forks", "0");
    line("migrate_cached_sockets", "0");  // no MIGRATE connection is ever cached
    const Tracking& tracking = ServerAccess::tracking(server);
    line("tracking_total_keys", std::to_string(tracking.total_keys()));
    line("tracking_total_items", std::to_string(tracking.total_items()));
    line("tracking_total_prefixes", std::to_string(tracking.total_prefixes()));
  } else if (section == "keyspace") {
    out = "# Keyspace\r\n";
    Keyspace& ks = ServerAccess::keyspace(server);
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
    // The allocator whose size classes MEMORY USAGE models (sim/cmd_memory.cc).
    line("mem_allocator", "jemalloc-5.3.0");
    // Nothing is freed lazily and every byte counted is evictable.
    line("lazyfree_pending_objects", "0");
    line("mem_not_counted_for_evict", "0");
    // The EVAL script cache, as Redis's INFO memory counts it.
    line("number_of_cached_scripts", std::to_string(ServerAccess::scripts(server).script_count()));
  } else if (section == "cpu") {
    // The fake measures no CPU time (a simulated run must not depend on
    // it): Redis's fields, all zero.
    out = "# CPU\r\n";
    for (std::string_view field :
         {"used_cpu_sys", "used_cpu_user", "used_cpu_sys_children", "used_cpu_user_children",
          "used_cpu_sys_main_thread", "used_cpu_user_main_thread"}) {
      line(field, "0.000000");
    }
  } else if (section == "replication" && server.replication_hooks().info) {
    out = server.replication_hooks().info();  // redsim server's link (sim/replication.h)
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
  } else if (section == "persistence") {
    // Redis 7.0.15's fields for a server that never saved nor loaded: no
    // fork, no AOF; the change counter is Server::dirty().
    out = "# Persistence\r\n";
    const std::string start_s = std::to_string(server.start_ms() / 1000);
    const std::pair<std::string_view, std::string> fields[] = {
        {"loading", "0"},
        {"async_loading", "0"},
        {"current_cow_peak", "0"},
        {"current_cow_size", "0"},
        {"current_cow_size_age", "0"},
        {"current_fork_perc", "0.00"},
        {"current_save_keys_processed", "0"},
        {"current_save_keys_total", "0"},
        {"rdb_changes_since_last_save", std::to_string(server.dirty())},
        {"rdb_bgsave_in_progress", "0"},
        {"rdb_last_save_time", start_s},
        {"rdb_last_bgsave_status", "ok"},
        {"rdb_last_bgsave_time_sec", "-1"},
        {"rdb_current_bgsave_time_sec", "-1"},
        {"rdb_saves", "0"},
        {"rdb_last_cow_size", "0"},
        {"rdb_last_load_keys_expired", "0"},
        {"rdb_last_load_keys_loaded", "0"},
        {"aof_enabled", "0"},
        {"aof_rewrite_in_progress", "0"},
        {"aof_rewrite_scheduled", "0"},
        {"aof_last_rewrite_time_sec", "-1"},
        {"aof_current_rewrite_time_sec", "-1"},
        {"aof_last_bgrewrite_status", "ok"},
        {"aof_rewrites", "0"},
        {"aof_rewrites_consecutive_failures", "0"},
        {"aof_last_write_status", "ok"},
        {"aof_last_cow_size", "0"},
        {"module_fork_in_progress", "0"},
        {"module_fork_last_cow_size", "0"},
    };
    for (const auto& [name, value] : fields) line(name, value);
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
  } else if (section == "latencystats") {
    // Each command's percentiles (ServerConfig::latency_tracking_info_percentiles)
    // of its durations, in us to the ns (sim/latency_histogram.h), in name
    // order (Redis's is its hash table's); nothing while latency-tracking is no.
    out = "# Latencystats\r\n";
    if (!server.config().latency_tracking) return out;
    const std::vector<double>& percentiles = server.config().latency_tracking_info_percentiles;
    for (const auto& [name, stats] : server.command_stats()) {
      if (stats.latency.empty()) continue;
      std::string value;
      for (double p : percentiles) {
        if (!value.empty()) value += ',';
        char us[64];
        std::snprintf(us, sizeof us, "%.3f",
                      static_cast<double>(stats.latency.value_at_percentile_ns(p)) / 1000.0);
        value += "p" + percentile_label(p) + "=" + us;
      }
      line("latency_percentiles_usec_" + name, value);
    }
  } else if (section == "errorstats") {
    // Error replies by code (Server::error_stats), in name order.
    out = "# Errorstats\r\n";
    for (const auto& [code, count] : server.error_stats()) {
      line("errorstat_" + code, "count=" + std::to_string(count));
    }
  } else {
    // Sections Redis has and the fake has nothing to report in: the header only.
    static constexpr std::pair<std::string_view, std::string_view> kEmpty[] = {
        {"modules", "# Modules\r\n"},
        {"cluster", "# Cluster\r\ncluster_enabled:0\r\n"},
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

// Splits a space-separated fact ("readonly fast") into status replies.
std::vector<Reply> words(std::string_view text) {
  std::vector<Reply> out;
  while (!text.empty()) {
    size_t sp = text.find(' ');
    out.push_back(Reply::status(std::string(text.substr(0, sp))));
    text = sp == std::string_view::npos ? std::string_view() : text.substr(sp + 1);
  }
  return out;
}

// The flags of a fake command Redis does not have (REDSIM.ADVANCE).
Reply command_flags(uint32_t flags) {
  std::vector<Reply> out;
  if (flags & kCmdWrite) out.push_back(Reply::status("write"));
  if (flags & kCmdReadonly) out.push_back(Reply::status("readonly"));
  if (flags & kCmdDenyOom) out.push_back(Reply::status("denyoom"));
  if (flags & kCmdNoScript) out.push_back(Reply::status("noscript"));
  if (flags & kCmdPubSub) out.push_back(Reply::status("pubsub"));
  if (flags & kCmdNoMulti) out.push_back(Reply::status("no_multi"));
  if (flags & kCmdFast) out.push_back(Reply::status("fast"));
  if (flags & kCmdMayReplicate) out.push_back(Reply::status("may_replicate"));
  return Reply::set(std::move(out));
}

Reply key_spec_reply(const KeySpecFact& k) {
  Reply begin;
  switch (k.begin) {
    case BeginSearch::kIndex:
      begin = Reply::map({Reply::bulk("type"), Reply::bulk("index"), Reply::bulk("spec"),
                          Reply::map({Reply::bulk("index"), Reply::integer(k.begin_arg)})});
      break;
    case BeginSearch::kKeyword:
      begin = Reply::map({Reply::bulk("type"), Reply::bulk("keyword"), Reply::bulk("spec"),
                          Reply::map({Reply::bulk("keyword"), Reply::bulk(std::string(k.keyword)),
                                      Reply::bulk("startfrom"), Reply::integer(k.begin_arg)})});
      break;
    case BeginSearch::kUnknown:
      begin = Reply::map(
          {Reply::bulk("type"), Reply::bulk("unknown"), Reply::bulk("spec"), Reply::map({})});
      break;
  }
  Reply find;
  switch (k.find) {
    case FindKeys::kRange:
      find = Reply::map(
          {Reply::bulk("type"), Reply::bulk("range"), Reply::bulk("spec"),
           Reply::map({Reply::bulk("lastkey"), Reply::integer(k.find_a), Reply::bulk("keystep"),
                       Reply::integer(k.find_b), Reply::bulk("limit"), Reply::integer(k.find_c)})});
      break;
    case FindKeys::kKeynum:
      find = Reply::map({Reply::bulk("type"), Reply::bulk("keynum"), Reply::bulk("spec"),
                         Reply::map({Reply::bulk("keynumidx"), Reply::integer(k.find_a),
                                     Reply::bulk("firstkey"), Reply::integer(k.find_b),
                                     Reply::bulk("keystep"), Reply::integer(k.find_c)})});
      break;
    case FindKeys::kUnknown:
      find = Reply::map(
          {Reply::bulk("type"), Reply::bulk("unknown"), Reply::bulk("spec"), Reply::map({})});
      break;
  }
  return Reply::map({Reply::bulk("flags"), Reply::set(words(k.flags)), Reply::bulk("begin_search"),
                     std::move(begin), Reply::bulk("find_keys"), std::move(find)});
}

// COMMAND INFO's entry: name, arity, flags, first key, last key, step, ACL
// categories, tips, key specs, subcommands. The arity is the fake's; the
// rest is Redis 7.0.15's (sim/command_facts.h) where Redis has the command
// (the notes of key specs left out), else the fake's flags and no keys.
Reply command_info(const CommandTable& table, const CommandSpec& spec, std::string_view full_name,
                   int arity, uint32_t flags, bool with_subcommands) {
  const CommandFact* fact = find_command_fact(full_name);
  std::vector<Reply> specs;
  std::vector<Reply> subs;
  if (fact != nullptr) {
    for (const KeySpecFact& k : fact->key_specs()) specs.push_back(key_spec_reply(k));
  }
  if (with_subcommands && table.has_subcommands(spec)) {
    for (const SubcommandSpec& sub : table.subcommands(spec)) {
      subs.push_back(command_info(table, spec, std::string(spec.name) + "|" + std::string(sub.name),
                                  sub.arity, sub.flags, false));
    }
  }
  return Reply::array({Reply::bulk(std::string(full_name)), Reply::integer(arity),
                       fact ? Reply::set(words(fact->flags)) : command_flags(flags),
                       Reply::integer(fact ? fact->first_key : 0),
                       Reply::integer(fact ? fact->last_key : 0),
                       Reply::integer(fact ? fact->key_step : 0),
                       Reply::set(fact ? words(fact->acl_categories) : std::vector<Reply>{}),
                       Reply::set(fact ? words(fact->tips) : std::vector<Reply>{}),
                       Reply::array(std::move(specs)), Reply::array(std::move(subs))});
}

Reply command_info(const CommandTable& table, const CommandSpec& spec) {
  return command_info(table, spec, spec.name, spec.arity, spec.flags, true);
}

std::vector<const CommandSpec*> sorted_commands(const CommandTable& table) {
  std::vector<const CommandSpec*> specs;
  table.for_each([&](const CommandSpec& s) { specs.push_back(&s); });
  std::sort(specs.begin(), specs.end(),
            [](const CommandSpec* a, const CommandSpec* b) { return a->name < b->name; });
  return specs;
}

// "get", "config|get": the fake's command and subcommand of a full name, or
// nullopt (an unknown name, or a subcommand of a command without any).
struct Named {
  const CommandSpec* spec;
  const SubcommandSpec* sub;  // null for a top-level command
};
std::optional<Named> lookup_full_name(const CommandTable& table, std::string_view name) {
  size_t bar = name.find('|');
  const CommandSpec* spec = table.find(name.substr(0, bar));
  if (spec == nullptr) return std::nullopt;
  if (bar == std::string_view::npos) return Named{spec, nullptr};
  const SubcommandSpec* sub = table.find_subcommand(*spec, name.substr(bar + 1));
  if (sub == nullptr) return std::nullopt;
  return Named{spec, sub};
}

// COMMAND GETKEYS / GETKEYSANDFLAGS <command> [args...], as Redis 7.0's
// commandGetKeys: the command (and its subcommand) looked up in the fake's
// table, the arity checked, then the keys found by Redis's key specs. A
// command of Redis 7.0.15 that the fake lacks (SORT, LCS, XGROUP CREATE,
// ...) is answered from Redis's facts alone: its key positions are known
// even where the fake cannot run it.
Reply command_getkeys(CommandContext& ctx, bool with_flags) {
  const Argv& argv = ctx.argv;
  const CommandTable& table = ctx.server.commands();
  const CommandSpec* spec = table.find(argv[2]);
  std::string full;
  int arity = 0;
  if (spec != nullptr) {
    full = spec->name;
    arity = spec->arity;
    if (table.has_subcommands(*spec) && argv.size() > 3) {
      const SubcommandSpec* sub = table.find_subcommand(*spec, argv[3]);
      if (sub == nullptr) return Reply::error("ERR Invalid command specified");
      full += "|" + std::string(sub->name);
      arity = sub->arity;
    }
  } else {
    full = lower(argv[2]);
    const CommandFact* top = find_command_fact(full);
    if (top == nullptr) return Reply::error("ERR Invalid command specified");
    arity = top->arity;
    if (find_command_fact(full + "|help") != nullptr && argv.size() > 3) {
      const CommandFact* sub = find_command_fact(full + "|" + lower(argv[3]));
      if (sub == nullptr) return Reply::error("ERR Invalid command specified");
      full = sub->name;
      arity = sub->arity;
    }
  }
  const CommandFact* fact = find_command_fact(full);
  bool has_keys = fact != nullptr && fact->spec_count > 0;
  if (!has_keys) return Reply::error("ERR The command has no key arguments");
  int64_t argc = static_cast<int64_t>(argv.size()) - 2;
  if ((arity > 0 && arity != argc) || argc < -arity) {
    return Reply::error("ERR Invalid number of arguments specified for command");
  }
  Argv line(argv.begin() + 2, argv.end());
  std::vector<KeyRef> keys = command_keys(*fact, line);
  if (keys.empty() && fact->flags.find("no_mandatory_keys") == std::string_view::npos) {
    return Reply::error("ERR Invalid arguments specified for command");
  }
  std::vector<Reply> out;
  for (const KeyRef& k : keys) {
    if (with_flags) {
      out.push_back(Reply::array({Reply::bulk(line[k.index]), Reply::set(words(k.flags))}));
    } else {
      out.push_back(Reply::bulk(line[k.index]));
    }
  }
  return Reply::array(std::move(out));
}

// COMMAND LIST [FILTERBY MODULE m | ACLCAT c | PATTERN p]: the fake's
// commands and their subcommands ("config|get"), in name order.
Reply command_list(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  const CommandTable& table = ctx.server.commands();
  enum class Filter { kNone, kModule, kAclCat, kPattern } filter = Filter::kNone;
  if (argv.size() == 5 && equals_ci(argv[2], "filterby")) {
    if (equals_ci(argv[3], "module")) {
      filter = Filter::kModule;
    } else if (equals_ci(argv[3], "aclcat")) {
      filter = Filter::kAclCat;
    } else if (equals_ci(argv[3], "pattern")) {
      filter = Filter::kPattern;
    } else {
      return errors::syntax();
    }
  } else if (argv.size() != 2) {
    return errors::syntax();
  }
  if (filter == Filter::kModule) return Reply::array({});  // no modules
  std::string category = "@" + lower(filter == Filter::kAclCat ? argv[4] : "");
  auto keep = [&](std::string_view name) {
    switch (filter) {
      case Filter::kNone:
      case Filter::kModule:
        return true;
      case Filter::kPattern:
        return glob_match(lower(argv[4]), name);
      case Filter::kAclCat: {
        const CommandFact* fact = find_command_fact(name);
        if (fact == nullptr) return false;
        std::string_view cats = fact->acl_categories;
        size_t at = cats.find(category);
        while (at != std::string_view::npos) {
          size_t end = at + category.size();
          if (end == cats.size() || cats[end] == ' ') return true;
          at = cats.find(category, end);
        }
        return false;
      }
    }
    return false;
  };
  std::vector<Reply> out;
  for (const CommandSpec* s : sorted_commands(table)) {
    if (keep(s->name)) out.push_back(Reply::bulk(std::string(s->name)));
    if (!table.has_subcommands(*s)) continue;
    for (const SubcommandSpec& sub : table.subcommands(*s)) {
      std::string full = std::string(s->name) + "|" + std::string(sub.name);
      if (keep(full)) out.push_back(Reply::bulk(std::move(full)));
    }
  }
  return Reply::array(std::move(out));
}

}  // namespace

Reply command(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  const CommandTable& table = ctx.server.commands();
  if (argv.size() == 1) {
    std::vector<Reply> out;
    for (const CommandSpec* s : sorted_commands(table)) out.push_back(command_info(table, *s));
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
      for (const CommandSpec* s : sorted_commands(table)) out.push_back(command_info(table, *s));
    }
    for (size_t j = 2; j < argv.size(); ++j) {
      std::optional<Named> named = lookup_full_name(table, lower(argv[j]));
      if (!named) {
        out.push_back(Reply::nil());
      } else if (named->sub == nullptr) {
        out.push_back(command_info(table, *named->spec));
      } else {
        out.push_back(
            command_info(table, *named->spec,
                         std::string(named->spec->name) + "|" + std::string(named->sub->name),
                         named->sub->arity, named->sub->flags, false));
      }
    }
    return Reply::array(std::move(out));
  }
  if (sub == "getkeys" || sub == "getkeysandflags") {
    if (argv.size() < 3) return sub_arity("command", sub);
    return command_getkeys(ctx, sub == "getkeysandflags");
  }
  if (sub == "docs") {
    // A map (flat in RESP2) of name -> doc map. The fake documents each
    // command's group only; redis-cli uses the names for completion.
    std::vector<Reply> out;
    auto doc = [&](const CommandSpec& s) {
      out.push_back(Reply::bulk(std::string(s.name)));
      out.push_back(
          Reply::map({Reply::bulk("summary"), Reply::bulk(""), Reply::bulk("since"),
                      Reply::bulk("1.0.0"), Reply::bulk("group"), Reply::bulk("generic")}));
    };
    if (argv.size() == 2) {
      for (const CommandSpec* s : sorted_commands(table)) doc(*s);
    }
    for (size_t j = 2; j < argv.size(); ++j) {
      if (const CommandSpec* s = table.find(argv[j])) doc(*s);
    }
    return Reply::map(std::move(out));
  }
  if (sub == "list") return command_list(ctx);
  if (sub == "help") {
    if (argv.size() != 2) return sub_arity("command", sub);
    return help_reply(
        "COMMAND",
        {"(no subcommand)", "    Return details about all Redis commands.", "COUNT",
         "    Return the total number of commands in this Redis server.", "LIST",
         "    Return a list of all commands in this Redis server.", "INFO [<command-name> ...]",
         "    Return details about multiple Redis commands.",
         "    If no command names are given, documentation details for all",
         "    commands are returned.", "DOCS [<command-name> ...]",
         "    Return documentation details about multiple Redis commands.",
         "    If no command names are given, documentation details for all",
         "    commands are returned.", "GETKEYS <full-command>",
         "    Return the keys from a full Redis command.", "GETKEYSANDFLAGS <full-command>",
         "    Return the keys and the access flags from a full Redis command."});
  }
  return unknown_subcommand(argv[1], "COMMAND");
}

}  // namespace redsim::sim::admin
