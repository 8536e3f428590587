// The string library of Redis's Lua 5.1 on 5.4: format, sub, rep, byte,
// char, len, lower, upper and reverse with 5.1's rules. Numbers given where
// a string is expected print as 5.1 prints them ("%.14g", so 10/2 is "5");
// numbers given where an integer is expected are truncated (5.4 refuses
// 3.5 with "number has no integer representation"); error texts are 5.1's.
// find, match, gmatch (also as gfind) and gsub are 5.4's: same patterns.
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "sim/lua/internal.h"

namespace redsim::sim::lua {
namespace {

// ---- string.format (5.1) --------------------------------------------------

constexpr const char* kFormatFlags = "-+ #0";

// Reads one conversion spec after '%' into `spec` ("%-5.2d" style, no
// length modifier) and returns the pointer past the conversion character.
const char* scan_format(lua_State* L, const char* p, std::string& spec) {
  const char* start = p;
  while (*p != '\0' && std::strchr(kFormatFlags, *p) != nullptr) ++p;
  if (p - start > 5) luaL_error(L, "invalid format (repeated flags)");
  if (std::isdigit(static_cast<unsigned char>(*p))) ++p;
  if (std::isdigit(static_cast<unsigned char>(*p))) ++p;
  if (*p == '.') {
    ++p;
    if (std::isdigit(static_cast<unsigned char>(*p))) ++p;
    if (std::isdigit(static_cast<unsigned char>(*p))) ++p;
  }
  if (std::isdigit(static_cast<unsigned char>(*p))) {
    luaL_error(L, "invalid format (width or precision too long)");
  }
  spec.assign("%");
  spec.append(start, static_cast<size_t>(p - start) + 1);
  return p + 1;
}

// The string form 5.1's luaL_checklstring gives an argument.
std::string check_string51(lua_State* L, int arg) {
  if (lua_type(L, arg) == LUA_TNUMBER) return number_to_string51(L, arg);
  size_t len = 0;
  const char* s = luaL_checklstring(L, arg, &len);
  return std::string(s, len);
}

void add_quoted(lua_State* L, int arg, std::string& out) {
  std::string s = check_string51(L, arg);
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"':
      case '\\':
      case '\n':
        out += '\\';
        out += c;
        break;
      case '\r':
        out += "\\r";
        break;
      case '\0':
        out += "\\000";
        break;
      default:
        out += c;
    }
  }
  out += '"';
}

int string_format(lua_State* L) {
  int top = lua_gettop(L);
  int arg = 1;
  size_t len = 0;
  const char* fmt = luaL_checklstring(L, arg, &len);
  const char* end = fmt + len;
  std::string out;
  std::string spec;
  char buf[512];
  while (fmt < end) {
    if (*fmt != '%') {
      out += *fmt++;
      continue;
    }
    if (*++fmt == '%') {
      out += *fmt++;
      continue;
    }
    if (++arg > top) luaL_argerror(L, arg, "no value");
    fmt = scan_format(L, fmt, spec);
    char conv = spec.back();
    int n = 0;
    switch (conv) {
      case 'c':
        n = std::snprintf(buf, sizeof buf, spec.c_str(),
                          static_cast<int>(cast_to_int64(luaL_checknumber(L, arg))));
        break;
      case 'd':
      case 'i':
        spec.insert(spec.size() - 1, "ll");
        n = std::snprintf(buf, sizeof buf, spec.c_str(),
                          static_cast<long long>(cast_to_int64(luaL_checknumber(L, arg))));
        break;
      case 'o':
      case 'u':
      case 'x':
      case 'X':
        spec.insert(spec.size() - 1, "ll");
        n = std::snprintf(buf, sizeof buf, spec.c_str(),
                          static_cast<unsigned long long>(cast_to_int64(luaL_checknumber(L, arg))));
        break;
      case 'e':
      case 'E':
      case 'f':
      case 'g':
      case 'G':
        n = std::snprintf(buf, sizeof buf, spec.c_str(),
                          static_cast<double>(luaL_checknumber(L, arg)));
        break;
      case 'q':
        add_quoted(L, arg, out);
        continue;
      case 's': {
        std::string s = check_string51(L, arg);
        if (spec.find('.') == std::string::npos && s.size() >= 100) {
          out += s;  // no precision and long: kept whole, as 5.1 does
          continue;
        }
        n = std::snprintf(buf, sizeof buf, spec.c_str(), s.c_str());
        break;
      }
      default:
        if (conv == '\0') return luaL_error(L, "invalid option '%%' to 'format'");
        return luaL_error(L, "invalid option '%%%c' to 'format'", conv);
    }
    if (n > 0) out.append(buf, static_cast<size_t>(n < static_cast<int>(sizeof buf) ? n : 511));
  }
  lua_pushlstring(L, out.data(), out.size());
  return 1;
}

// 5.1's posrelat: negative positions count from the end.
lua_Integer relative_position(lua_Integer pos, size_t len) {
  if (pos < 0) pos += static_cast<lua_Integer>(len) + 1;
  return pos >= 0 ? pos : 0;
}

lua_Integer check_int(lua_State* L, int arg) {
  return static_cast<lua_Integer>(cast_to_int64(static_cast<double>(luaL_checknumber(L, arg))));
}
lua_Integer opt_int(lua_State* L, int arg, lua_Integer def) {
  return lua_isnoneornil(L, arg) ? def : check_int(L, arg);
}

int string_len(lua_State* L) {
  lua_pushnumber(L, static_cast<lua_Number>(check_string51(L, 1).size()));
  return 1;
}

int string_sub(lua_State* L) {
  std::string s = check_string51(L, 1);
  lua_Integer len = static_cast<lua_Integer>(s.size());
  lua_Integer start = relative_position(check_int(L, 2), s.size());
  lua_Integer end = relative_position(opt_int(L, 3, -1), s.size());
  if (start < 1) start = 1;
  if (end > len) end = len;
  if (start <= end) {
    lua_pushlstring(L, s.data() + start - 1, static_cast<size_t>(end - start + 1));
  } else {
    lua_pushliteral(L, "");
  }
  return 1;
}

int string_rep(lua_State* L) {
  std::string s = check_string51(L, 1);
  int n = static_cast<int>(check_int(L, 2));  // luaL_checkint
  if (n <= 0 || s.empty()) {
    lua_pushliteral(L, "");
    return 1;
  }
  constexpr size_t kMaxResult = size_t{1} << 29;  // Redis's proto-max-bulk-len is 512 MB
  if (s.size() * static_cast<size_t>(n) > kMaxResult) {
    return luaL_error(L, "resulting string too large");
  }
  std::string out;
  out.reserve(s.size() * static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out += s;
  lua_pushlstring(L, out.data(), out.size());
  return 1;
}

int string_byte(lua_State* L) {
  std::string s = check_string51(L, 1);
  lua_Integer posi = relative_position(opt_int(L, 2, 1), s.size());
  lua_Integer pose = relative_position(opt_int(L, 3, posi), s.size());
  if (posi <= 0) posi = 1;
  if (pose > static_cast<lua_Integer>(s.size())) pose = static_cast<lua_Integer>(s.size());
  if (posi > pose) return 0;
  lua_Integer n = pose - posi + 1;
  if (n >= INT32_MAX) return luaL_error(L, "string slice too long");
  luaL_checkstack(L, static_cast<int>(n), "string slice too long");
  for (lua_Integer i = 0; i < n; ++i) {
    lua_pushnumber(L, static_cast<unsigned char>(s[static_cast<size_t>(posi + i - 1)]));
  }
  return static_cast<int>(n);
}

int string_char(lua_State* L) {
  int n = lua_gettop(L);
  std::string out;
  for (int i = 1; i <= n; ++i) {
    int c = static_cast<int>(check_int(L, i));
    luaL_argcheck(L, static_cast<unsigned char>(c) == c, i, "invalid value");
    out += static_cast<char>(c);
  }
  lua_pushlstring(L, out.data(), out.size());
  return 1;
}

int string_lower(lua_State* L) {
  std::string s = check_string51(L, 1);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  lua_pushlstring(L, s.data(), s.size());
  return 1;
}

int string_upper(lua_State* L) {
  std::string s = check_string51(L, 1);
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  lua_pushlstring(L, s.data(), s.size());
  return 1;
}

int string_reverse(lua_State* L) {
  std::string s = check_string51(L, 1);
  lua_pushlstring(L, std::string(s.rbegin(), s.rend()).data(), s.size());
  return 1;
}

}  // namespace

void install_string51(lua_State* L) {
  static const luaL_Reg kString[] = {
      {"format", string_format}, {"len", string_len},     {"sub", string_sub},
      {"rep", string_rep},       {"byte", string_byte},   {"char", string_char},
      {"lower", string_lower},   {"upper", string_upper}, {"reverse", string_reverse},
      {nullptr, nullptr},
  };
  luaL_setfuncs(L, kString, 0);
  lua_getfield(L, -1, "gmatch");
  lua_setfield(L, -2, "gfind");
  for (const char* name : {"pack", "packsize", "unpack"}) {
    lua_pushnil(L);
    lua_setfield(L, -2, name);
  }
}

}  // namespace redsim::sim::lua
