// Set commands: SADD SREM SISMEMBER SMISMEMBER SMEMBERS SCARD SPOP SRANDMEMBER
// SSCAN SINTER SUNION SDIFF (and their STORE forms) SINTERCARD SMOVE. Random choices come from the
// server's seeded stream (Server::random_below), so a seed replays them. A set whose last member
// goes is deleted. Source: Redis 7.0 command docs and src/t_set.c
// behaviour, texts verified against redis-server 7.0.15.
#include <algorithm>
#include <limits>
#include <numeric>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "sim/args.h"
#include "sim/cmd_util.h"
#include "sim/glob.h"

namespace redsim::sim {

using resp::Reply;

namespace {

Set* read_set(CommandContext& ctx, bool* wrong) {
  Entry* e = lookup_typed(ctx, ctx.argv[1], ValueType::kSet, wrong);
  return e == nullptr ? nullptr : &e->set();
}

Reply sadd(CommandContext& ctx) {
  Db& db = current_db(ctx);
  bool wrong = false;
  Set* s = read_set(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  if (s == nullptr) s = &db.add(ctx.argv[1], Set()).set();
  int64_t added = 0;
  for (size_t i = 2; i < ctx.argv.size(); ++i) {
    if (s->add(ctx.argv[i], ServerAccess::keyspace(ctx.server).limits())) ++added;
  }
  ctx.add_dirty(added);
  if (added > 0) {
    db.touch(ctx.argv[1]);
    notify_keyspace_event(ctx, notify::kSet, "sadd", ctx.argv[1]);
  }
  return Reply::integer(added);
}

Reply srem(CommandContext& ctx) {
  bool wrong = false;
  Set* s = read_set(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  return remove_members(ctx, s, notify::kSet, "srem");
}

Reply sismember(CommandContext& ctx) {
  bool wrong = false;
  Set* s = read_set(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  return Reply::integer(s != nullptr && s->contains(ctx.argv[2]) ? 1 : 0);
}

Reply smismember(CommandContext& ctx) {
  bool wrong = false;
  Set* s = read_set(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  std::vector<Reply> out;
  for (size_t i = 2; i < ctx.argv.size(); ++i) {
    out.push_back(Reply::integer(s != nullptr && s->contains(ctx.argv[i]) ? 1 : 0));
  }
  return Reply::array(std::move(out));
}

Reply members_reply(const Set& s) {
  std::vector<Reply> out;
  out.reserve(s.size());
  for (const std::string& m : s.members()) out.push_back(Reply::bulk(m));
  return Reply::array(std::move(out));
}

// SMEMBERS is a set in RESP3 (addReplySetLen; an empty set for a missing key).
Reply smembers(CommandContext& ctx) {
  bool wrong = false;
  Set* s = read_set(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  if (s == nullptr) return Reply::set({});
  Reply members = members_reply(*s);
  return Reply::set(std::move(members.elements()));
}

Reply scard(CommandContext& ctx) {
  bool wrong = false;
  Set* s = read_set(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  return Reply::integer(s == nullptr ? 0 : static_cast<int64_t>(s->size()));
}

// SPOP key [count]: without a count one random member (nil when absent);
// with one an array. A count at least the size pops everything, in
// SMEMBERS order, and deletes the key.
Reply spop(CommandContext& ctx) {
  if (ctx.argv.size() > 3) return errors::syntax();
  bool has_count = ctx.argv.size() == 3;
  int64_t count = 1;
  if (has_count && (!parse_int64(ctx.argv[2], &count) || count < 0)) {
    return Reply::error("ERR value is out of range, must be positive");
  }
  bool wrong = false;
  Set* s = read_set(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  if (s == nullptr) return has_count ? Reply::array({}) : Reply::nil();
  if (has_count && count == 0) return Reply::array({});
  Db& db = current_db(ctx);
  const std::string key = ctx.argv[1];
  if (!has_count) {
    std::string m = s->at(static_cast<size_t>(ctx.server.random_below(s->size())));
    s->erase(m);
    const bool empty = s->empty();
    finish_write(db, key, empty);
    notify_keyspace_event(ctx, notify::kSet, "spop", key);
    if (empty) notify_keyspace_event(ctx, notify::kGeneric, "del", key);
    return Reply::bulk(std::move(m));
  }
  // spopWithCountCommand: one change per member popped.
  ctx.add_dirty(std::min<int64_t>(count, static_cast<int64_t>(s->size())));
  if (static_cast<uint64_t>(count) >= s->size()) {
    Reply all = members_reply(*s);
    db.remove(key);
    // spopWithCountCommand: "spop", then "del" for the whole set.
    notify_keyspace_event(ctx, notify::kSet, "spop", key);
    notify_keyspace_event(ctx, notify::kGeneric, "del", key);
    return all;
  }
  std::vector<size_t> picks = distinct_positions(ctx.server, s->size(), static_cast<size_t>(count));
  std::vector<std::string> popped;
  popped.reserve(picks.size());
  for (size_t p : picks) popped.push_back(s->at(p));
  std::vector<Reply> out;
  out.reserve(popped.size());
  for (std::string& m : popped) {
    s->erase(m);
    out.push_back(Reply::bulk(std::move(m)));
  }
  finish_write(db, key, s->empty());
  notify_keyspace_event(ctx, notify::kSet, "spop", key);
  return Reply::array(std::move(out));
}

// SRANDMEMBER key [count]: a positive count gives distinct members (the
// whole set, in SMEMBERS order, when count >= size); a negative one |count|
// independent draws.
Reply srandmember(CommandContext& ctx) {
  if (ctx.argv.size() > 3) return errors::syntax();
  bool has_count = ctx.argv.size() == 3;
  int64_t count = 1;
  Reply error;
  if (has_count && !parse_random_count(ctx.argv[2], &count, &error)) return error;
  bool wrong = false;
  Set* s = read_set(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  if (s == nullptr) return has_count ? Reply::array({}) : Reply::nil();
  if (!has_count)
    return Reply::bulk(s->at(static_cast<size_t>(ctx.server.random_below(s->size()))));
  if (count == 0) return Reply::array({});
  std::vector<size_t> picked;
  if (!random_positions(ctx.server, s->size(), count, RandomPick{}, &picked)) {
    return errors::not_integer();
  }
  std::vector<Reply> out;
  out.reserve(picked.size());
  for (size_t p : picked) out.push_back(Reply::bulk(s->at(p)));
  return Reply::array(std::move(out));
}

// SSCAN key cursor [MATCH pattern] [COUNT count]: an intset answers whole
// in one call (cursor 0), as Redis does for its compact encodings.
Reply sscan(CommandContext& ctx) {
  return scan_collection(ctx, ValueType::kSet, [](Entry& e) {
    const Set& s = e.set();
    return ScanView{
        .size = s.size(),
        .whole = s.intset(),
        .name = [&s](size_t i) { return std::string_view(s.at(i)); },
        .emit = [&s](size_t i, std::vector<Reply>* out) { out->push_back(Reply::bulk(s.at(i))); },
    };
  });
}

// The sets at `keys` (nullptr for an absent key), or false after a
// WRONGTYPE on any of them (Redis 7.0 checks every key first).
bool read_sets(CommandContext& ctx, std::span<const std::string> keys,
               std::vector<const Set*>* out) {
  for (const std::string& k : keys) {
    bool wrong = false;
    Entry* e = lookup_typed(ctx, k, ValueType::kSet, &wrong);
    if (wrong) return false;
    out->push_back(e == nullptr ? nullptr : &e->set());
  }
  return true;
}

// sinterGenericCommand: the members of the smallest set found in all the
// others, in the smallest set's order; `limit` (0: none) stops a count.
Set intersect(std::vector<const Set*> sets, const EncodingLimits& limits, uint64_t limit,
              uint64_t* count) {
  Set result;
  *count = 0;
  for (const Set* s : sets) {
    if (s == nullptr) return result;
  }
  std::stable_sort(sets.begin(), sets.end(),
                   [](const Set* a, const Set* b) { return a->size() < b->size(); });
  for (const std::string& m : sets[0]->members()) {
    bool all = true;
    for (size_t i = 1; i < sets.size() && all; ++i) {
      if (sets[i] != sets[0] && !sets[i]->contains(m)) all = false;
    }
    if (!all) continue;
    result.add(m, limits);
    ++*count;
    if (limit != 0 && *count >= limit) break;
  }
  return result;
}

Reply set_reply(const Set& s) {
  std::vector<Reply> out;
  out.reserve(s.size());
  for (const std::string& m : s.members()) out.push_back(Reply::bulk(m));
  return Reply::set(std::move(out));
}

// SINTER key [key ...] / SINTERSTORE destination key [key ...].
Reply sinter_generic(CommandContext& ctx, bool store) {
  const size_t first = store ? 2 : 1;
  std::vector<const Set*> sets;
  if (!read_sets(ctx, std::span(ctx.argv).subspan(first), &sets)) return errors::wrong_type();
  uint64_t count = 0;
  Set result = intersect(sets, ServerAccess::keyspace(ctx.server).limits(), 0, &count);
  if (store)
    return store_collection(ctx, ctx.argv[1], std::move(result), notify::kSet, "sinterstore");
  return set_reply(result);
}
Reply sinter(CommandContext& ctx) { return sinter_generic(ctx, false); }
Reply sinterstore(CommandContext& ctx) { return sinter_generic(ctx, true); }

// SUNION / SDIFF and their STORE forms (sunionDiffGenericCommand).
Reply sunion_diff(CommandContext& ctx, bool diff, bool store) {
  const size_t first = store ? 2 : 1;
  std::vector<const Set*> sets;
  if (!read_sets(ctx, std::span(ctx.argv).subspan(first), &sets)) return errors::wrong_type();
  const EncodingLimits& limits = ServerAccess::keyspace(ctx.server).limits();
  Set result;
  if (!diff) {
    for (const Set* s : sets) {
      if (s == nullptr) continue;
      for (const std::string& m : s->members()) result.add(m, limits);
    }
  } else if (sets[0] != nullptr) {
    for (const std::string& m : sets[0]->members()) {
      bool elsewhere = false;
      for (size_t i = 1; i < sets.size() && !elsewhere; ++i) {
        if (sets[i] != nullptr && sets[i]->contains(m)) elsewhere = true;
      }
      if (!elsewhere) result.add(m, limits);
    }
  }
  if (store) {
    return store_collection(ctx, ctx.argv[1], std::move(result), notify::kSet,
                            diff ? "sdiffstore" : "sunionstore");
  }
  return set_reply(result);
}
Reply sunion(CommandContext& ctx) { return sunion_diff(ctx, false, false); }
Reply sunionstore(CommandContext& ctx) { return sunion_diff(ctx, false, true); }
Reply sdiff(CommandContext& ctx) { return sunion_diff(ctx, true, false); }
Reply sdiffstore(CommandContext& ctx) { return sunion_diff(ctx, true, true); }

// SINTERCARD numkeys key [key ...] [LIMIT limit].
Reply sintercard(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  int64_t numkeys = 0;
  if (!parse_int64(argv[1], &numkeys) || numkeys < 1) {
    return Reply::error("ERR numkeys should be greater than 0");
  }
  if (numkeys > static_cast<int64_t>(argv.size()) - 2) {
    return Reply::error("ERR Number of keys can't be greater than number of args");
  }
  int64_t limit = 0;
  Reply error;
  if (!parse_intercard_limit(argv, 2 + static_cast<size_t>(numkeys), &limit, &error)) return error;
  std::vector<const Set*> sets;
  if (!read_sets(ctx, std::span(argv).subspan(2, static_cast<size_t>(numkeys)), &sets)) {
    return errors::wrong_type();
  }
  uint64_t count = 0;
  intersect(sets, ServerAccess::keyspace(ctx.server).limits(), static_cast<uint64_t>(limit),
            &count);
  return Reply::integer(static_cast<int64_t>(count));
}

// SMOVE source destination member.
Reply smove(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  Db& db = current_db(ctx);
  Entry* src = db.lookup(argv[1], ctx.now_ms);
  Entry* dst = db.lookup(argv[2], ctx.now_ms);
  if (src == nullptr) return Reply::integer(0);
  if (!src->is_set() || (dst != nullptr && !dst->is_set())) return errors::wrong_type();
  if (src == dst) return Reply::integer(src->set().contains(argv[3]) ? 1 : 0);
  if (!src->set().erase(argv[3])) return Reply::integer(0);
  notify_keyspace_event(ctx, notify::kSet, "srem", argv[1]);
  if (src->set().empty()) {
    db.remove(argv[1]);
    notify_keyspace_event(ctx, notify::kGeneric, "del", argv[1]);
  } else {
    db.touch(argv[1]);
  }
  if (dst == nullptr) dst = &db.add(argv[2], Set());
  if (dst->set().add(argv[3], ServerAccess::keyspace(ctx.server).limits())) {
    db.touch(argv[2]);
    notify_keyspace_event(ctx, notify::kSet, "sadd", argv[2]);
  }
  return Reply::integer(1);
}

}  // namespace

void register_set_commands(CommandTable& table) {
  table.add({"sadd", -3, kCmdWrite | kCmdDenyOom | kCmdFast, &sadd});
  table.add({"srem", -3, kCmdWrite | kCmdFast, &srem});
  table.add({"sismember", 3, kCmdReadonly | kCmdFast, &sismember});
  table.add({"smismember", -3, kCmdReadonly | kCmdFast, &smismember});
  table.add({"smembers", 2, kCmdReadonly, &smembers});
  table.add({"scard", 2, kCmdReadonly | kCmdFast, &scard});
  table.add({"spop", -2, kCmdWrite | kCmdFast, &spop});
  table.add({"srandmember", -2, kCmdReadonly, &srandmember});
  table.add({"sscan", -3, kCmdReadonly, &sscan});
  table.add({"sinter", -2, kCmdReadonly, &sinter});
  table.add({"sinterstore", -3, kCmdWrite | kCmdDenyOom, &sinterstore});
  table.add({"sunion", -2, kCmdReadonly, &sunion});
  table.add({"sunionstore", -3, kCmdWrite | kCmdDenyOom, &sunionstore});
  table.add({"sdiff", -2, kCmdReadonly, &sdiff});
  table.add({"sdiffstore", -3, kCmdWrite | kCmdDenyOom, &sdiffstore});
  table.add({"sintercard", -3, kCmdReadonly, &sintercard});
  table.add({"smove", 4, kCmdWrite | kCmdFast, &smove});
}

}  // namespace redsim::sim
