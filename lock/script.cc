#include "lock/script.h"

#include <charconv>
#include <map>
#include <utility>

#include "base/sha1.h"
#include "lock/embedded_scripts.h"
#include "lock/errors.h"

namespace redsim::lock {

std::string sha1_hex(std::string_view data) {
  try {
    return base::sha1_hex(data);
  } catch (const base::DigestError& e) {
    throw Error(e.what());  // the lock layer's own error type (lock/errors.h)
  }
}

Script::Script(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)), sha1_hex_(lock::sha1_hex(text_)) {}

const Script& Script::get(std::string_view name) {
  // Built on first use; a function-local static is initialised once even
  // when several threads race to it (the real-Redis Env runs real threads).
  static const std::map<std::string, Script, std::less<>> table = [] {
    std::map<std::string, Script, std::less<>> scripts;
    for (int i = 0; i < kEmbeddedScriptCount; ++i) {
      const EmbeddedScript& s = kEmbeddedScripts[i];
      scripts.emplace(std::string(s.name), Script(std::string(s.name), std::string(s.text)));
    }
    return scripts;
  }();
  auto it = table.find(name);
  if (it == table.end()) {
    throw Error("no embedded script named '" + std::string(name) + "' (scripts/*.lua)");
  }
  return it->second;
}

namespace {

Argv script_argv(std::string_view command, const std::string& body, const Argv& keys,
                 const Argv& args) {
  Argv argv;
  argv.reserve(3 + keys.size() + args.size());
  argv.emplace_back(command);
  argv.push_back(body);
  argv.push_back(std::to_string(keys.size()));
  argv.insert(argv.end(), keys.begin(), keys.end());
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

}  // namespace

Reply run_script(Connection& connection, const Script& script, const Argv& keys, const Argv& args) {
  Reply reply = connection.call(script_argv("EVALSHA", script.sha1_hex(), keys, args));
  if (reply.is_error() && reply.error_code() == "NOSCRIPT") {
    reply = connection.call(script_argv("EVAL", script.text(), keys, args));
  }
  return reply;
}

Reply run_script(Connection& connection, const Script& script, const Argv& keys, const Argv& args,
                 Micros timeout) {
  Reply reply = connection.call(script_argv("EVALSHA", script.sha1_hex(), keys, args), timeout);
  if (reply.is_error() && reply.error_code() == "NOSCRIPT") {
    reply = connection.call(script_argv("EVAL", script.text(), keys, args), timeout);
  }
  return reply;
}

int64_t integer_of(const Reply& reply, std::string_view what) {
  if (reply.is_integer()) return reply.integer();
  if (reply.is_nil()) return 0;
  int64_t value = 0;
  if (reply.is_bulk()) {
    const std::string& text = reply.str();
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc() && end == text.data() + text.size()) return value;
  }
  throw UnexpectedReply(std::string(what) + " answered " + reply.debug_string());
}

}  // namespace redsim::lock
