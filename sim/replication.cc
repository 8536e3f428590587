// See sim/replication.h. Sources: Redis 7.0 rdb.c (rdbSaveRio,
// rdbSaveInfoAuxFields, rdbSaveKeyValuePair, rdbLoadRioWithLoadingCtx),
// replication.c (replicationFeedSlaves, readSyncBulkPayload), server.c
// (propagateNow, alsoPropagate); facts only.
#include "sim/replication.h"

#include <set>
#include <utility>
#include <vector>

#include "sim/args.h"
#include "sim/internal.h"
#include "sim/keyspace.h"
#include "sim/rdb.h"

namespace redsim::sim {

namespace {

void put_aux(std::string* out, std::string_view name, std::string_view value) {
  out->push_back(static_cast<char>(rdb::kOpAux));
  rdb::put_string(out, name);
  rdb::put_string(out, value);
}

void put_le64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

}  // namespace

void Server::set_replication_hooks(ReplicationHooks hooks) {
  replication_ = std::move(hooks);
  KeyHooks& key_hooks = keyspace_->hooks();
  key_hooks.record_changes = static_cast<bool>(replication_.propagate);
  key_hooks.changed.clear();
}

void record_changes(Server& server, bool on) {
  KeyHooks& key_hooks = ServerAccess::keyspace(server).hooks();
  key_hooks.record_changes = on && static_cast<bool>(server.replication_hooks().propagate);
  key_hooks.changed.clear();
}

std::string save_rdb(Server& server, std::string_view replid, uint64_t offset) {
  Keyspace& keyspace = ServerAccess::keyspace(server);
  const int64_t now_ms = server.now_ms();
  std::string out = "REDIS0010";
  put_aux(&out, "redis-ver", "7.0.15");
  put_aux(&out, "redis-bits", "64");
  put_aux(&out, "ctime", std::to_string(now_ms / 1000));
  put_aux(&out, "used-mem", std::to_string(server.used_memory_bytes()));
  put_aux(&out, "repl-stream-db", "0");
  put_aux(&out, "repl-id", replid);
  put_aux(&out, "repl-offset", std::to_string(offset));
  put_aux(&out, "aof-base", "0");
  for (int index = 0; index < keyspace.databases(); ++index) {
    Db& db = keyspace.db(index);
    std::string records;
    uint64_t keys = 0;
    uint64_t expires = 0;
    for (const std::string& key : server.stored_keys(index)) {
      const Entry* e = db.peek(key);
      if (e == nullptr || e->expired_at(now_ms)) continue;
      const std::string payload = rdb::dump_payload(*e);
      if (payload.empty()) continue;  // a stream
      if (e->has_expire()) {
        records.push_back(static_cast<char>(rdb::kOpExpireTimeMs));
        put_le64(&records, static_cast<uint64_t>(e->expire_ms));
        ++expires;
      }
      records.push_back(payload[0]);
      rdb::put_string(&records, key);
      records.append(payload, 1, payload.size() - 11);
      ++keys;
    }
    if (keys == 0) continue;
    out.push_back(static_cast<char>(rdb::kOpSelectDb));
    rdb::put_len(&out, static_cast<uint64_t>(index));
    out.push_back(static_cast<char>(rdb::kOpResizeDb));
    rdb::put_len(&out, keys);
    rdb::put_len(&out, expires);
    out += records;
  }
  out.push_back(static_cast<char>(rdb::kOpEof));
  put_le64(&out, rdb::crc64(out));
  return out;
}

std::string load_rdb(Server& server, std::string_view file) {
  Keyspace& keyspace = ServerAccess::keyspace(server);
  std::vector<rdb::LoadedKey> keys;
  std::string error = rdb::load_file(file, keyspace.limits(),
                                     [&](rdb::LoadedKey&& k) { keys.push_back(std::move(k)); });
  if (!error.empty()) return error;
  for (const rdb::LoadedKey& k : keys) {
    if (k.db < 0 || k.db >= keyspace.databases()) {
      return "FATAL: Data file was created with a Redis server configured to handle more than " +
             std::to_string(keyspace.databases()) + " databases.";
    }
  }
  const int64_t now_ms = server.now_ms();
  for (int index = 0; index < keyspace.databases(); ++index) keyspace.db(index).clear(now_ms);
  for (rdb::LoadedKey& k : keys) {
    Db& db = keyspace.db(k.db);
    Entry& stored = db.put(k.key, std::move(k.entry));
    db.set_expire(k.key, stored, k.expire_ms < 0 ? Entry::kNoExpire : k.expire_ms);
  }
  keyspace.hooks().changed.clear();  // a sub-replica needs a full resync anyway
  return "";
}

void propagate_changes(Server& server) {
  Keyspace& keyspace = ServerAccess::keyspace(server);
  KeyHooks& hooks = keyspace.hooks();
  const ReplicationHooks& repl = server.replication_hooks();
  if (hooks.changed.empty() || !repl.propagate) return;
  std::vector<std::pair<int, std::string>> changed = std::move(hooks.changed);
  hooks.changed.clear();
  std::set<std::pair<int, std::string>> seen;
  std::vector<std::pair<int, Argv>> commands;
  const int64_t now_ms = server.now_ms();
  for (auto& [index, key] : changed) {
    if (!seen.insert({index, key}).second) continue;
    const Entry* e = keyspace.db(index).peek(key);
    if (e == nullptr || e->expired_at(now_ms)) {
      commands.push_back({index, {"DEL", key}});
      continue;
    }
    std::string payload = rdb::dump_payload(*e);
    if (payload.empty()) continue;  // a stream: not replicated
    std::string deadline = e->has_expire() ? std::to_string(e->expire_ms) : "0";
    commands.push_back(
        {index, {"RESTORE", key, std::move(deadline), std::move(payload), "REPLACE", "ABSTTL"}});
  }
  if (commands.empty()) return;
  const bool transaction = commands.size() > 1;
  if (transaction) repl.propagate(-1, {"MULTI"});
  for (const auto& [index, argv] : commands) repl.propagate(index, argv);
  if (transaction) repl.propagate(-1, {"EXEC"});
}

void propagate_command(Server& server, Session& session, const Argv& argv,
                       const resp::Reply& reply) {
  const ReplicationHooks& repl = server.replication_hooks();
  const std::string_view name = argv[0];
  const bool flush = equals_ci(name, "flushall") || equals_ci(name, "flushdb");
  const bool swap = equals_ci(name, "swapdb");
  const bool publish = equals_ci(name, "publish") || equals_ci(name, "spublish");
  bool function = false;
  if (equals_ci(name, "function") && argv.size() > 1) {
    for (std::string_view sub : {"load", "delete", "flush", "restore"}) {
      function = function || equals_ci(argv[1], sub);
    }
  }
  if (flush || swap) {
    // The flush's own deletions are the command itself.
    ServerAccess::keyspace(server).hooks().changed.clear();
  } else {
    propagate_changes(server);
  }
  if (reply.is_error() || !(flush || swap || publish || function)) return;
  const int db = equals_ci(name, "flushdb") ? SessionAccess::db(session) : -1;
  repl.propagate(db, argv);
}

}  // namespace redsim::sim
