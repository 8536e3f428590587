// The blocking list and sorted-set commands and their multi-key pops:
// BLPOP BRPOP BLMOVE BRPOPLPUSH LMPOP BLMPOP BZPOPMIN BZPOPMAX ZMPOP BZMPOP.
// A blocking one that finds nothing blocks the client (sim/blocking.h) or,
// inside MULTI or a script, answers its timeout reply at once. Argument
// checks in Redis 7.0's order (BLMOVE: directions before the timeout;
// BLMPOP: numkeys, keys, direction and COUNT before the timeout), texts
// verified against redis-server 7.0.15. Sources: Redis 7.0 src/t_list.c
// (blockingPopGenericCommand, blmoveGenericCommand, lmpopGenericCommand)
// and src/t_zset.c (blockingGenericZpopCommand, zmpopGenericCommand); facts
// only.
#include <string>
#include <vector>

#include "sim/args.h"
#include "sim/blocking.h"
#include "sim/cmd_util.h"

namespace redsim::sim {

using resp::Reply;

namespace {

Reply score_double(double d) { return Reply::double_text(format_double(d)); }

// Pops up to `count` members of the sorted set at `key` (present,
// non-empty): the lowest scores (min) or the highest.
std::vector<Zset::Item> pop_zset(CommandContext& ctx, const std::string& key, Zset& z, bool max,
                                 int64_t count) {
  std::vector<Zset::Item> out;
  size_t k = std::min(static_cast<size_t>(count), z.size());
  for (size_t i = 0; i < k; ++i) out.push_back(z.at(max ? z.size() - 1 - i : i));
  if (max) {
    z.erase_ranks(z.size() - k, z.size());
  } else {
    z.erase_ranks(0, k);
  }
  ctx.add_dirty(static_cast<int64_t>(k));  // genericZpopCommand: one per member
  bool empty = z.empty();
  finish_write(current_db(ctx), key, empty);
  notify_keyspace_event(ctx, notify::kZset, max ? "zpopmax" : "zpopmin", key);
  if (empty) notify_keyspace_event(ctx, notify::kGeneric, "del", key);
  return out;
}

// The end shared by BLPOP, BRPOP, BZPOPMIN, BZPOPMAX, BLMPOP, BZMPOP (and
// LMPOP, ZMPOP, which never block): the reply of `pop(key, entry)` for the
// first of `keys` that holds a `type` (WRONGTYPE when one before it holds
// another type); when none does, blocks on them all until `deadline_ms`
// (when `blocking`, see block_or_reply) or answers a null array.
template <class Pop>
Reply pop_first_or_block(CommandContext& ctx, const std::vector<std::string>& keys, ValueType type,
                         bool blocking, std::optional<int64_t> deadline_ms, Pop pop) {
  for (const std::string& key : keys) {
    bool wrong = false;
    Entry* e = lookup_typed(ctx, key, type, &wrong);
    if (wrong) return errors::wrong_type();
    if (e != nullptr) return pop(key, *e);
  }
  if (!blocking) return Reply::nil_array();
  return block_or_reply(ctx, keys, deadline_ms, Reply::nil_array(), ctx.argv, type);
}

// BLPOP / BRPOP / BZPOPMIN / BZPOPMAX key [key ...] timeout: the timeout
// first, then pop_first_or_block over the keys.
template <class Pop>
Reply blocking_pop_generic(CommandContext& ctx, ValueType type, Pop pop) {
  const Argv& argv = ctx.argv;
  std::optional<int64_t> deadline;
  Reply error;
  if (!parse_block_timeout(ctx, argv.back(), true, &deadline, &error)) return error;
  const std::vector<std::string> keys(argv.begin() + 1, argv.end() - 1);
  return pop_first_or_block(ctx, keys, type, /*blocking=*/true, deadline, pop);
}

// BLPOP / BRPOP: [key, element] from the first non-empty list.
Reply blocking_pop(CommandContext& ctx, ListEnd end) {
  return blocking_pop_generic(ctx, ValueType::kList, [&](const std::string& key, Entry& e) {
    std::vector<std::string> v = pop_list(ctx, key, e.list(), end, 1);
    return Reply::array({Reply::bulk(key), Reply::bulk(std::move(v[0]))});
  });
}

Reply blpop(CommandContext& ctx) { return blocking_pop(ctx, ListEnd::kHead); }
Reply brpop(CommandContext& ctx) { return blocking_pop(ctx, ListEnd::kTail); }

// BLMOVE / BRPOPLPUSH once the directions are read: the timeout, then
// LMOVE's move (list_move) when the source holds a list, else a block on
// the source (Redis 7.0 t_list.c blmoveGenericCommand).
Reply blmove_generic(CommandContext& ctx, ListEnd wherefrom, ListEnd whereto,
                     std::string_view timeout) {
  std::optional<int64_t> deadline;
  Reply error;
  if (!parse_block_timeout(ctx, timeout, true, &deadline, &error)) return error;
  const std::string& src = ctx.argv[1];
  bool wrong = false;
  Entry* e = lookup_typed(ctx, src, ValueType::kList, &wrong);
  if (wrong) return errors::wrong_type();
  if (e != nullptr) return list_move(ctx, src, e->list(), ctx.argv[2], wherefrom, whereto);
  // Timed out, Redis answers a null array (replyToBlockedClientTimedOut);
  // where it may not block (MULTI), a null bulk.
  Reply timeout_reply = may_block(ctx) ? Reply::nil_array() : Reply::nil();
  return block_or_reply(ctx, {src}, deadline, std::move(timeout_reply), ctx.argv, ValueType::kList);
}

// BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout
Reply blmove(CommandContext& ctx) {
  ListEnd from = ListEnd::kHead;
  ListEnd to = ListEnd::kHead;
  if (!parse_list_end(ctx.argv[3], &from) || !parse_list_end(ctx.argv[4], &to)) {
    return errors::syntax();
  }
  return blmove_generic(ctx, from, to, ctx.argv[5]);
}

// BRPOPLPUSH source destination timeout: BLMOVE ... RIGHT LEFT.
Reply brpoplpush(CommandContext& ctx) {
  return blmove_generic(ctx, ListEnd::kTail, ListEnd::kHead, ctx.argv[3]);
}

// The common part of LMPOP / BLMPOP / ZMPOP / BZMPOP from argv[first]:
// numkeys key [key ...] <where> [COUNT count].
struct MpopArgs {
  std::vector<std::string> keys;
  bool second_where = false;  // RIGHT / MAX
  int64_t count = 1;
};

bool parse_mpop(const Argv& argv, size_t first, std::string_view where1, std::string_view where2,
                MpopArgs* out, Reply* error) {
  int64_t numkeys = 0;
  if (!parse_int64(argv[first], &numkeys) || numkeys <= 0) {
    *error = Reply::error("ERR numkeys should be greater than 0");
    return false;
  }
  if (numkeys > static_cast<int64_t>(argv.size() - first - 2)) {
    *error = errors::syntax();
    return false;
  }
  size_t i = first + 1;
  for (int64_t k = 0; k < numkeys; ++k) out->keys.push_back(argv[i++]);
  if (equals_ci(argv[i], where1)) {
    out->second_where = false;
  } else if (equals_ci(argv[i], where2)) {
    out->second_where = true;
  } else {
    *error = errors::syntax();
    return false;
  }
  ++i;
  bool has_count = false;
  while (i < argv.size()) {
    if (equals_ci(argv[i], "count") && i + 1 < argv.size() && !has_count) {
      if (!parse_int64(argv[i + 1], &out->count) || out->count <= 0) {
        *error = Reply::error("ERR count should be greater than 0");
        return false;
      }
      has_count = true;
      i += 2;
    } else {
      *error = errors::syntax();
      return false;
    }
  }
  return true;
}

// LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count] (first = 1), and
// BLMPOP timeout numkeys ... (first = 2): [key, [elements]].
Reply mpop_list(CommandContext& ctx, bool blocking) {
  const size_t first = blocking ? 2 : 1;
  MpopArgs args;
  Reply error;
  if (!parse_mpop(ctx.argv, first, "left", "right", &args, &error)) return error;
  std::optional<int64_t> deadline;
  if (blocking && !parse_block_timeout(ctx, ctx.argv[1], true, &deadline, &error)) return error;
  const ListEnd end = args.second_where ? ListEnd::kTail : ListEnd::kHead;
  return pop_first_or_block(
      ctx, args.keys, ValueType::kList, blocking, deadline, [&](const std::string& key, Entry& e) {
        std::vector<Reply> items;
        for (std::string& v : pop_list(ctx, key, e.list(), end, args.count)) {
          items.push_back(Reply::bulk(std::move(v)));
        }
        return Reply::array({Reply::bulk(key), Reply::array(std::move(items))});
      });
}

Reply lmpop(CommandContext& ctx) { return mpop_list(ctx, false); }
Reply blmpop(CommandContext& ctx) { return mpop_list(ctx, true); }

// BZPOPMIN / BZPOPMAX key [key ...] timeout: [key, member, score].
Reply blocking_zpop(CommandContext& ctx, bool max) {
  return blocking_pop_generic(ctx, ValueType::kZset, [&](const std::string& key, Entry& e) {
    std::vector<Zset::Item> items = pop_zset(ctx, key, e.zset(), max, 1);
    return Reply::array(
        {Reply::bulk(key), Reply::bulk(std::move(items[0].member)), score_double(items[0].score)});
  });
}

Reply bzpopmin(CommandContext& ctx) { return blocking_zpop(ctx, false); }
Reply bzpopmax(CommandContext& ctx) { return blocking_zpop(ctx, true); }

// ZMPOP numkeys key [key ...] MIN|MAX [COUNT count] and BZMPOP timeout ...:
// [key, [[member, score], ...]].
Reply mpop_zset(CommandContext& ctx, bool blocking) {
  const size_t first = blocking ? 2 : 1;
  MpopArgs args;
  Reply error;
  if (!parse_mpop(ctx.argv, first, "min", "max", &args, &error)) return error;
  std::optional<int64_t> deadline;
  if (blocking && !parse_block_timeout(ctx, ctx.argv[1], true, &deadline, &error)) return error;
  return pop_first_or_block(
      ctx, args.keys, ValueType::kZset, blocking, deadline, [&](const std::string& key, Entry& e) {
        std::vector<Reply> items;
        for (Zset::Item& item : pop_zset(ctx, key, e.zset(), args.second_where, args.count)) {
          items.push_back(
              Reply::array({Reply::bulk(std::move(item.member)), score_double(item.score)}));
        }
        return Reply::array({Reply::bulk(key), Reply::array(std::move(items))});
      });
}

Reply zmpop(CommandContext& ctx) { return mpop_zset(ctx, false); }
Reply bzmpop(CommandContext& ctx) { return mpop_zset(ctx, true); }

}  // namespace

void register_blocking_commands(CommandTable& table) {
  // Redis 7.0 flags them "noscript" (7.2 lets scripts run them without
  // blocking): a script gets "This Redis command is not allowed from script".
  constexpr uint32_t kBlockingWrite = kCmdWrite | kCmdNoScript;  // and "blocking"
  table.add({"blpop", -3, kBlockingWrite, &blpop});
  table.add({"brpop", -3, kBlockingWrite, &brpop});
  table.add({"blmove", 6, kBlockingWrite | kCmdDenyOom, &blmove});
  table.add({"brpoplpush", 4, kBlockingWrite | kCmdDenyOom, &brpoplpush});
  table.add({"lmpop", -4, kCmdWrite, &lmpop});
  table.add({"blmpop", -5, kBlockingWrite, &blmpop});
  table.add({"bzpopmin", -3, kBlockingWrite | kCmdFast, &bzpopmin});
  table.add({"bzpopmax", -3, kBlockingWrite | kCmdFast, &bzpopmax});
  table.add({"zmpop", -4, kCmdWrite, &zmpop});
  table.add({"bzmpop", -5, kBlockingWrite, &bzmpop});
}

}  // namespace redsim::sim
