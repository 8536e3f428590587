#include "sim/pubsub.h"

#include <algorithm>

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

}  // namespace

bool PubSub::subscribe(Session& session, std::string_view channel) {
  if (contains(SessionAccess::channels(session), channel)) return false;
  SessionAccess::channels(session).emplace_back(channel);
  auto it = channels_.find(channel);
  if (it == channels_.end()) it = channels_.try_emplace(std::string(channel)).first;
  it->second.push_back(&session);
  return true;
}

bool PubSub::unsubscribe(Session& session, std::string_view channel) {
  if (!remove_item(SessionAccess::channels(session), channel)) return false;
  auto it = channels_.find(channel);
  if (it != channels_.end()) {
    auto& subs = it->second;
    subs.erase(std::remove(subs.begin(), subs.end(), &session), subs.end());
    if (subs.empty()) channels_.erase(it);
  }
  return true;
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
  for (Session* s : channel_receivers) {
    SessionAccess::push(*s, resp::Reply::push({resp::Reply::bulk("message"),
                                               resp::Reply::bulk(std::string(channel)),
                                               resp::Reply::bulk(std::string(message))}));
  }
  for (auto& [pattern, s] : pattern_receivers) {
    SessionAccess::push(
        *s, resp::Reply::push({resp::Reply::bulk("pmessage"), resp::Reply::bulk(std::move(pattern)),
                               resp::Reply::bulk(std::string(channel)),
                               resp::Reply::bulk(std::string(message))}));
  }
  return static_cast<int64_t>(channel_receivers.size() + pattern_receivers.size());
}

}  // namespace redsim::sim
