#include "tools/cli/repl.h"

#include <charconv>
#include <istream>
#include <ostream>
#include <string>

#include "sim/args.h"
#include "sim/server.h"
#include "tools/cli/redis_cli_format.h"

namespace redsim::cli {

int run_repl(std::istream& in, std::ostream& out) {
  sim::ManualClock clock;
  sim::Server server(clock);
  auto session = server.connect();
  std::string line;
  while (std::getline(in, line)) {
    auto args = split_args(line);
    if (!args) {
      out << "Invalid argument(s)\n";
      continue;
    }
    if (args->empty()) continue;
    // redis-cli repeats a command prefixed by a count: "3 PING".
    long repeat = 1;
    const std::string& first = args->front();
    long n = 0;
    auto [ptr, ec] = std::from_chars(first.data(), first.data() + first.size(), n);
    if (ec == std::errc() && ptr == first.data() + first.size() && args->size() > 1) {
      repeat = n;
      args->erase(args->begin());
    }
    if (sim::equals_ci(args->front(), "quit") || sim::equals_ci(args->front(), "exit")) break;
    if (sim::equals_ci(args->front(), "subscribe") || sim::equals_ci(args->front(), "psubscribe")) {
      out << "Reading messages... (press Ctrl-C to quit)\n";
    }
    for (long i = 0; i < repeat; ++i) {
      out << format_reply(server.execute(*session, *args));
      for (const resp::Reply& push : session->take_pushes()) out << format_reply(push);
    }
    out.flush();
  }
  return 0;
}

}  // namespace redsim::cli
