// Generic key commands: TYPE EXISTS DEL UNLINK, EXPIRE PEXPIRE EXPIREAT
// PEXPIREAT (NX XX GT LT), TTL PTTL EXPIRETIME PEXPIRETIME PERSIST.
// Source: Redis 7.0 command docs and src/expire.c behaviour, texts verified
// against redis-server 7.0.15.
#include <limits>
#include <string>

#include "sim/args.h"
#include "sim/internal.h"

namespace redsim::sim {

using resp::Reply;

namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

Reply type(CommandContext& ctx) {
  Entry* e = current_db(ctx).lookup(ctx.argv[1], ctx.now_ms);
  return Reply::status(std::string(e == nullptr ? "none" : type_name(e->type())));
}

Reply exists(CommandContext& ctx) {
  Db& db = current_db(ctx);
  int64_t count = 0;
  for (size_t i = 1; i < ctx.argv.size(); ++i) {
    if (db.lookup(ctx.argv[i], ctx.now_ms) != nullptr) ++count;
  }
  return Reply::integer(count);
}

// DEL and UNLINK: an expired key is already gone, so it does not count.
Reply del(CommandContext& ctx) {
  Db& db = current_db(ctx);
  int64_t count = 0;
  for (size_t i = 1; i < ctx.argv.size(); ++i) {
    if (db.lookup(ctx.argv[i], ctx.now_ms) != nullptr && db.remove(ctx.argv[i])) ++count;
  }
  return Reply::integer(count);
}

enum ExpireFlag : unsigned { kNx = 1, kXx = 2, kGt = 4, kLt = 8 };

// EXPIRE key time [NX|XX|GT|LT]: options are parsed before the time.
Reply expire_generic(CommandContext& ctx, std::string_view name, int64_t basetime_ms,
                     bool seconds) {
  const Argv& argv = ctx.argv;
  unsigned flags = 0;
  for (size_t i = 3; i < argv.size(); ++i) {
    if (equals_ci(argv[i], "nx")) {
      flags |= kNx;
    } else if (equals_ci(argv[i], "xx")) {
      flags |= kXx;
    } else if (equals_ci(argv[i], "gt")) {
      flags |= kGt;
    } else if (equals_ci(argv[i], "lt")) {
      flags |= kLt;
    } else {
      return Reply::error(one_line("ERR Unsupported option " + argv[i]));
    }
  }
  if ((flags & kNx) && (flags & (kXx | kGt | kLt))) {
    return Reply::error("ERR NX and XX, GT or LT options at the same time are not compatible");
  }
  if ((flags & kGt) && (flags & kLt)) {
    return Reply::error("ERR GT and LT options at the same time are not compatible");
  }
  int64_t when = 0;
  if (!parse_int64(argv[2], &when)) return errors::not_integer();
  // Negative times are allowed (they delete the key); only overflow is refused.
  if (seconds) {
    if (when > kInt64Max / 1000 || when < kInt64Min / 1000) return errors::invalid_expire(name);
    when *= 1000;
  }
  if (when > kInt64Max - basetime_ms) return errors::invalid_expire(name);
  when += basetime_ms;

  Db& db = current_db(ctx);
  const std::string& key = argv[1];
  Entry* e = db.lookup(key, ctx.now_ms);
  if (e == nullptr) return Reply::integer(0);
  if (flags != 0) {
    int64_t current = e->expire_ms;  // kNoExpire (-1) means infinite
    bool has = e->has_expire();
    if ((flags & kNx) && has) return Reply::integer(0);
    if ((flags & kXx) && !has) return Reply::integer(0);
    if ((flags & kGt) && (!has || when <= current)) return Reply::integer(0);
    if ((flags & kLt) && has && when >= current) return Reply::integer(0);
  }
  // checkAlreadyExpired: a deadline at or before now deletes at once.
  if (when <= ctx.now_ms) {
    db.remove(key);
    return Reply::integer(1);
  }
  db.set_expire(key, *e, when);
  db.touch(key);
  return Reply::integer(1);
}

Reply expire(CommandContext& ctx) { return expire_generic(ctx, "expire", ctx.now_ms, true); }
Reply pexpire(CommandContext& ctx) { return expire_generic(ctx, "pexpire", ctx.now_ms, false); }
Reply expireat(CommandContext& ctx) { return expire_generic(ctx, "expireat", 0, true); }
Reply pexpireat(CommandContext& ctx) { return expire_generic(ctx, "pexpireat", 0, false); }

// TTL and PTTL: -2 no key, -1 no deadline; TTL rounds to the nearest second.
Reply ttl_generic(CommandContext& ctx, bool ms) {
  Entry* e = current_db(ctx).lookup(ctx.argv[1], ctx.now_ms);
  if (e == nullptr) return Reply::integer(-2);
  if (!e->has_expire()) return Reply::integer(-1);
  int64_t left = e->expire_ms - ctx.now_ms;
  if (left < 0) left = 0;
  return Reply::integer(ms ? left : (left + 500) / 1000);
}

Reply ttl(CommandContext& ctx) { return ttl_generic(ctx, false); }
Reply pttl(CommandContext& ctx) { return ttl_generic(ctx, true); }

// EXPIRETIME and PEXPIRETIME: the absolute deadline, -2 / -1 as TTL.
Reply expiretime_generic(CommandContext& ctx, bool ms) {
  Entry* e = current_db(ctx).lookup(ctx.argv[1], ctx.now_ms);
  if (e == nullptr) return Reply::integer(-2);
  if (!e->has_expire()) return Reply::integer(-1);
  return Reply::integer(ms ? e->expire_ms : (e->expire_ms + 500) / 1000);
}

Reply expiretime(CommandContext& ctx) { return expiretime_generic(ctx, false); }
Reply pexpiretime(CommandContext& ctx) { return expiretime_generic(ctx, true); }

Reply persist(CommandContext& ctx) {
  Db& db = current_db(ctx);
  const std::string& key = ctx.argv[1];
  Entry* e = db.lookup(key, ctx.now_ms);
  if (e == nullptr || !e->has_expire()) return Reply::integer(0);
  db.set_expire(key, *e, Entry::kNoExpire);
  db.touch(key);
  return Reply::integer(1);
}

}  // namespace

void register_key_commands(CommandTable& table) {
  table.add({"type", 2, kCmdReadonly | kCmdFast, &type});
  table.add({"exists", -2, kCmdReadonly | kCmdFast, &exists});
  table.add({"del", -2, kCmdWrite, &del});
  table.add({"unlink", -2, kCmdWrite | kCmdFast, &del});
  table.add({"expire", -3, kCmdWrite | kCmdFast, &expire});
  table.add({"pexpire", -3, kCmdWrite | kCmdFast, &pexpire});
  table.add({"expireat", -3, kCmdWrite | kCmdFast, &expireat});
  table.add({"pexpireat", -3, kCmdWrite | kCmdFast, &pexpireat});
  table.add({"ttl", 2, kCmdReadonly | kCmdFast, &ttl});
  table.add({"pttl", 2, kCmdReadonly | kCmdFast, &pttl});
  table.add({"expiretime", 2, kCmdReadonly | kCmdFast, &expiretime});
  table.add({"pexpiretime", 2, kCmdReadonly | kCmdFast, &pexpiretime});
  table.add({"persist", 2, kCmdWrite | kCmdFast, &persist});
}

}  // namespace redsim::sim
