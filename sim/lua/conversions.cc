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

// Pushes t[key] of the table at idx (raw) and returns its type.
int lua_rawgetfield_type(lua_State* L, int idx, const char* key) {
  idx = lua_absindex(L, idx);
  lua_pushstring(L, key);
  return lua_rawget(L, idx);
}

// Writes "%.*g" of d (precision 14 or 17) into buf and returns its length.
// An integral d below 10^precision in magnitude has at most `precision`
// digits, which %g prints as they are (no exponent, no point): those take
// std::to_chars instead of the C library's general float formatting, the
// costliest step of a redis.call with a number argument ("-0" stays on the
// slow path, as %g prints the sign of a negative zero).
size_t format_g_into(char (&buf)[64], double d, int precision) {
  const double limit = precision >= 17 ? 1e17 : precision >= 14 ? 1e14 : 0;
  if (d == std::trunc(d) && std::fabs(d) < limit && !(d == 0 && std::signbit(d))) {
    auto res = std::to_chars(buf, buf + sizeof buf, static_cast<int64_t>(d));
    return static_cast<size_t>(res.ptr - buf);
  }
  int n = std::snprintf(buf, sizeof buf, "%.*g", precision, d);
  return static_cast<size_t>(n);
}

std::string format_g(double d, int precision) {
  char buf[64];
  return std::string(buf, format_g_into(buf, d, precision));
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

namespace {

// Redis 7.0's RESP3-to-Lua rules (redisProtocolToLuaType_*): map ->
// {map={k=v}}, set -> {set={e=true}}, double -> {double=n}, big number ->
// {big_number="digits"}, verbatim -> {verbatim_string={format=, string=}},
// boolean -> true/false.
void push_resp3(lua_State* L, const resp::Reply& reply) {
  lua_checkstack(L, 4);
  switch (reply.kind()) {
    case resp::Kind::kBoolean:
      lua_pushboolean(L, reply.integer() != 0 ? 1 : 0);
      return;
    case resp::Kind::kDouble:
      lua_createtable(L, 0, 1);
      lua_pushnumber(L, std::strtod(reply.str().c_str(), nullptr));
      lua_setfield(L, -2, "double");
      return;
    case resp::Kind::kBigNumber:
      lua_createtable(L, 0, 1);
      lua_pushlstring(L, reply.str().data(), reply.str().size());
      lua_setfield(L, -2, "big_number");
      return;
    case resp::Kind::kVerbatim: {
      std::string_view text = reply.verbatim_text();
      std::string_view format = std::string_view(reply.str()).substr(0, 3);
      lua_createtable(L, 0, 1);
      lua_createtable(L, 0, 2);
      lua_pushlstring(L, format.data(), format.size());
      lua_setfield(L, -2, "format");
      lua_pushlstring(L, text.data(), text.size());
      lua_setfield(L, -2, "string");
      lua_setfield(L, -2, "verbatim_string");
      return;
    }
    case resp::Kind::kMap: {
      const auto& kv = reply.elements();
      lua_createtable(L, 0, 1);
      lua_createtable(L, 0, static_cast<int>(kv.size() / 2));
      for (size_t i = 0; i + 1 < kv.size(); i += 2) {
        push_reply(L, kv[i]);
        push_reply(L, kv[i + 1]);
        if (lua_isnil(L, -2)) {
          lua_pop(L, 2);
          continue;
        }
        lua_rawset(L, -3);
      }
      lua_setfield(L, -2, "map");
      return;
    }
    case resp::Kind::kSet: {
      lua_createtable(L, 0, 1);
      lua_createtable(L, 0, static_cast<int>(reply.elements().size()));
      for (const resp::Reply& e : reply.elements()) {
        push_reply(L, e);
        if (lua_isnil(L, -1)) {
          lua_pop(L, 1);
          continue;
        }
        lua_pushboolean(L, 1);
        lua_rawset(L, -3);
      }
      lua_setfield(L, -2, "set");
      return;
    }
    default: {  // a push: its elements as an array
      const auto& elements = reply.elements();
      lua_createtable(L, static_cast<int>(elements.size()), 0);
      lua_Integer i = 1;
      for (const resp::Reply& e : elements) {
        push_reply(L, e);
        lua_rawseti(L, -2, i++);
      }
      return;
    }
  }
}

}  // namespace

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
      // 5.1 holds every number as a double (the number model, internal.h).
      lua_pushnumber(L, static_cast<lua_Number>(reply.integer()));
      return;
    case resp::Kind::kBulk:
      lua_pushlstring(L, reply.str().data(), reply.str().size());
      return;
    case resp::Kind::kNil:
      // RESP3's null is nil to a script that called redis.setresp(3).
      if (state_of(L).resp == 3) {
        lua_pushnil(L);
      } else {
        lua_pushboolean(L, 0);
      }
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
      if (state_of(L).resp == 3) {
        push_resp3(L, reply);
      } else {
        push_reply(L, to_resp2(reply));  // what a RESP2 client would get
      }
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
    char buf[64];
    out.append(buf, format_g_into(buf, static_cast<double>(v), 17));
    return;
  }
  char buf[64];
  out.append(buf, format_g_into(buf, lua_tonumber(L, idx), 17));
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

void push_number51(lua_State* L, double value) { lua_pushnumber(L, value); }

void floats_at_top(lua_State* L, int n) {
  int top = lua_gettop(L);
  for (int i = top - n + 1; i <= top; ++i) {
    if (lua_isinteger(L, i)) {
      lua_pushnumber(L, static_cast<lua_Number>(lua_tointeger(L, i)));
      lua_replace(L, i);
    }
  }
}

namespace {

resp::Reply to_reply_at_depth(lua_State* L, int idx, int depth);

// The RESP3 forms of a returned table (luaReplyToRedisReply, Redis 7.0, in
// its order): {double=n}, {big_number=s}, {verbatim_string={format=,
// string=}}, {map={...}}, {set={...}}. False when the table is none of them.
bool convert_resp3_table(lua_State* L, int idx, resp::Reply& out, int depth) {
  if (lua_rawgetfield_type(L, idx, "double") == LUA_TNUMBER) {
    out = resp::Reply::double_value(static_cast<double>(lua_tonumber(L, -1)));
    lua_pop(L, 1);
    return true;
  }
  lua_pop(L, 1);
  if (lua_rawgetfield_type(L, idx, "big_number") == LUA_TSTRING) {
    size_t len = 0;
    const char* s = lua_tolstring(L, -1, &len);
    out = resp::Reply::big_number(sanitize_line({s, len}));
    lua_pop(L, 1);
    return true;
  }
  lua_pop(L, 1);
  if (lua_rawgetfield_type(L, idx, "verbatim_string") == LUA_TTABLE) {
    int v = lua_gettop(L);
    if (lua_rawgetfield_type(L, v, "format") == LUA_TSTRING &&
        lua_rawgetfield_type(L, v, "string") == LUA_TSTRING) {
      size_t flen = 0;
      size_t slen = 0;
      const char* f = lua_tolstring(L, -2, &flen);
      const char* s = lua_tolstring(L, -1, &slen);
      out = resp::Reply::verbatim({f, flen}, {s, slen});
      lua_settop(L, v - 1);
      return true;
    }
    lua_settop(L, v);
  }
  lua_pop(L, 1);
  constexpr int kMaxDepth = 256;
  if (lua_rawgetfield_type(L, idx, "map") == LUA_TTABLE && depth < kMaxDepth) {
    int m = lua_gettop(L);
    std::vector<resp::Reply> kv;
    lua_pushnil(L);
    while (lua_next(L, m) != 0) {
      kv.push_back(to_reply_at_depth(L, -2, depth + 1));
      kv.push_back(to_reply_at_depth(L, -1, depth + 1));
      lua_pop(L, 1);
    }
    out = resp::Reply::map(std::move(kv));
    lua_settop(L, m - 1);
    return true;
  }
  lua_pop(L, 1);
  if (lua_rawgetfield_type(L, idx, "set") == LUA_TTABLE && depth < kMaxDepth) {
    int m = lua_gettop(L);
    std::vector<resp::Reply> members;
    lua_pushnil(L);
    while (lua_next(L, m) != 0) {
      lua_pop(L, 1);
      members.push_back(to_reply_at_depth(L, -1, depth + 1));
    }
    out = resp::Reply::set(std::move(members));
    lua_settop(L, m - 1);
    return true;
  }
  lua_pop(L, 1);
  return false;
}

// Converts the scalar (or err/ok table) at `idx`. Returns true when it is an
// array table whose elements still have to be walked.
bool convert_one(lua_State* L, int idx, resp::Reply& out, int depth) {
  switch (lua_type(L, idx)) {
    case LUA_TSTRING: {
      size_t len = 0;
      const char* s = lua_tolstring(L, idx, &len);
      out = resp::Reply::bulk(std::string(s, len));
      return false;
    }
    case LUA_TBOOLEAN:
      // After redis.setresp(3) booleans are RESP3 booleans (Redis 7.0).
      if (state_of(L).resp == 3) {
        out = resp::Reply::boolean(lua_toboolean(L, idx) != 0);
      } else {
        out = lua_toboolean(L, idx) ? resp::Reply::integer(1) : resp::Reply::nil();
      }
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
      if (convert_resp3_table(L, idx, out, depth)) return false;
      out = resp::Reply::array(std::vector<resp::Reply>{});
      return true;
    }
    default:  // nil, functions, userdata (cjson.null), threads
      out = resp::Reply::nil();
      return false;
  }
}

}  // namespace

resp::Reply to_reply(lua_State* L, int idx) { return to_reply_at_depth(L, idx, 0); }

namespace {

resp::Reply to_reply_at_depth(lua_State* L, int idx, int depth) {
  idx = lua_absindex(L, idx);
  int base = lua_gettop(L);
  resp::Reply root;
  if (!lua_checkstack(L, 4) || !convert_one(L, idx, root, depth)) return root;

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
    if (!convert_one(L, value_idx, slot, depth + static_cast<int>(frames.size()))) {
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

}  // namespace

}  // namespace redsim::sim::lua
