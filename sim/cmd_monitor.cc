// SLOWLOG and LATENCY (registered in cmd_connection.cc), and the logs they
// read (sim/monitor.h). Replies and error texts as Redis 7.0.15 (checked
// against Debian's redis-server): slowlog.c's slowlogCommand and latency.c's
// latencyCommand. LATENCY GRAPH and DOCTOR say what Redis's say, in a
// simpler shape (their text is for people, not parsers).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/args.h"
#include "sim/cmd_admin.h"
#include "sim/command_facts.h"
#include "sim/internal.h"
#include "sim/monitor.h"

namespace redsim::sim {

void SlowLog::push_if_needed(const Argv& argv, int64_t unix_s, int64_t duration_us,
                             int64_t slower_than_us, int64_t max_len, std::string_view addr,
                             std::string_view name) {
  if (slower_than_us < 0 || max_len <= 0) return;
  if (duration_us >= slower_than_us) {
    SlowLogEntry e;
    e.id = next_id_++;
    e.unix_s = unix_s;
    e.duration_us = duration_us;
    size_t argc = std::min(argv.size(), kMaxArgc);
    for (size_t j = 0; j < argc; ++j) {
      if (argc != argv.size() && j == argc - 1) {
        e.argv.push_back("... (" + std::to_string(argv.size() - argc + 1) + " more arguments)");
      } else if (argv[j].size() > kMaxString) {
        e.argv.push_back(argv[j].substr(0, kMaxString) + "... (" +
                         std::to_string(argv[j].size() - kMaxString) + " more bytes)");
      } else {
        e.argv.push_back(argv[j]);
      }
    }
    e.addr = addr;
    e.name = name;
    entries_.push_front(std::move(e));
  }
  while (entries_.size() > static_cast<size_t>(max_len)) entries_.pop_back();
}

void LatencyMonitor::add_if_needed(std::string_view event, int64_t unix_s, int64_t ms,
                                   int64_t threshold_ms) {
  if (threshold_ms <= 0 || ms < threshold_ms) return;
  auto it = events_.find(event);
  if (it == events_.end()) it = events_.emplace(std::string(event), LatencySeries{}).first;
  LatencySeries& series = it->second;
  series.max_ms = std::max(series.max_ms, ms);
  // latencyAddSample: a second's samples share one slot, keeping the max.
  if (!series.samples.empty() && series.samples.back().unix_s == unix_s) {
    series.samples.back().ms = std::max(series.samples.back().ms, ms);
    return;
  }
  series.samples.push_back({unix_s, ms});
  if (series.samples.size() > kLatencySamples) series.samples.pop_front();
}

void Monitors::add(Session* s) {
  if (std::find(sessions_.begin(), sessions_.end(), s) == sessions_.end()) sessions_.push_back(s);
}

void Monitors::remove(Session* s) { std::erase(sessions_, s); }

bool Monitors::shown(std::string_view full_name) {
  const CommandFact* fact = find_command_fact(full_name);
  if (fact == nullptr) return true;  // the fake's own (REDSIM.ADVANCE)
  std::string_view flags = fact->flags;
  auto has = [&](std::string_view flag) {
    for (size_t at = flags.find(flag); at != std::string_view::npos;
         at = flags.find(flag, at + 1)) {
      bool start = at == 0 || flags[at - 1] == ' ';
      bool end = at + flag.size() == flags.size() || flags[at + flag.size()] == ' ';
      if (start && end) return true;
    }
    return false;
  };
  return !has("admin") && !has("skip_monitor");
}

void Monitors::feed(int64_t now_us, int db, std::string_view addr, const Argv& argv) {
  if (sessions_.empty()) return;
  char head[96];
  std::snprintf(head, sizeof head, "%lld.%06lld [%d ", (long long)(now_us / 1000000),
                (long long)(now_us % 1000000), db);
  std::string line = head;
  line += addr;
  line += ']';
  // sdscatrepr: quoted, with C escapes and \xHH for other bytes.
  for (const std::string& a : argv) {
    line += " \"";
    for (unsigned char c : a) {
      switch (c) {
        case '\\':
          line += "\\\\";
          break;
        case '"':
          line += "\\\"";
          break;
        case '\n':
          line += "\\n";
          break;
        case '\r':
          line += "\\r";
          break;
        case '\t':
          line += "\\t";
          break;
        case '\a':
          line += "\\a";
          break;
        case '\b':
          line += "\\b";
          break;
        default:
          if (c >= 0x20 && c < 0x7f) {
            line += static_cast<char>(c);
          } else {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02x", c);
            line += hex;
          }
      }
    }
    line += '"';
  }
  for (Session* s : sessions_) SessionAccess::push(*s, resp::Reply::status(line));
}

size_t LatencyMonitor::reset(const std::vector<std::string>& names) {
  if (names.empty()) {
    size_t n = events_.size();
    events_.clear();
    return n;
  }
  size_t n = 0;
  for (const std::string& name : names) n += events_.erase(name);
  return n;
}

}  // namespace redsim::sim

namespace redsim::sim::admin {

using resp::Reply;

namespace {

Monitor& monitor(CommandContext& ctx) { return ServerAccess::monitor(ctx.server); }

// ---- SLOWLOG ---------------------------------------------------------------

Reply slowlog_entry(const SlowLogEntry& e) {
  std::vector<Reply> args;
  args.reserve(e.argv.size());
  for (const std::string& a : e.argv) args.push_back(Reply::bulk(a));
  return Reply::array({Reply::integer(static_cast<int64_t>(e.id)), Reply::integer(e.unix_s),
                       Reply::integer(e.duration_us), Reply::array(std::move(args)),
                       Reply::bulk(e.addr), Reply::bulk(e.name)});
}

}  // namespace

// MONITOR: this session receives every command from now on (see Monitors).
Reply monitor_command(CommandContext& ctx) {
  monitor(ctx).monitors.add(&ctx.session);
  return Reply::ok();
}

Reply slowlog(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  std::string sub = lower(argv[1]);
  SlowLog& log = monitor(ctx).slowlog;
  size_t argc = argv.size();
  if (sub == "help" && argc == 2) {
    return help_reply(
        "SLOWLOG", {"GET [<count>]",
                    "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
                    "    Entries are made of:",
                    "    id, timestamp, time in microseconds, arguments array, client IP and port,",
                    "    client name", "LEN", "    Return the length of the slowlog.", "RESET",
                    "    Reset the slowlog."});
  }
  if (sub == "reset" && argc == 2) {
    log.reset();
    return Reply::ok();
  }
  if (sub == "len" && argc == 2) {
    return Reply::integer(static_cast<int64_t>(log.entries().size()));
  }
  if (sub == "get" && (argc == 2 || argc == 3)) {
    int64_t count = 10;
    if (argc == 3 && (!parse_int64(argv[2], &count) || count < -1)) {
      return Reply::error("ERR count should be greater than or equal to -1");
    }
    size_t n = log.entries().size();
    if (count >= 0) n = std::min(n, static_cast<size_t>(count));
    std::vector<Reply> out;
    out.reserve(n);
    for (size_t j = 0; j < n; ++j) out.push_back(slowlog_entry(log.entries()[j]));
    return Reply::array(std::move(out));
  }
  if (sub == "help" || sub == "reset" || sub == "len") return sub_arity("slowlog", sub);
  if (sub == "get") {
    return Reply::error(one_line("ERR unknown subcommand or wrong number of arguments for '" +
                                 argv[1].substr(0, 128) + "'. Try SLOWLOG HELP."));
  }
  return unknown_subcommand(argv[1], "SLOWLOG");
}

// ---- LATENCY ---------------------------------------------------------------

namespace {

// LATENCY HISTOGRAM's entry of one command: Redis's fillCommandCDF over its
// hdr histogram (LatencyHistogram::cdf_usec: log buckets from 1024 ns,
// doubling), the cumulative count at each bucket where it grows, keyed by
// the bucket's top in us (1, 2, 4, 8, 16, 33, 66, ...).
void histogram_entry(std::string_view name, const Server::CommandStats& stats,
                     std::vector<Reply>& out) {
  if (stats.latency.empty()) return;
  std::vector<Reply> buckets;
  for (const auto& [usec, runs] : stats.latency.cdf_usec()) {
    buckets.push_back(Reply::integer(usec));
    buckets.push_back(Reply::integer(static_cast<int64_t>(runs)));
  }
  out.push_back(Reply::bulk(std::string(name)));
  out.push_back(
      Reply::map({Reply::bulk("calls"), Reply::integer(static_cast<int64_t>(stats.latency.count())),
                  Reply::bulk("histogram_usec"), Reply::map(std::move(buckets))}));
}

Reply latency_histogram(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  const auto& stats = ctx.server.command_stats();
  std::vector<Reply> out;
  if (argv.size() == 2) {
    for (const auto& [name, s] : stats) histogram_entry(name, s, out);
    return Reply::map(std::move(out));
  }
  // latencySpecificCommandsFillCDF: each known name once; a container
  // brings its subcommands; an unknown name is skipped.
  std::vector<std::string> seen;
  for (size_t j = 2; j < argv.size(); ++j) {
    std::string name = lower(argv[j]);
    size_t bar = name.find('|');
    const CommandSpec* spec = ctx.server.commands().find(name.substr(0, bar));
    if (spec == nullptr) continue;
    std::string full(spec->name);
    if (bar != std::string::npos) {
      const SubcommandSpec* sub =
          ctx.server.commands().find_subcommand(*spec, name.substr(bar + 1));
      if (sub == nullptr) continue;
      full += "|" + std::string(sub->name);
    }
    if (std::find(seen.begin(), seen.end(), full) != seen.end()) continue;
    seen.push_back(full);
    if (auto it = stats.find(full); it != stats.end()) histogram_entry(full, it->second, out);
    if (bar == std::string::npos && ctx.server.commands().has_subcommands(*spec)) {
      std::string prefix = full + "|";
      for (auto it = stats.lower_bound(prefix);
           it != stats.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
        histogram_entry(it->first, it->second, out);
      }
    }
  }
  return Reply::map(std::move(out));
}

// LATENCY GRAPH: Redis draws the samples as a column chart; here one line
// per sample (its age and latency) under Redis's header line.
std::string latency_graph(std::string_view event, const LatencySeries& series, int64_t now_s) {
  int64_t high = 0;
  int64_t low = INT64_MAX;
  for (const LatencySample& s : series.samples) {
    high = std::max(high, s.ms);
    low = std::min(low, s.ms);
  }
  std::string out = std::string(event) + " - high " + std::to_string(high) + " ms, low " +
                    std::to_string(low) + " ms (all time high " + std::to_string(series.max_ms) +
                    " ms)\n" + std::string(80, '-') + "\n";
  for (const LatencySample& s : series.samples) {
    out += std::to_string(now_s - s.unix_s) + "s ago: " + std::to_string(s.ms) + " ms\n";
  }
  return out;
}

// LATENCY DOCTOR: Redis's opening lines and a line per event with its
// figures (latencyCommandGenHumanReport's, without the advice).
std::string latency_doctor(const LatencyMonitor& latency) {
  if (latency.events().empty()) {
    return "Dave, no latency spike was observed during the lifetime of this Redis instance, not "
           "in the slightest bit. I honestly think you ought to sit down calmly, take a stress "
           "pill, and think things over.\n";
  }
  std::string out =
      "Dave, I have observed latency spikes in this Redis instance. You don't mind talking about "
      "it, do you Dave?\n\n";
  int i = 1;
  for (const auto& [name, series] : latency.events()) {
    int64_t sum = 0;
    for (const LatencySample& s : series.samples) sum += s.ms;
    int64_t n = static_cast<int64_t>(series.samples.size());
    out += std::to_string(i++) + ". " + name + ": " + std::to_string(n) +
           " latency spikes (average " + std::to_string(n ? sum / n : 0) +
           "ms). Worst all time event " + std::to_string(series.max_ms) + "ms.\n";
  }
  return out;
}

}  // namespace

Reply latency(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  std::string sub = lower(argv[1]);
  LatencyMonitor& lat = monitor(ctx).latency;
  size_t argc = argv.size();
  int64_t now_s = ctx.now_ms / 1000;
  if (sub == "history") {
    if (argc != 3) return sub_arity("latency", sub);
    std::vector<Reply> out;
    if (auto it = lat.events().find(argv[2]); it != lat.events().end()) {
      for (const LatencySample& s : it->second.samples) {
        out.push_back(Reply::array({Reply::integer(s.unix_s), Reply::integer(s.ms)}));
      }
    }
    return Reply::array(std::move(out));
  }
  if (sub == "latest") {
    if (argc != 2) return sub_arity("latency", sub);
    std::vector<Reply> out;
    for (const auto& [name, series] : lat.events()) {
      if (series.samples.empty()) continue;
      const LatencySample& last = series.samples.back();
      out.push_back(Reply::array({Reply::bulk(name), Reply::integer(last.unix_s),
                                  Reply::integer(last.ms), Reply::integer(series.max_ms)}));
    }
    return Reply::array(std::move(out));
  }
  if (sub == "graph") {
    if (argc != 3) return sub_arity("latency", sub);
    auto it = lat.events().find(argv[2]);
    if (it == lat.events().end() || it->second.samples.empty()) {
      return Reply::error(
          one_line("ERR No samples available for event '" + argv[2].substr(0, 128) + "'"));
    }
    return Reply::verbatim("txt", latency_graph(argv[2], it->second, now_s));
  }
  if (sub == "doctor") {
    if (argc != 2) return sub_arity("latency", sub);
    return Reply::verbatim("txt", latency_doctor(lat));
  }
  if (sub == "reset") {
    return Reply::integer(
        static_cast<int64_t>(lat.reset(std::vector<std::string>(argv.begin() + 2, argv.end()))));
  }
  if (sub == "histogram") return latency_histogram(ctx);
  if (sub == "help") {
    if (argc != 2) return sub_arity("latency", sub);
    return help_reply(
        "LATENCY",
        {"DOCTOR", "    Return a human readable latency analysis report.", "GRAPH <event>",
         "    Return an ASCII latency graph for the <event> class.", "HISTORY <event>",
         "    Return time-latency samples for the <event> class.", "LATEST",
         "    Return the latest latency samples for all events.", "RESET [<event> ...]",
         "    Reset latency data of one or more <event> classes.",
         "    (default: reset all data for all event classes)", "HISTOGRAM [COMMAND ...]",
         "    Return a cumulative distribution of latencies in the format of a histogram for the "
         "specified command names.",
         "    If no commands are specified then all histograms are replied."});
  }
  return unknown_subcommand(argv[1], "LATENCY");
}

}  // namespace redsim::sim::admin
