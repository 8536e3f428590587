#include "sim/cmd_util.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <numeric>

#include "sim/args.h"
#include "sim/glob.h"

namespace redsim::sim {

using resp::Reply;

Entry* lookup_typed(CommandContext& ctx, std::string_view key, ValueType type, bool* wrong_type) {
  *wrong_type = false;
  Entry* e = current_db(ctx).lookup(key, ctx.now_ms);
  if (e == nullptr) return nullptr;
  if (e->type() != type) {
    *wrong_type = true;
    return nullptr;
  }
  return e;
}

void finish_write(Db& db, std::string_view key, bool now_empty) {
  if (now_empty) {
    db.remove(key);
  } else {
    db.touch(key);
  }
}

Reply store_value(CommandContext& ctx, const std::string& dst, Value result, size_t size, int type,
                  std::string_view event) {
  Db& db = current_db(ctx);
  if (size == 0) {
    if (db.remove(dst)) notify_keyspace_event(ctx, notify::kGeneric, "del", dst);
    return Reply::integer(0);
  }
  Entry fresh;
  fresh.value = std::move(result);
  db.put(dst, std::move(fresh));
  db.touch(dst);
  notify_keyspace_event(ctx, type, event, dst);
  return Reply::integer(static_cast<int64_t>(size));
}

bool parse_random_count(std::string_view arg, int64_t* count, Reply* error) {
  if (!parse_int64(arg, count)) {
    *error = errors::not_integer();
    return false;
  }
  if (*count == std::numeric_limits<int64_t>::min()) {
    *error = Reply::error(
        "ERR value is out of range, value must between -9223372036854775807 and "
        "9223372036854775807");
    return false;
  }
  return true;
}

bool parse_random_count_with(const Argv& argv, std::string_view with_option, RandomCount* out,
                             Reply* error) {
  if (!parse_random_count(argv[2], &out->count, error)) return false;
  if (argv.size() > 4 || (argv.size() == 4 && !equals_ci(argv[3], with_option))) {
    *error = errors::syntax();
    return false;
  }
  out->with = argv.size() == 4;
  out->n = out->count < 0 ? static_cast<uint64_t>(-out->count) : static_cast<uint64_t>(out->count);
  // The reply holds 2 * n elements: Redis refuses a count it cannot double.
  if (out->with && out->n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max() / 2)) {
    *error = Reply::error("ERR value is out of range");
    return false;
  }
  return true;
}

std::vector<size_t> distinct_positions(Server& server, size_t n, size_t k) {
  std::vector<size_t> pos(n);
  std::iota(pos.begin(), pos.end(), size_t{0});
  for (size_t i = 0; i < k; ++i) {
    size_t j = i + static_cast<size_t>(server.random_below(n - i));
    std::swap(pos[i], pos[j]);
  }
  pos.resize(k);
  return pos;
}

bool random_positions(Server& server, size_t size, int64_t count, RandomPick pick,
                      std::vector<size_t>* out) {
  const uint64_t n = count < 0 ? static_cast<uint64_t>(-count) : static_cast<uint64_t>(count);
  if (count < 0 || (n == 1 && pick.draw_one)) {
    if (n > kMaxRandomReply) return false;
    out->reserve(static_cast<size_t>(n));
    for (uint64_t i = 0; i < n; ++i) out->push_back(static_cast<size_t>(server.random_below(size)));
  } else if (n >= size) {
    out->resize(size);
    if (pick.whole_descending) {
      for (size_t i = 0; i < size; ++i) (*out)[i] = size - 1 - i;
    } else {
      std::iota(out->begin(), out->end(), size_t{0});
    }
  } else {
    *out = distinct_positions(server, size, static_cast<size_t>(n));
  }
  return true;
}

bool parse_intercard_limit(const Argv& argv, size_t first, int64_t* limit, Reply* error) {
  for (size_t i = first; i < argv.size(); i += 2) {
    if (!equals_ci(argv[i], "limit") || i + 1 >= argv.size()) {
      *error = errors::syntax();
      return false;
    }
    if (!parse_int64(argv[i + 1], limit) || *limit < 0) {
      *error = Reply::error("ERR LIMIT can't be negative");
      return false;
    }
  }
  return true;
}

bool parse_double(std::string_view s, double* out) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return false;
  std::string text(s);  // NUL-terminated for strtod; an embedded NUL stops it early
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return false;
  if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL || std::fpclassify(v) == FP_ZERO)) {
    return false;
  }
  if (std::isnan(v)) return false;
  *out = v;
  return true;
}

bool parse_long_double(std::string_view s, long double* out) {
  // string2ld: at most MAX_LONG_DOUBLE_CHARS, no leading space, whole text.
  if (s.empty() || s.size() >= 5 * 1024 || std::isspace(static_cast<unsigned char>(s[0]))) {
    return false;
  }
  std::string text(s);
  char* end = nullptr;
  errno = 0;
  long double v = std::strtold(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return false;
  if (errno == ERANGE && (v == HUGE_VALL || v == -HUGE_VALL || std::fpclassify(v) == FP_ZERO)) {
    return false;
  }
  if (std::isnan(v)) return false;
  *out = v;
  return true;
}

std::string format_double(double d) {
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, "%.17g", d);
  return std::string(buf, static_cast<size_t>(n));
}

std::string format_long_double(long double d) {
  char buf[5 * 1024 + 32];
  int n = std::snprintf(buf, sizeof buf, "%.17Lf", d);
  if (n <= 0 || static_cast<size_t>(n) >= sizeof buf) return std::string();
  std::string s(buf, static_cast<size_t>(n));
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

namespace errors {
resp::Reply not_float() { return resp::Reply::error("ERR value is not a valid float"); }
}  // namespace errors

bool parse_scan_cursor(std::string_view s, uint64_t* out) {
  if (!s.empty() && std::isspace(static_cast<unsigned char>(s[0]))) return false;
  std::string text(s);
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (end != text.c_str() + text.size() || errno == ERANGE) return false;
  *out = v;
  return true;
}

bool parse_scan_options(const Argv& argv, size_t first, bool allow_type, ScanOptions* out,
                        resp::Reply* error) {
  for (size_t i = first; i < argv.size();) {
    bool has_value = i + 1 < argv.size();
    if (has_value && equals_ci(argv[i], "count")) {
      if (!parse_int64(argv[i + 1], &out->count)) {
        *error = errors::not_integer();
        return false;
      }
      if (out->count < 1) {
        *error = errors::syntax();
        return false;
      }
    } else if (has_value && equals_ci(argv[i], "match")) {
      out->pattern = argv[i + 1];
      // "*" matches everything: Redis skips the matching altogether.
      out->has_pattern = out->pattern != "*";
    } else if (has_value && allow_type && equals_ci(argv[i], "type")) {
      out->type = argv[i + 1];
      out->has_type = true;
    } else {
      *error = errors::syntax();
      return false;
    }
    i += 2;
  }
  return true;
}

std::vector<size_t> scan_page(const std::vector<std::string_view>& names, uint64_t cursor,
                              int64_t count, uint64_t* next) {
  struct Item {
    uint64_t hash;
    std::string_view name;
    size_t index;
  };
  std::vector<Item> items;
  items.reserve(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    uint64_t h = scan_hash(names[i]);
    if (h >= cursor) items.push_back({h, names[i], i});
  }
  auto less = [](const Item& a, const Item& b) {
    return a.hash != b.hash ? a.hash < b.hash : a.name < b.name;
  };
  std::sort(items.begin(), items.end(), less);
  std::vector<size_t> out;
  size_t i = 0;
  for (; i < items.size(); ++i) {
    if (static_cast<int64_t>(out.size()) >= count && items[i].hash != items[i - 1].hash) break;
    out.push_back(items[i].index);
  }
  *next = i < items.size() ? items[i].hash : 0;
  return out;
}

resp::Reply scan_collection(CommandContext& ctx, ValueType type,
                            const std::function<ScanView(Entry&)>& view) {
  uint64_t cursor = 0;
  if (!parse_scan_cursor(ctx.argv[2], &cursor)) return resp::Reply::error("ERR invalid cursor");
  // Redis 7.0 (hscanCommand and its siblings): the key is looked up before
  // the options are read, so a missing key answers an empty scan whatever
  // follows the cursor, and a key of another type answers WRONGTYPE.
  bool wrong = false;
  Entry* e = lookup_typed(ctx, ctx.argv[1], type, &wrong);
  if (wrong) return errors::wrong_type();
  std::vector<resp::Reply> out;
  uint64_t next = 0;
  if (e != nullptr) {
    ScanOptions opts;
    resp::Reply error;
    if (!parse_scan_options(ctx.argv, 3, /*allow_type=*/false, &opts, &error)) return error;
    const ScanView v = view(*e);
    std::vector<size_t> page;
    if (v.whole) {
      page.resize(v.size);
      std::iota(page.begin(), page.end(), size_t{0});
    } else {
      std::vector<std::string_view> names;
      names.reserve(v.size);
      for (size_t i = 0; i < v.size; ++i) names.push_back(v.name(i));
      page = scan_page(names, cursor, opts.count, &next);
    }
    for (size_t i : page) {
      if (opts.has_pattern && !glob_match(opts.pattern, v.name(i))) continue;
      v.emit(i, &out);
    }
  }
  return resp::Reply::array(
      {resp::Reply::bulk(std::to_string(next)), resp::Reply::array(std::move(out))});
}

}  // namespace redsim::sim
