// Pub/sub commands: PUBLISH SUBSCRIBE UNSUBSCRIBE PSUBSCRIBE PUNSUBSCRIBE.
// A command with several confirmations returns the first and pushes the
// rest to the session, in order (see Server::execute). Reply shapes as
// Redis 7.0.15 in RESP2: ["subscribe", channel, count] where count is the
// session's channels plus patterns after the step.
#include <optional>
#include <string>

#include "sim/internal.h"
#include "sim/pubsub.h"

namespace redsim::sim {

using resp::Reply;

void drop_subscriptions(Session& s) { SessionAccess::server(s).pubsub().remove_session(s); }

namespace {

Reply confirmation(std::string_view kind, const std::string* name, const Session& s) {
  // A push in RESP3 (addReplyPubsubSubscribed's addReplyPushLen).
  return Reply::push({Reply::bulk(std::string(kind)), name ? Reply::bulk(*name) : Reply::nil(),
                      Reply::integer(static_cast<int64_t>(s.subscription_count()))});
}

// Collects the confirmations: the first is the command's reply, the others
// are pushed as they come.
class Confirmations {
 public:
  explicit Confirmations(Session& s) : session_(s) {}
  void add(Reply reply) {
    if (first_.has_value()) {
      SessionAccess::push(session_, std::move(reply));
    } else {
      first_ = std::move(reply);
    }
  }
  Reply take() { return std::move(*first_); }

 private:
  Session& session_;
  std::optional<Reply> first_;
};

// SUBSCRIBE / PSUBSCRIBE: one confirmation per name, in order.
template <bool kPattern>
Reply subscribe_generic(CommandContext& ctx) {
  PubSub& ps = ctx.server.pubsub();
  Session& s = ctx.session;
  constexpr std::string_view kind = kPattern ? "psubscribe" : "subscribe";
  Confirmations out(s);
  for (size_t i = 1; i < ctx.argv.size(); ++i) {
    if constexpr (kPattern) {
      ps.psubscribe(s, ctx.argv[i]);
    } else {
      ps.subscribe(s, ctx.argv[i]);
    }
    out.add(confirmation(kind, &ctx.argv[i], s));
  }
  return out.take();
}

Reply subscribe(CommandContext& ctx) { return subscribe_generic<false>(ctx); }
Reply psubscribe(CommandContext& ctx) { return subscribe_generic<true>(ctx); }

// UNSUBSCRIBE / PUNSUBSCRIBE: with no names, every subscription of that
// kind in subscription order, or one [kind, nil, count] when there is none.
template <bool kPattern>
Reply unsubscribe_generic(CommandContext& ctx) {
  PubSub& ps = ctx.server.pubsub();
  Session& s = ctx.session;
  constexpr std::string_view kind = kPattern ? "punsubscribe" : "unsubscribe";
  auto remove = [&](const std::string& name) {
    if constexpr (kPattern) {
      ps.punsubscribe(s, name);
    } else {
      ps.unsubscribe(s, name);
    }
  };
  Confirmations out(s);
  if (ctx.argv.size() > 1) {
    for (size_t i = 1; i < ctx.argv.size(); ++i) {
      remove(ctx.argv[i]);
      out.add(confirmation(kind, &ctx.argv[i], s));
    }
    return out.take();
  }
  std::vector<std::string> names =
      kPattern ? SessionAccess::patterns(s) : SessionAccess::channels(s);
  if (names.empty()) return confirmation(kind, nullptr, s);
  for (const std::string& name : names) {
    remove(name);
    out.add(confirmation(kind, &name, s));
  }
  return out.take();
}

Reply unsubscribe(CommandContext& ctx) { return unsubscribe_generic<false>(ctx); }
Reply punsubscribe(CommandContext& ctx) { return unsubscribe_generic<true>(ctx); }

Reply publish(CommandContext& ctx) {
  return Reply::integer(ctx.server.pubsub().publish(ctx.argv[1], ctx.argv[2]));
}

}  // namespace

void register_pubsub_commands(CommandTable& table) {
  table.add({"publish", 3, kCmdMayReplicate | kCmdFast, &publish});
  table.add({"subscribe", -2, kCmdPubSub | kCmdNoScript, &subscribe});
  table.add({"unsubscribe", -1, kCmdPubSub | kCmdNoScript, &unsubscribe});
  table.add({"psubscribe", -2, kCmdPubSub | kCmdNoScript, &psubscribe});
  table.add({"punsubscribe", -1, kCmdPubSub | kCmdNoScript, &punsubscribe});
}

}  // namespace redsim::sim
