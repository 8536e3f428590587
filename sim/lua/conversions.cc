// Lua <-> Reply conversions with Redis 7.0's rules (RESP2), and the number
// formatting of Redis's Lua 5.1 on top of Lua 5.4's integer/float split.
//
// The model: in 5.1 every number is a double. A 5.4 integer is treated as
// the double it would have been, so integers beyond 2^53 round the way 5.1
// would have rounded them before they reach a reply or an argument.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <vector>

#include "sim/lua/internal.h"

namespace redsim::sim::lua {
namespace {

constexpr int64_t kExactDoubleLimit = int64_t{1} << 53;
constexpr int64_t kFloatFromInteger = 100000000000000;  // 1e14
// Nesting at which Redis 7.0.15 gives up converting a table reply (measured:
// `local t = {} t[1] = t return t` yields 7995 nested arrays, then the error).
constexpr size_t kMaxReplyDepth = 7995;

std::string sanitize_line(std::string_view text) {
  // Redis never lets CR or LF into a status or error line.
  std::string s(text);
  for (char& c : s) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  return s;
}

std::string format_g(double d, int precision) {
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, "%.*g", precision, d);
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace

int64_t cast_to_int64(double d) {
  // x86-64 cvttsd2si: NaN and out-of-range values become INT64_MIN.
  if (std::isnan(d) || d >= 9223372036854775808.0 || d < -9223372036854775808.0) {
    return INT64_MIN;
  }
  return static_cast<int64_t>(d);
}

void push_error_table(lua_State* L, std::string_view text, bool from_call) {
  std::string_view s = text;
  if (!s.empty() && s.front() == '-') s.remove_prefix(1);
  std::string_view code = "ERR";
  std::string_view msg = s;
  if (size_t sp = s.find(' '); sp != std::string_view::npos) {
    code = s.substr(0, sp);
    msg = s.substr(sp + 1);
  }
  while (!msg.empty() && (msg.front() == '\r' || msg.front() == '\n')) msg.remove_prefix(1);
  while (!msg.empty() && (msg.back() == '\r' || msg.back() == '\n')) msg.remove_suffix(1);
  std::string full;
  full.reserve(code.size() + 1 + msg.size());
  full.append(code).append(" ").append(msg);

  lua_checkstack(L, 3);
  lua_createtable(L, 0, from_call ? 2 : 1);
  lua_pushlstring(L, full.data(), full.size());
  lua_setfield(L, -2, "err");
  if (from_call) {
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "ignore_error_stats_update");
  }
}

void raise_error_table(lua_State* L, std::string_view text) {
  push_error_table(L, text, true);
  lua_error(L);
  __builtin_unreachable();
}

void push_reply(lua_State* L, const resp::Reply& reply) {
  lua_checkstack(L, 3);
  switch (reply.kind()) {
    case resp::Kind::kStatus:
      lua_createtable(L, 0, 1);
      lua_pushlstring(L, reply.str().data(), reply.str().size());
      lua_setfield(L, -2, "ok");
      return;
    case resp::Kind::kError:
      lua_createtable(L, 0, 1);
      lua_pushlstring(L, reply.str().data(), reply.str().size());
      lua_setfield(L, -2, "err");
      return;
    case resp::Kind::kInteger:
      // 5.1 holds every number as a double and prints 15+ digit integers in
      // exponent form; a float keeps `v .. ""` printing what 5.1 printed.
      if (reply.integer() >= kFloatFromInteger || reply.integer() <= -kFloatFromInteger) {
        lua_pushnumber(L, static_cast<lua_Number>(reply.integer()));
      } else {
        lua_pushinteger(L, reply.integer());
      }
      return;
    case resp::Kind::kBulk:
      lua_pushlstring(L, reply.str().data(), reply.str().size());
      return;
    case resp::Kind::kNil:
      lua_pushboolean(L, 0);
      return;
    case resp::Kind::kArray: {
      const auto& elements = reply.elements();
      lua_createtable(L, static_cast<int>(elements.size()), 0);
      lua_Integer i = 1;
      for (const resp::Reply& e : elements) {
        push_reply(L, e);
        lua_rawseti(L, -2, i++);
      }
      return;
    }
    case resp::Kind::kDouble:
    case resp::Kind::kBoolean:
    case resp::Kind::kVerbatim:
    case resp::Kind::kBigNumber:
    case resp::Kind::kMap:
    case resp::Kind::kSet:
    case resp::Kind::kPush:
      // A script speaks RESP2 (redis.setresp(3) is not implemented): what a
      // RESP2 client would get.
      push_reply(L, to_resp2(reply));
      return;
  }
  lua_pushboolean(L, 0);
}

int64_t number_to_integer(lua_State* L, int idx) {
  if (lua_isinteger(L, idx)) {
    lua_Integer v = lua_tointeger(L, idx);
    if (v >= -kExactDoubleLimit && v <= kExactDoubleLimit) return v;
    return cast_to_int64(static_cast<double>(v));
  }
  return cast_to_int64(lua_tonumber(L, idx));
}

void append_number_arg(std::string& out, lua_State* L, int idx) {
  if (lua_isinteger(L, idx)) {
    lua_Integer v = lua_tointeger(L, idx);
    if (v >= -kExactDoubleLimit && v <= kExactDoubleLimit) {
      char buf[24];
      auto res = std::to_chars(buf, buf + sizeof buf, v);
      out.append(buf, res.ptr);
      return;
    }
    out += format_g(static_cast<double>(v), 17);
    return;
  }
  out += format_g(lua_tonumber(L, idx), 17);
}

std::string number_to_string51(lua_State* L, int idx) {
  if (lua_isinteger(L, idx)) {
    lua_Integer v = lua_tointeger(L, idx);
    // Up to 14 digits "%.14g" prints an integral double exactly as %d would.
    if (v > -100000000000000 && v < 100000000000000) {
      char buf[24];
      auto res = std::to_chars(buf, buf + sizeof buf, v);
      return std::string(buf, res.ptr);
    }
    return format_g(static_cast<double>(v), 14);
  }
  return format_g(lua_tonumber(L, idx), 14);
}

void push_number51(lua_State* L, double value) {
  if (value == std::floor(value) && value >= -9223372036854775808.0 &&
      value < 9223372036854775808.0 && !(value == 0 && std::signbit(value))) {
    lua_pushinteger(L, static_cast<lua_Integer>(value));
  } else {
    lua_pushnumber(L, value);
  }
}

namespace {

// Converts the scalar (or err/ok table) at `idx`. Returns true when it is an
// array table whose elements still have to be walked.
bool convert_one(lua_State* L, int idx, resp::Reply& out) {
  switch (lua_type(L, idx)) {
    case LUA_TSTRING: {
      size_t len = 0;
      const char* s = lua_tolstring(L, idx, &len);
      out = resp::Reply::bulk(std::string(s, len));
      return false;
    }
    case LUA_TBOOLEAN:
      out = lua_toboolean(L, idx) ? resp::Reply::integer(1) : resp::Reply::nil();
      return false;
    case LUA_TNUMBER:
      out = resp::Reply::integer(number_to_integer(L, idx));
      return false;
    case LUA_TTABLE: {
      // Raw reads, as Redis 7.0 does since it stopped triggering metatables
      // here (a raising __index would otherwise escape the protected call).
      lua_pushliteral(L, "err");
      if (lua_rawget(L, idx) == LUA_TSTRING) {
        size_t len = 0;
        const char* s = lua_tolstring(L, -1, &len);
        out = resp::Reply::error(sanitize_line({s, len}));
        lua_pop(L, 1);
        return false;
      }
      lua_pop(L, 1);
      lua_pushliteral(L, "ok");
      if (lua_rawget(L, idx) == LUA_TSTRING) {
        size_t len = 0;
        const char* s = lua_tolstring(L, -1, &len);
        out = resp::Reply::status(sanitize_line({s, len}));
        lua_pop(L, 1);
        return false;
      }
      lua_pop(L, 1);
      out = resp::Reply::array(std::vector<resp::Reply>{});
      return true;
    }
    default:  // nil, functions, userdata (cjson.null), threads
      out = resp::Reply::nil();
      return false;
  }
}

}  // namespace

resp::Reply to_reply(lua_State* L, int idx) {
  idx = lua_absindex(L, idx);
  int base = lua_gettop(L);
  resp::Reply root;
  if (!lua_checkstack(L, 4) || !convert_one(L, idx, root)) return root;

  struct Frame {
    resp::Reply* target;  // the array being filled
    int table_idx;        // its table's absolute stack index
    lua_Integer next;     // next Lua index to read
  };
  std::vector<Frame> frames;
  lua_pushvalue(L, idx);
  frames.push_back({&root, lua_gettop(L), 1});
  while (!frames.empty()) {
    Frame& f = frames.back();
    if (lua_rawgeti(L, f.table_idx, f.next) == LUA_TNIL) {
      lua_settop(L, f.table_idx - 1);  // drop the nil and the table
      frames.pop_back();
      continue;
    }
    ++f.next;
    auto& elements = f.target->elements();
    elements.emplace_back();
    resp::Reply& slot = elements.back();
    int value_idx = lua_gettop(L);
    if (!convert_one(L, value_idx, slot)) {
      lua_pop(L, 1);
      continue;
    }
    if (frames.size() >= kMaxReplyDepth || !lua_checkstack(L, 4)) {
      slot = resp::Reply::error("ERR reached lua stack limit");
      lua_pop(L, 1);
      continue;
    }
    frames.push_back({&slot, value_idx, 1});  // the table stays on the stack
  }
  lua_settop(L, base);
  return root;
}

}  // namespace redsim::sim::lua
