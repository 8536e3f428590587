// The benchmark binary's main: starts the run's real redis-server (see
// bench_support.h), runs the selected benchmarks with the console reporter,
// stops the server, and prints the side-by-side table "fake vs real" of the
// rows that ran, as Markdown (the table of bench/README.md). With
// REDSIM_BENCH_NO_REAL set, no server is started and the *_Real rows are skipped.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "lock/hiredis/hiredis_env.h"
#include "tools/testing/redis_server_process.h"

namespace redsim::bench {
namespace {

uint16_t g_port = 0;
std::string g_why_not = "not started";

}  // namespace

void set_real_server(uint16_t port, std::string why_not) {
  g_port = port;
  g_why_not = std::move(why_not);
}

bool require_real_server(benchmark::State& state) {
  if (g_port != 0) return true;
  state.SkipWithError(("no real redis-server for this run: " + g_why_not).c_str());
  return false;
}

lock::HiredisOptions real_options() {
  lock::HiredisOptions options;
  options.host = "127.0.0.1";
  options.port = g_port;
  options.command_timeout = std::chrono::milliseconds(10000);
  options.connect_timeout = std::chrono::milliseconds(10000);
  return options;
}

uint64_t real_commands_processed() {
  lock::HiredisEnv env(real_options());
  const lock::Reply reply = env.connection().call({"INFO", "stats"});
  const std::string text = reply.str();
  const std::string field = "total_commands_processed:";
  const size_t at = text.find(field);
  if (at == std::string::npos) return 0;
  return std::stoull(text.substr(at + field.size()));
}

namespace {

// Keeps every run's counters for the table, and prints as usual.
class TableReporter : public benchmark::ConsoleReporter {
 public:
  using ConsoleReporter::ConsoleReporter;
  void ReportRuns(const std::vector<Run>& runs) override {
    // With --benchmark_repetitions=N the table takes the median of the
    // repetitions (counters included); otherwise the one run.
    for (const Run& run : runs) {
      const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      const bool single = run.run_type == Run::RT_Iteration && run.repetitions <= 1;
      if (!median && !single) continue;
      // Keyed by function and arguments, without /real_time or /iterations:N.
      const std::string& args = run.run_name.args;
      runs_[run.run_name.function_name + (args.empty() ? "" : "/" + args)] = run;
    }
    ConsoleReporter::ReportRuns(runs);
  }

  // The counter `counter` of the run named `name`; NaN when it did not run,
  // failed, or has no such counter.
  double value(const std::string& name, const std::string& counter) const {
    auto it = runs_.find(name);
    if (name.empty() || it == runs_.end() || it->second.error_occurred) return kNone;
    auto c = it->second.counters.find(counter);
    return c == it->second.counters.end() ? kNone : c->second.value;
  }
  static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  bool skipped(const std::string& name, std::string* why) const {
    auto it = runs_.find(name);
    if (it == runs_.end() || !it->second.error_occurred) return false;
    *why = it->second.error_message;
    return true;
  }

 private:
  std::map<std::string, Run> runs_;
};

struct Row {
  std::string label;
  std::string fake;     // benchmark name of the fake side
  std::string real;     // of the real side ("" when the row has none)
  std::string counter;  // the figure compared
  std::string unit;
};

std::vector<Row> table_rows() {
  std::vector<Row> rows = {
      {"one client, SimpleLock cycle", "BM_OneClient_Simple_Fake", "BM_OneClient_Simple_Real",
       "cycles_per_s", "cycles/s"},
      {"one client, ReentrantLock cycle", "BM_OneClient_Reentrant_Fake",
       "BM_OneClient_Reentrant_Real", "cycles_per_s", "cycles/s"},
      {"one client, ReentrantLock cycle (world process)", "BM_OneClient_Reentrant_FakeWorld",
       "BM_OneClient_Reentrant_Real", "cycles_per_s", "cycles/s"},
      {"one client, InterProcessMutex cycle (ZooKeeper; fake: world process and node)",
       "BM_ZkMutexCycle_FakeWorld", "BM_ZkMutexCycle_Real", "cycles_per_s", "cycles/s"},
  };
  for (const char* kind : {"Simple", "Reentrant"}) {
    for (int clients : {1, 4, 16}) {
      const std::string suffix = "/clients:" + std::to_string(clients);
      rows.push_back({std::string("contention, ") + kind + "Lock, " + std::to_string(clients) +
                          (clients == 1 ? " client" : " clients"),
                      std::string("BM_Contention_") + kind + "_Fake" + suffix,
                      std::string("BM_Contention_") + kind + "_Real" + suffix, "cs_per_s",
                      "critical sections/s"});
    }
  }
  for (const char* kind : {"Reentrant", "Simple"}) {
    const std::string how = std::string(kind) == "Reentrant" ? "pub/sub wake-up" : "polling";
    const std::string fake = std::string("BM_Handoff_") + kind + "_Fake/latency_us:";
    const std::string real = std::string("BM_Handoff_") + kind + "_Real";
    const std::string label = "hand-off, " + std::string(kind) + "Lock (" + how + "), ";
    rows.push_back({label + "mean; model at 0 us latency", fake + "0", real, "mean_us", "us"});
    for (const char* stat : {"mean", "p50", "p90", "p99"}) {
      rows.push_back({label + stat + "; model at 50 us one-way latency", fake + "50", real,
                      std::string(stat) + "_us", "us"});
    }
  }
  rows.push_back({"Redis round trip (PING), mean", "", "BM_PingRoundTrip_Real", "mean_us", "us"});
  rows.push_back({"8 clients on a ReentrantLock: commands/s (world at 50-150 us latency)",
                  "BM_SimSpeed_Fake/clients:8", "BM_SimSpeed_Real/clients:8", "cmds_per_s",
                  "commands/s"});
  for (int clients : {2, 4, 8, 16, 32, 64}) {
    rows.push_back({"simulation speed, " + std::to_string(clients) + " clients",
                    "BM_SimSpeed_Fake/clients:" + std::to_string(clients), "", "cmds_per_s",
                    "commands/s"});
  }
  return rows;
}

std::string format_value(double v) {
  char buf[64];
  if (v >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.2f M", v / 1e6);
  } else if (v >= 1e4) {
    std::snprintf(buf, sizeof buf, "%.1f k", v / 1e3);
  } else if (v >= 100) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.3g", v);
  }
  return buf;
}

void print_table(const TableReporter& reporter) {
  std::cout << "\n## fake vs real (this run; the median of the repetitions when repeated)\n\n"
            << "| row | unit | fake | real | fake/real |\n|---|---|---|---|---|\n";
  size_t printed = 0;
  for (const Row& row : table_rows()) {
    const double fake = reporter.value(row.fake, row.counter);
    const double real = reporter.value(row.real, row.counter);
    const bool has_fake = !std::isnan(fake);
    const bool has_real = !std::isnan(real);
    std::string why;
    const bool real_skipped = !row.real.empty() && reporter.skipped(row.real, &why);
    if (!has_fake && !has_real && !real_skipped) continue;
    std::string ratio = "";
    if (has_fake && has_real && fake > 0 && real > 0) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.1fx", fake / real);
      ratio = buf;
    }
    std::cout << "| " << row.label << " | " << row.unit << " | "
              << (has_fake ? format_value(fake) : "") << " | "
              << (has_real ? format_value(real) : (real_skipped ? "skipped" : "")) << " | " << ratio
              << " |\n";
    ++printed;
  }
  if (printed == 0) std::cout << "(no side-by-side benchmark ran)\n";
}

}  // namespace
}  // namespace redsim::bench

int main(int argc, char** argv) {
  using namespace redsim;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  // The server lives on the main thread (PR_SET_PDEATHSIG follows the thread
  // that started it) for the whole run, and is stopped before main returns.
  std::unique_ptr<testing::RedisServerProcess> server;
  if (std::getenv("REDSIM_BENCH_NO_REAL") != nullptr) {
    bench::set_real_server(0, "REDSIM_BENCH_NO_REAL is set");
  } else if (!testing::RedisServerProcess::available()) {
    bench::set_real_server(0, "/usr/bin/redis-server not found (apt-get install redis-server)");
  } else {
    try {
      server = std::make_unique<testing::RedisServerProcess>();
      bench::set_real_server(server->port(), "");
      std::cout << "real server: redis-server on " << server->url() << " (pid " << server->pid()
                << ", persistence off), started for this run\n";
    } catch (const testing::RedisServerError& e) {
      bench::set_real_server(0, e.what());
    }
  }
  if (!server) {
    std::cout << "real server: none could be started; the *_Real benchmarks are skipped\n";
  }

  bench::TableReporter reporter(isatty(STDOUT_FILENO) ? benchmark::ConsoleReporter::OO_Defaults
                                                      : benchmark::ConsoleReporter::OO_Tabular);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  server.reset();  // SHUTDOWN NOSAVE, waitpid
  bench::print_table(reporter);
  return 0;
}
