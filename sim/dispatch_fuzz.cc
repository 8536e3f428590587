// libFuzzer target: command dispatch of the fake (sim::Server::execute), with
// structured input: a text of lines, each one step on a fresh server.
//
//   <s> <argv>   session s (0-3) runs the command; argv split as redis-cli
//                splits a line ("quotes", \xhh). A line without a session
//                digit runs on session 0. argv[0] "@<n>" is the n-th command
//                of the table (by name, modulo its size): every command is
//                reachable without knowing its name.
//   +<ms>        the clock jumps forward ms (expiry, TTLs, DEBUG SLEEP)
//   ~            one active expiry cycle
//   !<s>         session s disconnects and a new one takes its place
//
// Scripts that loop are ended by the server's stop check after
// kScriptHookBudget hook calls (sim/server.h, set_stop_check), and a busy
// script (busy-reply-threshold lowered by CONFIG SET) meets the busy handler,
// which plays another client: a GET and a SCRIPT KILL.
//
// After every step: the reply encodes and decodes to itself, no command is
// left running, every db's indexes agree (Db::inconsistency). After the
// last: every session answers RESET and PING as a fresh one does, closing
// them releases every WATCH, and FLUSHALL leaves an empty keyspace whose
// used memory is the empty server's. A failure aborts with the reason.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/clock.h"
#include "sim/internal.h"
#include "sim/keyspace.h"
#include "sim/resp/codec.h"
#include "sim/server.h"
#include "tools/cli/redis_cli_format.h"

namespace {

using redsim::resp::Reply;
using redsim::sim::Server;
using redsim::sim::ServerAccess;
using redsim::sim::Session;

constexpr size_t kSessions = 4;
constexpr size_t kMaxSteps = 256;
constexpr int kScriptHookBudget = 5;  // 50,000 Lua instructions a command

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "dispatch_fuzz: %s\n", why.c_str());
  std::abort();
}

void check(bool ok, const std::string& why) {
  if (!ok) fail(why);
}

const std::vector<std::string>& command_names(const Server& server) {
  static const std::vector<std::string> names = [&] {
    std::vector<std::string> v;
    server.commands().for_each(
        [&](const redsim::sim::CommandSpec& spec) { v.emplace_back(spec.name); });
    std::sort(v.begin(), v.end());
    return v;
  }();
  return names;
}

void check_keyspace(Server& server, const std::string& after) {
  for (int db = 0; db < ServerAccess::keyspace(server).databases(); ++db) {
    std::string why = ServerAccess::keyspace(server).db(db).inconsistency();
    // The message only on failure: this runs after every command, 16 dbs.
    if (!why.empty()) check(false, "db " + std::to_string(db) + " after " + after + ": " + why);
  }
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

class Harness {
 public:
  // 10,000 Lua instructions (one hook call) are a ms of script time, so a
  // script made busy by CONFIG SET busy-reply-threshold 1..4 meets the busy
  // handler before the stop check ends it.
  static redsim::sim::ServerOptions options() {
    redsim::sim::ServerOptions o;
    o.lua_instructions_per_ms = 10'000;
    return o;
  }

  Harness() : server_(clock_, options()) {
    for (auto& s : sessions_) s = server_.connect();
    server_.set_stop_check([this] { return ++hooks_ > kScriptHookBudget; });
    server_.set_busy_script_handler([this](Session& caller) {
      Session& other = *sessions_[caller.id() == sessions_[0]->id() ? 1 : 0];
      if (busy_calls_++ > 0) return;
      check_reply(server_.execute(other, {"GET", "k0"}));
      check_reply(server_.execute(other, {"SCRIPT", "KILL"}));
    });
  }

  void step(std::string_view line) {
    if (line.empty()) return;
    if (line[0] == '+') {
      int64_t ms = std::strtoll(std::string(line.substr(1)).c_str(), nullptr, 10);
      if (ms > 0) clock_.advance_ms(std::min<int64_t>(ms, int64_t{1} << 40));
      return;
    }
    if (line == "~") {
      server_.active_expire_cycle();
      check_keyspace(server_, "an active expiry cycle");
      return;
    }
    if (line[0] == '!') {
      size_t s = line.size() > 1 ? static_cast<size_t>(line[1]) % kSessions : 0;
      sessions_[s].reset();
      sessions_[s] = server_.connect();
      check_keyspace(server_, "a disconnect");
      return;
    }
    size_t s = 0;
    if (line.size() >= 2 && line[0] >= '0' && line[0] <= '9' && line[1] == ' ') {
      s = static_cast<size_t>(line[0] - '0') % kSessions;
      line.remove_prefix(2);
    }
    std::optional<std::vector<std::string>> argv = redsim::cli::split_args(line);
    if (!argv || argv->empty()) return;
    std::string& name = (*argv)[0];
    if (name.size() > 1 && name[0] == '@') {
      const auto& names = command_names(server_);
      name = names[std::strtoull(name.c_str() + 1, nullptr, 10) % names.size()];
    }
    hooks_ = 0;
    busy_calls_ = 0;
    Reply r = server_.execute(*sessions_[s], *argv);
    check(server_.call_depth() == 0,
          "a command left the call depth at " + std::to_string(server_.call_depth()));
    check_reply(r);
    for (auto& session : sessions_) {
      for (const Reply& push : session->take_pushes()) check_reply(push);
    }
    check_keyspace(server_, name);
  }

  void finish() {
    for (auto& s : sessions_) {
      Reply reset = server_.execute(*s, {"RESET"});
      check(reset == Reply::status("RESET"), "RESET answers " + reset.debug_string());
      Reply pong = server_.execute(*s, {"PING"});
      check(pong == Reply::status("PONG"), "PING after RESET answers " + pong.debug_string());
      check(s->db() == 0 && !s->in_multi() && s->subscription_count() == 0,
            "RESET left state behind");
    }
    for (auto& s : sessions_) s.reset();
    for (int db = 0; db < ServerAccess::keyspace(server_).databases(); ++db) {
      check(!ServerAccess::keyspace(server_).db(db).watched(),
            "a closed session still watches a key");
    }
    auto last = server_.connect();
    server_.config().maxmemory_bytes = 0;
    Reply flushed = server_.execute(*last, {"FLUSHALL"});
    check(flushed == Reply::ok(), "FLUSHALL answers " + flushed.debug_string());
    for (int db = 0; db < ServerAccess::keyspace(server_).databases(); ++db) {
      const auto& d = ServerAccess::keyspace(server_).db(db);
      check(d.size() == 0 && d.volatile_count() == 0, "FLUSHALL left keys");
    }
    check(server_.used_memory_bytes() == Server::kBaseUsedMemoryBytes,
          "an empty keyspace uses " + std::to_string(server_.used_memory_bytes()) + " bytes");
    check_keyspace(server_, "FLUSHALL");
  }

 private:
  redsim::sim::ManualClock clock_;
  Server server_;
  std::unique_ptr<Session> sessions_[kSessions];
  int hooks_ = 0;
  int busy_calls_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  Harness h;
  size_t steps = 0;
  while (!text.empty() && steps++ < kMaxSteps) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    h.step(line);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  }
  h.finish();
  return 0;
}
