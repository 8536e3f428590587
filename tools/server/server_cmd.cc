#include "tools/server/server_cmd.h"

#include <unistd.h>

#include <csignal>
#include <memory>
#include <system_error>

#include "sim/clock.h"
#include "sim/server.h"
#include "tools/server/tcp_server.h"
#include "tools/server/wall_clock.h"

namespace redsim::server {

namespace {

TcpServer* g_running = nullptr;

void on_signal(int) {
  if (g_running != nullptr) g_running->request_stop();
}

}  // namespace

int run_server(const ServerCmdOptions& options, std::ostream& out, std::ostream& err) {
  WallClock wall;
  // The virtual clock starts at the wall time of the start, then moves
  // only on DEBUG SLEEP and REDSIM.ADVANCE.
  sim::ManualClock manual(wall.now_us());
  bool real = options.clock == "real";
  sim::Clock& clock = real ? static_cast<sim::Clock&>(wall) : manual;
  sim::ServerOptions server_options;
  server_options.seed = options.seed;
  // busy-reply-threshold counts wall time on the wall clock; on a virtual
  // clock (which a script cannot move) the instruction-charged time.
  server_options.script_time = real ? sim::ScriptTime::kClock : sim::ScriptTime::kInstructions;
  sim::Server fake(clock, server_options);
  TcpServer tcp(fake, {.bind = options.bind, .port = options.port, .wall_clock = real});
  int port = 0;
  try {
    port = tcp.listen();
  } catch (const std::system_error& e) {
    err << "redsim server: cannot listen on " << options.bind << ":" << options.port << ": "
        << e.what() << "\n";
    return 1;
  }
  // SIGTERM / SIGINT end a DEBUG SLEEP too.
  wall.set_interrupt_fd(tcp.interrupt_fd());
  g_running = &tcp;
  struct sigaction sa {};
  sa.sa_handler = &on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  out << "redsim server (Redis 7.0.15 fake), pid " << getpid() << ", clock " << options.clock
      << "\n"
      << "Ready to accept connections tcp " << options.bind << ":" << port << std::endl;
  tcp.run();
  g_running = nullptr;
  out << "redsim server: stopped" << std::endl;
  return 0;
}

}  // namespace redsim::server
