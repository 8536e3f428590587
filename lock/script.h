// Script: one of the lock Lua scripts (scripts/*.lua, embedded at build
// time), and run_script(), which sends it the way Redisson and redis-py do:
// EVALSHA first, EVAL only when the server answers NOSCRIPT (its script cache
// was flushed, or it restarted). The EVAL also puts the script back into the
// cache, so the next EVALSHA succeeds.
//
//   const lock::Script& unlock = lock::Script::get("simple_unlock");
//   Reply r = lock::run_script(env.connection(), unlock, {key}, {token});
//   // r is the script's reply, or an error reply other than NOSCRIPT
#pragma once

#include <string>
#include <string_view>

#include "lock/env.h"

namespace redsim::lock {

class Script {
 public:
  // A script from its source text; sha1_hex() is computed here, once.
  Script(std::string name, std::string text);

  // The embedded script scripts/<name>.lua. The returned reference lives for
  // the whole program (the table is built once, thread-safely). Throws
  // lock::Error when there is no such script (a programming error).
  static const Script& get(std::string_view name);

  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  // Lower-case hex SHA1 of text(): the name Redis caches the script under
  // (what SCRIPT LOAD returns and EVALSHA takes).
  const std::string& sha1_hex() const { return sha1_hex_; }

 private:
  std::string name_;
  std::string text_;
  std::string sha1_hex_;
};

// Lower-case hex SHA1 of `data` (base::sha1_hex, OpenSSL EVP); throws
// lock::Error when OpenSSL cannot compute it.
std::string sha1_hex(std::string_view data);

// Runs `script` with KEYS = keys and ARGV = args: EVALSHA, then EVAL if and
// only if the EVALSHA reply is an error whose code is NOSCRIPT. Returns the
// last reply as is: the script's result, or a Redis error reply (a script
// error, WRONGTYPE, ...) for the caller to judge. Throws what
// Connection::call throws (ConnectionError and subclasses).
// `keys` and `args` are taken by value and moved into the command: pass
// temporaries (`{key}, {token}`) and no string is copied twice.
Reply run_script(Connection& connection, const Script& script, Argv keys, Argv args);
// As above, each call waiting at most `timeout` (Connection::call(argv,
// timeout): TimeoutError when no reply came in time). Redlock's per-server calls.
Reply run_script(Connection& connection, const Script& script, Argv keys, Argv args,
                 Micros timeout);

// The number a command or script answered: an integer reply, a bulk string
// holding a whole decimal int64 (GET, HGET), or nil as 0. Anything else
// throws UnexpectedReply("<what> answered <reply>").
int64_t integer_of(const Reply& reply, std::string_view what);

}  // namespace redsim::lock
