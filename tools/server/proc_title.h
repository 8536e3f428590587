// The process title of `redsim server` run as redis-server (Redis 7.0's
// set-proc-title / proc-title-template, server.c redisSetProcTitle), as
// `ps` and /proc/<pid>/cmdline show it.
//
//   int main(int argc, char** argv) {
//     redsim::server::proc_title_init(argc, argv);   // first thing
//     ...
//     redsim::server::proc_title_set("redis-server 127.0.0.1:6379");
//
// Linux shows a process's command line from the memory that held its argv
// strings (environ's strings follow them). proc_title_init copies environ
// elsewhere so that the whole area may be overwritten; proc_title_set
// writes the title there, NUL-padded, and marks the byte that ended argv
// non-NUL, the kernel's sign that the title runs to its first NUL (the
// approach of setproctitle(3) in BSD and Redis's setproctitle.c). A title
// longer than the area is cut. Not thread-safe; call from the main thread.
#pragma once

#include <string>
#include <string_view>

namespace redsim::server {

void proc_title_init(int argc, char** argv);
// argv[0] as the process was started ("" before proc_title_init).
const std::string& proc_title_program();
// False (nothing written) before proc_title_init or without argv.
bool proc_title_set(std::string_view title);

}  // namespace redsim::server
