// Private to sim/: what SLOWLOG and LATENCY read (sim/cmd_monitor.cc), fed
// by Server::call after each command a client sent (not a script's
// redis.call) and by Server::active_expire_cycle.
//
//   SlowLog: Redis 7.0's slowlog.c. An entry per command that took at least
//     slowlog-log-slower-than us (< 0: none; 0: every command), newest
//     first, at most slowlog-max-len of them; EXEC itself is not logged,
//     the commands it ran are. Arguments are trimmed as Redis trims them:
//     at most 32 (the 32nd says "... (N more arguments)"), each at most 128
//     bytes ("... (N more bytes)").
//   LatencyMonitor: Redis 7.0's latency.c. A series per event ("command",
//     "fast-command", "expire-cycle") of the samples of at least
//     latency-monitor-threshold ms (0: off), one per second (a second's
//     samples keep their maximum), the last 160 kept, plus the all-time max.
//
// Durations are measured on the server's clock: a virtual clock moves only
// when told (DEBUG SLEEP), so in a simulation only such commands take time;
// redsim server's wall clock measures the real run. Not part of the public API.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/command.h"

namespace redsim::sim {

struct SlowLogEntry {
  uint64_t id = 0;
  int64_t unix_s = 0;             // when the command ran (server clock)
  int64_t duration_us = 0;        // how long it ran
  std::vector<std::string> argv;  // trimmed as above
  std::string addr;               // Session::peer().addr ("" in process)
  std::string name;               // the client's name
};

class SlowLog {
 public:
  static constexpr size_t kMaxArgc = 32;     // Redis's SLOWLOG_ENTRY_MAX_ARGC
  static constexpr size_t kMaxString = 128;  // Redis's SLOWLOG_ENTRY_MAX_STRING

  // slowlogPushEntryIfNeeded: logs when slower_than_us >= 0, max_len > 0
  // and duration_us >= slower_than_us; then trims to max_len.
  void push_if_needed(const Argv& argv, int64_t unix_s, int64_t duration_us, int64_t slower_than_us,
                      int64_t max_len, std::string_view addr, std::string_view name);
  // CONFIG SET slowlog-max-len shortens the log at the next push, as Redis.
  const std::deque<SlowLogEntry>& entries() const { return entries_; }  // newest first
  void reset() { entries_.clear(); }

 private:
  std::deque<SlowLogEntry> entries_;
  uint64_t next_id_ = 0;
};

struct LatencySample {
  int64_t unix_s = 0;
  int64_t ms = 0;
};

struct LatencySeries {
  std::deque<LatencySample> samples;  // oldest first, at most kLatencySamples
  int64_t max_ms = 0;                 // all-time high since the last reset
};

class LatencyMonitor {
 public:
  static constexpr size_t kLatencySamples = 160;  // Redis's LATENCY_TS_LEN

  // latencyAddSampleIfNeeded: records when threshold_ms > 0 and ms >= it.
  void add_if_needed(std::string_view event, int64_t unix_s, int64_t ms, int64_t threshold_ms);
  const std::map<std::string, LatencySeries, std::less<>>& events() const { return events_; }
  // LATENCY RESET: every event (empty list) or those named; returns how
  // many series were dropped.
  size_t reset(const std::vector<std::string>& names);

 private:
  std::map<std::string, LatencySeries, std::less<>> events_;
};

// MONITOR: the sessions that receive, as a status reply pushed to them,
// every command run (Redis's replicationFeedMonitors): a client's after it
// ran (EXEC's queued commands as EXEC runs them, before EXEC's own line),
// EVAL/EVALSHA/FCALL before their script, a script's redis.call as
// "[db lua]". Administrative commands (Redis's admin and skip_monitor
// flags: CONFIG, DEBUG, SLOWLOG, ...) are not shown.
//   +1767225600.000000 [0 127.0.0.1:53012] "set" "foo" "bar"
class Monitors {
 public:
  bool empty() const { return sessions_.empty(); }
  void add(Session* s);
  void remove(Session* s);
  // Whether Redis shows `full_name` ("get", "config|get") to monitors.
  static bool shown(std::string_view full_name);
  // Pushes the line to every monitor. `addr` "lua" for a script's command.
  void feed(int64_t now_us, int db, std::string_view addr, const Argv& argv);

 private:
  std::vector<Session*> sessions_;  // in MONITOR order
};

struct Monitor {
  SlowLog slowlog;
  LatencyMonitor latency;
  Monitors monitors;
};

}  // namespace redsim::sim
