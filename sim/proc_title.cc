#include "sim/proc_title.h"

namespace redsim::sim {

namespace {

const std::string* variable(std::string_view name, const ProcTitleVars& vars) {
  if (name == "title") return &vars.title;
  if (name == "listen-addr") return &vars.listen_addr;
  if (name == "server-mode") return &vars.server_mode;
  if (name == "config-file") return &vars.config_file;
  if (name == "port") return &vars.port;
  if (name == "tls-port") return &vars.tls_port;
  if (name == "unixsocket") return &vars.unixsocket;
  return nullptr;
}

}  // namespace

std::optional<std::string> expand_proc_title(std::string_view tmpl, const ProcTitleVars& vars) {
  std::string out;
  while (!tmpl.empty()) {
    size_t open = tmpl.find('{');
    out.append(tmpl.substr(0, open));
    if (open == std::string_view::npos) break;
    tmpl.remove_prefix(open + 1);
    if (tmpl.empty()) return std::nullopt;  // ends in '{'
    if (tmpl[0] == '{') {
      out += '{';
      tmpl.remove_prefix(1);
      continue;
    }
    size_t close = tmpl.find('}');
    if (close == std::string_view::npos) return std::nullopt;
    const std::string* value = variable(tmpl.substr(0, close), vars);
    if (value == nullptr) return std::nullopt;
    out += *value;
    tmpl.remove_prefix(close + 1);
  }
  size_t first = out.find_first_not_of(' ');
  if (first == std::string::npos) return std::string();
  return out.substr(first, out.find_last_not_of(' ') - first + 1);
}

bool valid_proc_title_template(std::string_view tmpl) {
  // Redis expands it with an empty {title} and the server's own values:
  // {listen-addr}, {port} and {tls-port} are never empty there; the fake
  // takes {config-file} and {unixsocket} as empty.
  ProcTitleVars vars;
  vars.listen_addr = "*:0";
  vars.port = "0";
  vars.tls_port = "0";
  std::optional<std::string> title = expand_proc_title(tmpl, vars);
  return title.has_value() && !title->empty();
}

}  // namespace redsim::sim
