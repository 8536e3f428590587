// List commands: LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP (count) LLEN LRANGE
// LINDEX LSET LREM LTRIM LINSERT LPOS (RANK COUNT MAXLEN) LMOVE RPOPLPUSH.
// A list whose last element goes is deleted. Source: Redis 7.0 command docs
// and src/t_list.c behaviour, texts verified against redis-server 7.0.15.
#include <limits>
#include <string>

#include "sim/args.h"
#include "sim/cmd_util.h"

namespace redsim::sim {

using resp::Reply;

namespace {

constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

// The list at argv[1] for reading; nullptr when absent (*wrong on type mismatch).
List* read_list(CommandContext& ctx, std::string_view key, bool* wrong) {
  Entry* e = lookup_typed(ctx, key, ValueType::kList, wrong);
  return e == nullptr ? nullptr : &e->list();
}

}  // namespace

std::string pop_list_end(List& l, ListEnd end) {
  std::string v;
  if (end == ListEnd::kHead) {
    v = std::move(l.front());
    l.pop_front();
  } else {
    v = std::move(l.back());
    l.pop_back();
  }
  return v;
}

std::vector<std::string> pop_list(CommandContext& ctx, const std::string& key, List& l, ListEnd end,
                                  int64_t count) {
  std::vector<std::string> out;
  while (count-- > 0 && !l.empty()) out.push_back(pop_list_end(l, end));
  ctx.add_dirty(static_cast<int64_t>(out.size()));  // listElementsRemoved
  const bool empty = l.empty();
  finish_write(current_db(ctx), key, empty);
  notify_keyspace_event(ctx, notify::kList, end == ListEnd::kHead ? "lpop" : "rpop", key);
  if (empty) notify_keyspace_event(ctx, notify::kGeneric, "del", key);
  return out;
}

// Redis 7.0 t_list.c lmoveGenericCommand and lmoveHandlePush: the order
// of the pop, the push, the events and the deletion of the source.
Reply list_move(CommandContext& ctx, const std::string& src, List& from, const std::string& dst,
                ListEnd wherefrom, ListEnd whereto) {
  bool wrong = false;
  List* to = read_list(ctx, dst, &wrong);
  if (wrong) return errors::wrong_type();
  std::string v = pop_list_end(from, wherefrom);
  ctx.add_dirty(1);  // lmoveGenericCommand: one change for the pop and the push
  Db& db = current_db(ctx);
  // lmoveHandlePush. Entries stay put when keys are added, so `from` is
  // still the source's list after this.
  if (to == nullptr) to = &db.add(dst, List()).list();
  if (whereto == ListEnd::kHead) {
    to->push_front(v);
  } else {
    to->push_back(v);
  }
  db.touch(dst);
  notify_keyspace_event(ctx, notify::kList, whereto == ListEnd::kHead ? "lpush" : "rpush", dst);
  notify_keyspace_event(ctx, notify::kList, wherefrom == ListEnd::kHead ? "lpop" : "rpop", src);
  // Only now may the source be deleted: a move onto itself (src == dst)
  // has just put its element back.
  if (src != dst) {
    const bool empty = from.empty();
    finish_write(db, src, empty);
    if (empty) notify_keyspace_event(ctx, notify::kGeneric, "del", src);
  }
  return Reply::bulk(std::move(v));
}

bool parse_list_end(std::string_view s, ListEnd* end) {
  if (equals_ci(s, "left")) {
    *end = ListEnd::kHead;
  } else if (equals_ci(s, "right")) {
    *end = ListEnd::kTail;
  } else {
    return false;
  }
  return true;
}

namespace {

// LPUSH / RPUSH (create) and LPUSHX / RPUSHX (only_existing).
Reply push_generic(CommandContext& ctx, ListEnd end, bool only_existing) {
  Db& db = current_db(ctx);
  const std::string& key = ctx.argv[1];
  bool wrong = false;
  List* l = read_list(ctx, key, &wrong);
  if (wrong) return errors::wrong_type();
  if (l == nullptr) {
    if (only_existing) return Reply::integer(0);
    l = &db.add(key, List()).list();
  }
  for (size_t i = 2; i < ctx.argv.size(); ++i) {
    if (end == ListEnd::kHead) {
      l->push_front(ctx.argv[i]);
    } else {
      l->push_back(ctx.argv[i]);
    }
  }
  db.touch(key);
  ctx.add_dirty(static_cast<int64_t>(ctx.argv.size() - 2));
  notify_keyspace_event(ctx, notify::kList, end == ListEnd::kHead ? "lpush" : "rpush", key);
  return Reply::integer(static_cast<int64_t>(l->size()));
}

Reply lpush(CommandContext& ctx) { return push_generic(ctx, ListEnd::kHead, false); }
Reply rpush(CommandContext& ctx) { return push_generic(ctx, ListEnd::kTail, false); }
Reply lpushx(CommandContext& ctx) { return push_generic(ctx, ListEnd::kHead, true); }
Reply rpushx(CommandContext& ctx) { return push_generic(ctx, ListEnd::kTail, true); }

// LPOP / RPOP key [count]: without a count one bulk (nil when absent); with
// one an array (a null array when absent, empty for count 0).
Reply pop_generic(CommandContext& ctx, ListEnd end, std::string_view name) {
  if (ctx.argv.size() > 3) return errors::arity(name);
  bool has_count = ctx.argv.size() == 3;
  int64_t count = 1;
  if (has_count && (!parse_int64(ctx.argv[2], &count) || count < 0)) {
    return Reply::error("ERR value is out of range, must be positive");
  }
  const std::string& key = ctx.argv[1];
  bool wrong = false;
  List* l = read_list(ctx, key, &wrong);
  if (wrong) return errors::wrong_type();
  if (l == nullptr) return has_count ? Reply::nil_array() : Reply::nil();
  if (has_count && count == 0) return Reply::array({});
  std::vector<std::string> popped = pop_list(ctx, key, *l, end, count);
  if (!has_count) return Reply::bulk(std::move(popped[0]));
  std::vector<Reply> out;
  out.reserve(popped.size());
  for (std::string& v : popped) out.push_back(Reply::bulk(std::move(v)));
  return Reply::array(std::move(out));
}

Reply lpop(CommandContext& ctx) { return pop_generic(ctx, ListEnd::kHead, "lpop"); }
Reply rpop(CommandContext& ctx) { return pop_generic(ctx, ListEnd::kTail, "rpop"); }

Reply llen(CommandContext& ctx) {
  bool wrong = false;
  List* l = read_list(ctx, ctx.argv[1], &wrong);
  if (wrong) return errors::wrong_type();
  return Reply::integer(l == nullptr ? 0 : static_cast<int64_t>(l->size()));
}

Reply lrange(CommandContext& ctx) {
  int64_t start = 0;
  int64_t stop = 0;
  if (!parse_int64(ctx.argv[2], &start) || !parse_int64(ctx.argv[3], &stop)) {
    return errors::not_integer();
  }
  bool wrong = false;
  List* l = read_list(ctx, ctx.argv[1], &wrong);
  if (wrong) return errors::wrong_type();
  if (l == nullptr) return Reply::array({});
  const int64_t n = static_cast<int64_t>(l->size());
  if (start < 0) start += n;
  if (stop < 0) stop += n;
  if (start < 0) start = 0;
  if (start > stop || start >= n) return Reply::array({});
  if (stop >= n) stop = n - 1;
  std::vector<Reply> out;
  out.reserve(static_cast<size_t>(stop - start + 1));
  for (int64_t i = start; i <= stop; ++i) out.push_back(Reply::bulk((*l)[static_cast<size_t>(i)]));
  return Reply::array(std::move(out));
}

// A list index (negative from the tail) resolved to a position; false when outside.
bool resolve_index(const List& l, int64_t index, size_t* pos) {
  const int64_t n = static_cast<int64_t>(l.size());
  if (index < 0) index += n;
  if (index < 0 || index >= n) return false;
  *pos = static_cast<size_t>(index);
  return true;
}

// LINDEX and LSET look the key up before they parse the index.
Reply lindex(CommandContext& ctx) {
  bool wrong = false;
  List* l = read_list(ctx, ctx.argv[1], &wrong);
  if (wrong) return errors::wrong_type();
  if (l == nullptr) return Reply::nil();
  int64_t index = 0;
  if (!parse_int64(ctx.argv[2], &index)) return errors::not_integer();
  size_t pos = 0;
  if (!resolve_index(*l, index, &pos)) return Reply::nil();
  return Reply::bulk((*l)[pos]);
}

Reply lset(CommandContext& ctx) {
  bool wrong = false;
  List* l = read_list(ctx, ctx.argv[1], &wrong);
  if (wrong) return errors::wrong_type();
  if (l == nullptr) return Reply::error("ERR no such key");
  int64_t index = 0;
  if (!parse_int64(ctx.argv[2], &index)) return errors::not_integer();
  size_t pos = 0;
  if (!resolve_index(*l, index, &pos)) return Reply::error("ERR index out of range");
  (*l)[pos] = ctx.argv[3];
  current_db(ctx).touch(ctx.argv[1]);
  notify_keyspace_event(ctx, notify::kList, "lset", ctx.argv[1]);
  return Reply::ok();
}

// LREM key count element: count > 0 from the head, < 0 from the tail, 0 all.
Reply lrem(CommandContext& ctx) {
  int64_t count = 0;
  if (!parse_int64(ctx.argv[2], &count)) return errors::not_integer();
  bool wrong = false;
  List* l = read_list(ctx, ctx.argv[1], &wrong);
  if (wrong) return errors::wrong_type();
  if (l == nullptr) return Reply::integer(0);
  const std::string& element = ctx.argv[3];
  int64_t removed = 0;
  if (count >= 0) {
    for (auto it = l->begin(); it != l->end();) {
      if (*it == element && (count == 0 || removed < count)) {
        it = l->erase(it);
        ++removed;
      } else {
        ++it;
      }
    }
  } else {
    // From the tail: walk positions backwards.
    const int64_t limit = count == kInt64Min ? std::numeric_limits<int64_t>::max() : -count;
    for (size_t i = l->size(); i-- > 0 && removed < limit;) {
      if ((*l)[i] == element) {
        l->erase(l->begin() + static_cast<std::ptrdiff_t>(i));
        ++removed;
      }
    }
  }
  ctx.add_dirty(removed);
  if (removed > 0) {
    const bool empty = l->empty();
    finish_write(current_db(ctx), ctx.argv[1], empty);
    notify_keyspace_event(ctx, notify::kList, "lrem", ctx.argv[1]);
    if (empty) notify_keyspace_event(ctx, notify::kGeneric, "del", ctx.argv[1]);
  }
  return Reply::integer(removed);
}

// LINSERT key BEFORE|AFTER pivot element: the new length, -1 when the pivot
// is missing, 0 when the key is.
Reply linsert(CommandContext& ctx) {
  bool after = false;
  if (equals_ci(ctx.argv[2], "after")) {
    after = true;
  } else if (!equals_ci(ctx.argv[2], "before")) {
    return errors::syntax();
  }
  bool wrong = false;
  List* l = read_list(ctx, ctx.argv[1], &wrong);
  if (wrong) return errors::wrong_type();
  if (l == nullptr) return Reply::integer(0);
  for (auto it = l->begin(); it != l->end(); ++it) {
    if (*it == ctx.argv[3]) {
      l->insert(after ? it + 1 : it, ctx.argv[4]);
      current_db(ctx).touch(ctx.argv[1]);
      notify_keyspace_event(ctx, notify::kList, "linsert", ctx.argv[1]);
      return Reply::integer(static_cast<int64_t>(l->size()));
    }
  }
  return Reply::integer(-1);
}

// LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len].
Reply lpos(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  int64_t rank = 1;
  int64_t count = -1;  // -1: no COUNT, a single index reply
  int64_t maxlen = 0;
  for (size_t i = 3; i < argv.size(); i += 2) {
    if (i + 1 >= argv.size()) return errors::syntax();
    const std::string& opt = argv[i];
    int64_t v = 0;
    if (equals_ci(opt, "rank")) {
      if (!parse_int64(argv[i + 1], &v)) return errors::not_integer();
      if (v == 0) {
        return Reply::error(
            "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... "
            "or use negative to start from the end of the list");
      }
      // Redis negates the rank to walk from the tail; INT64_MIN stays
      // negative there and so acts as the first match from the tail.
      rank = v == kInt64Min ? -1 : v;
    } else if (equals_ci(opt, "count")) {
      // A non-integer gets the same text as a negative one.
      if (!parse_int64(argv[i + 1], &v) || v < 0) {
        return Reply::error("ERR COUNT can't be negative");
      }
      count = v;
    } else if (equals_ci(opt, "maxlen")) {
      if (!parse_int64(argv[i + 1], &v) || v < 0) {
        return Reply::error("ERR MAXLEN can't be negative");
      }
      maxlen = v;
    } else {
      return errors::syntax();
    }
  }
  bool wrong = false;
  List* l = read_list(ctx, argv[1], &wrong);
  if (wrong) return errors::wrong_type();
  std::vector<Reply> found;
  if (l != nullptr) {
    const int64_t n = static_cast<int64_t>(l->size());
    const bool from_tail = rank < 0;
    const int64_t skip = (from_tail ? -rank : rank) - 1;  // matches to pass over
    int64_t matches = 0;
    for (int64_t k = 0; k < n && (maxlen == 0 || k < maxlen); ++k) {
      const int64_t pos = from_tail ? n - 1 - k : k;
      if ((*l)[static_cast<size_t>(pos)] != argv[2]) continue;
      if (matches++ < skip) continue;
      found.push_back(Reply::integer(pos));
      if (count < 0) break;  // no COUNT: the first is enough
      if (count > 0 && static_cast<int64_t>(found.size()) >= count) break;
    }
  }
  if (count < 0) return found.empty() ? Reply::nil() : std::move(found[0]);
  return Reply::array(std::move(found));
}

// LMOVE source destination LEFT|RIGHT LEFT|RIGHT / RPOPLPUSH source
// destination: nil when the source is absent.
Reply lmove_generic(CommandContext& ctx, ListEnd from, ListEnd to) {
  const std::string& src = ctx.argv[1];
  bool wrong = false;
  List* l = read_list(ctx, src, &wrong);
  if (wrong) return errors::wrong_type();
  if (l == nullptr) return Reply::nil();
  return list_move(ctx, src, *l, ctx.argv[2], from, to);
}

Reply lmove(CommandContext& ctx) {
  ListEnd from = ListEnd::kHead;
  ListEnd to = ListEnd::kHead;
  if (!parse_list_end(ctx.argv[3], &from) || !parse_list_end(ctx.argv[4], &to)) {
    return errors::syntax();
  }
  return lmove_generic(ctx, from, to);
}

Reply rpoplpush(CommandContext& ctx) { return lmove_generic(ctx, ListEnd::kTail, ListEnd::kHead); }

// LTRIM key start stop: keeps the inclusive range (negative from the end);
// an empty range deletes the key. OK for an absent key too.
Reply ltrim(CommandContext& ctx) {
  int64_t start = 0;
  int64_t end = 0;
  if (!parse_int64(ctx.argv[2], &start) || !parse_int64(ctx.argv[3], &end)) {
    return errors::not_integer();
  }
  bool wrong = false;
  List* l = read_list(ctx, ctx.argv[1], &wrong);
  if (wrong) return errors::wrong_type();
  if (l == nullptr) return Reply::ok();
  const int64_t n = static_cast<int64_t>(l->size());
  if (start < 0) start += n;
  if (end < 0) end += n;
  if (start < 0) start = 0;
  int64_t ltrim_count = 0;
  int64_t rtrim_count = 0;
  if (start > end || start >= n) {
    ltrim_count = n;
  } else {
    if (end >= n) end = n - 1;
    ltrim_count = start;
    rtrim_count = n - end - 1;
  }
  l->erase(l->begin(), l->begin() + static_cast<std::ptrdiff_t>(ltrim_count));
  l->erase(l->end() - static_cast<std::ptrdiff_t>(rtrim_count), l->end());
  notify_keyspace_event(ctx, notify::kList, "ltrim", ctx.argv[1]);
  ctx.add_dirty(ltrim_count + rtrim_count);
  const bool empty = l->empty();
  finish_write(current_db(ctx), ctx.argv[1], empty);
  if (empty) notify_keyspace_event(ctx, notify::kGeneric, "del", ctx.argv[1]);
  return Reply::ok();
}

}  // namespace

void register_list_commands(CommandTable& table) {
  table.add({"lpush", -3, kCmdWrite | kCmdDenyOom | kCmdFast, &lpush});
  table.add({"rpush", -3, kCmdWrite | kCmdDenyOom | kCmdFast, &rpush});
  table.add({"lpushx", -3, kCmdWrite | kCmdDenyOom | kCmdFast, &lpushx});
  table.add({"rpushx", -3, kCmdWrite | kCmdDenyOom | kCmdFast, &rpushx});
  table.add({"lpop", -2, kCmdWrite | kCmdFast, &lpop});
  table.add({"rpop", -2, kCmdWrite | kCmdFast, &rpop});
  table.add({"llen", 2, kCmdReadonly | kCmdFast, &llen});
  table.add({"lrange", 4, kCmdReadonly, &lrange});
  table.add({"lindex", 3, kCmdReadonly, &lindex});
  table.add({"lset", 4, kCmdWrite | kCmdDenyOom, &lset});
  table.add({"lrem", 4, kCmdWrite, &lrem});
  table.add({"ltrim", 4, kCmdWrite, &ltrim});
  table.add({"linsert", 5, kCmdWrite | kCmdDenyOom, &linsert});
  table.add({"lpos", -3, kCmdReadonly, &lpos});
  table.add({"lmove", 5, kCmdWrite | kCmdDenyOom, &lmove});
  table.add({"rpoplpush", 3, kCmdWrite | kCmdDenyOom, &rpoplpush});
}

}  // namespace redsim::sim
