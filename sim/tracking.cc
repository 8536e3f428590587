#include "sim/tracking.h"

#include <utility>

#include "sim/internal.h"

namespace redsim::sim {

using resp::Reply;

namespace {

// Redis's TrackingChannelName.
constexpr std::string_view kInvalidateChannel = "__redis__:invalidate";

Session* session_by_id(Server& server, uint64_t id) {
  auto it = server.sessions().find(id);
  return it == server.sessions().end() ? nullptr : it->second;
}

Reply key_array(std::string_view key) { return Reply::array({Reply::bulk(std::string(key))}); }

// stringCheckPrefix: one of the two is a prefix of the other.
bool overlaps(std::string_view a, std::string_view b) {
  size_t n = std::min(a.size(), b.size());
  return a.substr(0, n) == b.substr(0, n);
}

}  // namespace

void Tracking::enable(uint64_t id, uint64_t redirect, bool bcast, bool optin, bool optout,
                      bool noloop, const std::vector<std::string>& prefixes) {
  Client& c = clients_[id];
  c.redirect = redirect;
  c.broken_redirect = false;
  c.bcast = bcast;
  c.optin = optin;
  c.optout = optout;
  c.noloop = noloop;
  table_created_ = true;
  if (!bcast) return;
  auto add = [&](const std::string& prefix) {
    prefix_table_[prefix].clients.insert(id);
    c.prefixes.insert(prefix);
  };
  if (prefixes.empty()) add("");
  for (const std::string& p : prefixes) add(p);
}

void Tracking::disable(uint64_t id) {
  auto it = clients_.find(id);
  if (it == clients_.end()) return;
  for (const std::string& prefix : it->second.prefixes) {
    auto p = prefix_table_.find(prefix);
    if (p == prefix_table_.end()) continue;
    p->second.clients.erase(id);
    if (p->second.clients.empty()) prefix_table_.erase(p);
  }
  clients_.erase(it);
}

Tracking::Client* Tracking::find(uint64_t id) {
  auto it = clients_.find(id);
  return it == clients_.end() ? nullptr : &it->second;
}

const Tracking::Client* Tracking::find(uint64_t id) const {
  auto it = clients_.find(id);
  return it == clients_.end() ? nullptr : &it->second;
}

std::optional<std::string> Tracking::prefix_collision(
    uint64_t id, const std::vector<std::string>& prefixes) const {
  const Client* c = find(id);
  for (size_t i = 0; i < prefixes.size(); ++i) {
    if (c != nullptr) {
      for (const std::string& existing : c->prefixes) {
        if (overlaps(existing, prefixes[i])) {
          return "ERR Prefix '" + prefixes[i] + "' overlaps with an existing prefix '" + existing +
                 "'. Prefixes for a single client must not overlap.";
        }
      }
    }
    for (size_t j = i + 1; j < prefixes.size(); ++j) {
      if (overlaps(prefixes[i], prefixes[j])) {
        // Redis 7.0.15 returns i from checkPrefixCollisionsOrReply here, so
        // for i > 0 it also enables tracking and replies +OK after this
        // error (two replies to one command); the fake answers the error
        // alone and changes nothing.
        return "ERR Prefix '" + prefixes[i] + "' overlaps with another provided prefix '" +
               prefixes[j] + "'. Prefixes for a single client must not overlap.";
      }
    }
  }
  return std::nullopt;
}

void Tracking::remember_keys(uint64_t id, const std::vector<std::string_view>& keys) {
  const Client* c = find(id);
  if (c == nullptr || c->bcast) return;
  if ((c->optin && !c->caching) || (c->optout && c->caching)) return;
  for (std::string_view key : keys) {
    auto it = table_.find(key);
    if (it == table_.end()) it = table_.emplace(std::string(key), std::set<uint64_t>{}).first;
    if (it->second.insert(id).second) ++total_items_;
  }
}

void Tracking::send(Server& server, Session& client, Client& state, const Reply& payload) {
  Session* target = &client;
  bool redirected = false;
  if (state.redirect != 0) {
    target = session_by_id(server, state.redirect);
    if (target == nullptr) {
      state.broken_redirect = true;
      if (client.protocol() == resp::Protocol::kResp3) {
        SessionAccess::push(client,
                            Reply::push({Reply::bulk("tracking-redir-broken"),
                                         Reply::integer(static_cast<int64_t>(state.redirect))}));
      }
      return;
    }
    redirected = true;
  }
  if (target->protocol() == resp::Protocol::kResp3) {
    SessionAccess::push(*target, Reply::push({Reply::bulk("invalidate"), payload}));
  } else if (redirected && target->subscribed()) {
    SessionAccess::push(
        *target, Reply::push({Reply::bulk("message"), Reply::bulk(std::string(kInvalidateChannel)),
                              payload}));
  }
  // Else RESP2 without a redirect: nothing can carry the message.
}

void Tracking::invalidate_key(Server& server, std::string_view key, const Session* writer,
                              Session* current, bool bcast) {
  if (!table_created_) return;
  if (bcast && !prefix_table_.empty()) {
    // trackingRememberKeyToBroadcast: every prefix the key starts with.
    uint64_t writer_id = writer != nullptr ? writer->id() : 0;
    for (auto& [prefix, state] : prefix_table_) {
      if (key.starts_with(prefix)) state.keys.insert_or_assign(std::string(key), writer_id);
    }
  }
  auto it = table_.find(key);
  if (it == table_.end()) return;
  std::set<uint64_t> ids = std::move(it->second);
  total_items_ -= ids.size();
  table_.erase(it);
  for (uint64_t id : ids) {
    Client* state = find(id);
    Session* target = session_by_id(server, id);
    if (target == nullptr || state == nullptr || state->bcast) continue;
    if (state->noloop && target == current) continue;
    if (target == current) {
      pending_.emplace_back(std::string(key));
    } else {
      send(server, *target, *state, key_array(key));
    }
  }
}

void Tracking::invalidate_all(Server& server, Session* current) {
  if (!clients_.empty()) {
    // server.clients' order: connection order, which is id order here.
    std::vector<uint64_t> ids;
    for (const auto& [id, state] : clients_) ids.push_back(id);
    for (uint64_t id : ids) {
      Session* s = session_by_id(server, id);
      Client* state = find(id);
      if (s == nullptr || state == nullptr) continue;
      if (s == current) {
        pending_.emplace_back(std::nullopt);
      } else {
        send(server, *s, *state, Reply::nil());
      }
    }
  }
  table_.clear();
  total_items_ = 0;
}

void Tracking::send_pending(Server& server, Session* current) {
  if (pending_.empty()) return;
  std::vector<std::optional<std::string>> pending = std::move(pending_);
  pending_.clear();
  if (current == nullptr) return;
  for (const std::optional<std::string>& key : pending) {
    Client* state = find(current->id());
    // Redis sends them whatever the client's state now (a command may have
    // turned tracking off); without tracking state there is no redirect.
    Client none;
    send(server, *current, state != nullptr ? *state : none, key ? key_array(*key) : Reply::nil());
  }
}

void Tracking::broadcast(Server& server) {
  if (!table_created_ || clients_.empty()) return;
  for (auto& [prefix, state] : prefix_table_) {
    if (state.keys.empty()) continue;
    std::map<std::string, uint64_t, std::less<>> keys = std::move(state.keys);
    state.keys.clear();
    std::vector<uint64_t> ids(state.clients.begin(), state.clients.end());
    for (uint64_t id : ids) {
      Session* s = session_by_id(server, id);
      Client* c = find(id);
      if (s == nullptr || c == nullptr) continue;
      std::vector<Reply> names;
      for (const auto& [key, writer] : keys) {
        if (c->noloop && writer == id) continue;  // trackingBuildBroadcastReply
        names.push_back(Reply::bulk(key));
      }
      if (names.empty()) continue;
      send(server, *s, *c, Reply::array(std::move(names)));
    }
  }
}

void Tracking::limit_used_slots(Server& server, Session* current, uint64_t max_keys) {
  if (!table_created_ || max_keys == 0) return;
  if (table_.size() <= max_keys) {
    limit_rounds_ = 0;
    return;
  }
  uint64_t effort = 100 * (static_cast<uint64_t>(limit_rounds_) + 1);
  while (effort > 0 && !table_.empty()) {
    --effort;
    std::string key = table_.begin()->first;
    invalidate_key(server, key, nullptr, current, /*bcast=*/false);
    if (table_.size() <= max_keys) {
      limit_rounds_ = 0;
      return;
    }
  }
  ++limit_rounds_;
}

}  // namespace redsim::sim
