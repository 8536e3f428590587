// Property: whatever a script returns, the reply is what Redis 7.0's Lua ->
// RESP2 rules predict. RapidCheck generates a random Lua value (integers,
// floats, strings, booleans, nil, nested tables with holes and string keys,
// {ok=...}, {err=...}), writes it as Lua source, runs `return <value>`
// through EVAL on a Server, and compares the reply with a small model that
// applies the rules directly:
//   number  -> integer, truncated; NaN / out of int64 range -> INT64_MIN
//   string  -> bulk; true -> 1; false / nil -> nil
//   table   -> {err=<string>} error, else {ok=<string>} status (CR/LF -> ' '),
//              else array of the positional elements up to the first nil
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "props/show_reply.h"
#include "sim/clock.h"
#include "sim/resp/reply.h"
#include "sim/server.h"

namespace redsim::props {
namespace {

using resp::Reply;

// A Lua value as the script will spell it.
struct LuaValue {
  enum class Kind { kInt, kFloat, kString, kBool, kNil, kTable };
  Kind kind = Kind::kNil;
  int64_t i = 0;
  double d = 0;
  std::string s;
  bool b = false;
  std::vector<LuaValue> array;                           // positional, kNil = a hole
  std::vector<std::pair<std::string, LuaValue>> fields;  // string keys (ok, err, others)
};

LuaValue make(LuaValue::Kind kind) {
  LuaValue v;
  v.kind = kind;
  return v;
}
LuaValue make_int(int64_t i) {
  LuaValue v = make(LuaValue::Kind::kInt);
  v.i = i;
  return v;
}
LuaValue make_float(double d) {
  LuaValue v = make(LuaValue::Kind::kFloat);
  v.d = d;
  return v;
}
LuaValue make_string(std::string s) {
  LuaValue v = make(LuaValue::Kind::kString);
  v.s = std::move(s);
  return v;
}
LuaValue make_bool(bool b) {
  LuaValue v = make(LuaValue::Kind::kBool);
  v.b = b;
  return v;
}

// ---- the model ---------------------------------------------------------------

int64_t truncate_like_x86(double d) {
  if (std::isnan(d) || d >= 9223372036854775808.0 || d < -9223372036854775808.0) {
    return INT64_MIN;
  }
  return static_cast<int64_t>(d);
}

std::string one_line(std::string s) {
  for (char& c : s) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  return s;
}

Reply expected(const LuaValue& v) {
  switch (v.kind) {
    case LuaValue::Kind::kInt:
      // 5.1 has only doubles: an integer literal is the nearest double.
      return Reply::integer(truncate_like_x86(static_cast<double>(v.i)));
    case LuaValue::Kind::kFloat:
      return Reply::integer(truncate_like_x86(v.d));
    case LuaValue::Kind::kString:
      return Reply::bulk(v.s);
    case LuaValue::Kind::kBool:
      return v.b ? Reply::integer(1) : Reply::nil();
    case LuaValue::Kind::kNil:
      return Reply::nil();
    case LuaValue::Kind::kTable: {
      // The last assignment of a key in a constructor wins.
      const LuaValue* err = nullptr;
      const LuaValue* ok = nullptr;
      for (const auto& [key, value] : v.fields) {
        if (key == "err") err = &value;
        if (key == "ok") ok = &value;
      }
      if (err != nullptr && err->kind == LuaValue::Kind::kString) {
        return Reply::error(one_line(err->s));
      }
      if (ok != nullptr && ok->kind == LuaValue::Kind::kString) {
        return Reply::status(one_line(ok->s));
      }
      std::vector<Reply> elements;
      for (const LuaValue& e : v.array) {
        if (e.kind == LuaValue::Kind::kNil) break;
        elements.push_back(expected(e));
      }
      return Reply::array(std::move(elements));
    }
  }
  return Reply::nil();
}

// ---- Lua source ----------------------------------------------------------------

std::string lua_string_literal(const std::string& s) {
  // Three-digit decimal escapes (valid in 5.1 and 5.4) for anything but
  // letters and digits, so no escape can absorb a following digit.
  std::string out = "\"";
  for (unsigned char c : s) {
    if (std::isalnum(c)) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03u", static_cast<unsigned>(c));
      out += buf;
    }
  }
  return out + "\"";
}

std::string lua_source(const LuaValue& v) {
  switch (v.kind) {
    case LuaValue::Kind::kInt:
      // Parenthesised: "- -5" would otherwise read as a comment start "--5".
      return "(" + std::to_string(v.i) + ")";
    case LuaValue::Kind::kFloat: {
      if (std::isnan(v.d)) return "(0/0)";
      if (std::isinf(v.d)) return v.d > 0 ? "(1/0)" : "(-1/0)";
      char buf[40];
      std::snprintf(buf, sizeof buf, "(%.17g)", v.d);
      return buf;
    }
    case LuaValue::Kind::kString:
      return lua_string_literal(v.s);
    case LuaValue::Kind::kBool:
      return v.b ? "true" : "false";
    case LuaValue::Kind::kNil:
      return "nil";
    case LuaValue::Kind::kTable: {
      std::string out = "{";
      for (const LuaValue& e : v.array) out += lua_source(e) + ", ";
      for (const auto& [key, value] : v.fields) out += key + " = " + lua_source(value) + ", ";
      return out + "}";
    }
  }
  return "nil";
}

// How RapidCheck prints a generated value: as the Lua the script contains.
void showValue(const LuaValue& v, std::ostream& os) { os << lua_source(v); }

// ---- generators ------------------------------------------------------------------

rc::Gen<std::string> gen_text() {
  // Mostly printable, sometimes CR/LF and arbitrary bytes.
  return rc::gen::container<std::string>(rc::gen::weightedOneOf<char>({
      {8, rc::gen::inRange<char>('a', 'z' + 1)},
      {1, rc::gen::element('\r', '\n', ' ', '"', '\\', '\0')},
      {1, rc::gen::arbitrary<char>()},
  }));
}

rc::Gen<LuaValue> gen_scalar() {
  using K = LuaValue::Kind;
  return rc::gen::oneOf(
      rc::gen::map(rc::gen::inRange<int64_t>(-(int64_t{1} << 53), int64_t{1} << 53), make_int),
      rc::gen::map(rc::gen::inRange<int64_t>(-(int64_t{1} << 62), int64_t{1} << 62), make_int),
      rc::gen::map(rc::gen::arbitrary<double>(), make_float),
      rc::gen::map(rc::gen::element(0.5, -0.5, 1e20, -1e20, 9.3e18, 2.5, -7.99, 9007199254740993.0,
                                    1.0 / 0.0, -1.0 / 0.0, std::nan("")),
                   make_float),
      rc::gen::map(gen_text(), make_string), rc::gen::map(rc::gen::arbitrary<bool>(), make_bool),
      rc::gen::just(make(K::kNil)));
}

rc::Gen<LuaValue> gen_value(int depth);

rc::Gen<LuaValue> gen_table(int depth) {
  using K = LuaValue::Kind;
  auto field_name = rc::gen::element<std::string>("ok", "err", "x", "name");
  auto fields = rc::gen::container<std::vector<std::pair<std::string, LuaValue>>>(rc::gen::pair(
      field_name,
      rc::gen::oneOf(gen_scalar(), rc::gen::lazy([depth] { return gen_value(depth - 1); }))));
  auto array = rc::gen::container<std::vector<LuaValue>>(
      rc::gen::lazy([depth] { return gen_value(depth - 1); }));
  return rc::gen::map(
      rc::gen::pair(rc::gen::resize(6, array), rc::gen::resize(3, fields)),
      [](std::pair<std::vector<LuaValue>, std::vector<std::pair<std::string, LuaValue>>> p) {
        LuaValue t = make(K::kTable);
        t.array = std::move(p.first);
        t.fields = std::move(p.second);
        return t;
      });
}

rc::Gen<LuaValue> gen_value(int depth) {
  if (depth <= 0) return gen_scalar();
  return rc::gen::weightedOneOf<LuaValue>({{3, gen_scalar()}, {2, gen_table(depth)}});
}

RC_GTEST_PROP(LuaConversion, ReturnValueConvertsAsRedisRulesSay, ()) {
  const LuaValue value = *gen_value(3);
  const std::string script = "return " + lua_source(value);
  RC_TAG(value.kind == LuaValue::Kind::kTable ? "table" : "scalar");

  sim::ManualClock clock;
  sim::Server server(clock);
  auto session = server.connect();
  Reply got = server.execute(*session, {"EVAL", script, "0"});
  RC_LOG() << script << "\n";
  RC_ASSERT(got == expected(value));
}

RC_GTEST_PROP(LuaConversion, StringsSurviveARoundTripThroughRedisCall, ()) {
  // Redis -> Lua -> Redis: a bulk string read by redis.call comes back
  // unchanged, and integer replies come back as integers.
  const std::string text = *gen_text();
  const int64_t n = *rc::gen::inRange<int64_t>(-(int64_t{1} << 53), int64_t{1} << 53);
  sim::ManualClock clock;
  sim::Server server(clock);
  auto session = server.connect();
  server.execute(*session, {"SET", "s", text});
  server.execute(*session, {"SET", "n", std::to_string(n)});
  Reply got = server.execute(*session, {"EVAL",
                                        "return {redis.call('get', KEYS[1]), "
                                        "redis.call('incrby', KEYS[2], 0), "
                                        "redis.call('get', 'missing')}",
                                        "2", "s", "n"});
  // The missing key reads as false, which converts back to a nil element.
  RC_ASSERT(got == Reply::array({Reply::bulk(text), Reply::integer(n), Reply::nil()}));
}

}  // namespace
}  // namespace redsim::props
