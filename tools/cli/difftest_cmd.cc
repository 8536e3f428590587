#include "tools/cli/difftest_cmd.h"

#include <chrono>
#include <memory>
#include <ostream>

#include "tools/difftest/difftest.h"
#include "tools/difftest/raw_client.h"
#include "tools/testing/redis_server_process.h"

namespace redsim::cli {

int difftest(const DifftestOptions& options, std::ostream& out, std::ostream& err) {
  std::unique_ptr<testing::RedisServerProcess> own;
  difftest::Endpoint ep{options.host, options.port};
  if (options.port == 0) {
    try {
      own = std::make_unique<testing::RedisServerProcess>();
    } catch (const testing::RedisServerError& e) {
      err << "redsim: difftest: cannot start redis-server: " << e.what()
          << " (tools/setup.sh installs it; or pass --port of a running one)\n";
      return 2;
    }
    ep = {own->host(), own->port()};
    out << "redis-server " << ep.host << ":" << ep.port << " started for this run\n";
  }
  size_t total_steps = 0, total_commands = 0, total_resyncs = 0;
  const auto start = std::chrono::steady_clock::now();
  try {
    for (int i = 0; i < options.seeds; ++i) {
      const uint64_t seed = options.seed + static_cast<uint64_t>(i);
      difftest::GenOptions g;
      g.seed = seed;
      g.commands = options.commands;
      g.families = options.families;
      const std::vector<difftest::Step> steps = difftest::generate(g);
      const difftest::Result r = difftest::run(steps, ep);
      total_steps += r.steps_run;
      total_commands += r.commands_sent;
      total_resyncs += r.timing_resyncs;
      if (!r.mismatch) continue;
      out << "MISMATCH: seed " << seed << ", step " << r.mismatch->step << " of " << steps.size()
          << "\n";
      std::vector<difftest::Step> small = steps;
      size_t runs = 0;
      if (options.shrink) small = difftest::shrink(steps, ep, &runs);
      const difftest::Result again = difftest::run(small, ep);
      if (options.shrink) out << "shrunk in " << runs << " runs to " << small.size() << " steps:\n";
      out << difftest::describe(small, again.mismatch ? again : r);
      out << "replay: build/redsim difftest --seed " << seed << " --commands " << options.commands;
      for (const std::string& f : options.families) out << " --family " << f;
      out << "\n";
      return 1;
    }
  } catch (const difftest::RawClientError& e) {
    err << "redsim: difftest: redis-server at " << ep.host << ":" << ep.port << ": " << e.what()
        << "\n";
    return 2;
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out << "no mismatch: " << options.seeds << " seed(s) from " << options.seed << ", " << total_steps
      << " steps, " << total_commands << " commands compared per side, " << total_resyncs
      << " timing resync(s), " << secs << " s\n";
  return 0;
}

}  // namespace redsim::cli
