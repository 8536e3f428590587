#include "sim/pubsub.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/glob.h"
#include "sim/internal.h"
#include "sim/server.h"

namespace redsim::sim {

namespace {

bool contains(const std::vector<std::string>& list, std::string_view item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

bool remove_item(std::vector<std::string>& list, std::string_view item) {
  auto it = std::find(list.begin(), list.end(), item);
  if (it == list.end()) return false;
  list.erase(it);
  return true;
}

using ChannelMap =
    std::unordered_map<std::string, std::vector<Session*>, StringHash, std::equal_to<>>;

bool add_channel(ChannelMap& map, std::vector<std::string>& own, Session& session,
                 std::string_view channel) {
  if (contains(own, channel)) return false;
  own.emplace_back(channel);
  auto it = map.find(channel);
  if (it == map.end()) it = map.try_emplace(std::string(channel)).first;
  it->second.push_back(&session);
  return true;
}

bool remove_channel(ChannelMap& map, std::vector<std::string>& own, Session& session,
                    std::string_view channel) {
  if (!remove_item(own, channel)) return false;
  auto it = map.find(channel);
  if (it != map.end()) {
    auto& subs = it->second;
    subs.erase(std::remove(subs.begin(), subs.end(), &session), subs.end());
    if (subs.empty()) map.erase(it);
  }
  return true;
}

}  // namespace

bool PubSub::subscribe(Session& session, std::string_view channel) {
  return add_channel(channels_, SessionAccess::channels(session), session, channel);
}

bool PubSub::unsubscribe(Session& session, std::string_view channel) {
  return remove_channel(channels_, SessionAccess::channels(session), session, channel);
}

bool PubSub::ssubscribe(Session& session, std::string_view channel) {
  return add_channel(shard_channels_, SessionAccess::shard_channels(session), session, channel);
}

bool PubSub::sunsubscribe(Session& session, std::string_view channel) {
  return remove_channel(shard_channels_, SessionAccess::shard_channels(session), session, channel);
}

bool PubSub::psubscribe(Session& session, std::string_view pattern) {
  if (contains(SessionAccess::patterns(session), pattern)) return false;
  SessionAccess::patterns(session).emplace_back(pattern);
  patterns_.emplace_back(std::string(pattern), &session);
  return true;
}

bool PubSub::punsubscribe(Session& session, std::string_view pattern) {
  if (!remove_item(SessionAccess::patterns(session), pattern)) return false;
  auto it = std::find_if(patterns_.begin(), patterns_.end(),
                         [&](const auto& p) { return p.second == &session && p.first == pattern; });
  if (it != patterns_.end()) patterns_.erase(it);
  return true;
}

void PubSub::remove_session(Session& session) {
  while (!SessionAccess::channels(session).empty())
    unsubscribe(session, std::string(SessionAccess::channels(session).back()));
  while (!SessionAccess::patterns(session).empty())
    punsubscribe(session, std::string(SessionAccess::patterns(session).back()));
  while (!SessionAccess::shard_channels(session).empty())
    sunsubscribe(session, std::string(SessionAccess::shard_channels(session).back()));
}

int64_t PubSub::spublish(std::string_view channel, std::string_view message) {
  std::vector<Session*> receivers;
  if (auto it = shard_channels_.find(channel); it != shard_channels_.end()) {
    receivers = it->second;
  }
  for (Session* s : receivers) {
    SessionAccess::push(*s, resp::Reply::push({resp::Reply::bulk("smessage"),
                                               resp::Reply::bulk(std::string(channel)),
                                               resp::Reply::bulk(std::string(message))}));
  }
  return static_cast<int64_t>(receivers.size());
}

std::vector<std::string> PubSub::channels(const std::string* pattern, bool shard) const {
  std::vector<std::string> out;
  for (const auto& [name, subs] : shard ? shard_channels_ : channels_) {
    if (pattern == nullptr || glob_match(*pattern, name)) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

int64_t PubSub::subscribers(std::string_view channel, bool shard) const {
  const auto& map = shard ? shard_channels_ : channels_;
  auto it = map.find(channel);
  return it == map.end() ? 0 : static_cast<int64_t>(it->second.size());
}

size_t PubSub::distinct_pattern_count() const {
  std::set<std::string_view> seen;
  for (const auto& [pattern, session] : patterns_) seen.insert(pattern);
  return seen.size();
}

int64_t PubSub::publish(std::string_view channel, std::string_view message) {
  // Collect the receivers before delivering: a push handler may react by
  // running commands that change the subscriptions.
  std::vector<Session*> channel_receivers;
  if (auto it = channels_.find(channel); it != channels_.end()) channel_receivers = it->second;
  std::vector<std::pair<std::string, Session*>> pattern_receivers;
  for (const auto& [pattern, session] : patterns_) {
    if (glob_match(pattern, channel)) pattern_receivers.emplace_back(pattern, session);
  }
  // One push for every channel receiver, built once (every unlock publishes
  // to every waiter), and its RESP2 form once if a receiver speaks RESP2.
  if (!channel_receivers.empty()) {
    std::vector<resp::Reply> elements;
    elements.reserve(3);
    elements.push_back(resp::Reply::bulk("message"));
    elements.push_back(resp::Reply::bulk(std::string(channel)));
    elements.push_back(resp::Reply::bulk(std::string(message)));
    const resp::Reply push = resp::Reply::push(std::move(elements));
    std::optional<resp::Reply> resp2;
    for (Session* s : channel_receivers) {
      if (SessionAccess::protocol(*s) == resp::Protocol::kResp2) {
        if (!resp2) resp2 = resp::to_resp2(push);
        SessionAccess::push_shared(*s, *resp2);
      } else {
        SessionAccess::push_shared(*s, push);
      }
    }
  }
  // Each pattern push's elements are moved into its array (a braced list
  // would copy them once more).
  for (auto& [pattern, s] : pattern_receivers) {
    std::vector<resp::Reply> elements;
    elements.reserve(4);
    elements.push_back(resp::Reply::bulk("pmessage"));
    elements.push_back(resp::Reply::bulk(std::move(pattern)));
    elements.push_back(resp::Reply::bulk(std::string(channel)));
    elements.push_back(resp::Reply::bulk(std::string(message)));
    SessionAccess::push(*s, resp::Reply::push(std::move(elements)));
  }
  return static_cast<int64_t>(channel_receivers.size() + pattern_receivers.size());
}

namespace notify {

namespace {

struct Letter {
  char c;
  int flag;
};
// In CONFIG GET's order (keyspaceEventsFlagsToString).
constexpr Letter kClassLetters[] = {
    {'g', kGeneric}, {'$', kString},  {'l', kList},   {'s', kSet},    {'h', kHash}, {'z', kZset},
    {'x', kExpired}, {'e', kEvicted}, {'t', kStream}, {'d', kModule}, {'n', kNew}};
constexpr Letter kOtherLetters[] = {{'K', kKeyspace}, {'E', kKeyevent}, {'m', kKeyMiss}};

}  // namespace

int parse_flags(std::string_view classes) {
  int flags = 0;
  for (char c : classes) {
    if (c == 'A') {
      flags |= kAll;
      continue;
    }
    int found = 0;
    for (const Letter& l : kClassLetters) {
      if (l.c == c) found = l.flag;
    }
    for (const Letter& l : kOtherLetters) {
      if (l.c == c) found = l.flag;
    }
    if (found == 0) return -1;
    flags |= found;
  }
  return flags;
}

std::string flags_string(int flags) {
  std::string out;
  if ((flags & kAll) == kAll) {
    out += 'A';
  } else {
    for (const Letter& l : kClassLetters) {
      if (flags & l.flag) out += l.c;
    }
  }
  for (const Letter& l : kOtherLetters) {
    if (flags & l.flag) out += l.c;
  }
  return out;
}

}  // namespace notify

void notify_keyspace_event(CommandContext& ctx, int type, std::string_view event,
                           std::string_view key) {
  publish_keyspace_event(ctx.server, ctx.session.db(), type, event, key);
}

void publish_keyspace_event(Server& server, int db_index, int type, std::string_view event,
                            std::string_view key) {
  int flags = server.config().notify_keyspace_events;
  if (!(flags & type)) return;
  std::string db = std::to_string(db_index);
  if (flags & notify::kKeyspace) {
    ServerAccess::pubsub(server).publish("__keyspace@" + db + "__:" + std::string(key), event);
  }
  if (flags & notify::kKeyevent) {
    ServerAccess::pubsub(server).publish("__keyevent@" + db + "__:" + std::string(event), key);
  }
}

}  // namespace redsim::sim
