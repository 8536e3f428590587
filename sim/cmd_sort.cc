// SORT and SORT_RO: key [BY pattern] [LIMIT offset count] [GET pattern ...]
// [ASC|DESC] [ALPHA] [STORE destination] (SORT_RO: no STORE).
//
// Source: Redis 7.0 sort.c behaviour (facts only), texts checked against
// redis-server 7.0.15:
// - A BY pattern without '*' means "don't sort": a list or a sorted set
//   keeps its own order (reversed by DESC, LIMIT cut from it); a set is
//   then sorted ALPHA anyway when the result is stored or the caller is a
//   script, so that result is deterministic.
// - A pattern "#" is the element itself; "pre*post" is the string key with
//   '*' replaced by the element; "pre*post->field" is that field of the hash
//   key. Anything else (no '*', wrong type, absent) is nil (an empty string
//   when stored). A missing BY value sorts as 0, or first under ALPHA.
// - Numeric sorting parses with strtod; an unparsable or NaN value makes
//   the reply "ERR One or more scores can't be converted into double".
//   Equal scores fall back to comparing the elements' bytes.
// - STORE writes a list (or deletes the destination when the result is
//   empty) and replies with its length.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/args.h"
#include "sim/cmd_util.h"

namespace redsim::sim {

using resp::Reply;

namespace {

// lookupKeyByPattern: the value `pattern` names for `element`, or nullopt.
std::optional<std::string> lookup_by_pattern(CommandContext& ctx, const std::string& pattern,
                                             const std::string& element) {
  if (pattern == "#") return element;
  // Redis reads the pattern as a C string: a NUL ends it.
  std::string_view pat(pattern.c_str());
  size_t star = pat.find('*');
  if (star == std::string_view::npos) return std::nullopt;
  size_t arrow = pat.find("->", star + 1);
  std::string_view field;
  std::string_view rest = pat.substr(star + 1);
  if (arrow != std::string_view::npos && arrow + 2 < pat.size()) {
    field = pat.substr(arrow + 2);
    rest = pat.substr(star + 1, arrow - star - 1);
  }
  std::string key(pat.substr(0, star));
  key += element;
  key += rest;
  Entry* e = current_db(ctx).lookup(key, ctx.now_ms);
  if (e == nullptr) return std::nullopt;
  if (!field.empty()) {
    if (!e->is_hash()) return std::nullopt;
    const std::string* v = e->hash().find(field);
    if (v == nullptr) return std::nullopt;
    return *v;
  }
  if (!e->is_string()) return std::nullopt;
  return e->str();
}

struct Item {
  explicit Item(std::string e) : element(std::move(e)) {}
  std::string element;
  double score = 0;
  std::optional<std::string> by;  // ALPHA with BY: the value compared
};

int compare_bytes(std::string_view a, std::string_view b) {
  int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

Reply sort_generic(CommandContext& ctx, bool read_only) {
  const Argv& argv = ctx.argv;
  bool desc = false;
  bool alpha = false;
  bool dontsort = false;
  int64_t limit_start = 0;
  int64_t limit_count = -1;
  std::optional<std::string> sortby;
  std::optional<std::string> store;
  std::vector<std::string> gets;
  for (size_t j = 2; j < argv.size(); ++j) {
    size_t left = argv.size() - j - 1;
    const std::string& o = argv[j];
    if (equals_ci(o, "asc")) {
      desc = false;
    } else if (equals_ci(o, "desc")) {
      desc = true;
    } else if (equals_ci(o, "alpha")) {
      alpha = true;
    } else if (equals_ci(o, "limit") && left >= 2) {
      if (!parse_int64(argv[j + 1], &limit_start) || !parse_int64(argv[j + 2], &limit_count)) {
        return errors::not_integer();
      }
      j += 2;
    } else if (equals_ci(o, "store") && left >= 1 && !read_only) {
      store = argv[j + 1];
      ++j;
    } else if (equals_ci(o, "by") && left >= 1) {
      sortby = argv[j + 1];
      if (std::strchr(sortby->c_str(), '*') == nullptr) dontsort = true;
      ++j;
    } else if (equals_ci(o, "get") && left >= 1) {
      gets.push_back(argv[j + 1]);
      ++j;
    } else {
      return errors::syntax();
    }
  }
  Entry* e = current_db(ctx).lookup(argv[1], ctx.now_ms);
  if (e != nullptr && !e->is_list() && !e->is_set() && !e->is_zset()) {
    return errors::wrong_type();
  }
  if (dontsort && e != nullptr && e->is_set() && (store || ctx.in_script)) {
    dontsort = false;
    alpha = true;
    sortby.reset();
  }
  // sortCommandGeneric converts an encoded sorted set for good.
  if (e != nullptr && e->is_zset()) e->zset().convert_to_skiplist();
  int64_t len = 0;
  if (e != nullptr) {
    len = static_cast<int64_t>(e->is_list() ? e->list().size()
                                            : (e->is_set() ? e->set().size() : e->zset().size()));
  }
  // Redis's sortCommandGeneric clamps both LIMIT numbers to the value's
  // size first, so no start + count overflows (LIMIT 5 9223372036854775807:
  // found by dispatch_fuzz, seed sim/fuzz/dispatch_seeds/sort-limit-overflow).
  int64_t start = std::clamp<int64_t>(limit_start, 0, len);
  limit_count = std::clamp<int64_t>(limit_count, -1, len);
  int64_t end = limit_count < 0 ? len - 1 : start + limit_count - 1;
  if (start >= len) {
    start = len - 1;
    end = len - 2;
  }
  if (end >= len) end = len - 1;

  std::vector<Item> items;
  const bool ordered = e != nullptr && (e->is_list() || e->is_zset());
  if (ordered && dontsort) {
    // The native order (reversed by DESC), only the LIMIT range loaded.
    if (end >= start) {
      for (int64_t i = start; i <= end; ++i) {
        size_t pos = static_cast<size_t>(desc ? len - 1 - i : i);
        items.push_back(Item{e->is_list() ? e->list()[pos] : e->zset().at(pos).member});
      }
    }
    start = 0;
    end = static_cast<int64_t>(items.size()) - 1;
  } else if (e != nullptr) {
    if (e->is_list()) {
      for (const std::string& s : e->list()) items.push_back(Item{s});
    } else if (e->is_set()) {
      for (const std::string& s : e->set().members()) items.push_back(Item{s});
    } else {
      for (const Zset::Item& it : e->zset().items()) items.push_back(Item{it.member});
    }
  }

  bool conversion_error = false;
  if (!dontsort) {
    for (Item& it : items) {
      std::optional<std::string> byval;
      if (sortby) {
        byval = lookup_by_pattern(ctx, *sortby, it.element);
        if (!byval) continue;
      }
      if (alpha) {
        if (sortby) it.by = std::move(byval);
        continue;
      }
      const std::string& text = sortby ? *byval : it.element;
      std::string z(text.c_str());  // strtod stops at a NUL, as in Redis
      char* endp = nullptr;
      errno = 0;
      it.score = std::strtod(z.c_str(), &endp);
      if (*endp != '\0' || errno == ERANGE || std::isnan(it.score)) conversion_error = true;
    }
    const bool by_pattern = sortby.has_value();
    auto cmp = [&](const Item& a, const Item& b) {
      int c = 0;
      if (!alpha) {
        if (a.score > b.score) {
          c = 1;
        } else if (a.score < b.score) {
          c = -1;
        } else {
          c = compare_bytes(a.element, b.element);
        }
      } else if (by_pattern) {
        if (!a.by || !b.by) {
          c = (a.by.has_value() == b.by.has_value()) ? 0 : (!a.by ? -1 : 1);
        } else {
          c = compare_bytes(*a.by, *b.by);
        }
      } else {
        c = compare_bytes(a.element, b.element);
      }
      return desc ? c > 0 : c < 0;
    };
    std::stable_sort(items.begin(), items.end(), cmp);
  }

  if (conversion_error)
    return Reply::error("ERR One or more scores can't be converted into double");
  if (!store) {
    std::vector<Reply> out;
    for (int64_t j = start; j <= end; ++j) {
      const std::string& el = items[static_cast<size_t>(j)].element;
      if (gets.empty()) out.push_back(Reply::bulk(el));
      for (const std::string& g : gets) {
        std::optional<std::string> v = lookup_by_pattern(ctx, g, el);
        out.push_back(v ? Reply::bulk(std::move(*v)) : Reply::nil());
      }
    }
    return Reply::array(std::move(out));
  }
  List result;
  for (int64_t j = start; j <= end; ++j) {
    const std::string& el = items[static_cast<size_t>(j)].element;
    if (gets.empty()) result.push_back(el);
    for (const std::string& g : gets) {
      std::optional<std::string> v = lookup_by_pattern(ctx, g, el);
      result.push_back(v ? std::move(*v) : std::string());
    }
  }
  Db& db = current_db(ctx);
  const int64_t n = static_cast<int64_t>(result.size());
  if (n > 0) {
    Entry fresh;
    fresh.value = std::move(result);
    db.put(*store, std::move(fresh));
    db.touch(*store);
    notify_keyspace_event(ctx, notify::kList, "sortstore", *store);
  } else if (db.remove(*store)) {
    notify_keyspace_event(ctx, notify::kGeneric, "del", *store);
  }
  return Reply::integer(n);
}

Reply sort(CommandContext& ctx) { return sort_generic(ctx, false); }
Reply sort_ro(CommandContext& ctx) { return sort_generic(ctx, true); }

}  // namespace

void register_sort_commands(CommandTable& table) {
  table.add({"sort", -2, kCmdWrite | kCmdDenyOom, &sort});
  table.add({"sort_ro", -2, kCmdReadonly, &sort_ro});
}

}  // namespace redsim::sim
