// Lua 5.4's error wording turned back into Lua 5.1's, which is what Redis
// 7.0 clients see. Only differences of form are undone; where 5.4 rejects
// what 5.1 accepted ("\q" escapes), the 5.4 text stays. String arithmetic
// errors are raised in 5.1's words by string_arith51 (numbers51.cc), which
// knows the operand's name; rewrite_string_arith below only words 5.4's
// text for arithmetic that reaches the string library another way.
//
// Pairs below were taken from redis-server 7.0.15 and lua5.4 side by side.
#include <string>

#include "sim/lua/internal.h"

namespace redsim::sim::lua {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
}

// 5.4: "attempt to <op> a <type> value (<kind> '<name>')"
// 5.1: "attempt to <op> <kind> '<name>' (a <type> value)"
bool rewrite_typeerror(std::string& msg) {
  static constexpr std::string_view kOps[] = {
      "perform arithmetic on", "index",         "call",
      "concatenate",           "get length of", "perform bitwise operation on"};
  constexpr std::string_view kAttempt = "attempt to ";
  size_t at = msg.find(kAttempt);
  if (at == std::string::npos) return false;
  std::string_view rest = std::string_view(msg).substr(at + kAttempt.size());
  for (std::string_view op : kOps) {
    if (!starts_with(rest, op) || !starts_with(rest.substr(op.size()), " a ")) continue;
    std::string_view after = rest.substr(op.size() + 3);
    size_t value = after.find(" value");
    if (value == std::string_view::npos) return false;
    std::string_view type = after.substr(0, value);
    std::string_view tail = after.substr(value + 6);
    if (!starts_with(tail, " (") || tail.back() != ')') return false;
    std::string_view info = tail.substr(2, tail.size() - 3);  // <kind> '<name>'
    size_t quote = info.find(" '");
    if (quote == std::string_view::npos) return false;
    std::string_view kind = info.substr(0, quote);
    std::string out = msg.substr(0, at);
    out.append(kAttempt).append(op);
    if (kind == "constant") {
      out.append(" a ").append(type).append(" value");
    } else {
      std::string name(info.substr(quote + 1));
      if (name == "'integer index'") name = "'?'";  // 5.4.4's name for t[1]
      out.append(" ").append(kind).append(" ").append(name);
      out.append(" (a ").append(type).append(" value)");
    }
    msg = std::move(out);
    return true;
  }
  return false;
}

// 5.4 (string coercion failed in the string library's metamethod):
//   "attempt to add a 'string' with a 'number'"
// 5.1: "attempt to perform arithmetic on a string value"
bool rewrite_string_arith(std::string& msg) {
  constexpr std::string_view kAttempt = "attempt to ";
  size_t at = msg.find(kAttempt);
  if (at == std::string::npos) return false;
  std::string_view rest = std::string_view(msg).substr(at + kAttempt.size());
  size_t sp = rest.find(" a '");
  if (sp == std::string_view::npos) return false;
  std::string_view op = rest.substr(0, sp);
  static constexpr std::string_view kArith[] = {"add", "sub", "mul",  "mod",
                                                "pow", "div", "idiv", "unm"};
  bool arith = false;
  for (std::string_view a : kArith) arith = arith || op == a;
  if (!arith) return false;
  std::string_view types = rest.substr(sp + 4);  // T1' with a 'T2'
  size_t q1 = types.find('\'');
  constexpr std::string_view kWith = "' with a '";
  if (q1 == std::string_view::npos || !starts_with(types.substr(q1), kWith)) return false;
  std::string_view t1 = types.substr(0, q1);
  std::string_view t2 = types.substr(q1 + kWith.size());
  if (t2.empty() || t2.back() != '\'') return false;
  t2.remove_suffix(1);
  // 5.1 names the first operand that is neither a number nor a string.
  std::string_view type = "string";
  if (t1 != "number" && t1 != "string") {
    type = t1;
  } else if (t2 != "number" && t2 != "string") {
    type = t2;
  }
  std::string out = msg.substr(0, at);
  out.append("attempt to perform arithmetic on a ").append(type).append(" value");
  msg = std::move(out);
  return true;
}

// 5.4: "bad 'for' limit (number expected, got string)"
// 5.1: "'for' limit must be a number"
bool rewrite_for_error(std::string& msg) {
  constexpr std::string_view kBad = "bad 'for' ";
  size_t at = msg.find(kBad);
  if (at == std::string::npos) return false;
  size_t paren = msg.find(" (number expected", at);
  if (paren == std::string::npos) return false;
  std::string what = msg.substr(at + kBad.size(), paren - at - kBad.size());
  msg = msg.substr(0, at) + "'for' " + what + " must be a number";
  return true;
}

}  // namespace

std::string rewrite_message51(std::string_view message) {
  std::string msg(message);
  // adapt_source51's name for the variable `goto`.
  replace_all(msg, "'" + std::string(kGotoName) + "'", "'goto'");
  if (rewrite_typeerror(msg) || rewrite_string_arith(msg) || rewrite_for_error(msg)) return msg;
  return msg;
}

std::string compile_message51(std::string_view message) {
  std::string msg(message);
  // 5.4 prints the end-of-file token bare: near <eof>, <eof> expected.
  replace_all(msg, " near <eof>", " near '<eof>'");
  replace_all(msg, ": <eof> expected", ": '<eof>' expected");
  replace_all(msg, ": <name> expected near", ": '<name>' expected near");
  // "unfinished long string (starting at line 1) near" -> 5.1's shorter form.
  if (size_t at = msg.find(" (starting at line "); at != std::string::npos) {
    size_t close = msg.find(')', at);
    if (close != std::string::npos) msg.erase(at, close + 1 - at);
  }
  // A statement that is neither a call nor an assignment.
  replace_all(msg, ": syntax error near", ": '=' expected near");
  return msg;
}

}  // namespace redsim::sim::lua
