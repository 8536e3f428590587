// The process title template of CONFIG SET proc-title-template (Redis 7.0
// server.c expandProcTitleTemplate, sds.c sdstemplate): what CONFIG SET
// checks, and what a transport that owns a process (redsim server) writes
// as its title. Internal to sim/ and tools/server; not part of the API.
//
//   ProcTitleVars vars{.title = "/usr/bin/redis-server", .listen_addr = "127.0.0.1:6379"};
//   expand_proc_title("{title} {listen-addr} {server-mode}", vars);
//   // "/usr/bin/redis-server 127.0.0.1:6379"
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace redsim::sim {

// Redis's default template (proc-title-template).
inline constexpr std::string_view kDefaultProcTitleTemplate = "{title} {listen-addr} {server-mode}";

// The values of the template's variables, as Redis fills them.
struct ProcTitleVars {
  std::string title;        // {title}: the process's argv[0]
  std::string listen_addr;  // {listen-addr}: "<first bind address or *>:<port>"
  std::string server_mode;  // {server-mode}: "" (no cluster, no sentinel)
  std::string config_file;  // {config-file}: the absolute config file path or ""
  std::string port;         // {port}: the TCP port
  std::string tls_port;     // {tls-port}: "0" (no TLS)
  std::string unixsocket;   // {unixsocket}: the unixsocket option or ""
};

// `{name}` is replaced by its variable, `{{` is a literal `{`; the result
// is trimmed of spaces at both ends. nullopt for an unknown variable, a `{`
// without its `}` or a template ending in `{`.
std::optional<std::string> expand_proc_title(std::string_view tmpl, const ProcTitleVars& vars);

// CONFIG SET proc-title-template's check (validateProcTitleTemplate): the
// template expands to a non-empty title with an empty {title} (the port
// variables count as set, {config-file} and {unixsocket} as empty).
bool valid_proc_title_template(std::string_view tmpl);

}  // namespace redsim::sim
