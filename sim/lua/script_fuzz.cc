// libFuzzer target: the Lua bridge (sim/lua/), through EVAL. The input is
// a script's source; seeds are the difftest grammar's scripts (written at
// build time by tools/difftest/fuzz_seeds.cc) and those in fuzz/seeds/.
//
// The server holds a key of every type, so redis.call replies of every kind
// reach Lua (Redis to Lua), and whatever the script returns comes back as a
// Reply (Lua to Redis); cjson, bit and the redis.* library are there to be
// found by the dictionary (fuzz/lua.dict). A script is stopped after
// kScriptHookBudget hook calls (set_stop_check), so loops end.
//
// After the script: its reply encodes and decodes to itself, no command or
// script is left running, the keyspace's indexes agree, and the engine still
// works: PING, a fresh EVAL, SCRIPT FLUSH and EVAL again answer as on a new
// server, so no script can break the ones after it. A failure aborts.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "sim/clock.h"
#include "sim/internal.h"
#include "sim/keyspace.h"
#include "sim/lua/script_engine.h"
#include "sim/resp/codec.h"
#include "sim/server.h"

namespace {

using redsim::resp::Reply;
using redsim::sim::Server;
using redsim::sim::ServerAccess;

constexpr int kScriptHookBudget = 5;  // 50,000 Lua instructions a command

void check(bool ok, const std::string& why) {
  if (ok) return;
  std::fprintf(stderr, "script_fuzz: %s\n", why.c_str());
  std::abort();
}

// The reply's RESP2 encoding is one well-formed reply that decodes to the
// reply itself, or to one that encodes to the same bytes: the encoding
// maps an error's \r and \n to spaces, as Redis's addReplyErrorFormat does
// (an error echoing a key "a\nb": seed dispatch_seeds/newline-in-error).
void check_reply(const Reply& r) {
  redsim::resp::Decoder d;
  std::string bytes = redsim::resp::encode(r);
  d.feed(bytes);
  std::optional<Reply> back = d.next();
  check(back.has_value() && (*back == r || redsim::resp::encode(*back) == bytes),
        "a reply does not survive its own encoding");
}

void check_keyspace(Server& server) {
  for (int db = 0; db < ServerAccess::keyspace(server).databases(); ++db) {
    std::string why = ServerAccess::keyspace(server).db(db).inconsistency();
    // The message only on failure: this runs after every command, 16 dbs.
    if (!why.empty()) check(false, "db " + std::to_string(db) + ": " + why);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 8192) return 0;  // longer scripts add nothing but time
  std::string script(reinterpret_cast<const char*>(data), size);
  redsim::sim::ManualClock clock;
  Server server(clock);
  int hooks = 0;
  server.set_stop_check([&hooks] { return ++hooks > kScriptHookBudget; });
  auto session = server.connect();
  auto run = [&](redsim::sim::Argv argv) {
    hooks = 0;
    Reply r = server.execute(*session, argv);
    check(server.call_depth() == 0, "a command left the call depth raised");
    check(!ServerAccess::scripts(server).running(), "a script still runs after its command");
    check_reply(r);
    check_keyspace(server);
    return r;
  };
  run({"SET", "s", "text"});
  run({"SET", "n", "42"});
  run({"HSET", "h", "f", "v", "n", "1"});
  run({"RPUSH", "l", "a", "1", "", "b"});
  run({"SADD", "S", "x", "7"});
  run({"ZADD", "z", "1.5", "m", "-2", "n"});
  run({"PEXPIRE", "s", "100"});

  run({"EVAL", script, "5", "s", "h", "l", "S", "z", "1", "-2.5",
       R"({"a":[1,2,{"b":null}],"c":"\u00e9"})", std::string("x\0y", 3), ""});
  clock.advance_ms(150);
  run({"EVAL", script, "1", "n", "x"});

  Reply pong = run({"PING"});
  check(pong == Reply::status("PONG"), "PING after the script answers " + pong.debug_string());
  const std::string probe = "return {redis.call('TYPE', KEYS[1]).ok, tonumber(ARGV[1]) + 1}";
  Reply expected = Reply::array({Reply::bulk("none"), Reply::integer(3)});
  Reply r = run({"EVAL", probe, "1", "nosuchkey", "2"});
  check(r == expected, "a fresh script after the fuzzed one answers " + r.debug_string());
  run({"SCRIPT", "FLUSH"});
  r = run({"EVAL", probe, "1", "nosuchkey", "2"});
  check(r == expected, "a fresh script after SCRIPT FLUSH answers " + r.debug_string());
  return 0;
}
