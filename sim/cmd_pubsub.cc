// Pub/sub commands: PUBLISH SUBSCRIBE UNSUBSCRIBE PSUBSCRIBE PUNSUBSCRIBE,
// the shard channel ones SPUBLISH SSUBSCRIBE SUNSUBSCRIBE, and PUBSUB
// CHANNELS/NUMSUB/NUMPAT/SHARDCHANNELS/SHARDNUMSUB/HELP.
// A command with several confirmations returns the first and pushes the
// rest to the session, in order (see Server::execute). Reply shapes as
// Redis 7.0.15 in RESP2: ["subscribe", channel, count] where count is the
// session's channels plus patterns after the step; for the shard commands,
// ["ssubscribe", channel, count] where count is the session's shard
// channels only (Redis 7.0.15's clientShardSubscriptionsCount).
#include <optional>
#include <string>

#include "sim/args.h"
#include "sim/cmd_admin.h"
#include "sim/internal.h"
#include "sim/pubsub.h"

namespace redsim::sim {

using resp::Reply;

void drop_subscriptions(Session& s) {
  ServerAccess::pubsub(SessionAccess::server(s)).remove_session(s);
}

namespace {

enum class Kind { kChannel, kPattern, kShard };

Reply confirmation(std::string_view kind, const std::string* name, const Session& s,
                   bool shard = false) {
  // A push in RESP3 (addReplyPubsubSubscribed's addReplyPushLen).
  size_t count = shard ? s.shard_subscription_count() : s.subscription_count();
  return Reply::push({Reply::bulk(std::string(kind)), name ? Reply::bulk(*name) : Reply::nil(),
                      Reply::integer(static_cast<int64_t>(count))});
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

// SUBSCRIBE / PSUBSCRIBE / SSUBSCRIBE: one confirmation per name, in order.
template <Kind kKind>
Reply subscribe_generic(CommandContext& ctx) {
  PubSub& ps = ServerAccess::pubsub(ctx.server);
  Session& s = ctx.session;
  constexpr std::string_view kind = kKind == Kind::kPattern ? "psubscribe"
                                    : kKind == Kind::kShard ? "ssubscribe"
                                                            : "subscribe";
  Confirmations out(s);
  for (size_t i = 1; i < ctx.argv.size(); ++i) {
    if constexpr (kKind == Kind::kPattern) {
      ps.psubscribe(s, ctx.argv[i]);
    } else if constexpr (kKind == Kind::kShard) {
      ps.ssubscribe(s, ctx.argv[i]);
    } else {
      ps.subscribe(s, ctx.argv[i]);
    }
    out.add(confirmation(kind, &ctx.argv[i], s, kKind == Kind::kShard));
  }
  return out.take();
}

Reply subscribe(CommandContext& ctx) { return subscribe_generic<Kind::kChannel>(ctx); }
Reply psubscribe(CommandContext& ctx) { return subscribe_generic<Kind::kPattern>(ctx); }
Reply ssubscribe(CommandContext& ctx) { return subscribe_generic<Kind::kShard>(ctx); }

// UNSUBSCRIBE / PUNSUBSCRIBE / SUNSUBSCRIBE: with no names, every
// subscription of that kind in subscription order (Redis: hash order), or
// one [kind, nil, count] when there is none.
template <Kind kKind>
Reply unsubscribe_generic(CommandContext& ctx) {
  PubSub& ps = ServerAccess::pubsub(ctx.server);
  Session& s = ctx.session;
  constexpr bool kShard = kKind == Kind::kShard;
  constexpr std::string_view kind = kKind == Kind::kPattern ? "punsubscribe"
                                    : kShard                ? "sunsubscribe"
                                                            : "unsubscribe";
  auto remove = [&](const std::string& name) {
    if constexpr (kKind == Kind::kPattern) {
      ps.punsubscribe(s, name);
    } else if constexpr (kShard) {
      ps.sunsubscribe(s, name);
    } else {
      ps.unsubscribe(s, name);
    }
  };
  Confirmations out(s);
  if (ctx.argv.size() > 1) {
    for (size_t i = 1; i < ctx.argv.size(); ++i) {
      remove(ctx.argv[i]);
      out.add(confirmation(kind, &ctx.argv[i], s, kShard));
    }
    return out.take();
  }
  std::vector<std::string> names = kKind == Kind::kPattern ? SessionAccess::patterns(s)
                                   : kShard                ? SessionAccess::shard_channels(s)
                                                           : SessionAccess::channels(s);
  if (names.empty()) return confirmation(kind, nullptr, s, kShard);
  for (const std::string& name : names) {
    remove(name);
    out.add(confirmation(kind, &name, s, kShard));
  }
  return out.take();
}

Reply unsubscribe(CommandContext& ctx) { return unsubscribe_generic<Kind::kChannel>(ctx); }
Reply punsubscribe(CommandContext& ctx) { return unsubscribe_generic<Kind::kPattern>(ctx); }
Reply sunsubscribe(CommandContext& ctx) { return unsubscribe_generic<Kind::kShard>(ctx); }

Reply publish(CommandContext& ctx) {
  return Reply::integer(ServerAccess::pubsub(ctx.server).publish(ctx.argv[1], ctx.argv[2]));
}

Reply spublish(CommandContext& ctx) {
  return Reply::integer(ServerAccess::pubsub(ctx.server).spublish(ctx.argv[1], ctx.argv[2]));
}

// PUBSUB <subcommand>, as Redis 7.0.15's pubsubCommand: the subcommand
// arities of kPubsubSubcommands (a wrong one is "pubsub|<sub>"'s arity
// error), CHANNELS/SHARDCHANNELS with more than one pattern refused with
// addReplySubcommandSyntaxError's text. NUMSUB/SHARDNUMSUB answer a flat
// array [channel, count, ...] in RESP3 too.
Reply pubsub(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  const PubSub& ps = ServerAccess::pubsub(ctx.server);
  const std::string& sub = argv[1];
  if (equals_ci(sub, "help")) {
    if (argv.size() != 2) return admin::sub_arity("pubsub", sub);
    return help_reply(
        "PUBSUB",
        {"CHANNELS [<pattern>]",
         "    Return the currently active channels matching a <pattern> (default: '*').", "NUMPAT",
         "    Return number of subscriptions to patterns.", "NUMSUB [<channel> ...]",
         "    Return the number of subscribers for the specified channels, excluding",
         "    pattern subscriptions(default: no channels).", "SHARDCHANNELS [<pattern>]",
         "    Return the currently active shard level channels matching a <pattern> (default: "
         "'*').",
         "SHARDNUMSUB [<shardchannel> ...]",
         "    Return the number of subscribers for the specified shard level channel(s)"});
  }
  bool shard_channels = equals_ci(sub, "shardchannels");
  if (equals_ci(sub, "channels") || shard_channels) {
    if (argv.size() > 3) {
      return Reply::error(one_line("ERR unknown subcommand or wrong number of arguments for '" +
                                   sub.substr(0, 128) + "'. Try PUBSUB HELP."));
    }
    std::vector<Reply> out;
    for (std::string& name : ps.channels(argv.size() == 3 ? &argv[2] : nullptr, shard_channels)) {
      out.push_back(Reply::bulk(std::move(name)));
    }
    return Reply::array(std::move(out));
  }
  bool shard_numsub = equals_ci(sub, "shardnumsub");
  if (equals_ci(sub, "numsub") || shard_numsub) {
    std::vector<Reply> out;
    for (size_t i = 2; i < argv.size(); ++i) {
      out.push_back(Reply::bulk(argv[i]));
      out.push_back(Reply::integer(ps.subscribers(argv[i], shard_numsub)));
    }
    return Reply::array(std::move(out));
  }
  if (equals_ci(sub, "numpat")) {
    if (argv.size() != 2) return admin::sub_arity("pubsub", sub);
    return Reply::integer(static_cast<int64_t>(ps.distinct_pattern_count()));
  }
  return admin::unknown_subcommand(sub, "PUBSUB");
}

// Redis 7.0.15's PUBSUB subcommands (COMMAND INFO pubsub).
constexpr SubcommandSpec kPubsubSubcommands[] = {
    {"channels", -2, 0}, {"help", 2, 0},           {"numpat", 2, 0},
    {"numsub", -2, 0},   {"shardchannels", -2, 0}, {"shardnumsub", -2, 0},
};

}  // namespace

void register_pubsub_commands(CommandTable& table) {
  table.add({"publish", 3, kCmdMayReplicate | kCmdFast, &publish});
  table.add({"subscribe", -2, kCmdPubSub | kCmdNoScript, &subscribe});
  table.add({"unsubscribe", -1, kCmdPubSub | kCmdNoScript, &unsubscribe});
  table.add({"psubscribe", -2, kCmdPubSub | kCmdNoScript, &psubscribe});
  table.add({"punsubscribe", -1, kCmdPubSub | kCmdNoScript, &punsubscribe});
  table.add({"spublish", 3, kCmdMayReplicate | kCmdFast, &spublish});
  table.add({"ssubscribe", -2, kCmdPubSub | kCmdNoScript, &ssubscribe});
  table.add({"sunsubscribe", -1, kCmdPubSub | kCmdNoScript, &sunsubscribe});
  table.add({"pubsub", -2, kCmdContainer, &pubsub});
  table.add_subcommands("pubsub", kPubsubSubcommands);
}

}  // namespace redsim::sim
