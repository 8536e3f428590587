// Private to sim/: what the sorted-set command files share. cmd_zset.cc
// holds the single-key commands and registers the family;
// cmd_zset_algebra.cc holds the multi-key algebra (ZUNION ZINTER ZDIFF,
// their STORE forms, ZINTERCARD). Not part of the public API.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/internal.h"
#include "sim/resp/reply.h"

namespace redsim::sim {

// Members with their scores as Redis 7.0 sends a scored range: flat
// [member, score, ...] in RESP2; with WITHSCORES in RESP3 an array of
// [member, double] pairs (t_zset.c zrangeResultEmitCBufferForClient).
resp::Reply scored_reply(CommandContext& ctx, const std::vector<const Zset::Item*>& items,
                         bool withscores);

// The end of ZRANGESTORE, ZUNIONSTORE, ...: `items` (copied first: they
// may live in the destination) replace `dst` (and its TTL) and `event` is
// notified; an empty result deletes `dst` ("del"). The reply: the count.
resp::Reply store_zset(CommandContext& ctx, const std::string& dst,
                       const std::vector<const Zset::Item*>& items, std::string_view event);

// The algebra's handlers (cmd_zset_algebra.cc); register_zset_commands
// registers them.
resp::Reply zunion(CommandContext& ctx);
resp::Reply zinter(CommandContext& ctx);
resp::Reply zdiff(CommandContext& ctx);
resp::Reply zunionstore(CommandContext& ctx);
resp::Reply zinterstore(CommandContext& ctx);
resp::Reply zdiffstore(CommandContext& ctx);
resp::Reply zintercard(CommandContext& ctx);

}  // namespace redsim::sim
