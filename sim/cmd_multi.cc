// MULTI EXEC DISCARD WATCH UNWATCH, and the WATCH bookkeeping.
// Source: Redis 7.0 "Transactions" docs and src/multi.c behaviour, verified
// against redis-server 7.0.15: a watched key that was live at WATCH and has
// expired by EXEC (deleted by expiry or not yet) fails the transaction.
#include <algorithm>

#include "sim/args.h"
#include "sim/cmd_admin.h"
#include "sim/internal.h"

namespace redsim::sim {

using resp::Reply;

void watch_key(Session& s, Db& db, std::string_view key, int64_t now_ms) {
  auto& watched = SessionAccess::watched(s);
  for (const auto& wk : watched) {
    if (wk.db == db.index() && wk.key == key) return;
  }
  // Remember whether the key was already expired: such a key expiring (or
  // being deleted because it had) changes nothing logically.
  Entry* e = db.peek(key);
  bool expired = e != nullptr && e->expired_at(now_ms);
  watched.push_back({db.index(), std::string(key), expired});
  db.add_watcher(key, &s);
}

void unwatch_all(Session& s) {
  auto& watched = SessionAccess::watched(s);
  Keyspace& ks = ServerAccess::keyspace(SessionAccess::server(s));
  for (const auto& wk : watched) ks.db(wk.db).remove_watcher(wk.key, &s);
  watched.clear();
  SessionAccess::watch_dirty(s) = false;
}

void discard_transaction(Session& s) {
  SessionAccess::queued(s).clear();
  SessionAccess::in_multi(s) = false;
  SessionAccess::multi_dirty(s) = false;
  unwatch_all(s);
}

void on_watched_key_touched(Session& s, int db, std::string_view key, TouchKind kind) {
  auto& watched = SessionAccess::watched(s);
  auto it = std::find_if(watched.begin(), watched.end(),
                         [&](const auto& wk) { return wk.db == db && wk.key == key; });
  if (it == watched.end()) return;
  switch (kind) {
    case TouchKind::kWrite:
      SessionAccess::watch_dirty(s) = true;
      break;
    case TouchKind::kExpired:
      if (!it->expired_at_watch) {
        SessionAccess::watch_dirty(s) = true;
      }
      break;
    case TouchKind::kFlush:
      SessionAccess::watch_dirty(s) = true;
      break;
  }
}

namespace {

Reply multi(CommandContext& ctx) {
  bool& in_multi = SessionAccess::in_multi(ctx.session);
  if (in_multi) return Reply::error("ERR MULTI calls can not be nested");
  in_multi = true;
  return Reply::ok();
}

// The documented rule (Redis >= 6.0.9): a key live at WATCH and expired now.
bool watched_key_expired(CommandContext& ctx) {
  Keyspace& ks = ServerAccess::keyspace(ctx.server);
  for (const auto& wk : SessionAccess::watched(ctx.session)) {
    if (wk.expired_at_watch) continue;
    Entry* e = ks.db(wk.db).peek(wk.key);
    if (e != nullptr && e->expired_at(ctx.now_ms)) return true;
  }
  return false;
}

Reply exec(CommandContext& ctx) {
  Session& s = ctx.session;
  if (!SessionAccess::in_multi(s)) return Reply::error("ERR EXEC without MULTI");
  if (watched_key_expired(ctx)) {
    SessionAccess::watch_dirty(s) = true;
  }
  if (SessionAccess::multi_dirty(s)) {
    discard_transaction(s);
    return Reply::error("EXECABORT Transaction discarded because of previous errors.");
  }
  if (SessionAccess::watch_dirty(s)) {
    discard_transaction(s);
    return Reply::nil_array();
  }
  std::vector<Argv> queued = std::move(SessionAccess::queued(s));
  discard_transaction(s);
  std::vector<Reply> replies;
  replies.reserve(queued.size());
  for (const Argv& argv : queued) {
    // Queued commands passed lookup and arity when they were queued; ACLs
    // are checked again (they may have changed since).
    CommandTable::Lookup command = ctx.server.commands().lookup(argv[0]);
    if (std::optional<Reply> refused = admin::acl_exec_refusal(ctx.server, s, command, argv)) {
      replies.push_back(std::move(*refused));
      continue;
    }
    replies.push_back(ServerAccess::call(ctx.server, s, command, argv));
  }
  return Reply::array(std::move(replies));
}

Reply discard(CommandContext& ctx) {
  if (!SessionAccess::in_multi(ctx.session)) return Reply::error("ERR DISCARD without MULTI");
  discard_transaction(ctx.session);
  return Reply::ok();
}

Reply watch(CommandContext& ctx) {
  Session& s = ctx.session;
  if (SessionAccess::in_multi(s)) return Reply::error("ERR WATCH inside MULTI is not allowed");
  // Already failed: no need to watch more (Redis returns early too).
  if (SessionAccess::watch_dirty(s)) return Reply::ok();
  Db& db = current_db(ctx);
  for (size_t i = 1; i < ctx.argv.size(); ++i) watch_key(s, db, ctx.argv[i], ctx.now_ms);
  return Reply::ok();
}

Reply unwatch(CommandContext& ctx) {
  unwatch_all(ctx.session);
  return Reply::ok();
}

}  // namespace

void register_multi_commands(CommandTable& table) {
  table.add({"multi", 1, kCmdNoScript | kCmdNoMulti | kCmdFast, &multi});
  table.add({"exec", 1, kCmdNoScript | kCmdNoMulti, &exec});
  table.add({"discard", 1, kCmdNoScript | kCmdNoMulti | kCmdFast, &discard});
  table.add({"watch", -2, kCmdNoScript | kCmdNoMulti | kCmdFast, &watch});
  table.add({"unwatch", 1, kCmdNoScript | kCmdFast, &unwatch});
}

}  // namespace redsim::sim
