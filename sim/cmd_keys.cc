// Generic key commands: TYPE EXISTS DEL UNLINK, EXPIRE PEXPIRE EXPIREAT
// PEXPIREAT (NX XX GT LT), TTL PTTL EXPIRETIME PEXPIRETIME PERSIST, KEYS
// SCAN (MATCH COUNT TYPE) RENAME RENAMENX RANDOMKEY COPY (DB REPLACE) TOUCH,
// OBJECT (ENCODING FREQ IDLETIME REFCOUNT HELP).
// Source: Redis 7.0 command docs and src/expire.c, src/db.c, src/object.c
// behaviour, texts verified against redis-server 7.0.15.
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

Reply type(CommandContext& ctx) {
  Entry* e = current_db(ctx).lookup(ctx.argv[1], ctx.now_ms, /*touch=*/false);
  return Reply::status(std::string(e == nullptr ? "none" : type_name(e->type())));
}

Reply exists(CommandContext& ctx) {
  Db& db = current_db(ctx);
  int64_t count = 0;
  for (size_t i = 1; i < ctx.argv.size(); ++i) {
    if (db.lookup(ctx.argv[i], ctx.now_ms, /*touch=*/false) != nullptr) ++count;
  }
  return Reply::integer(count);
}

// DEL and UNLINK: an expired key is already gone, so it does not count.
Reply del(CommandContext& ctx) {
  Db& db = current_db(ctx);
  int64_t count = 0;
  for (size_t i = 1; i < ctx.argv.size(); ++i) {
    if (db.remove_live(ctx.argv[i], ctx.now_ms)) {
      ++count;
      notify_keyspace_event(ctx, notify::kGeneric, "del", ctx.argv[i]);
    }
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
    notify_keyspace_event(ctx, notify::kGeneric, "del", key);
    return Reply::integer(1);
  }
  db.set_expire(key, *e, when);
  db.touch(key);
  notify_keyspace_event(ctx, notify::kGeneric, "expire", key);
  return Reply::integer(1);
}

Reply expire(CommandContext& ctx) { return expire_generic(ctx, "expire", ctx.now_ms, true); }
Reply pexpire(CommandContext& ctx) { return expire_generic(ctx, "pexpire", ctx.now_ms, false); }
Reply expireat(CommandContext& ctx) { return expire_generic(ctx, "expireat", 0, true); }
Reply pexpireat(CommandContext& ctx) { return expire_generic(ctx, "pexpireat", 0, false); }

// TTL and PTTL: -2 no key, -1 no deadline; TTL rounds to the nearest second.
Reply ttl_generic(CommandContext& ctx, bool ms) {
  Entry* e = current_db(ctx).lookup(ctx.argv[1], ctx.now_ms, /*touch=*/false);
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
  Entry* e = current_db(ctx).lookup(ctx.argv[1], ctx.now_ms, /*touch=*/false);
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
  notify_keyspace_event(ctx, notify::kGeneric, "persist", key);
  return Reply::integer(1);
}

// KEYS pattern: live keys only (an expired key is skipped, not deleted), in
// key order (Db::for_each: by scan hash, the order a full SCAN returns).
Reply keys(CommandContext& ctx) {
  const std::string& pattern = ctx.argv[1];
  const bool all = pattern == "*";
  std::vector<Reply> out;
  current_db(ctx).for_each([&](const std::string& key, const Entry& e) {
    if (e.expired_at(ctx.now_ms)) return;
    if (all || glob_match(pattern, key)) out.push_back(Reply::bulk(key));
  });
  return Reply::array(std::move(out));
}

// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]: see Db::scan()
// for the cursor; expired keys met on the way are deleted, as Redis does.
Reply scan(CommandContext& ctx) {
  uint64_t cursor = 0;
  if (!parse_scan_cursor(ctx.argv[1], &cursor)) return Reply::error("ERR invalid cursor");
  ScanOptions opts;
  Reply error;
  if (!parse_scan_options(ctx.argv, 2, /*allow_type=*/true, &opts, &error)) return error;
  Db& db = current_db(ctx);
  std::vector<std::string> page;
  const uint64_t next = db.scan(cursor, opts.count, &page);
  std::vector<Reply> out;
  for (const std::string& key : page) {
    if (opts.has_pattern && !glob_match(opts.pattern, key)) continue;
    Entry* e = db.lookup(key, ctx.now_ms);
    if (e == nullptr) continue;
    if (opts.has_type && !equals_ci(opts.type, type_name(e->type()))) continue;
    out.push_back(Reply::bulk(key));
  }
  return Reply::array({Reply::bulk(std::to_string(next)), Reply::array(std::move(out))});
}

// RENAME / RENAMENX: the value moves with its deadline; renaming a key to
// itself only checks that it exists.
Reply rename_generic(CommandContext& ctx, bool nx) {
  Db& db = current_db(ctx);
  const std::string& src = ctx.argv[1];
  const std::string& dst = ctx.argv[2];
  Entry* e = db.lookup(src, ctx.now_ms);
  if (e == nullptr) return Reply::error("ERR no such key");
  if (src == dst) return nx ? Reply::integer(0) : Reply::ok();
  if (db.lookup(dst, ctx.now_ms) != nullptr) {
    if (nx) return Reply::integer(0);
    e = db.peek(src);  // the lookup above may have rehashed the map
  }
  Entry moved = std::move(*e);
  db.remove(src);
  db.put(dst, std::move(moved));
  db.touch(dst);
  ctx.add_dirty(1);
  // renameGenericCommand: no "del" for an overwritten destination.
  notify_keyspace_event(ctx, notify::kGeneric, "rename_from", src);
  notify_keyspace_event(ctx, notify::kGeneric, "rename_to", dst);
  return nx ? Reply::integer(1) : Reply::ok();
}

Reply rename(CommandContext& ctx) { return rename_generic(ctx, false); }
Reply renamenx(CommandContext& ctx) { return rename_generic(ctx, true); }

// RANDOMKEY: a key drawn with the server's seeded stream; an expired draw
// is deleted and drawn again.
Reply randomkey(CommandContext& ctx) {
  Db& db = current_db(ctx);
  while (db.size() > 0) {
    std::string key = *db.key_at(static_cast<size_t>(ctx.server.random_below(db.size())));
    if (db.lookup(key, ctx.now_ms) != nullptr) return Reply::bulk(std::move(key));
  }
  return Reply::nil();
}

// notifyKeyspaceEvent for a db other than the command's (MOVE's move_to,
// COPY's copy_to).
void notify_in_db(CommandContext& ctx, int db, std::string_view event, std::string_view key) {
  int flags = ctx.server.config().notify_keyspace_events;
  if (!(flags & notify::kGeneric)) return;
  std::string id = std::to_string(db);
  if (flags & notify::kKeyspace) {
    ServerAccess::pubsub(ctx.server).publish("__keyspace@" + id + "__:" + std::string(key), event);
  }
  if (flags & notify::kKeyevent) {
    ServerAccess::pubsub(ctx.server).publish("__keyevent@" + id + "__:" + std::string(event), key);
  }
}

// COPY source destination [DB index] [REPLACE]: the copy keeps the
// deadline and the encoding.
Reply copy(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  bool replace = false;
  int64_t dbid = SessionAccess::db(ctx.session);
  const int64_t srcid = dbid;
  for (size_t j = 3; j < argv.size(); ++j) {
    if (equals_ci(argv[j], "replace")) {
      replace = true;
    } else if (equals_ci(argv[j], "db") && j + 1 < argv.size()) {
      if (!parse_int64(argv[j + 1], &dbid) || dbid < std::numeric_limits<int>::min() ||
          dbid > std::numeric_limits<int>::max()) {
        return errors::not_integer();
      }
      if (dbid < 0 || dbid >= ServerAccess::keyspace(ctx.server).databases()) {
        return Reply::error("ERR DB index is out of range");
      }
      ++j;
    } else {
      return errors::syntax();
    }
  }
  if (dbid == srcid && argv[1] == argv[2]) {
    return Reply::error("ERR source and destination objects are the same");
  }
  Db& src = current_db(ctx);
  Db& dst = ServerAccess::keyspace(ctx.server).db(static_cast<int>(dbid));
  Entry* e = src.lookup(argv[1], ctx.now_ms);
  if (e == nullptr) return Reply::integer(0);
  if (dst.lookup(argv[2], ctx.now_ms) != nullptr) {
    if (!replace) return Reply::integer(0);
    e = src.peek(argv[1]);
  }
  Entry dup;
  dup.value = e->value;
  dup.expire_ms = e->expire_ms;
  dup.str_encoding = e->str_encoding;
  dst.put(argv[2], std::move(dup));
  dst.touch(argv[2]);
  notify_in_db(ctx, static_cast<int>(dbid), "copy_to", argv[2]);
  return Reply::integer(1);
}

// A db index argument as getIntFromObjectOrReply reads it.
bool parse_db_index(const std::string& arg, int64_t* out) {
  return parse_int64(arg, out) && *out >= std::numeric_limits<int>::min() &&
         *out <= std::numeric_limits<int>::max();
}

// MOVE key db: 1 when moved (with its deadline), 0 when the key is absent
// here or present there (Redis 7.0 db.c moveCommand).
Reply move(CommandContext& ctx) {
  int64_t dbid = 0;
  if (!parse_db_index(ctx.argv[2], &dbid)) return errors::not_integer();
  if (dbid < 0 || dbid >= ServerAccess::keyspace(ctx.server).databases()) {
    return Reply::error("ERR DB index is out of range");
  }
  const int srcid = SessionAccess::db(ctx.session);
  if (dbid == srcid) return Reply::error("ERR source and destination objects are the same");
  Db& src = current_db(ctx);
  Db& dst = ServerAccess::keyspace(ctx.server).db(static_cast<int>(dbid));
  const std::string& key = ctx.argv[1];
  if (src.lookup(key, ctx.now_ms) == nullptr) return Reply::integer(0);
  if (dst.lookup(key, ctx.now_ms) != nullptr) return Reply::integer(0);
  Entry moved = std::move(*src.peek(key));
  src.remove(key);
  dst.put(key, std::move(moved));
  dst.touch(key);
  ctx.add_dirty(1);
  notify_keyspace_event(ctx, notify::kGeneric, "move_from", key);
  notify_in_db(ctx, static_cast<int>(dbid), "move_to", key);
  return Reply::integer(1);
}

// SWAPDB index1 index2.
Reply swapdb(CommandContext& ctx) {
  int64_t a = 0;
  int64_t b = 0;
  if (!parse_db_index(ctx.argv[1], &a)) return Reply::error("ERR invalid first DB index");
  if (!parse_db_index(ctx.argv[2], &b)) return Reply::error("ERR invalid second DB index");
  const int64_t n = ServerAccess::keyspace(ctx.server).databases();
  if (a < 0 || a >= n || b < 0 || b >= n) return Reply::error("ERR DB index is out of range");
  ServerAccess::keyspace(ctx.server).swap(static_cast<int>(a), static_cast<int>(b));
  return Reply::ok();
}

// TOUCH: the number of keys that exist.
Reply touch(CommandContext& ctx) {
  Db& db = current_db(ctx);
  int64_t count = 0;
  for (size_t i = 1; i < ctx.argv.size(); ++i) {
    if (db.lookup(ctx.argv[i], ctx.now_ms) != nullptr) ++count;
  }
  return Reply::integer(count);
}

// OBJECT ENCODING|FREQ|IDLETIME|REFCOUNT key, OBJECT HELP. IDLETIME and
// FREQ read the key's access record (AccessClock in sim/keyspace.h). REFCOUNT is Redis's INT_MAX
// for the shared integers 0..9999, 1 otherwise.
Reply object(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  const std::string& sub = argv[1];
  auto arity = [&](size_t n, const char* name) {
    return argv.size() == n ? Reply() : errors::arity(std::string("object|") + name);
  };
  if (equals_ci(sub, "help")) {
    if (argv.size() != 2) return errors::arity("object|help");
    return help_reply(
        "OBJECT",
        {"ENCODING <key>",
         "    Return the kind of internal representation used in order to store the value",
         "    associated with a <key>.", "FREQ <key>",
         "    Return the access frequency index of the <key>. The returned integer is",
         "    proportional to the logarithm of the recent access frequency of the key.",
         "IDLETIME <key>",
         "    Return the idle time of the <key>, that is the approximated number of",
         "    seconds elapsed since the last access to the key.", "REFCOUNT <key>",
         "    Return the number of references of the value associated with the specified",
         "    <key>."});
  }
  const char* name = equals_ci(sub, "encoding")   ? "encoding"
                     : equals_ci(sub, "freq")     ? "freq"
                     : equals_ci(sub, "idletime") ? "idletime"
                     : equals_ci(sub, "refcount") ? "refcount"
                                                  : nullptr;
  if (name == nullptr) {
    return Reply::error(
        one_line("ERR unknown subcommand '" + sub.substr(0, 128) + "'. Try OBJECT HELP."));
  }
  if (Reply r = arity(3, name); r.is_error()) return r;
  Entry* e = current_db(ctx).lookup(argv[2], ctx.now_ms, /*touch=*/false);
  if (e == nullptr) return Reply::nil();
  std::string_view which = name;
  if (which == "encoding") return Reply::bulk(std::string(encoding_name(*e)));
  const AccessClock& clock = ServerAccess::keyspace(ctx.server).access();
  if (which == "idletime") {
    if (clock.lfu) {
      return Reply::error(
          "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when "
          "switching between policies at runtime LRU and LFU data will take some time to adjust.");
    }
    return Reply::integer(clock.idle_s(*e));
  }
  if (which == "freq") {
    if (!clock.lfu) {
      return Reply::error(
          "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please "
          "note that when switching between policies at runtime LRU and LFU data will take some "
          "time to adjust.");
    }
    return Reply::integer(clock.lfu_decayed(*e));
  }
  int64_t v = 0;
  bool shared = e->is_string() && encoding_name(*e) == "int" && parse_int64(e->str(), &v) &&
                v >= 0 && v < 10000;
  return Reply::integer(shared ? std::numeric_limits<int32_t>::max() : 1);
}

}  // namespace

void register_key_commands(CommandTable& table) {
  register_sort_commands(table);
  register_dump_commands(table);
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
  table.add({"keys", 2, kCmdReadonly, &keys});
  table.add({"scan", -2, kCmdReadonly, &scan});
  table.add({"rename", 3, kCmdWrite, &rename});
  table.add({"renamenx", 3, kCmdWrite | kCmdFast, &renamenx});
  table.add({"randomkey", 1, kCmdReadonly, &randomkey});
  table.add({"copy", -3, kCmdWrite | kCmdDenyOom, &copy});
  table.add({"move", 3, kCmdWrite | kCmdFast, &move});
  table.add({"swapdb", 3, kCmdWrite | kCmdFast, &swapdb});
  table.add({"touch", -2, kCmdReadonly | kCmdFast, &touch});
  table.add({"object", -2, kCmdReadonly, &object});
  // Redis 7.0.15's OBJECT subcommands (COMMAND INFO): a script may run them all.
  static constexpr SubcommandSpec kObjectSubcommands[] = {
      {"encoding", 3, kCmdReadonly}, {"freq", 3, kCmdReadonly},     {"help", 2, 0},
      {"idletime", 3, kCmdReadonly}, {"refcount", 3, kCmdReadonly},
  };
  table.add_subcommands("object", kObjectSubcommands);
}

}  // namespace redsim::sim
