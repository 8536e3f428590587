// The `redis` table scripts see: redis.call / redis.pcall into the server,
// the reply helpers, sha1hex, log, setresp and the constants of Redis 7.0.
// Error texts are Redis 7.0.15's, checked against a real server; errors the
// library raises are {err="ERR ..."} tables, as Redis's are (so Lua's pcall
// hands back the string "ERR ...").

#include <cstdio>
#include <cstring>
#include <exception>
#include <iterator>

#include "sim/internal.h"
#include "sim/lua/internal.h"
#include "sim/server.h"

namespace redsim::sim::lua {
namespace {

constexpr size_t kMaxLogLines = 256;
constexpr int kLogDebug = 0;
constexpr int kLogWarning = 3;
constexpr int kReplNone = 0;
constexpr int kReplAll = 3;

// Fills state.argv from the Lua arguments. Returns false when one of them
// is neither a string nor a number.
// `first` gets the address of argument 1's Lua string (null if a number).
bool collect_argv(lua_State* L, int argc, Argv& argv, const char** first = nullptr) {
  argv.resize(static_cast<size_t>(argc));
  if (first != nullptr) *first = nullptr;
  for (int i = 1; i <= argc; ++i) {
    std::string& arg = argv[static_cast<size_t>(i - 1)];
    switch (lua_type(L, i)) {
      case LUA_TSTRING: {
        size_t len = 0;
        const char* s = lua_tolstring(L, i, &len);
        // The same bytes as assign(), in the string's reused buffer without
        // assign's general replace (these strings live in EngineState::argv).
        // The length is the captured one: g++ 12's resize_and_overwrite
        // hands a growing string's new capacity as the size.
        arg.resize_and_overwrite(len, [s, len](char* p, size_t) {
          std::memcpy(p, s, len);
          return len;
        });
        if (i == 1 && first != nullptr) *first = s;
        break;
      }
      case LUA_TNUMBER:
        arg.clear();
        append_number_arg(arg, L, i);
        break;
      default:
        return false;
    }
  }
  return true;
}

// Returns (pcall) or raises (call) {err=text}.
int fail(lua_State* L, bool raise, std::string_view text) {
  if (raise) raise_error_table(L, text);
  push_error_table(L, text, true);
  return 1;
}

char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// The command argv[0] names (spec null: unknown), through st's hints; `name`
// is the Lua string argv[0] was copied from.
CommandTable::Lookup find_command(EngineState& st, const char* name, const std::string& argv0) {
  static_assert(EngineState::kCommandHints == 256);  // the shift below takes 8 bits
  const uint64_t address = reinterpret_cast<uintptr_t>(name) >> 4;
  const size_t slot = static_cast<size_t>((address * 0x9E3779B97F4A7C15ULL) >> 56);
  CommandTable::Lookup& hint = st.command_hints[slot];
  if (hint.spec != nullptr) {
    std::string_view lower = hint.spec->name;  // registered in lower case
    bool same = lower.size() == argv0.size();
    // Scripts mostly name commands in lower case: one memcmp, then the
    // case-insensitive compare only when that differs.
    if (same && std::memcmp(lower.data(), argv0.data(), lower.size()) == 0) return hint;
    for (size_t i = 0; same && i < lower.size(); ++i) same = ascii_lower(argv0[i]) == lower[i];
    if (same) return hint;
  }
  CommandTable::Lookup command = st.server->commands().lookup(argv0);
  if (command.spec != nullptr) hint = command;
  return command;
}

// The reply of st.argv's command (built in place: no Reply moved).
resp::Reply run_command(EngineState& st, const CommandTable::Lookup& command) {
  try {
    if (command.spec != nullptr) {
      return ServerAccess::execute_from_script(*st.server, *st.session, command, st.argv,
                                               st.read_only);
    }
    return ServerAccess::execute_from_script(*st.server, *st.session, st.argv, st.read_only);
  } catch (const std::exception& e) {
    // A bug in a command must not unwind through the Lua VM as a foreign
    // exception; report it as an error reply instead.
    return resp::Reply::error(std::string("ERR internal error: ") + e.what());
  }
}

int generic_call(lua_State* L, bool raise) {
  EngineState& st = state_of(L);
  int argc = lua_gettop(L);
  if (argc == 0) {
    return fail(L, raise, "ERR Please specify at least one argument for this redis lib call");
  }
  const char* name = nullptr;  // argv[0]'s Lua string
  if (!collect_argv(L, argc, st.argv, &name)) {
    return fail(L, raise, "ERR Lua redis lib command arguments must be strings or integers");
  }
  if (st.server == nullptr || st.session == nullptr) {
    return fail(L, raise, "ERR redis.call() used outside of a running script");
  }
  const resp::Reply reply = run_command(st, find_command(st, name, st.argv[0]));
  if (reply.is_error()) return fail(L, raise, reply.str());
  push_reply(L, reply);
  return 1;
}

int redis_call(lua_State* L) { return generic_call(L, true); }
int redis_pcall(lua_State* L) { return generic_call(L, false); }

int redis_error_reply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, 1) != LUA_TSTRING) {
    push_error_table(L, "ERR wrong number or type of arguments", false);
    return 1;
  }
  size_t len = 0;
  const char* s = lua_tolstring(L, 1, &len);
  push_error_table(L, {s, len}, false);
  return 1;
}

int redis_status_reply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, 1) != LUA_TSTRING) {
    push_error_table(L, "ERR wrong number or type of arguments", false);
    return 1;
  }
  lua_createtable(L, 0, 1);
  lua_pushvalue(L, 1);
  lua_setfield(L, -2, "ok");
  return 1;
}

// A string argument as 5.1's lua_tolstring would give it, or nullopt-like
// empty view when the value has no string form.
std::string arg_string51(lua_State* L, int i, bool* present) {
  *present = true;
  if (lua_type(L, i) == LUA_TNUMBER) return number_to_string51(L, i);
  if (lua_type(L, i) == LUA_TSTRING) {
    size_t len = 0;
    const char* s = lua_tolstring(L, i, &len);
    return std::string(s, len);
  }
  *present = false;
  return {};
}

int redis_sha1hex(lua_State* L) {
  if (lua_gettop(L) != 1) raise_error_table(L, "ERR wrong number of arguments");
  bool present = false;
  std::string data = arg_string51(L, 1, &present);  // non-strings hash as ""
  std::string hex = sha1_hex(data);
  lua_pushlstring(L, hex.data(), hex.size());
  return 1;
}

int redis_log(lua_State* L) {
  int argc = lua_gettop(L);
  if (argc < 2) raise_error_table(L, "ERR redis.log() requires two arguments or more.");
  if (!lua_isnumber(L, 1)) raise_error_table(L, "ERR First argument must be a number (log level).");
  int level = static_cast<int>(lua_tonumber(L, 1));
  if (level < kLogDebug || level > kLogWarning) raise_error_table(L, "ERR Invalid debug level.");
  std::string line;
  for (int i = 2; i <= argc; ++i) {
    bool present = false;
    std::string piece = arg_string51(L, i, &present);
    if (!present) continue;
    if (i != 2) line += ' ';
    line += piece;
  }
  EngineState& st = state_of(L);
  st.log.push_back(std::move(line));
  while (st.log.size() > kMaxLogLines) st.log.pop_front();
  return 0;
}

int redis_setresp(lua_State* L) {
  if (lua_gettop(L) != 1) raise_error_table(L, "ERR redis.setresp() requires one argument.");
  int resp = static_cast<int>(lua_tonumber(L, 1));
  if (resp != 2 && resp != 3) raise_error_table(L, "ERR RESP version must be 2 or 3.");
  state_of(L).resp = resp;
  return 0;
}

int redis_replicate_commands(lua_State* L) {
  lua_pushboolean(L, 1);  // always on since Redis 7.0 (effects replication)
  return 1;
}

int redis_set_repl(lua_State* L) {
  if (lua_gettop(L) != 1) raise_error_table(L, "ERR redis.set_repl() requires two arguments.");
  int flags = static_cast<int>(lua_tonumber(L, 1));
  if (flags < kReplNone || flags > kReplAll) {
    raise_error_table(
        L, "ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
  }
  return 0;
}

int redis_breakpoint(lua_State* L) {
  lua_pushboolean(L, 0);  // no debugger session, as SCRIPT DEBUG is off
  return 1;
}

int redis_debug(lua_State*) { return 0; }

int redis_acl_check_cmd(lua_State* L) {
  EngineState& st = state_of(L);
  int argc = lua_gettop(L);
  if (argc == 0) {
    raise_error_table(L, "ERR Please specify at least one argument for this redis lib call");
  }
  Argv argv;
  if (!collect_argv(L, argc, argv)) {
    raise_error_table(L, "ERR Lua redis lib command arguments must be strings or integers");
  }
  if (st.server == nullptr || st.server->commands().find(argv[0]) == nullptr) {
    raise_error_table(L, "ERR Invalid command passed to redis.acl_check_cmd()");
  }
  // The script's caller's user (sim/acl.h); outside a call, the default one.
  bool allowed = st.session == nullptr || ServerAccess::acl_allows(*st.server, *st.session, argv);
  lua_pushboolean(L, allowed ? 1 : 0);
  return 1;
}

const luaL_Reg kRedisFunctions[] = {
    {"error_reply", redis_error_reply},
    {"status_reply", redis_status_reply},
    {"sha1hex", redis_sha1hex},
    {"log", redis_log},
    {"setresp", redis_setresp},
    {"replicate_commands", redis_replicate_commands},
    {"set_repl", redis_set_repl},
    {"breakpoint", redis_breakpoint},
    {"debug", redis_debug},
    {"acl_check_cmd", redis_acl_check_cmd},
    {nullptr, nullptr},
};

void set_int(lua_State* L, const char* name, lua_Integer value) {
  lua_pushnumber(L, static_cast<lua_Number>(value));  // a double, as every 5.1 number
  lua_setfield(L, -2, name);
}

}  // namespace

int open_redis(lua_State* L) {
  // As luaL_newlib with call and pcall first (the same size and insertion
  // order as when they were plain entries of the list): the script hook
  // tells these two from Lua functions by their mark.
  lua_createtable(L, 0, static_cast<int>(std::size(kRedisFunctions) - 1 + 2));
  lua_pushlightuserdata(L, const_cast<char*>(&kCallMark));
  lua_pushcclosure(L, redis_call, 1);
  lua_setfield(L, -2, "call");
  lua_pushlightuserdata(L, const_cast<char*>(&kCallMark));
  lua_pushcclosure(L, redis_pcall, 1);
  lua_setfield(L, -2, "pcall");
  luaL_setfuncs(L, kRedisFunctions, 0);
  set_int(L, "LOG_DEBUG", 0);
  set_int(L, "LOG_VERBOSE", 1);
  set_int(L, "LOG_NOTICE", 2);
  set_int(L, "LOG_WARNING", 3);
  set_int(L, "REPL_NONE", 0);
  set_int(L, "REPL_AOF", 1);
  set_int(L, "REPL_SLAVE", 2);
  set_int(L, "REPL_REPLICA", 2);
  set_int(L, "REPL_ALL", 3);
  lua_pushliteral(L, "7.0.15");
  lua_setfield(L, -2, "REDIS_VERSION");
  set_int(L, "REDIS_VERSION_NUM", 0x07000f);
  return 1;
}

void note_shared_state(EngineState& st) {
  if (st.server == nullptr) return;
  if (Server::ScriptCallLog* log = st.server->script_call_log()) log->shared = true;
}

}  // namespace redsim::sim::lua
