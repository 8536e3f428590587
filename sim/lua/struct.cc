// The `struct` table Redis 7.0 ships (Roberto Ierusalimschy's struct
// library, Redis's deps/lua/src/lua_struct.c with its bounds fixes),
// rebuilt from its documented format and checked byte for byte against
// redis-server 7.0.15 (lua51_real_test.cc).
//
// struct.pack(fmt, v1, ...) -> string; struct.unpack(fmt, s [, pos]) ->
// values..., next position; struct.size(fmt) -> bytes.
// Format: '>' big endian, '<' little endian (the default), '!n' maximum
// alignment n (a power of 2; '!' alone 8, x86-64's), ' ' ignored;
// b/B char, h/H short (2), l/L long (8), T size_t (8), i/I[n] int of n
// bytes (default 4, at most 32), f float, d double, x a zero byte (pack) /
// one skipped byte (unpack), s a zero-terminated string, c[n] n bytes of a
// string (c0 packs the whole string; unpacks as many bytes as the value
// unpacked just before). Lower case is signed. Fields are aligned to
// min(size, alignment) (alignment 1 unless '!' said otherwise).
// Integers pack from the number cast to a 64-bit integer (negative values
// as signed, others as unsigned); sizes past 8 bytes pad with zero bytes,
// as the original's 64-bit arithmetic does. Unpacked numbers are doubles.
// Errors, as Redis words them: "invalid format option 'z'" (argument 1),
// "string too short" (the argument after the string, as the original
// counts), "data string too short" (argument 2), "offset must be 1 or
// greater" (argument 3), "alignment 3 is not a power of 2", "integral size
// 40 is larger than limit of 32", "integral size overflow", "unfinished
// string in data", "format 'c0' needs a previous size", "option 's' has no
// fixed size" / "option 'c0' has no fixed size" (size, argument 1).
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "sim/lua/internal.h"

namespace redsim::sim::lua {
namespace {

constexpr int kMaxIntSize = 32;
constexpr int kMaxAlign = 8;

struct Header {
  bool big = false;
  int align = 1;
};

int get_num(lua_State* L, const char** fmt, int def) {
  if (!std::isdigit(static_cast<unsigned char>(**fmt))) return def;
  int a = 0;
  do {
    int digit = **fmt - '0';
    if (a > INT_MAX / 10 || a * 10 > INT_MAX - digit) luaL_error(L, "integral size overflow");
    a = a * 10 + digit;
    ++*fmt;
  } while (std::isdigit(static_cast<unsigned char>(**fmt)));
  return a;
}

size_t opt_size(lua_State* L, char opt, const char** fmt) {
  switch (opt) {
    case 'B':
    case 'b':
    case 'x':
      return 1;
    case 'H':
    case 'h':
      return 2;
    case 'L':
    case 'l':
    case 'T':
    case 'd':
      return 8;
    case 'f':
      return 4;
    case 'c':
      return static_cast<size_t>(get_num(L, fmt, 1));
    case 'i':
    case 'I': {
      int size = get_num(L, fmt, 4);
      if (size > kMaxIntSize) {
        luaL_error(L, "integral size %d is larger than limit of %d", size, kMaxIntSize);
      }
      return static_cast<size_t>(size);
    }
    default:
      return 0;
  }
}

size_t to_align(size_t len, const Header& h, char opt, size_t size) {
  if (size == 0 || opt == 'c') return 0;
  if (size > static_cast<size_t>(h.align)) size = static_cast<size_t>(h.align);
  return (size - (len & (size - 1))) & (size - 1);
}

void control(lua_State* L, char opt, const char** fmt, Header& h) {
  switch (opt) {
    case ' ':
      return;
    case '>':
      h.big = true;
      return;
    case '<':
      h.big = false;
      return;
    case '!': {
      int a = get_num(L, fmt, kMaxAlign);
      if (a <= 0 || (a & (a - 1)) != 0) luaL_error(L, "alignment %d is not a power of 2", a);
      h.align = a;
      return;
    }
    default: {
      const char* msg = lua_pushfstring(L, "invalid format option '%c'", opt);
      luaL_argerror(L, 1, msg);
    }
  }
}

// A double to the 64-bit pattern the original's casts give on x86-64.
uint64_t integer_bits(double n) {
  if (n < 0) return static_cast<uint64_t>(cast_to_int64(n));
  if (n < 9223372036854775808.0) return static_cast<uint64_t>(static_cast<int64_t>(n));
  if (n < 18446744073709551616.0) return static_cast<uint64_t>(n);
  return 0;  // gcc's unsigned conversion of larger values (and NaN: n < 0 is false)
}

void put_integer(std::string& out, double n, bool big, size_t size) {
  uint64_t value = integer_bits(n);
  std::string bytes(size, '\0');
  for (size_t i = 0; i < size; ++i) {
    size_t at = big ? size - 1 - i : i;
    bytes[at] = static_cast<char>(i < 8 ? (value >> (8 * i)) & 0xff : 0);
  }
  out += bytes;
}

void put_bytes(std::string& out, const void* p, size_t size, bool big) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < size; ++i) out += static_cast<char>(b[big ? size - 1 - i : i]);
}

int st_pack(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  Header h;
  int arg = 2;
  size_t total = 0;
  std::string out;
  while (*fmt != '\0') {
    char opt = *fmt++;
    size_t size = opt_size(L, opt, &fmt);
    size_t pad = to_align(total, h, opt, size);
    total += pad;
    out.append(pad, '\0');
    switch (opt) {
      case 'b':
      case 'B':
      case 'h':
      case 'H':
      case 'l':
      case 'L':
      case 'T':
      case 'i':
      case 'I':
        put_integer(out, static_cast<double>(luaL_checknumber(L, arg++)), h.big, size);
        break;
      case 'x':
        out += '\0';
        break;
      case 'f': {
        auto f = static_cast<float>(luaL_checknumber(L, arg++));
        put_bytes(out, &f, sizeof f, h.big);
        break;
      }
      case 'd': {
        auto d = static_cast<double>(luaL_checknumber(L, arg++));
        put_bytes(out, &d, sizeof d, h.big);
        break;
      }
      case 'c':
      case 's': {
        size_t len = 0;
        const char* s = nullptr;
        if (lua_type(L, arg) == LUA_TNUMBER) {
          std::string num = number_to_string51(L, arg);
          lua_pushlstring(L, num.data(), num.size());
          lua_replace(L, arg);
        }
        s = luaL_checklstring(L, arg++, &len);
        if (size == 0) size = len;
        luaL_argcheck(L, len >= size, arg, "string too short");
        out.append(s, size);
        if (opt == 's') {
          out += '\0';
          ++size;
        }
        break;
      }
      default:
        control(L, opt, &fmt, h);
    }
    total += size;
  }
  lua_pushlstring(L, out.data(), out.size());
  return 1;
}

double get_integer(const unsigned char* p, bool big, bool is_signed, size_t size) {
  uint64_t l = 0;
  for (size_t i = 0; i < size; ++i) {
    l = (l << 8) | p[big ? i : size - 1 - i];
  }
  if (!is_signed) return static_cast<double>(l);
  uint64_t mask = ~uint64_t{0} << ((size * 8 - 1) & 63);  // x86 masks the shift count
  if ((l & mask) != 0) l |= mask;
  return static_cast<double>(static_cast<int64_t>(l));
}

// An unpacked number: a double, as 5.1 holds it.
void push_unpacked(lua_State* L, double d) { lua_pushnumber(L, d); }

int st_unpack(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  size_t ld = 0;
  const char* data = luaL_checklstring(L, 2, &ld);
  const auto* bytes = reinterpret_cast<const unsigned char*>(data);
  int64_t first =
      lua_isnoneornil(L, 3) ? 1 : cast_to_int64(static_cast<double>(luaL_checknumber(L, 3)));
  size_t pos = static_cast<size_t>(first) - 1;  // 0 wraps, as size_t in the original
  luaL_argcheck(L, pos <= ld, 3, "offset must be 1 or greater");
  Header h;
  lua_settop(L, 2);
  while (*fmt != '\0') {
    char opt = *fmt++;
    size_t size = opt_size(L, opt, &fmt);
    pos += to_align(pos, h, opt, size);
    luaL_argcheck(L, size <= ld && pos <= ld - size, 2, "data string too short");
    if (lua_gettop(L) + 1 > 8000) luaL_error(L, "stack overflow (too many results)");
    luaL_checkstack(L, 2, "too many results");
    switch (opt) {
      case 'b':
      case 'B':
      case 'h':
      case 'H':
      case 'l':
      case 'L':
      case 'T':
      case 'i':
      case 'I':
        push_unpacked(L, get_integer(bytes + pos, h.big, std::islower(opt) != 0, size));
        break;
      case 'x':
        break;
      case 'f': {
        unsigned char b[4];
        for (size_t i = 0; i < 4; ++i) b[i] = bytes[pos + (h.big ? 3 - i : i)];
        float f = 0;
        std::memcpy(&f, b, sizeof f);
        push_unpacked(L, f);
        break;
      }
      case 'd': {
        unsigned char b[8];
        for (size_t i = 0; i < 8; ++i) b[i] = bytes[pos + (h.big ? 7 - i : i)];
        double d = 0;
        std::memcpy(&d, b, sizeof d);
        push_unpacked(L, d);
        break;
      }
      case 'c':
        if (size == 0) {
          if (lua_gettop(L) == 2 || !lua_isnumber(L, -1)) {
            luaL_error(L, "format 'c0' needs a previous size");
          }
          size = static_cast<size_t>(cast_to_int64(static_cast<double>(lua_tonumber(L, -1))));
          lua_pop(L, 1);
          luaL_argcheck(L, size <= ld && pos <= ld - size, 2, "data string too short");
        }
        lua_pushlstring(L, data + pos, size);
        break;
      case 's': {
        const void* end = std::memchr(data + pos, '\0', ld - pos);
        if (end == nullptr) luaL_error(L, "unfinished string in data");
        size = static_cast<size_t>(static_cast<const char*>(end) - (data + pos)) + 1;
        lua_pushlstring(L, data + pos, size - 1);
        break;
      }
      default:
        control(L, opt, &fmt, h);
    }
    pos += size;
  }
  lua_pushnumber(L, static_cast<lua_Number>(pos + 1));
  return lua_gettop(L) - 2;
}

int st_size(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  Header h;
  size_t pos = 0;
  while (*fmt != '\0') {
    char opt = *fmt++;
    size_t size = opt_size(L, opt, &fmt);
    pos += to_align(pos, h, opt, size);
    if (opt == 's') {
      luaL_argerror(L, 1, "option 's' has no fixed size");
    } else if (opt == 'c' && size == 0) {
      luaL_argerror(L, 1, "option 'c0' has no fixed size");
    }
    if (!std::isalnum(static_cast<unsigned char>(opt))) control(L, opt, &fmt, h);
    pos += size;
  }
  lua_pushnumber(L, static_cast<lua_Number>(pos));
  return 1;
}

}  // namespace

int open_struct(lua_State* L) {
  static const luaL_Reg kFns[] = {
      {"pack", st_pack},
      {"unpack", st_unpack},
      {"size", st_size},
      {nullptr, nullptr},
  };
  luaL_newlib(L, kFns);
  return 1;
}

}  // namespace redsim::sim::lua
