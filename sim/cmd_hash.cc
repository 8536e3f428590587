// Hash commands: HSET HSETNX HGET HMGET HMSET HDEL HEXISTS HINCRBY
// HINCRBYFLOAT HGETALL HKEYS HVALS HLEN HSTRLEN HRANDFIELD HSCAN. Fields keep
// insertion order (see Hash in keyspace.h); HRANDFIELD draws from the
// server's seeded stream.
// Source: Redis 7.0 command docs and src/t_hash.c behaviour, texts verified
// against redis-server 7.0.15.
#include <cmath>
#include <limits>
#include <string>

#include "sim/args.h"
#include "sim/cmd_util.h"
#include "sim/glob.h"
#include "sim/internal.h"

namespace redsim::sim {

using resp::Reply;

namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

// The hash at `key` for reading: nullptr with *wrong_type false when absent.
Hash* read_hash(CommandContext& ctx, bool* wrong_type) {
  *wrong_type = false;
  Entry* e = current_db(ctx).lookup(ctx.argv[1], ctx.now_ms);
  if (e == nullptr) return nullptr;
  if (!e->is_hash()) {
    *wrong_type = true;
    return nullptr;
  }
  return &e->hash();
}

// hashTypeLookupWriteOrCreate: the hash at `key`, created empty when absent;
// nullptr when the key holds another type.
Hash* write_hash(CommandContext& ctx, Db& db) {
  const std::string& key = ctx.argv[1];
  Entry* e = db.lookup(key, ctx.now_ms);
  if (e == nullptr) return &db.add_hash(key);
  return e->is_hash() ? &e->hash() : nullptr;
}

// HSET key field value [field value ...] and HMSET (same, answers OK).
Reply hset_generic(CommandContext& ctx, std::string_view name, bool count_reply) {
  if (ctx.argv.size() % 2 == 1) return errors::arity(name);
  Db& db = current_db(ctx);
  Hash* h = write_hash(ctx, db);
  if (h == nullptr) return errors::wrong_type();
  int64_t created = 0;
  for (size_t i = 2; i + 1 < ctx.argv.size(); i += 2) {
    if (h->set(ctx.argv[i], ctx.argv[i + 1], ServerAccess::keyspace(ctx.server).limits()))
      ++created;
  }
  db.touch(ctx.argv[1]);
  ctx.add_dirty(static_cast<int64_t>(ctx.argv.size() - 2) / 2);    // every pair, new or not
  notify_keyspace_event(ctx, notify::kHash, "hset", ctx.argv[1]);  // HMSET too
  return count_reply ? Reply::integer(created) : Reply::ok();
}

Reply hset(CommandContext& ctx) { return hset_generic(ctx, "hset", true); }
Reply hmset(CommandContext& ctx) { return hset_generic(ctx, "hmset", false); }

Reply hsetnx(CommandContext& ctx) {
  Db& db = current_db(ctx);
  Hash* h = write_hash(ctx, db);
  if (h == nullptr) return errors::wrong_type();
  if (h->find(ctx.argv[2]) != nullptr) return Reply::integer(0);
  h->set(ctx.argv[2], ctx.argv[3], ServerAccess::keyspace(ctx.server).limits());
  db.touch(ctx.argv[1]);
  notify_keyspace_event(ctx, notify::kHash, "hset", ctx.argv[1]);
  return Reply::integer(1);
}

Reply hget(CommandContext& ctx) {
  bool wrong = false;
  Hash* h = read_hash(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  const std::string* v = h == nullptr ? nullptr : h->find(ctx.argv[2]);
  return v == nullptr ? Reply::nil() : Reply::bulk(*v);
}

Reply hmget(CommandContext& ctx) {
  bool wrong = false;
  Hash* h = read_hash(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  std::vector<Reply> values;
  values.reserve(ctx.argv.size() - 2);
  for (size_t i = 2; i < ctx.argv.size(); ++i) {
    const std::string* v = h == nullptr ? nullptr : h->find(ctx.argv[i]);
    values.push_back(v == nullptr ? Reply::nil() : Reply::bulk(*v));
  }
  return Reply::array(std::move(values));
}

// HDEL: the key goes away with its last field.
Reply hdel(CommandContext& ctx) {
  bool wrong = false;
  Hash* h = read_hash(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  if (h == nullptr) return Reply::integer(0);
  int64_t deleted = 0;
  for (size_t i = 2; i < ctx.argv.size(); ++i) {
    if (h->erase(ctx.argv[i])) {
      ++deleted;
      if (h->empty()) break;
    }
  }
  if (deleted > 0) {
    ctx.add_dirty(deleted);
    Db& db = current_db(ctx);
    const bool empty = h->empty();
    if (empty) {
      db.remove(ctx.argv[1]);
    } else {
      db.touch(ctx.argv[1]);
    }
    notify_keyspace_event(ctx, notify::kHash, "hdel", ctx.argv[1]);
    if (empty) notify_keyspace_event(ctx, notify::kGeneric, "del", ctx.argv[1]);
  }
  return Reply::integer(deleted);
}

Reply hexists(CommandContext& ctx) {
  bool wrong = false;
  Hash* h = read_hash(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  return Reply::integer(h != nullptr && h->find(ctx.argv[2]) != nullptr ? 1 : 0);
}

// HINCRBY: the increment is parsed first; the key's deadline is kept.
Reply hincrby(CommandContext& ctx) {
  int64_t by = 0;
  if (!parse_int64(ctx.argv[3], &by)) return errors::not_integer();
  Db& db = current_db(ctx);
  Hash* h = write_hash(ctx, db);
  if (h == nullptr) return errors::wrong_type();
  int64_t value = 0;
  std::string* current = h->find(ctx.argv[2]);
  if (current != nullptr && !parse_int64(*current, &value)) {
    return Reply::error("ERR hash value is not an integer");
  }
  if ((by < 0 && value < 0 && by < kInt64Min - value) ||
      (by > 0 && value > 0 && by > kInt64Max - value)) {
    return errors::overflow();
  }
  value += by;
  if (current != nullptr) {
    *current = std::to_string(value);
  } else {
    h->set(ctx.argv[2], std::to_string(value), ServerAccess::keyspace(ctx.server).limits());
  }
  db.touch(ctx.argv[1]);
  notify_keyspace_event(ctx, notify::kHash, "hincrby", ctx.argv[1]);
  return Reply::integer(value);
}

enum class Part { kFields, kValues, kBoth };

Reply hget_all_generic(CommandContext& ctx, Part part) {
  bool wrong = false;
  Hash* h = read_hash(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  std::vector<Reply> out;
  if (h != nullptr) {
    out.reserve(h->size() * (part == Part::kBoth ? 2 : 1));
    for (const auto& [field, value] : h->entries()) {
      if (part != Part::kValues) out.push_back(Reply::bulk(field));
      if (part != Part::kFields) out.push_back(Reply::bulk(value));
    }
  }
  // HGETALL is a map in RESP3 (addReplyMapLen); HKEYS and HVALS arrays.
  return part == Part::kBoth ? Reply::map(std::move(out)) : Reply::array(std::move(out));
}

Reply hgetall(CommandContext& ctx) { return hget_all_generic(ctx, Part::kBoth); }
Reply hkeys(CommandContext& ctx) { return hget_all_generic(ctx, Part::kFields); }
Reply hvals(CommandContext& ctx) { return hget_all_generic(ctx, Part::kValues); }

Reply hlen(CommandContext& ctx) {
  bool wrong = false;
  Hash* h = read_hash(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  return Reply::integer(h == nullptr ? 0 : static_cast<int64_t>(h->size()));
}

// HINCRBYFLOAT key field increment: as INCRBYFLOAT, on a field.
Reply hincrbyfloat(CommandContext& ctx) {
  long double by = 0;
  if (!parse_long_double(ctx.argv[3], &by)) return errors::not_float();
  if (std::isnan(by) || std::isinf(by)) return Reply::error("ERR value is NaN or Infinity");
  Db& db = current_db(ctx);
  Hash* h = write_hash(ctx, db);
  if (h == nullptr) return errors::wrong_type();
  long double value = 0;
  const std::string* current = h->find(ctx.argv[2]);
  if (current != nullptr && !parse_long_double(*current, &value)) {
    return Reply::error("ERR hash value is not a float");
  }
  value += by;
  if (std::isnan(value) || std::isinf(value)) {
    return Reply::error("ERR increment would produce NaN or Infinity");
  }
  std::string text = format_long_double(value);
  h->set(ctx.argv[2], text, ServerAccess::keyspace(ctx.server).limits());
  db.touch(ctx.argv[1]);
  notify_keyspace_event(ctx, notify::kHash, "hincrbyfloat", ctx.argv[1]);
  return Reply::bulk(std::move(text));
}

Reply hstrlen(CommandContext& ctx) {
  bool wrong = false;
  Hash* h = read_hash(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  const std::string* v = h == nullptr ? nullptr : h->find(ctx.argv[2]);
  return Reply::integer(v == nullptr ? 0 : static_cast<int64_t>(v->size()));
}

// HRANDFIELD key [count [WITHVALUES]]: as SRANDMEMBER (a count at least the
// size answers the whole hash in order); WITHVALUES interleaves values.
Reply hrandfield(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  bool wrong = false;
  if (argv.size() == 2) {
    Hash* h = read_hash(ctx, &wrong);
    if (wrong) return errors::wrong_type();
    if (h == nullptr) return Reply::nil();
    return Reply::bulk(h->entries()[ctx.server.random_below(h->size())].first);
  }
  RandomCount rc;
  Reply error;
  if (!parse_random_count_with(argv, "withvalues", &rc, &error)) return error;
  Hash* h = read_hash(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  if (h == nullptr || rc.count == 0) return Reply::array({});
  std::vector<size_t> picked;
  if (!random_positions(ctx.server, h->size(), rc.count, RandomPick{}, &picked)) {
    return errors::not_integer();
  }
  // WITHVALUES in RESP3: an array of [field, value] pairs (7.0 t_hash.c).
  const bool pairs = rc.with && SessionAccess::protocol(ctx.session) == resp::Protocol::kResp3;
  std::vector<Reply> out;
  out.reserve(picked.size() * (rc.with && !pairs ? 2 : 1));
  for (size_t i : picked) {
    const auto& [field, value] = h->entries()[i];
    if (pairs) {
      out.push_back(Reply::array({Reply::bulk(field), Reply::bulk(value)}));
      continue;
    }
    out.push_back(Reply::bulk(field));
    if (rc.with) out.push_back(Reply::bulk(value));
  }
  return Reply::array(std::move(out));
}

// HSCAN key cursor [MATCH pattern] [COUNT count]: a listpack answers whole
// in one call (cursor 0), in field order, as Redis does.
Reply hscan(CommandContext& ctx) {
  return scan_collection(ctx, ValueType::kHash, [](Entry& e) {
    const Hash& h = e.hash();
    return ScanView{
        .size = h.size(),
        .whole = h.listpack(),
        .name = [&h](size_t i) { return std::string_view(h.entries()[i].first); },
        .emit =
            [&h](size_t i, std::vector<Reply>* out) {
              const auto& [field, value] = h.entries()[i];
              out->push_back(Reply::bulk(field));
              out->push_back(Reply::bulk(value));
            },
    };
  });
}

}  // namespace

void register_hash_commands(CommandTable& table) {
  table.add({"hset", -4, kCmdWrite | kCmdDenyOom | kCmdFast, &hset});
  table.add({"hsetnx", 4, kCmdWrite | kCmdDenyOom | kCmdFast, &hsetnx});
  table.add({"hget", 3, kCmdReadonly | kCmdFast, &hget});
  table.add({"hmget", -3, kCmdReadonly | kCmdFast, &hmget});
  table.add({"hmset", -4, kCmdWrite | kCmdDenyOom | kCmdFast, &hmset});
  table.add({"hdel", -3, kCmdWrite | kCmdFast, &hdel});
  table.add({"hexists", 3, kCmdReadonly | kCmdFast, &hexists});
  table.add({"hincrby", 4, kCmdWrite | kCmdDenyOom | kCmdFast, &hincrby});
  table.add({"hgetall", 2, kCmdReadonly, &hgetall});
  table.add({"hkeys", 2, kCmdReadonly, &hkeys});
  table.add({"hvals", 2, kCmdReadonly, &hvals});
  table.add({"hlen", 2, kCmdReadonly | kCmdFast, &hlen});
  table.add({"hincrbyfloat", 4, kCmdWrite | kCmdDenyOom | kCmdFast, &hincrbyfloat});
  table.add({"hstrlen", 3, kCmdReadonly | kCmdFast, &hstrlen});
  table.add({"hrandfield", -2, kCmdReadonly, &hrandfield});
  table.add({"hscan", -3, kCmdReadonly, &hscan});
}

}  // namespace redsim::sim
