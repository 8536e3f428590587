#include "tools/server/server_cmd.h"

#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <memory>
#include <system_error>

#include "sim/clock.h"
#include "sim/config_rewrite.h"
#include "sim/proc_title.h"
#include "sim/server.h"
#include "tools/server/proc_title.h"
#include "tools/server/tcp_server.h"
#include "tools/server/wall_clock.h"

namespace redsim::server {

namespace {

TcpServer* g_running = nullptr;

void on_signal(int) {
  if (g_running != nullptr) g_running->request_stop();
}

// Redis's daemonize(): the parent exits, the child leaves the session and
// points stdin, stdout and stderr at /dev/null. Returns true in the child.
bool daemonize() {
  pid_t pid = fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork");
  if (pid > 0) return false;
  setsid();
  int fd = open("/dev/null", O_RDWR);
  if (fd >= 0) {
    dup2(fd, STDIN_FILENO);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    if (fd > STDERR_FILENO) close(fd);
  }
  return true;
}

// redisSetProcTitle: the template expanded with this server's values.
void update_proc_title(sim::Server& fake, const ServerCmdOptions& options, int port) {
  sim::ProcTitleVars vars;
  vars.title = proc_title_program();
  std::string bind = fake.config().bind.substr(0, fake.config().bind.find(' '));
  if (bind.starts_with('-')) bind.erase(0, 1);
  vars.listen_addr = bind + ":" + std::to_string(port);
  vars.config_file = options.config_file;
  vars.port = std::to_string(port);
  vars.tls_port = "0";
  vars.unixsocket = options.unixsocket;
  auto it = fake.config().others.find("proc-title-template");
  std::string_view tmpl =
      it == fake.config().others.end() ? sim::kDefaultProcTitleTemplate : it->second;
  if (std::optional<std::string> title = sim::expand_proc_title(tmpl, vars)) proc_title_set(*title);
}

}  // namespace

int run_server(const ServerCmdOptions& options, std::ostream& out_stream,
               std::ostream& err_stream) {
  if (!options.dir.empty() && chdir(options.dir.c_str()) != 0) {
    err_stream << "Can't chdir to '" << options.dir << "': " << std::strerror(errno) << "\n";
    return 1;
  }
  if (options.daemonize && !daemonize()) return 0;
  // Every block of 128 KiB or more gets its own mapping, returned to the
  // system when freed: a big value, request or reply does not stay in the
  // heap after it is gone (glibc starts at this threshold but raises it,
  // up to 32 MiB, after the first such free, keeping later big blocks in
  // the heap; a fixed setting stops that).
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  std::ofstream log;
  if (!options.logfile.empty()) {
    log.open(options.logfile, std::ios::app);
    if (!log) {
      err_stream << "Can't open the log file: " << std::strerror(errno) << "\n";
      return 1;
    }
  }
  std::ostream& out = log.is_open() ? log : out_stream;
  std::ostream& err = log.is_open() ? log : err_stream;
  for (const std::string& w : options.warnings) err << "# WARNING redsim: " << w << "\n";
  WallClock wall;
  // The virtual clock starts at the wall time of the start, then moves
  // only on DEBUG SLEEP and REDSIM.ADVANCE.
  sim::ManualClock manual(wall.now_us());
  bool real = options.clock == "real";
  sim::Clock& clock = real ? static_cast<sim::Clock&>(wall) : manual;
  sim::ServerOptions server_options;
  server_options.seed = options.seed;
  server_options.databases = options.databases;
  // busy-reply-threshold counts wall time on the wall clock; on a virtual
  // clock (which a script cannot move) the instruction-charged time.
  server_options.script_time = real ? sim::ScriptTime::kClock : sim::ScriptTime::kInstructions;
  sim::Server fake(clock, server_options);
  {
    std::unique_ptr<sim::Session> session = fake.connect();
    for (const auto& [name, value] : options.config) {
      resp::Reply reply = fake.execute(*session, {"CONFIG", "SET", name, value});
      if (reply.is_error()) {
        err << "redsim server: " << name << " " << value << ": " << reply.str() << "\n";
        return 1;
      }
    }
  }
  for (const auto& [name, value] : options.reported_only) fake.config().others[name] = value;
  sim::set_config_file(fake, options.config_file);  // CONFIG REWRITE's file
  if (std::string acl = fake.load_acl_users(options.acl_users, options.aclfile); !acl.empty()) {
    err << acl << "\n";
    return 1;
  }
  TcpServer tcp(fake,
                {.bind = options.bind, .port = options.port, .wall_clock = real, .log = &out});
  int port = 0;
  try {
    port = tcp.listen();
  } catch (const std::system_error& e) {
    err << "redsim server: cannot listen on " << options.bind << ":" << options.port << ": "
        << e.what() << "\n";
    return 1;
  }
  if (options.set_proc_title) {
    update_proc_title(fake, options, port);
    fake.set_config_change_handler([&fake, &options, port](std::string_view name) {
      if (name == "proc-title-template") update_proc_title(fake, options, port);
    });
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
  if (!options.pidfile.empty()) {
    std::ofstream pid(options.pidfile, std::ios::trunc);
    if (pid) {
      pid << getpid() << "\n";
    } else {
      err << "Failed to write PID file: " << std::strerror(errno) << "\n";  // Redis goes on too
    }
  }
  // " PID: <pid>" is what Redis's test suite waits for (Redis prints it in
  // its logo, tests/support/server.tcl wait_server_started).
  out << "redsim server (Redis 7.0.15 fake), PID: " << getpid() << ", clock " << options.clock
      << "\n"
      << "Ready to accept connections tcp " << options.bind << ":" << port << std::endl;
  tcp.run();
  g_running = nullptr;
  if (!options.pidfile.empty()) unlink(options.pidfile.c_str());
  out << "redsim server: stopped" << std::endl;
  return 0;
}

}  // namespace redsim::server
