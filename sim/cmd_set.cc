// Set commands: SADD SREM SISMEMBER SMISMEMBER SMEMBERS SCARD SPOP SRANDMEMBER
// SSCAN. Random choices come from the server's seeded stream
// (Server::random_below), so a seed replays them. A set whose last member
// goes is deleted. Source: Redis 7.0 command docs and src/t_set.c
// behaviour, texts verified against redis-server 7.0.15.
#include <limits>
#include <numeric>
#include <string>

#include "sim/args.h"
#include "sim/cmd_util.h"
#include "sim/glob.h"

namespace redsim::sim {

using resp::Reply;

namespace {

constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
// Larger replies than this are refused instead of exhausting memory (Redis
// would try to build them and stall the server).
constexpr uint64_t kMaxRandomReply = uint64_t{1} << 26;

Set* read_set(CommandContext& ctx, bool* wrong) {
  Entry* e = lookup_typed(ctx, ctx.argv[1], ValueType::kSet, wrong);
  return e == nullptr ? nullptr : &e->set();
}

Reply sadd(CommandContext& ctx) {
  Db& db = current_db(ctx);
  bool wrong = false;
  Set* s = read_set(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  if (s == nullptr) s = &db.add(ctx.argv[1], Set()).set();
  int64_t added = 0;
  for (size_t i = 2; i < ctx.argv.size(); ++i) {
    if (s->add(ctx.argv[i])) ++added;
  }
  if (added > 0) {
    db.touch(ctx.argv[1]);
    notify_keyspace_event(ctx, notify::kSet, "sadd", ctx.argv[1]);
  }
  return Reply::integer(added);
}

Reply srem(CommandContext& ctx) {
  bool wrong = false;
  Set* s = read_set(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  return remove_members(ctx, s, notify::kSet, "srem");
}

Reply sismember(CommandContext& ctx) {
  bool wrong = false;
  Set* s = read_set(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  return Reply::integer(s != nullptr && s->contains(ctx.argv[2]) ? 1 : 0);
}

Reply smismember(CommandContext& ctx) {
  bool wrong = false;
  Set* s = read_set(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  std::vector<Reply> out;
  for (size_t i = 2; i < ctx.argv.size(); ++i) {
    out.push_back(Reply::integer(s != nullptr && s->contains(ctx.argv[i]) ? 1 : 0));
  }
  return Reply::array(std::move(out));
}

Reply members_reply(const Set& s) {
  std::vector<Reply> out;
  out.reserve(s.size());
  for (const std::string& m : s.members()) out.push_back(Reply::bulk(m));
  return Reply::array(std::move(out));
}

// SMEMBERS is a set in RESP3 (addReplySetLen; an empty set for a missing key).
Reply smembers(CommandContext& ctx) {
  bool wrong = false;
  Set* s = read_set(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  if (s == nullptr) return Reply::set({});
  Reply members = members_reply(*s);
  return Reply::set(std::move(members.elements()));
}

Reply scard(CommandContext& ctx) {
  bool wrong = false;
  Set* s = read_set(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  return Reply::integer(s == nullptr ? 0 : static_cast<int64_t>(s->size()));
}

// `k` distinct positions of [0, n), drawn uniformly (a partial Fisher-Yates).
std::vector<size_t> distinct_positions(Server& server, size_t n, size_t k) {
  std::vector<size_t> pos(n);
  std::iota(pos.begin(), pos.end(), size_t{0});
  for (size_t i = 0; i < k; ++i) {
    size_t j = i + static_cast<size_t>(server.random_below(n - i));
    std::swap(pos[i], pos[j]);
  }
  pos.resize(k);
  return pos;
}

// SPOP key [count]: without a count one random member (nil when absent);
// with one an array. A count at least the size pops everything, in
// SMEMBERS order, and deletes the key.
Reply spop(CommandContext& ctx) {
  if (ctx.argv.size() > 3) return errors::syntax();
  bool has_count = ctx.argv.size() == 3;
  int64_t count = 1;
  if (has_count && (!parse_int64(ctx.argv[2], &count) || count < 0)) {
    return Reply::error("ERR value is out of range, must be positive");
  }
  bool wrong = false;
  Set* s = read_set(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  if (s == nullptr) return has_count ? Reply::array({}) : Reply::nil();
  if (has_count && count == 0) return Reply::array({});
  Db& db = current_db(ctx);
  const std::string key = ctx.argv[1];
  if (!has_count) {
    std::string m = s->at(static_cast<size_t>(ctx.server.random_below(s->size())));
    s->erase(m);
    finish_write(db, key, s->empty());
    return Reply::bulk(std::move(m));
  }
  if (static_cast<uint64_t>(count) >= s->size()) {
    Reply all = members_reply(*s);
    db.remove(key);
    return all;
  }
  std::vector<size_t> picks = distinct_positions(ctx.server, s->size(), static_cast<size_t>(count));
  std::vector<std::string> popped;
  popped.reserve(picks.size());
  for (size_t p : picks) popped.push_back(s->at(p));
  std::vector<Reply> out;
  out.reserve(popped.size());
  for (std::string& m : popped) {
    s->erase(m);
    out.push_back(Reply::bulk(std::move(m)));
  }
  finish_write(db, key, s->empty());
  return Reply::array(std::move(out));
}

// SRANDMEMBER key [count]: a positive count gives distinct members (the
// whole set, in SMEMBERS order, when count >= size); a negative one |count|
// independent draws.
Reply srandmember(CommandContext& ctx) {
  if (ctx.argv.size() > 3) return errors::syntax();
  bool has_count = ctx.argv.size() == 3;
  int64_t count = 1;
  if (has_count) {
    if (!parse_int64(ctx.argv[2], &count)) return errors::not_integer();
    if (count == kInt64Min) {
      return Reply::error(
          "ERR value is out of range, value must between -9223372036854775807 and "
          "9223372036854775807");
    }
  }
  bool wrong = false;
  Set* s = read_set(ctx, &wrong);
  if (wrong) return errors::wrong_type();
  if (s == nullptr) return has_count ? Reply::array({}) : Reply::nil();
  if (!has_count)
    return Reply::bulk(s->at(static_cast<size_t>(ctx.server.random_below(s->size()))));
  if (count == 0) return Reply::array({});
  std::vector<Reply> out;
  if (count < 0) {
    uint64_t draws = static_cast<uint64_t>(-count);
    if (draws > kMaxRandomReply) return errors::not_integer();
    out.reserve(static_cast<size_t>(draws));
    for (uint64_t i = 0; i < draws; ++i) {
      out.push_back(Reply::bulk(s->at(static_cast<size_t>(ctx.server.random_below(s->size())))));
    }
    return Reply::array(std::move(out));
  }
  if (static_cast<uint64_t>(count) >= s->size()) return members_reply(*s);
  for (size_t p : distinct_positions(ctx.server, s->size(), static_cast<size_t>(count))) {
    out.push_back(Reply::bulk(s->at(p)));
  }
  return Reply::array(std::move(out));
}

// SSCAN key cursor [MATCH pattern] [COUNT count]: an intset answers whole
// in one call (cursor 0), as Redis does for its compact encodings.
Reply sscan(CommandContext& ctx) {
  return scan_collection(ctx, ValueType::kSet, [](Entry& e) {
    const Set& s = e.set();
    return ScanView{
        .size = s.size(),
        .whole = s.intset(),
        .name = [&s](size_t i) { return std::string_view(s.at(i)); },
        .emit = [&s](size_t i, std::vector<Reply>* out) { out->push_back(Reply::bulk(s.at(i))); },
    };
  });
}

}  // namespace

void register_set_commands(CommandTable& table) {
  table.add({"sadd", -3, kCmdWrite | kCmdDenyOom | kCmdFast, &sadd});
  table.add({"srem", -3, kCmdWrite | kCmdFast, &srem});
  table.add({"sismember", 3, kCmdReadonly | kCmdFast, &sismember});
  table.add({"smismember", -3, kCmdReadonly | kCmdFast, &smismember});
  table.add({"smembers", 2, kCmdReadonly, &smembers});
  table.add({"scard", 2, kCmdReadonly | kCmdFast, &scard});
  table.add({"spop", -2, kCmdWrite | kCmdFast, &spop});
  table.add({"srandmember", -2, kCmdReadonly, &srandmember});
  table.add({"sscan", -3, kCmdReadonly, &sscan});
}

}  // namespace redsim::sim
