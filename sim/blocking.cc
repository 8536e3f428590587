#include "sim/blocking.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/args.h"
#include "sim/cmd_util.h"
#include "sim/internal.h"

namespace redsim::sim {

using resp::Reply;

bool parse_block_timeout(const CommandContext& ctx, std::string_view arg, bool seconds,
                         std::optional<int64_t>* deadline_ms, Reply* error) {
  int64_t ms = 0;
  if (seconds) {
    long double value = 0;
    if (!parse_long_double(arg, &value) || std::isnan(value)) {
      *error = Reply::error("ERR timeout is not a float or out of range");
      return false;
    }
    // getTimeoutFromObjectOrReply rounds up (ceill): 0.001 s, whose long
    // double is a hair under a thousandth, is 1 ms, not 0 (block forever).
    long double scaled = std::ceil(value * 1000.0L);
    // Redis casts to long long: on x86 a value out of range becomes
    // LLONG_MIN, hence "negative" (redis-server 7.0.15: BLPOP k 1e20).
    constexpr long double kLimit = 9223372036854775807.0L;
    if (!(scaled < kLimit) || !(scaled > -kLimit)) {
      *error = Reply::error("ERR timeout is negative");
      return false;
    }
    ms = static_cast<int64_t>(scaled);
  } else if (!parse_int64(arg, &ms)) {
    *error = Reply::error("ERR timeout is not an integer or out of range");
    return false;
  }
  if (ms < 0) {
    *error = Reply::error("ERR timeout is negative");
    return false;
  }
  if (ms == 0) {
    *deadline_ms = std::nullopt;
  } else {
    int64_t sum = 0;
    *deadline_ms =
        __builtin_add_overflow(ctx.now_ms, ms, &sum) ? std::numeric_limits<int64_t>::max() : sum;
  }
  return true;
}

bool may_block(const CommandContext& ctx) {
  if (ctx.in_script || ctx.server.call_depth() != 1) return false;
  return true;
}

Reply block_or_reply(CommandContext& ctx, const std::vector<std::string>& keys,
                     std::optional<int64_t> deadline_ms, Reply timeout_reply, Argv argv,
                     ValueType type) {
  Blocking& blocking = ServerAccess::blocking(ctx.server);
  if (blocking.rerunning) {
    blocking.still_blocked = true;
    return Reply::nil();
  }
  if (!may_block(ctx)) return timeout_reply;
  Blocking::Client client;
  client.session = &ctx.session;
  client.db = SessionAccess::db(ctx.session);
  client.keys = keys;
  client.deadline_ms = deadline_ms;
  client.timeout_reply = std::move(timeout_reply);
  client.argv = std::move(argv);
  client.type = type;
  blocking.block(ctx.server, std::move(client));
  return Reply::nil();
}

bool unblock_client(Server& server, uint64_t session_id, bool error) {
  auto it = server.sessions().find(session_id);
  if (it == server.sessions().end()) return false;
  Blocking& blocking = ServerAccess::blocking(server);
  if (const Blocking::Client* c = blocking.find(session_id)) {
    ServerAccess::count_unblocked(server, c->argv, /*failed=*/true);
  }
  if (error) {
    return blocking.unblock(server, *it->second,
                            Reply::error("UNBLOCKED client unblocked via CLIENT UNBLOCK"));
  }
  return blocking.unblock_timeout(server, *it->second);
}

void Blocking::block(Server& server, Client client) {
  const uint64_t id = client.session->id();
  Db& db = ServerAccess::keyspace(server).db(client.db);
  // A key named twice (BLPOP k k 0) waits once.
  std::vector<std::string> unique;
  for (const std::string& key : client.keys) {
    if (std::find(unique.begin(), unique.end(), key) != unique.end()) continue;
    unique.push_back(key);
    db.add_blocking(key);
    by_key_[{client.db, key}].push_back(id);
  }
  client.keys = std::move(unique);
  SessionAccess::set_blocked(*client.session, true);
  clients_[id] = std::move(client);
}

void Blocking::remove(Server& server, uint64_t session_id) {
  auto it = clients_.find(session_id);
  if (it == clients_.end()) return;
  Db& db = ServerAccess::keyspace(server).db(it->second.db);
  for (const std::string& key : it->second.keys) {
    db.remove_blocking(key);
    auto q = by_key_.find({it->second.db, key});
    if (q == by_key_.end()) continue;
    std::erase(q->second, session_id);
    if (q->second.empty()) by_key_.erase(q);
  }
  SessionAccess::set_blocked(*it->second.session, false);
  clients_.erase(it);
}

bool Blocking::unblock(Server& server, Session& session, Reply reply) {
  if (!session.blocked()) return false;
  remove(server, session.id());
  if (session.protocol() == resp::Protocol::kResp2 && reply.has_resp3()) {
    reply = resp::to_resp2(std::move(reply));
  }
  unblocked_.push_back(Server::Unblocked{&session, std::move(reply)});
  return true;
}

bool Blocking::unblock_timeout(Server& server, Session& session) {
  auto it = clients_.find(session.id());
  if (it == clients_.end()) return false;
  Reply reply = it->second.timeout_reply;
  return unblock(server, session, std::move(reply));
}

void Blocking::forget(Server& server, Session& session) {
  remove(server, session.id());
  std::erase_if(unblocked_, [&](const Server::Unblocked& u) { return u.session == &session; });
}

void Blocking::serve(Server& server) {
  Keyspace& ks = ServerAccess::keyspace(server);
  while (ks.has_ready_keys()) {
    for (auto& [db_index, key] : ks.take_ready_keys()) {
      auto q = by_key_.find({db_index, key});
      if (q == by_key_.end()) continue;
      const std::deque<uint64_t> waiting = q->second;  // serving edits the queue
      for (uint64_t id : waiting) {
        auto c = clients_.find(id);
        if (c == clients_.end()) continue;
        Db& db = ks.db(db_index);
        Entry* e = db.lookup(key, server.now_ms());
        Session& session = *c->second.session;
        if (e == nullptr || e->type() != c->second.type) {
          // A consumer group waits on a stream that is gone (deleted,
          // flushed, another type now): Redis 7.0 ends the block with an
          // error; the others keep waiting.
          if (c->second.type == ValueType::kStream && equals_ci(c->second.argv[0], "xreadgroup")) {
            unblock(server, session, Reply::error("UNBLOCKED the stream key no longer exists"));
          }
          continue;
        }
        const Argv argv = c->second.argv;
        const CommandTable::Lookup command = server.commands().lookup(argv[0]);
        if (command.spec == nullptr) continue;
        int& session_db = SessionAccess::db(session);
        const int db_before = std::exchange(session_db, db_index);
        rerunning = true;
        still_blocked = false;
        Reply reply = ServerAccess::call(server, session, command, argv);
        rerunning = false;
        session_db = db_before;
        if (still_blocked) continue;  // keeps its place
        unblock(server, session, std::move(reply));
      }
    }
  }
}

size_t Blocking::time_out(Server& server, int64_t now_ms) {
  // By deadline, then by client id, as Redis's timeout radix tree orders them.
  struct Due {
    int64_t deadline_ms;
    uint64_t id;
    Session* session;
  };
  std::vector<Due> due;
  for (auto& [id, c] : clients_) {
    if (c.deadline_ms && now_ms > *c.deadline_ms) due.push_back({*c.deadline_ms, id, c.session});
  }
  std::sort(due.begin(), due.end(), [](const Due& a, const Due& b) {
    return a.deadline_ms != b.deadline_ms ? a.deadline_ms < b.deadline_ms : a.id < b.id;
  });
  for (const Due& d : due) {
    ServerAccess::count_unblocked(server, clients_.at(d.id).argv, /*failed=*/false);
    unblock_timeout(server, *d.session);
  }
  return due.size();
}

std::optional<int64_t> Blocking::next_deadline_ms() const {
  std::optional<int64_t> next;
  for (const auto& [id, c] : clients_) {
    if (c.deadline_ms && (!next || *c.deadline_ms < *next)) next = c.deadline_ms;
  }
  return next;
}

}  // namespace redsim::sim
