#include "lock/script.h"

#include <algorithm>
#include <charconv>
#include <iterator>
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

// EVALSHA <sha> numkeys keys... args..., the strings of keys and args moved in.
Argv evalsha_argv(const Script& script, Argv&& keys, Argv&& args) {
  Argv argv;
  argv.reserve(3 + keys.size() + args.size());
  argv.emplace_back("EVALSHA");
  argv.push_back(script.sha1_hex());
  argv.push_back(std::to_string(keys.size()));
  std::move(keys.begin(), keys.end(), std::back_inserter(argv));
  std::move(args.begin(), args.end(), std::back_inserter(argv));
  return argv;
}

bool is_noscript(const Reply& reply) {
  return reply.is_error() && reply.error_code() == "NOSCRIPT";
}

// The same command as EVAL <body> ...: only the first two words differ.
void to_eval(Argv& argv, const Script& script) {
  argv[0] = "EVAL";
  argv[1] = script.text();
}

}  // namespace

Reply run_script(Connection& connection, const Script& script, Argv keys, Argv args) {
  Argv argv = evalsha_argv(script, std::move(keys), std::move(args));
  Reply reply = connection.call(argv);
  if (is_noscript(reply)) {
    to_eval(argv, script);
    reply = connection.call(argv);
  }
  return reply;
}

Reply run_script(Connection& connection, const Script& script, Argv keys, Argv args,
                 Micros timeout) {
  Argv argv = evalsha_argv(script, std::move(keys), std::move(args));
  Reply reply = connection.call(argv, timeout);
  if (is_noscript(reply)) {
    to_eval(argv, script);
    reply = connection.call(argv, timeout);
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
